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
 * sidecar that sidecar_parse() reads, with the rows and bytes of the mark,
 * the descriptive fields it was given, and for each kind (each table of
 * the rejected) the union of the ranges of the lines kept, exactly: this
 * file's own sort and merge is the oracle.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/parse/rejects.h"
#include "agent/write/journal.h"
#include "agent/write/sidecar.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"
#include "lib/fsutil.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_dir[64];         /* the journal and the sidecar */
static char fuzz_path[128];       /* the journal, a regular file */
static char fuzz_sidecar[128];

static const char fuzz_crc32c[] = "e3069283";

static void
fuzz_cleanup(void)
{
	unlink(fuzz_sidecar);
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* a tmpfs, where the sidecar's fsyncs cost nothing, when there is one */
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/kedge-fuzz-journal.XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL)
		fuzzkit_die("mkdtemp", "%s: %s", fuzz_dir, strerror(errno));
	/* a regular file: the journal's reader opens nothing through a link,
	 * which /proc/self/fd/N of a memfd is */
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/.t+0+0+h.txt.journal",
	    fuzz_dir);
	if ((fuzz_fd = open(fuzz_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0)
		fuzzkit_die("open", "%s: %s", fuzz_path, strerror(errno));
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

/* The ranges of one kind (or one table's rejects) as the lines say. */
struct fuzz_kind {
	char kind;
	const char *table;           /* r: not NUL-terminated */
	size_t tablelen;
	struct sidecar_range *v;
	size_t n, cap;
};

#define FUZZ_KINDS_MAX 4096

struct fuzz_lines {
	struct fuzz_kind k[FUZZ_KINDS_MAX];
	size_t n;
};

static struct fuzz_lines fuzz_fl;  /* the oracle's, kept off the stack */

static int
fuzz_range_cmp(const void *x, const void *y)
{
	const struct sidecar_range *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* Collects the o, e, s and r lines of the journal_len bytes kept (every
 * whole line there is one journal_read() took).  Returns 0, or -1 when
 * there are more kinds and tables than the oracle holds. */
static int
fuzz_collect(const struct journal_state *st, struct fuzz_lines *fl)
{
	const char *p = st->text.data, *end = p;

	if (st->journal_len > 0)
		end += st->journal_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *table = NULL, *num = p + 2;
		char copy[64], *e;
		size_t tablelen = 0, i;
		struct fuzz_kind *k;
		int64_t a, b;

		if (nl == NULL)
			fuzzkit_die("journal_read", "kept a line without its "
			    "newline");
		if (*p == 'r') {
			table = p + 2;
			num = memchr(table, ' ', (size_t)(nl - table));
			tablelen = (size_t)(num - table);
			num++;
		}
		if (*p == 'm' || *p == 't' || (size_t)(nl - num) >= sizeof(copy)) {
			p = nl + 1;
			continue;
		}
		memcpy(copy, num, (size_t)(nl - num));
		copy[nl - num] = '\0';
		a = strtoll(copy, &e, 10);
		b = strtoll(e + 1, NULL, 10);
		for (i = 0; i < fl->n; i++)
			if (fl->k[i].kind == *p && fl->k[i].tablelen == tablelen &&
			    (tablelen == 0 ||
			    memcmp(fl->k[i].table, table, tablelen) == 0))
				break;
		if (i == fl->n) {
			if (fl->n == FUZZ_KINDS_MAX)
				return -1;
			fl->k[fl->n++] = (struct fuzz_kind){ *p, table, tablelen,
			    NULL, 0, 0 };
		}
		k = &fl->k[i];
		if (k->n == k->cap) {
			k->cap = k->cap ? 2 * k->cap : 8;
			if ((k->v = realloc(k->v, k->cap * sizeof(*k->v))) ==
			    NULL)
				fuzzkit_die("realloc", "out of memory");
		}
		k->v[k->n++] = (struct sidecar_range){ a, b };
		p = nl + 1;
	}
	for (size_t i = 0; i < fl->n; i++) {
		struct fuzz_kind *k = &fl->k[i];
		size_t n = 0;

		qsort(k->v, k->n, sizeof(k->v[0]), fuzz_range_cmp);
		for (size_t j = 1; j < k->n; j++) {
			if (k->v[j].first <= k->v[n].last ||
			    k->v[j].first - k->v[n].last == 1) {
				if (k->v[j].last > k->v[n].last)
					k->v[n].last = k->v[j].last;
			} else {
				k->v[++n] = k->v[j];
			}
		}
		k->n = k->n ? n + 1 : 0;
	}
	return 0;
}

static void
fuzz_lines_free(struct fuzz_lines *fl)
{
	for (size_t i = 0; i < fl->n; i++)
		free(fl->k[i].v);
	fl->n = 0;
}

/* Checks that the sidecar's ranges r are those of kind (and table) in fl:
 * none when fl has no line of it. */
static void
fuzz_check_ranges(const struct fuzz_lines *fl, char kind, const char *table,
    const struct sidecar_ranges *r)
{
	size_t len = table ? strlen(table) : 0;
	const struct fuzz_kind *k = NULL;

	for (size_t i = 0; i < fl->n && k == NULL; i++)
		if (fl->k[i].kind == kind && fl->k[i].tablelen == len &&
		    (len == 0 || memcmp(fl->k[i].table, table, len) == 0))
			k = &fl->k[i];
	if ((k ? k->n : 0) != r->n ||
	    (r->n > 0 && memcmp(k->v, r->v, r->n * sizeof(r->v[0])) != 0))
		fuzzkit_die("journal_write_sidecar", "%zu %c ranges%s%s where "
		    "the journal's lines give %zu", r->n, kind,
		    table ? " of table " : "", table ? table : "",
		    k ? k->n : 0);
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
	    strcmp(sc.crc32c, info->crc32c) != 0)
		fuzzkit_die("journal_write_sidecar", "wrote other descriptive "
		    "fields: %.*s", (int)text.len, text.data);
	if (st->rows == 0 && sc.has_event_range)
		fuzzkit_die("journal_write_sidecar", "an event range for a file "
		    "of no row");
	if (fuzz_collect(st, &fuzz_fl) == 0) {
		size_t tables = 0;

		fuzz_check_ranges(&fuzz_fl, 'o', NULL, &sc.offsets);
		fuzz_check_ranges(&fuzz_fl, 'e', NULL, &sc.empty);
		fuzz_check_ranges(&fuzz_fl, 's', NULL, &sc.spill);
		fuzz_check_ranges(&fuzz_fl, 'u', NULL, &sc.unread);
		for (size_t i = 0; i < sc.nrejected; i++)
			fuzz_check_ranges(&fuzz_fl, 'r', sc.rejected[i].table,
			    &sc.rejected[i].ranges);
		for (size_t i = 0; i < fuzz_fl.n; i++)
			tables += fuzz_fl.k[i].kind == 'r';
		if (tables != sc.nrejected)
			fuzzkit_die("journal_write_sidecar", "rejects of %zu "
			    "tables where the journal names %zu", sc.nrejected,
			    tables);
	}
	fuzz_lines_free(&fuzz_fl);
	sidecar_clear(&sc);
	buf_clear(&text);
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
	    (data[0] & 16) ? "none" : "gzip", fuzz_crc32c, 0 };
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
		journal_state_clear(&st);
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
	journal_state_clear(&st);
	return 0;
}
