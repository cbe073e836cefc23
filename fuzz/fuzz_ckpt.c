/*
 * fuzz_ckpt: what kedge reads back of its checkpoints, and the commit
 * metadata any client of the group can write.  The first byte picks the
 * reader (its value % 3), the rest is its input:
 *
 *   0  commit metadata: ckpt_metadata_parse(); what it takes must name a
 *      host ckpt_host_check() takes, and ckpt_metadata_format() of it must
 *      give the input back byte for byte
 *   1  a checkpoint record's text: ckpt_record_decode(); it fails only
 *      with -EINVAL and a reason, and what it reads, ckpt_record_encode()
 *      writes and ckpt_record_decode() reads back the same
 *   2  a store slot file: written as checkpoint.a of a store in a
 *      temporary directory, then ckpt_store_read(); a refusal gives a note
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/ckpt.h"
#include "checkpoint/store.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_metadata(const char *md, size_t len)
{
	char host[CKPT_HOST_MAX + 1], back[CKPT_HOST_MAX + 32];
	uint64_t id;
	int n;

	if (ckpt_metadata_parse(md, len, host, sizeof(host), &id) != 0)
		return;
	if (ckpt_host_check(host, strlen(host), NULL, 0) != 0)
		fuzzkit_die("ckpt_metadata_parse", "took a host that "
		    "ckpt_host_check() refuses");
	if (id == 0 || id > CKPT_ID_MAX)
		fuzzkit_die("ckpt_metadata_parse", "took id %" PRIu64, id);
	n = ckpt_metadata_format(host, id, back, sizeof(back));
	if (n < 0 || (size_t)n != len || memcmp(back, md, len) != 0)
		fuzzkit_die("ckpt_metadata_format", "did not give the metadata "
		    "back");
}

static void
fuzz_record(const char *text, size_t len)
{
	struct ckpt_record r = { 0 }, again = { 0 };
	struct buf once = { 0 };
	char err[256] = "";
	int rc;

	rc = ckpt_record_decode(text, len, &r, err, sizeof(err));
	if (rc != 0 && (rc != -EINVAL || err[0] == '\0'))
		fuzzkit_die("ckpt_record_decode", "failed (%d) without a "
		    "reason", rc);
	if (rc == 0) {
		if (ckpt_record_encode(&r, &once) != 0)
			fuzzkit_die("ckpt_record_encode", "refused what was read");
		if (ckpt_record_decode(once.data, once.len, &again, err,
		    sizeof(err)) != 0)
			fuzzkit_die("ckpt_record_decode", "refused what "
			    "ckpt_record_encode() wrote: %s", err);
		if (again.id != r.id || strcmp(again.host, r.host) != 0 ||
		    again.nparts != r.nparts)
			fuzzkit_die("ckpt_record_decode", "read back another "
			    "record");
		for (size_t i = 0; i < r.nparts; i++)
			if (strcmp(again.parts[i].topic, r.parts[i].topic) != 0 ||
			    again.parts[i].partition != r.parts[i].partition ||
			    again.parts[i].next != r.parts[i].next)
				fuzzkit_die("ckpt_record_decode", "read back "
				    "another partition");
	}
	ckpt_record_clear(&r);
	ckpt_record_clear(&again);
	buf_clear(&once);
}

static char fuzz_dir[64];

static void
fuzz_slot_cleanup(void)
{
	rmdir(fuzz_dir);
}

static void
fuzz_slot(const void *file, size_t len)
{
	char *dir = fuzz_dir;
	char path[128], note[1024] = "", err[256];
	struct buf payload = { 0 };
	struct ckpt_store *s;
	FILE *f;
	int rc;

	if (dir[0] == '\0') {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/kedge-fuzz-ckpt.XXXXXX");
		if (mkdtemp(fuzz_dir) == NULL)
			fuzzkit_die("mkdtemp", "%s", strerror(errno));
		atexit(fuzz_slot_cleanup);
	}
	snprintf(path, sizeof(path), "%s/checkpoint.a", dir);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(file, 1, len, f) != len || fclose(f) != 0)
		fuzzkit_die("fopen", "%s: %s", path, strerror(errno));
	if ((s = ckpt_store_open(dir, err, sizeof(err))) == NULL)
		fuzzkit_die("ckpt_store_open", "%s", err);
	rc = ckpt_store_read(s, &payload, NULL, note, sizeof(note));
	if (rc == -ENOENT && note[0] == '\0' && len > 0)
		fuzzkit_die("ckpt_store_read", "refused a slot without a note");
	if (rc != 0 && rc != -ENOENT)
		fuzzkit_die("ckpt_store_read", "failed (%d): %s", rc, note);
	if (rc == 0 && payload.len + 32 != len)
		fuzzkit_die("ckpt_store_read", "a payload of %zu bytes from a "
		    "%zu-byte file", payload.len, len);
	buf_clear(&payload);
	ckpt_store_close(s);
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_metadata((const char *)data + 1, size - 1);
		break;
	case 1:
		fuzz_record((const char *)data + 1, size - 1);
		break;
	default:
		fuzz_slot(data + 1, size - 1);
		break;
	}
	return 0;
}
