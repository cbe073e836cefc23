/*
 * Recovery of the spool after a crash: part files cut back to the decided
 * checkpoint by their journals, sidecars written from them (with the
 * CRC-32C of what is kept and the event times of the rows kept), files with
 * nothing decided removed, and part file names read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config/config.h"
#include "agent/parse/rejects.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "agent/write/writer.h"
#include "lib/buf.h"
#include "lib/crc32c.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

struct fixture {
	char dir[64];
	struct tz *tz;
	struct writer *w;
};

static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };

/* 2026-11-29 10:00:00 UTC, and m minutes later */
#define T10 INT64_C(1795946400000000)
#define MIN(m) (T10 + (m) * INT64_C(60000000))
#define PART "t/dt=20261129/hr=10/top+0+0+h1.txt"
#define SIDECAR "t/dt=20261129/hr=10/.top+0+0+h1.txt.json"

/* Replaces f's writer with one of the given table, format and codec. */
static void
open_writer_as(struct fixture *f, const char *table, enum format_kind format,
    enum codec_kind codec)
{
	struct writer_opts o = { .table = table, .host = "h1",
	    .codec = codec, .roll = { 1 << 30, 900, 300, 0 } };
	char err[256];

	writer_free(f->w);
	o.spool_dir = f->dir;
	o.format = (struct format){ format, '\001', f->tz };
	assert_non_null(f->w = writer_new(&o, cols, 1, err, sizeof(err)));
}

static void
open_writer(struct fixture *f, const char *table)
{
	open_writer_as(f, table, FORMAT_HIVE_TEXT, CODEC_NONE);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	strcpy(f->dir, "/tmp/kedge-test-spool.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_non_null(f->tz = tz_open("UTC", err, sizeof(err)));
	open_writer(f, "t");
	*state = f;
	return 0;
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

/* Writes the row of record offset of partition 0, of event time
 * event_us in hour 10. */
static void
row_at(struct fixture *f, int64_t offset, int64_t event_us)
{
	struct writer_origin o = { "top", 0, offset, 1, NULL, event_us };
	struct udtf_value v = { .type = UDTF_INT64, .u.i64 = offset };
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	assert_int_equal(writer_write(f->w, &hour, &o, &v, err, sizeof(err)),
	    0);
}

/* Writes rows for records from..to (one row each) of partition 0, record
 * i at event time MIN(i). */
static void
rows(struct fixture *f, int64_t from, int64_t to, const char *rejected_for)
{
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	for (int64_t i = from; i <= to; i++) {
		struct writer_origin o = { "top", 0, i, 1, rejected_for,
		    MIN(i) };
		struct udtf_value v = { .type = UDTF_INT64, .u.i64 = i };
		assert_int_equal(writer_write(f->w, &hour, &o, &v, err,
		    sizeof(err)), 0);
	}
}

static void
seal(struct fixture *f, uint64_t id)
{
	char err[256];

	assert_int_equal(writer_seal(f->w, id, err, sizeof(err)), 0);
}

static uint64_t decided;

static uint64_t
decide(const char *topic, int32_t partition, void *arg)
{
	(void)arg;
	assert_string_equal(topic, "top");
	assert_int_equal(partition, 0);
	return decided;
}

static char *
slurp(const struct fixture *f, const char *rel)
{
	char path[256];
	char *s = calloc(1, 65536);
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	if ((fp = fopen(path, "r")) == NULL) {
		free(s);
		return NULL;
	}
	assert_true(fread(s, 1, 65535, fp) < 65535);
	fclose(fp);
	return s;
}

/* A crash: the writer is gone without releasing anything. */
static void
crash_and_recover(struct fixture *f, uint64_t upto, struct spool_recovery *st)
{
	char err[256] = "";

	writer_free(f->w);
	f->w = NULL;
	decided = upto;
	assert_int_equal(spool_recover(f->dir, decide, NULL, st, err,
	    sizeof(err)), 0);
}

/* The CRC-32C of rel, in lowercase hex (test_crc32c checks the helper). */
static void
crc32c_of(const struct fixture *f, const char *rel, char hex[CRC32C_HEX + 1])
{
	struct buf data = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	assert_int_equal(fs_read_all(path, &data), 0);
	crc32c_format(crc32c_update(0, data.data, data.len), hex);
	buf_clear(&data);
}

/* Reads the sidecar of PART back with the parser verify uses. */
static void
read_sidecar(const struct fixture *f, struct sidecar *sc)
{
	char *text, err[256];

	assert_non_null(text = slurp(f, "ready/" SIDECAR));
	memset(sc, 0, sizeof(*sc));
	if (sidecar_parse(text, strlen(text), sc, err, sizeof(err)) != 0)
		fail_msg("%s: %s", text, err);
	free(text);
}

static int
open_is_empty(const struct fixture *f)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "test -z \"$(find %s/open -type f)\"", f->dir);
	return system(cmd) == 0;
}

static void
test_cut_back_to_decided(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char *data, *side;

	rows(f, 0, 9, NULL);
	seal(f, 1);
	rows(f, 10, 19, NULL);
	seal(f, 2);
	rows(f, 20, 24, NULL);          /* never sealed */
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_int_equal(st.deleted, 0);
	assert_non_null(data = slurp(f, "ready/" PART));
	assert_int_equal(strlen(data), 20); /* "0\n" .. "9\n" */
	assert_non_null(side = slurp(f, "ready/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.json"));
	assert_non_null(strstr(side, "\"rows\":10,\"bytes\":20,"));
	assert_non_null(strstr(side, "\"offsets\":[[0,9]],"));
	assert_true(open_is_empty(f));
	free(data);
	free(side);
}

/* The sidecar's crc32c is that of the file as kept, after the cut; it has
 * no sha256. */
static void
test_crc32c_of_what_is_kept(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct sidecar sc;
	char want[CRC32C_HEX + 1], *side;

	rows(f, 0, 9, NULL);
	seal(f, 1);
	rows(f, 10, 19, NULL);          /* cut off */
	seal(f, 2);
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	crc32c_of(f, "ready/" PART, want);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_non_null(strstr(side, "\"crc32c\":\""));
	assert_non_null(strstr(side, want));
	assert_null(strstr(side, "sha256"));
	free(side);
	read_sidecar(f, &sc);
	assert_string_equal(sc.crc32c, want);
	/* "0\n".."9\n" */
	assert_string_equal(sc.crc32c, "8525c1a9");
	sidecar_clear(&sc);
}

/* Each seal journals the event range of its rows; recovery combines those
 * up to the mark it keeps, so the range is that of the rows kept. */
static void
test_event_range_of_what_is_kept(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct sidecar sc;
	char *side;

	row_at(f, 0, MIN(30));
	row_at(f, 1, MIN(20));
	row_at(f, 2, MIN(25));
	seal(f, 1);
	row_at(f, 3, MIN(40));
	seal(f, 2);
	row_at(f, 4, MIN(5));           /* seal 3: wider on both sides */
	row_at(f, 5, MIN(59));
	seal(f, 3);
	row_at(f, 6, MIN(1));           /* never sealed */
	crash_and_recover(f, 2, &st);
	assert_int_equal(st.kept, 1);
	read_sidecar(f, &sc);
	assert_int_equal(sc.rows, 4);
	assert_true(sc.has_event_range);
	assert_int_equal(sc.min_event_us, MIN(20));
	assert_int_equal(sc.max_event_us, MIN(40));
	sidecar_clear(&sc);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_non_null(strstr(side, "\"min_event_us\":1795947600000000,"
	    "\"max_event_us\":1795948800000000,"));
	free(side);
}

static void
test_event_range_at_first_checkpoint(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct sidecar sc;

	row_at(f, 0, MIN(30));
	row_at(f, 1, MIN(20));
	seal(f, 1);
	row_at(f, 2, MIN(5));
	row_at(f, 3, MIN(59));
	seal(f, 2);
	crash_and_recover(f, 1, &st);
	read_sidecar(f, &sc);
	assert_int_equal(sc.rows, 2);
	assert_int_equal(sc.min_event_us, MIN(20));
	assert_int_equal(sc.max_event_us, MIN(30));
	sidecar_clear(&sc);
}

/* A file that holds only records that gave no row has a null range. */
static void
test_no_row_null_range(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct tz_hour hour;
	struct sidecar sc;
	char err[256], want[65], *side;

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	assert_int_equal(writer_note_empty(f->w, &hour, "top", 0, 0, err,
	    sizeof(err)), 0);
	seal(f, 1);
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_non_null(strstr(side, "\"rows\":0,\"bytes\":0,"));
	assert_non_null(strstr(side, "\"min_event_us\":null,"
	    "\"max_event_us\":null,"));
	assert_non_null(strstr(side, "\"empty\":[[0,0]]"));
	free(side);
	read_sidecar(f, &sc);
	assert_false(sc.has_event_range);
	crc32c_of(f, "ready/" PART, want);
	assert_string_equal(sc.crc32c, want);
	sidecar_clear(&sc);
}

/* A file left by a kedge whose journal had no event times: its sidecar
 * says nothing of them, rather than something false. */
static void
test_journal_of_earlier_version(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct sidecar sc;
	char path[256], *side;
	FILE *fp;

	writer_free(f->w);
	f->w = NULL;
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10", f->dir);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/open/" PART, f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("0\n1\n", fp);
	assert_int_equal(fclose(fp), 0);
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.journal", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("o 0 1\nm 1 4 2\n", fp);
	assert_int_equal(fclose(fp), 0);
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_null(strstr(side, "_event_us"));
	free(side);
	read_sidecar(f, &sc);
	assert_int_equal(sc.rows, 2);
	assert_false(sc.has_event_range);
	assert_int_equal(strlen(sc.crc32c), CRC32C_HEX);
	sidecar_clear(&sc);
}

static void
test_decided_later_keeps_more(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char *side;

	rows(f, 0, 9, NULL);
	seal(f, 1);
	rows(f, 10, 19, NULL);
	seal(f, 2);
	crash_and_recover(f, 2, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.json"));
	assert_non_null(strstr(side, "\"rows\":20,"));
	assert_non_null(strstr(side, "\"offsets\":[[0,19]],"));
	free(side);
}

static void
test_nothing_decided_is_removed(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char *data;

	rows(f, 0, 9, NULL);
	seal(f, 5);
	crash_and_recover(f, 4, &st);
	assert_int_equal(st.kept, 0);
	assert_int_equal(st.deleted, 1);
	assert_null(data = slurp(f, "ready/" PART));
	assert_true(open_is_empty(f));
}

/* A power loss may keep both names of a sidecar moved into ready/ while
 * its part file was still in open/, as the old name's removal becomes
 * durable with the part file's move: recovery writes the sidecar again
 * and moves it onto the one in ready/. */
static void
test_sidecar_in_open_and_ready(void **state)
{
	struct fixture *f = *state;
	const char *where[] = { "open", "ready" };
	struct spool_recovery st;
	char path[256], *side;
	FILE *fp;

	rows(f, 0, 9, NULL);
	seal(f, 1);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s/t/dt=20261129/hr=10",
		    f->dir, where[i]);
		assert_int_equal(fs_mkdirs(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%s/" SIDECAR, f->dir,
		    where[i]);
		assert_non_null(fp = fopen(path, "w"));
		fputs("{\"rows\":3}", fp);
		fclose(fp);
	}
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_non_null(strstr(side, "\"rows\":10,\"bytes\":20,"));
	assert_true(open_is_empty(f));
	free(side);
}

static void
test_torn_journal_line_ignored(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char path[256], *side;
	int fd;

	rows(f, 0, 4, NULL);
	seal(f, 1);
	/* a crash in the middle of the next seal's journal write */
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.journal", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	assert_int_equal(write(fd, "o 5 9\nm 2 2", 11), 11);
	close(fd);
	crash_and_recover(f, 2, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.json"));
	assert_non_null(strstr(side, "\"rows\":5,"));
	assert_non_null(strstr(side, "\"offsets\":[[0,4]],"));
	free(side);
}

static void
test_rejects_sidecar(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char *side;

	open_writer(f, REJECTS_TABLE);
	rows(f, 3, 4, "access");
	rows(f, 8, 8, "access");
	seal(f, 1);
	crash_and_recover(f, 1, &st);
	assert_non_null(side = slurp(f, "ready/" REJECTS_TABLE "/dt=20261129/"
	    "hr=10/.top+0+3+h1.txt.json"));
	assert_non_null(strstr(side, "\"min_event_us\":1795946580000000,"
	    "\"max_event_us\":1795946880000000,"));
	assert_non_null(strstr(side, "\"offsets\":[],"));
	assert_non_null(strstr(side, "\"rejected\":{\"access\":[[3,4],[8,8]]}"));
	free(side);
}

/* A table name of the longest length check-config allows goes through the
 * journal whole and names its rejects in the sidecar (a fixed line buffer
 * once cut it, and the sidecar lost them). */
static void
test_long_table_name_in_journal(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char name[CONF_TABLE_NAME_MAX + 1], want[CONF_TABLE_NAME_MAX + 64];
	char *side;

	memset(name, 'n', CONF_TABLE_NAME_MAX);
	name[CONF_TABLE_NAME_MAX] = '\0';
	open_writer(f, REJECTS_TABLE);
	rows(f, 3, 4, name);
	rows(f, 5, 5, "access");
	seal(f, 1);
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/" REJECTS_TABLE "/dt=20261129/"
	    "hr=10/.top+0+3+h1.txt.json"));
	snprintf(want, sizeof(want), "\"rejected\":{\"%s\":[[3,4]],"
	    "\"access\":[[5,5]]}", name);
	if (strstr(side, want) == NULL)
		fail_msg("%s", side);
	free(side);
}

/* Appends text to the journal of PART. */
static void
journal_append(const struct fixture *f, const char *text)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/"
	    ".top+0+0+h1.txt.journal", f->dir);
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A whole journal line that kedge does not write (a number out of range,
 * a sign, a range backwards, bytes after it) before the mark recovery
 * keeps stops the recovery with the file and the line, instead of
 * describing the file with what a wrapped number says. */
static void
test_damaged_journal_line_refused(void **state)
{
	static const char *const damaged[] = {
		"o 5 99999999999999999999\n",
		"o -5 9\n",
		"o 9 5\n",
		"o 5 9 1\n",
		"m 18446744073709551616 10 5\n",
		"t 1 x\n",
		"f 18446744073709551616\n",
		"f -1\n",
		"f 1 2\n",
		"r  5 9\n",
		"x 5 9\n",
		/* one spelling per number: seal writes no leading zero
		 * and no "-0" */
		"o 05 9\n",
		"o 5 09\n",
		"t -0 5\n",
		"f 01\n",
		"m 02 10 5\n",
	};

	for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		struct fixture *f = *state;
		struct spool_recovery st;
		char err[256] = "";

		if (i > 0) {
			teardown(state);
			setup(state);
			f = *state;
		}
		rows(f, 0, 4, NULL);
		seal(f, 1);
		journal_append(f, damaged[i]);
		journal_append(f, "m 2 10 5\n");
		writer_free(f->w);
		f->w = NULL;
		decided = 2;
		if (spool_recover(f->dir, decide, NULL, &st, err,
		    sizeof(err)) != -EINVAL)
			fail_msg("\"%.*s\" was taken: %s", (int)strlen(damaged[i]) -
			    1, damaged[i], err);
		/* o, t, f and m of the first seal, then the damage */
		if (strstr(err, ".top+0+0+h1.txt.journal: line 5 is damaged") ==
		    NULL)
			fail_msg("%s", err);
	}
}

/* Damage after the mark kept is dropped with the rest after it. */
static void
test_damage_after_the_mark_dropped(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char *side;

	rows(f, 0, 4, NULL);
	seal(f, 1);
	journal_append(f, "o 5 99999999999999999999\nm 2 10 5\n");
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_non_null(side = slurp(f, "ready/" SIDECAR));
	assert_non_null(strstr(side, "\"offsets\":[[0,4]],"));
	free(side);
}

#define PQ_DIR "t/dt=20261129/hr=10/"
#define PQ_PART PQ_DIR "top+0+0+h1.parquet"

/* A Parquet file is its log cut back to the decided checkpoint and
 * converted: its sidecar describes the Parquet file, the log and its
 * journal are gone, and the same log converted again (a second spool,
 * copied before the crash) gives the same bytes. */
static void
test_parquet_cut_back_and_converted(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char copy[80], cmd[256], hex[CRC32C_HEX + 1], err[256], *side;
	struct stat sb;
	struct sidecar sc;
	unsigned char head[4], tail[4];
	FILE *fp;

	open_writer_as(f, "t", FORMAT_PARQUET, CODEC_ZSTD);
	rows(f, 0, 9, NULL);
	seal(f, 1);
	rows(f, 10, 19, NULL);
	seal(f, 2);
	rows(f, 20, 24, NULL);          /* never sealed */
	assert_non_null(side = slurp(f, "open/" PQ_PART ".rows"));
	free(side);
	snprintf(copy, sizeof(copy), "%s.copy", f->dir);
	snprintf(cmd, sizeof(cmd), "cp -a %s %s", f->dir, copy);
	assert_int_equal(system(cmd), 0);
	crash_and_recover(f, 1, &st);
	assert_int_equal(st.kept, 1);
	assert_true(open_is_empty(f));

	snprintf(cmd, sizeof(cmd), "%s/ready/" PQ_PART, f->dir);
	assert_int_equal(stat(cmd, &sb), 0);
	assert_non_null(fp = fopen(cmd, "rb"));
	assert_int_equal(fread(head, 1, 4, fp), 4);
	assert_int_equal(fseek(fp, -4, SEEK_END), 0);
	assert_int_equal(fread(tail, 1, 4, fp), 4);
	fclose(fp);
	assert_memory_equal(head, "PAR1", 4);
	assert_memory_equal(tail, "PAR1", 4);
	assert_non_null(side = slurp(f, "ready/" PQ_DIR
	    ".top+0+0+h1.parquet.json"));
	memset(&sc, 0, sizeof(sc));
	if (sidecar_parse(side, strlen(side), &sc, err, sizeof(err)) != 0)
		fail_msg("%s: %s", side, err);
	assert_int_equal(sc.format, FORMAT_PARQUET);
	assert_int_equal(sc.codec, CODEC_ZSTD);
	assert_int_equal(sc.rows, 10);
	assert_int_equal(sc.bytes, sb.st_size);
	assert_int_equal(sc.offsets.n, 1);
	assert_int_equal(sc.offsets.v[0].last, 9);
	free(side);
	/* the file's CRC-32C, over its NUL bytes too */
	crc32c_of(f, "ready/" PQ_PART, hex);
	assert_string_equal(hex, sc.crc32c);
	sidecar_clear(&sc);

	decided = 1;
	assert_int_equal(spool_recover(copy, decide, NULL, &st, err,
	    sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "cmp -s %s/ready/" PQ_PART " %s/ready/"
	    PQ_PART, f->dir, copy);
	assert_int_equal(system(cmd), 0);
	remove_tree(copy);
}

/* A log whose header is not kedge's is refused, saying so, and kept. */
static void
test_parquet_damaged_log_refused(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	char path[160], err[256] = "";
	FILE *fp;

	open_writer_as(f, "t", FORMAT_PARQUET, CODEC_SNAPPY);
	rows(f, 0, 9, NULL);
	seal(f, 1);
	writer_free(f->w);
	f->w = NULL;
	snprintf(path, sizeof(path), "%s/open/" PQ_PART ".rows", f->dir);
	assert_non_null(fp = fopen(path, "r+b"));
	assert_int_equal(fwrite("X", 1, 1, fp), 1);
	fclose(fp);
	decided = 1;
	assert_int_equal(spool_recover(f->dir, decide, NULL, &st, err,
	    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is damaged"));
	assert_int_equal(access(path, F_OK), 0);
}

static void
test_names(void **state)
{
	struct spool_name sn;

	(void)state;
	assert_int_equal(spool_name_parse("nginx-access+3+120+edge-01.example.txt.gz",
	    &sn), 0);
	assert_string_equal(sn.topic, "nginx-access");
	assert_int_equal(sn.partition, 3);
	assert_int_equal(sn.first_offset, 120);
	assert_string_equal(sn.host, "edge-01.example");
	assert_string_equal(sn.format, "hive-text");
	assert_string_equal(sn.codec, "gzip");
	assert_int_equal(spool_name_parse("t.v+0+0+h.jsonl.zst", &sn), 0);
	assert_string_equal(sn.format, "jsonl");
	assert_string_equal(sn.codec, "zstd");
	assert_int_equal(spool_name_parse("t+0+0+h.txt", &sn), 0);
	assert_string_equal(sn.codec, "none");
	assert_int_equal(sn.rows, 0);
	/* a Parquet file's pages say their codec; its open log is .rows */
	assert_int_equal(spool_name_parse("t+0+0+h.parquet", &sn), 0);
	assert_string_equal(sn.format, "parquet");
	assert_string_equal(sn.codec, "none");
	assert_int_equal(sn.rows, 0);
	assert_int_equal(spool_name_parse("t+0+0+h.parquet.rows", &sn), 0);
	assert_string_equal(sn.format, "parquet");
	assert_int_equal(sn.rows, 1);
	assert_int_equal(spool_name_parse("t+0+0+h.parquet.gz", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0+h.txt.rows", &sn), -EINVAL);
	assert_int_equal(spool_name_parse(".t+0+0+h.txt.json", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0+h.csv", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+x+0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0+h+i.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0.txt", &sn), -EINVAL);
	/* numbers: digits only, in range */
	assert_int_equal(spool_name_parse("t++0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0++h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+-1+0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+ 5+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+2147483648+0+h.txt", &sn),
	    -EINVAL);
	assert_int_equal(spool_name_parse("t+0+9223372036854775808+h.txt",
	    &sn), -EINVAL);
	/* one spelling per number: the writer's, which verify expects */
	assert_int_equal(spool_name_parse("t+03+0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+3+0120+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+00+0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+2147483647+9223372036854775807+h.txt",
	    &sn), 0);
	assert_int_equal(sn.partition, INT32_MAX);
	assert_int_equal(sn.first_offset, INT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sidecar_in_open_and_ready,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_back_to_decided, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_crc32c_of_what_is_kept,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_event_range_of_what_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_event_range_at_first_checkpoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_row_null_range, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_journal_of_earlier_version,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_decided_later_keeps_more,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_decided_is_removed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_journal_line_ignored,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_sidecar, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_long_table_name_in_journal,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_journal_line_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_damage_after_the_mark_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_parquet_cut_back_and_converted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parquet_damaged_log_refused,
		    setup, teardown),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
