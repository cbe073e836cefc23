/*
 * Cutting a part file back to a checkpoint: the journal's marks say, for
 * every checkpoint id, the file's length and rows and the journal's own
 * length at the mark that id keeps; a file cut back there (by recovery or
 * by writer_discard()) holds exactly the bytes it had when that checkpoint
 * sealed it, uncompressed or compressed (each seal ends a gzip member or a
 * zstd frame, so every mark is a valid compressed file).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "agent/write/journal.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "agent/write/writer.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

/* 2026-11-29 10:00:00 UTC, and m minutes later */
#define T10 INT64_C(1795946400000000)
#define MIN(m) (T10 + (m) * INT64_C(60000000))
#define DIR "t/dt=20261129/hr=10/"

static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };

struct fixture {
	char dir[64];
	struct tz *tz;
	struct writer *w;
	enum codec_kind codec;
	char rel[128];          /* the part file, under open/ and ready/ */
	char journal[128];      /* its journal, under open/ */
};

/* The file and its journal as a seal left them. */
struct snap {
	char *data, *journal;
	size_t len, journal_len;
	uint64_t rows;
};

static int
setup_codec(void **state, enum codec_kind codec, const char *ext)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-cutback.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_non_null(f->tz = tz_open("UTC", err, sizeof(err)));
	f->codec = codec;
	struct writer_opts o = { .table = "t", .spool_dir = f->dir,
	    .host = "h1", .format = { FORMAT_HIVE_TEXT, '\001', f->tz },
	    .codec = codec, .codec_level = 0,
	    .roll = { 1 << 30, 900, 300, 0 } };
	if ((f->w = writer_new(&o, cols, 1, err, sizeof(err))) == NULL)
		fail_msg("writer_new: %s", err);
	snprintf(f->rel, sizeof(f->rel), DIR "top+0+0+h1.txt%s", ext);
	snprintf(f->journal, sizeof(f->journal), DIR ".top+0+0+h1.txt%s.journal",
	    ext);
	*state = f;
	return 0;
}

static int
setup_none(void **state)
{
	return setup_codec(state, CODEC_NONE, "");
}

static int
setup_gzip(void **state)
{
	return setup_codec(state, CODEC_GZIP, ".gz");
}

static int
setup_zstd(void **state)
{
	return setup_codec(state, CODEC_ZSTD, ".zst");
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	writer_free(f->w);
	tz_close(f->tz);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* The bytes of <dir>/<sub>/<rel>, for the caller to free; NULL when there
 * is no such file. */
static char *
slurp(const struct fixture *f, const char *sub, const char *rel, size_t *len)
{
	char path[256];
	struct buf b = { 0 };

	snprintf(path, sizeof(path), "%s/%s/%s", f->dir, sub, rel);
	if (fs_read_all(path, &b) < 0)
		return NULL;
	*len = b.len;
	if (b.data == NULL)
		assert_non_null(b.data = calloc(1, 1));
	return b.data;
}

/* Rows for records from..to of partition 0, record i giving "i\n". */
static void
rows(struct fixture *f, int64_t from, int64_t to)
{
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	for (int64_t i = from; i <= to; i++) {
		struct writer_origin o = { "top", 0, i, 1, NULL, MIN(i % 60) };
		struct udtf_value v = { .type = UDTF_INT64, .u.i64 = i };

		assert_int_equal(writer_write(f->w, &hour, &o, &v, err,
		    sizeof(err)), 0);
	}
}

/* Seals checkpoint id and keeps what the file and its journal are then. */
static void
seal_snap(struct fixture *f, uint64_t id, uint64_t nrows, struct snap *s)
{
	char err[256];

	if (writer_seal(f->w, id, err, sizeof(err)) != 0)
		fail_msg("writer_seal: %s", err);
	assert_non_null(s->data = slurp(f, "open", f->rel, &s->len));
	assert_non_null(s->journal = slurp(f, "open", f->journal,
	    &s->journal_len));
	s->rows = nrows;
}

static void
snap_free(struct snap *s)
{
	free(s->data);
	free(s->journal);
}

/* "from\n" .. "to\n" */
static char *
text_of(int64_t from, int64_t to)
{
	char *s = calloc(1, 16 * (size_t)(to - from + 2));
	size_t n = 0;

	assert_non_null(s);
	for (int64_t i = from; i <= to; i++)
		n += (size_t)sprintf(s + n, "%" PRId64 "\n", i);
	return s;
}

/* The plain text of data as f's codec wrote it: every gzip member or zstd
 * frame, one after the other. */
static char *
plain_of(const struct fixture *f, const char *data, size_t len, size_t *out)
{
	size_t cap = 1 << 20;
	char *dst = calloc(1, cap);

	assert_non_null(dst);
	if (f->codec == CODEC_NONE) {
		assert_true(len < cap);
		memcpy(dst, data, len);
		*out = len;
	} else if (f->codec == CODEC_ZSTD) {
		size_t r = ZSTD_decompress(dst, cap, data, len);

		if (ZSTD_isError(r))
			fail_msg("zstd: %s", ZSTD_getErrorName(r));
		*out = r;
	} else {
		z_stream z;

		memset(&z, 0, sizeof(z));
		assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
		z.next_in = (Bytef *)(uintptr_t)data;
		z.avail_in = (uInt)len;
		z.next_out = (Bytef *)dst;
		z.avail_out = (uInt)cap;
		while (z.avail_in > 0) {
			int r = inflate(&z, Z_NO_FLUSH);

			if (r == Z_STREAM_END)
				assert_int_equal(inflateReset(&z), Z_OK);
			else if (r != Z_OK)
				fail_msg("gzip: %d at %lu", r, z.total_in);
		}
		/* the last member ended: nothing half */
		assert_int_equal(inflate(&z, Z_NO_FLUSH), Z_BUF_ERROR);
		*out = cap - z.avail_out;
		inflateEnd(&z);
	}
	return dst;
}

/* journal_read() at upto finds the mark of s (NULL: none). */
static void
assert_mark(const struct fixture *f, uint64_t upto, const struct snap *s)
{
	struct journal_state st;
	char path[256], err[256] = "";

	snprintf(path, sizeof(path), "%s/open/%s", f->dir, f->journal);
	if (journal_read(path, upto, &st, err, sizeof(err)) != 0)
		fail_msg("journal_read %" PRIu64 ": %s", upto, err);
	if (s == NULL) {
		assert_int_equal(st.found, 0);
	} else {
		assert_int_equal(st.found, 1);
		assert_int_equal(st.len, s->len);
		assert_int_equal(st.rows, s->rows);
		assert_int_equal(st.journal_len, s->journal_len);
		/* the journal up to the mark is what that seal left */
		assert_true(st.text.len >= s->journal_len);
		assert_memory_equal(st.text.data, s->journal, s->journal_len);
	}
	journal_state_clear(&st);
}

/* The file in ready/ is byte for byte s, its plain text is records
 * from..to, and its sidecar says so. */
static void
assert_ready_is(const struct fixture *f, const struct snap *s, int64_t from,
    int64_t to)
{
	char side[160], err[256], *data, *text, *want, *plain;
	size_t len, tlen, plen;
	struct sidecar sc;

	assert_non_null(data = slurp(f, "ready", f->rel, &len));
	assert_int_equal(len, s->len);
	assert_memory_equal(data, s->data, len);
	want = text_of(from, to);
	plain = plain_of(f, data, len, &plen);
	assert_int_equal(plen, strlen(want));
	assert_memory_equal(plain, want, plen);
	snprintf(side, sizeof(side), DIR ".%s.json", f->rel + strlen(DIR));
	assert_non_null(text = slurp(f, "ready", side, &tlen));
	memset(&sc, 0, sizeof(sc));
	if (sidecar_parse(text, tlen, &sc, err, sizeof(err)) != 0)
		fail_msg("%s: %s", text, err);
	assert_int_equal(sc.rows, s->rows);
	assert_int_equal(sc.bytes, s->len);
	sidecar_clear(&sc);
	free(text);
	free(plain);
	free(want);
	free(data);
}

/* Three seals at ids 2, 5 and 9, then rows never sealed. */
static void
three_marks(struct fixture *f, struct snap s[3])
{
	rows(f, 0, 9);
	seal_snap(f, 2, 10, &s[0]);
	rows(f, 10, 19);
	seal_snap(f, 5, 20, &s[1]);
	rows(f, 20, 24);
	seal_snap(f, 9, 25, &s[2]);
	rows(f, 25, 29);
	/* every mark is a longer file and a longer journal */
	assert_true(s[0].len < s[1].len && s[1].len < s[2].len);
	assert_true(s[0].journal_len < s[1].journal_len &&
	    s[1].journal_len < s[2].journal_len);
	/* and the file grew only at its end */
	assert_memory_equal(s[2].data, s[1].data, s[1].len);
	assert_memory_equal(s[1].data, s[0].data, s[0].len);
}

/* Each checkpoint id reads the last mark at or before it, with the file's
 * length, rows and the journal's length as that seal left them. */
static void
test_marks_by_id(void **state)
{
	struct fixture *f = *state;
	struct snap s[3];

	three_marks(f, s);
	assert_mark(f, 0, NULL);
	assert_mark(f, 1, NULL);
	assert_mark(f, 2, &s[0]);
	assert_mark(f, 4, &s[0]);
	assert_mark(f, 5, &s[1]);
	assert_mark(f, 8, &s[1]);
	assert_mark(f, 9, &s[2]);
	assert_mark(f, UINT64_MAX, &s[2]);
	for (int i = 0; i < 3; i++)
		snap_free(&s[i]);
}

/* A crash after three_marks(), then recovery at checkpoint id: the file
 * in ready/ is that of mark s[mark], rows 0 to last. */
static void
crash_and_recover(struct fixture *f, uint64_t id, int mark, int64_t last)
{
	struct snap s[3];
	char err[256] = "";

	three_marks(f, s);
	writer_free(f->w);       /* a crash: nothing released */
	f->w = NULL;
	if (spool_finalize(f->dir, f->rel, id, NULL, err, sizeof(err)) != 1)
		fail_msg("spool_finalize: %s", err);
	assert_ready_is(f, &s[mark], 0, last);
	for (int i = 0; i < 3; i++)
		snap_free(&s[i]);
}

/* Recovery at a checkpoint between two marks cuts the file back to the
 * bytes of the earlier mark exactly. */
static void
test_recover_cuts_to_mark(void **state)
{
	crash_and_recover(*state, 7, 1, 19);
}

/* The first mark: what was sealed later is cut off. */
static void
test_recover_first_mark(void **state)
{
	crash_and_recover(*state, 2, 0, 9);
}

/* The last mark, at a later id: the file whole, with none of the rows
 * never sealed. */
static void
test_recover_last_mark(void **state)
{
	crash_and_recover(*state, 100, 2, 24);
}

/* A live writer whose partition is gone cuts its open file back the same
 * way. */
static void
test_discard_cuts_to_mark(void **state)
{
	struct fixture *f = *state;
	struct snap s[3];
	char err[256] = "";

	three_marks(f, s);
	if (writer_discard(f->w, "top", 0, 4, err, sizeof(err)) < 0)
		fail_msg("writer_discard: %s", err);
	assert_ready_is(f, &s[0], 0, 9);
	for (int i = 0; i < 3; i++)
		snap_free(&s[i]);
}

int
main(void)
{
#define EACH(fn) \
	{ #fn "_none", fn, setup_none, teardown, NULL }, \
	{ #fn "_gzip", fn, setup_gzip, teardown, NULL }, \
	{ #fn "_zstd", fn, setup_zstd, teardown, NULL }
	const struct CMUnitTest tests[] = {
		EACH(test_marks_by_id),
		EACH(test_recover_cuts_to_mark),
		EACH(test_recover_first_mark),
		EACH(test_recover_last_mark),
		EACH(test_discard_cuts_to_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
