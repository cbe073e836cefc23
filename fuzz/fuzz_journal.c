/*
 * fuzz_journal: a part file's journal ".<name>.journal", as recovery reads
 * it back from the spool after a crash (anything may have been cut or
 * damaged), then the sidecar written from it.  The first byte picks the
 * reading, the rest is the journal:
 *
 *   bits 0-2  upto, the checkpoint to read up to: 0..6, 7 for UINT64_MAX
 *   bit 3     the file's table: 0 "access", 1 the rejects table
 *   bit 4     its format and codec: 0 hive-text gzip, 1 jsonl none
 *
 * journal_read() fails only with -EINVAL and a reason; what it reads is
 * the input, and its mark (when found) is a whole "m ID LEN ROWS" line,
 * ID <= upto, ending the journal_len bytes kept, with LEN and ROWS as
 * read.  journal_write_sidecar() of it refuses with a reason, or writes a
 * sidecar that sidecar_parse() reads, with the rows and bytes of the mark
 * and the descriptive fields it was given.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "fuzzkit.h"
#include "journal.h"
#include "rejects.h"
#include "sidecar.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_path[64];        /* the journal: the memfd */
static char fuzz_dir[64];         /* where the sidecar is written */
static char fuzz_sidecar[128];

static const char fuzz_sha[] =
    "8df37d9ffa266019129991fdaf07b1dd3f3bd99199361e46cb3f14539ef0cea2";

static void
fuzz_cleanup(void)
{
	unlink(fuzz_sidecar);
	rmdir(fuzz_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((fuzz_fd = memfd_create("kedge-fuzz.journal", MFD_CLOEXEC)) < 0)
		fuzzkit_die("memfd_create", "%s", strerror(errno));
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
	/* a tmpfs, where the sidecar's fsyncs cost nothing, when there is one */
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/kedge-fuzz-journal.XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL)
		fuzzkit_die("mkdtemp", "%s: %s", fuzz_dir, strerror(errno));
	snprintf(fuzz_sidecar, sizeof(fuzz_sidecar), "%s/.t+0+0+h.txt.json",
	    fuzz_dir);
	atexit(fuzz_cleanup);
	return 0;
}

static void
fuzz_write(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t w;

	if (ftruncate(fuzz_fd, 0) != 0)
		fuzzkit_die("ftruncate", "%s", strerror(errno));
	while (off < size) {
		if ((w = pwrite(fuzz_fd, data + off, size - off,
		    (off_t)off)) <= 0)
			fuzzkit_die("pwrite", "%s", strerror(errno));
		off += (size_t)w;
	}
}

/* Checks that the journal_len bytes kept end with the mark st says. */
static void
fuzz_check_mark(const struct journal_state *st, uint64_t upto)
{
	const char *text = st->text.data, *line, *p;
	char tail[64];
	uint64_t id = 0;
	size_t n, t;

	if (!st->found) {
		if (st->journal_len != 0 || st->len != 0 || st->rows != 0)
			fuzzkit_die("journal_read", "no mark, yet %" PRIu64
			    " journal bytes, %" PRIu64 " bytes, %" PRIu64
			    " rows", st->journal_len, st->len, st->rows);
		return;
	}
	if (st->journal_len == 0 || st->journal_len > st->text.len ||
	    text[st->journal_len - 1] != '\n')
		fuzzkit_die("journal_read", "a mark ending at %" PRIu64 " of %zu "
		    "bytes, not after a newline", st->journal_len, st->text.len);
	n = (size_t)st->journal_len - 1;
	line = memrchr(text, '\n', n);
	line = line == NULL ? text : line + 1;
	n -= (size_t)(line - text);
	t = (size_t)snprintf(tail, sizeof(tail), " %" PRIu64 " %" PRIu64,
	    st->len, st->rows);
	if (n < 2 + t || line[0] != 'm' || line[1] != ' ' ||
	    memcmp(line + n - t, tail, t) != 0)
		fuzzkit_die("journal_read", "kept \"%.*s\" as the mark of %"
		    PRIu64 " bytes, %" PRIu64 " rows", (int)n, line, st->len,
		    st->rows);
	for (p = line + 2; p < line + n - t; p++) {
		if (*p < '0' || *p > '9')
			fuzzkit_die("journal_read", "a mark id \"%.*s\"",
			    (int)(n - t - 2), line + 2);
		id = id * 10 + (uint64_t)(*p - '0');   /* wraps only past upto */
	}
	if (p == line + 2 || (upto != UINT64_MAX && id > upto))
		fuzzkit_die("journal_read", "kept mark %.*s, reading up to %"
		    PRIu64, (int)n, line, upto);
}

/* Reads the sidecar written and checks it against st and info. */
static void
fuzz_check_sidecar(const struct journal_state *st,
    const struct journal_file_info *info)
{
	struct sidecar sc = { 0 };
	struct buf text = { 0 };
	char err[512] = "";
	int r;

	if ((r = fs_read_all(fuzz_sidecar, &text)) < 0)
		fuzzkit_die("journal_write_sidecar", "wrote no sidecar: %s",
		    strerror(-r));
	if (sidecar_parse(text.data, text.len, &sc, err, sizeof(err)) != 0)
		fuzzkit_die("journal_write_sidecar", "wrote a sidecar that "
		    "sidecar_parse() refuses: %s: %.*s", err, (int)text.len,
		    text.data);
	if ((uint64_t)sc.rows != st->rows || (uint64_t)sc.bytes != st->len)
		fuzzkit_die("journal_write_sidecar", "%" PRId64 " rows, %"
		    PRId64 " bytes for a mark of %" PRIu64 " rows, %" PRIu64
		    " bytes", sc.rows, sc.bytes, st->rows, st->len);
	if (strcmp(sc.table, info->table) != 0 ||
	    strcmp(sc.topic, info->topic) != 0 ||
	    strcmp(sc.host, info->host) != 0 ||
	    sc.partition != info->partition ||
	    sc.first_offset != info->first_offset ||
	    strcmp(sc.sha256, info->sha256) != 0)
		fuzzkit_die("journal_write_sidecar", "wrote other descriptive "
		    "fields: %.*s", (int)text.len, text.data);
	if (st->rows == 0 && sc.has_event_range)
		fuzzkit_die("journal_write_sidecar", "an event range for a file "
		    "of no row");
	sidecar_free(&sc);
	buf_free(&text);
	unlink(fuzz_sidecar);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_file_info info;
	struct journal_state st;
	char err[512];
	uint64_t upto;
	int r;

	if (size == 0)
		return 0;
	upto = (data[0] & 7) == 7 ? UINT64_MAX : (uint64_t)(data[0] & 7);
	info = (struct journal_file_info){ (data[0] & 8) ? REJECTS_TABLE :
	    "access", "nginx-access", 3, "edge01", 120000,
	    (data[0] & 16) ? "jsonl" : "hive-text",
	    (data[0] & 16) ? "none" : "gzip", fuzz_sha };
	fuzz_write(data + 1, size - 1);

	memset(err, 'x', sizeof(err));
	err[0] = '\0';
	r = journal_read(fuzz_path, upto, &st, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("journal_read", "err without its NUL");
	if (r != 0) {
		if (r != -EINVAL || err[0] == '\0')
			fuzzkit_die("journal_read", "failed (%d) without a "
			    "reason: %s", r, err);
		journal_state_free(&st);
		return 0;
	}
	if (st.text.len != size - 1 || (size > 1 &&
	    memcmp(st.text.data, data + 1, size - 1) != 0))
		fuzzkit_die("journal_read", "read %zu bytes of %zu",
		    st.text.len, size - 1);
	fuzz_check_mark(&st, upto);

	err[0] = '\0';
	r = journal_write_sidecar(&st, &info, fuzz_sidecar, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("journal_write_sidecar", "err without its NUL");
	if (r == 0)
		fuzz_check_sidecar(&st, &info);
	else if ((r != -EINVAL && r != -ERANGE && r != -EILSEQ &&
	    r != -ENOMEM) ||
	    err[0] == '\0')
		fuzzkit_die("journal_write_sidecar", "failed (%d) without a "
		    "reason: %s", r, err);
	else if (access(fuzz_sidecar, F_OK) == 0)
		fuzzkit_die("journal_write_sidecar", "failed (%s), yet wrote "
		    "the sidecar", err);
	journal_state_free(&st);
	return 0;
}
