/*
 * fuzz_spool: the names recovery finds in the spool, and the takeover
 * markers kedge reads from the target.  The first byte picks the reader
 * (its value % 2), the rest is its input:
 *
 *   0  a directory entry of <spool>/open/...: the bytes up to the first
 *      NUL, spool_name_parse(); a name it takes has a topic and a host
 *      without '+', a partition and first offset in range, a known format
 *      and codec, and is the name the writer (and `kedge verify`) makes of
 *      those parts, byte for byte
 *   1  a takeover marker _kedge/takeover/<host>/<topic>+<partition> (at
 *      most 64 bytes, as twopc_marker_read() reads it): twopc_marker_parse();
 *      it fails only with -EINVAL or -ERANGE, what it takes is an id of
 *      1..CKPT_ID_MAX that twopc's marker writer writes as the input (with
 *      its newline or without); escape_bytes() of the input, as the
 *      refusal quotes it, is NUL-terminated, fits and holds no control byte
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/twopc.h"
#include "agent/write/format.h"
#include "agent/write/spool.h"
#include "checkpoint/ckpt.h"
#include "fuzz/fuzzkit.h"
#include "lib/codec.h"
#include "lib/escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_name(const char *data, size_t size)
{
	char name[NAME_MAX + 64], back[NAME_MAX + 64];
	const char *nul = memchr(data, '\0', size);
	struct spool_name sn;
	enum format_kind fk;
	enum codec_kind ck;
	size_t n = nul ? (size_t)(nul - data) : size;
	int len;

	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	memset(&sn, 0, sizeof(sn));
	if (spool_name_parse(name, &sn) != 0)
		return;
	if (sn.topic[0] == '\0' || sn.host[0] == '\0' ||
	    strchr(sn.topic, '+') != NULL || strchr(sn.host, '+') != NULL)
		fuzzkit_die("spool_name_parse", "took %s: topic \"%s\", host "
		    "\"%s\"", name, sn.topic, sn.host);
	if (sn.partition < 0 || sn.first_offset < 0)
		fuzzkit_die("spool_name_parse", "took %s: partition %" PRId32
		    ", first offset %" PRId64, name, sn.partition,
		    sn.first_offset);
	if (sn.format == NULL || sn.codec == NULL ||
	    format_kind_parse(sn.format, &fk) != 0 ||
	    codec_kind_parse(sn.codec, &ck) != 0)
		fuzzkit_die("spool_name_parse", "took %s: format %s, codec %s",
		    name, sn.format ? sn.format : "(null)",
		    sn.codec ? sn.codec : "(null)");
	len = snprintf(back, sizeof(back), "%s+%" PRId32 "+%" PRId64 "+%s.%s%s%s",
	    sn.topic, sn.partition, sn.first_offset, sn.host,
	    format_kind_ext(fk), codec_kind_ext(ck),
	    sn.rows ? SPOOL_ROWS_EXT : "");
	if (len < 0 || (size_t)len >= sizeof(back) || strcmp(back, name) != 0)
		fuzzkit_die("spool_name_parse", "took %s, whose parts name "
		    "another file: %s", name, back);
}

static void
fuzz_marker(const char *data, size_t size)
{
	char shown[64], back[32];
	uint64_t id = 0;
	size_t n;
	int r;

	if (size > 64)
		size = 64;
	escape_bytes(data, size, shown, sizeof(shown));
	if (memchr(shown, '\0', sizeof(shown)) == NULL)
		fuzzkit_die("escape_bytes", "no NUL in what it wrote");
	for (const char *p = shown; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			fuzzkit_die("escape_bytes", "a control byte 0x%02x in "
			    "its rendering", (unsigned char)*p);
	r = twopc_marker_parse(data, size, &id);
	if (r != 0) {
		if (r != -EINVAL && r != -ERANGE)
			fuzzkit_die("twopc_marker_parse", "failed with %d", r);
		return;
	}
	if (id == 0 || id > CKPT_ID_MAX)
		fuzzkit_die("twopc_marker_parse", "took id %" PRIu64, id);
	n = (size_t)snprintf(back, sizeof(back), "%" PRIu64 "\n", id);
	if (!(size == n && memcmp(back, data, n) == 0) &&
	    !(size == n - 1 && memcmp(back, data, n - 1) == 0))
		fuzzkit_die("twopc_marker_parse", "took \"%s\" as %" PRIu64,
		    shown, id);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] % 2 == 0)
		fuzz_name((const char *)data + 1, size - 1);
	else
		fuzz_marker((const char *)data + 1, size - 1);
	return 0;
}
