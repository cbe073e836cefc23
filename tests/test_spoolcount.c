/*
 * The spool's size kept as counters (spoolcount.h) says at every step what
 * a walk of the spool (spool_usage()) measures: bytes, part files in
 * ready/ and the oldest of them, through writes, seals, rolls, releases
 * (text and Parquet), cut-backs, files with nothing decided, publishes
 * that fail and publishes that succeed, a start on what an earlier run
 * left and a recovery after it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "agent/config/config.h"
#include "agent/publish/publish.h"
#include "agent/write/spool.h"
#include "agent/write/spoolcount.h"
#include "agent/write/writer.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

/* 2026-11-29 10:00:00 UTC */
#define T10 INT64_C(1795946400000000)
#define HOUR "t/dt=20261129/hr=10/"

struct fixture {
	char dir[64];
	char spool[96];
	struct conf *c;
	struct tz *tz;
	struct writer *w;
};

static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };

/* Replaces f's writer with one of the given format and codec. */
static void
open_writer(struct fixture *f, enum format_kind format, enum codec_kind codec)
{
	struct writer_opts o = { .table = "t", .host = "h1", .codec = codec,
	    .roll = { 1 << 30, 900, 300, 0 } };
	char err[256];

	writer_free(f->w);
	o.spool_dir = f->c->output.spool_dir; /* the string the agent counts */
	o.format = (struct format){ format, '\001', f->tz };
	if ((f->w = writer_new(&o, cols, 1, err, sizeof(err))) == NULL)
		fail_msg("writer_new: %s", err);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128], err[1024] = "";

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-spoolcount.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->spool, sizeof(f->spool), "%s/spool", f->dir);
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"k1:9092\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"top\" ]; udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s\"; target = \"local\";\n"
	    "  local_dir = \"%s/target\"; timezone = \"UTC\"; host = \"h1\"; };\n"
	    "completion = { enabled = false; };\n", f->spool, f->dir);
	snprintf(path, sizeof(path), "%s/target", f->dir);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	assert_int_equal(fs_mkdirs(f->spool, 0755), 0);
	assert_non_null(f->tz = tz_open("UTC", err, sizeof(err)));
	open_writer(f, FORMAT_HIVE_TEXT, CODEC_GZIP);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	writer_free(f->w);
	tz_close(f->tz);
	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* The counters say what the walk measures; returns the walk's figures. */
static struct spool_usage
assert_counted(const struct fixture *f)
{
	struct spool_usage walked, counted;

	assert_int_equal(spool_usage(f->spool, &walked, NULL, NULL), 0);
	assert_int_equal(spoolcount_get(f->c->output.spool_dir, &counted), 0);
	assert_int_equal(counted.bytes, walked.bytes);
	assert_int_equal(counted.ready_files, walked.ready_files);
	assert_int_equal(counted.oldest_ready, walked.oldest_ready);
	return walked;
}

/* Writes rows for records from..to of partition, one row each. */
static void
rows(struct fixture *f, int32_t partition, int64_t from, int64_t to)
{
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	for (int64_t i = from; i <= to; i++) {
		struct writer_origin o = { "top", partition, i, 1, NULL, T10 };
		struct udtf_value v = { .type = UDTF_INT64, .u.i64 = i };
		if (writer_write(f->w, &hour, &o, &v, err, sizeof(err)) != 0)
			fail_msg("writer_write: %s", err);
	}
}

static void
seal(struct fixture *f, uint64_t id)
{
	char err[256];

	if (writer_seal(f->w, id, err, sizeof(err)) != 0)
		fail_msg("writer_seal: %s", err);
}

static void
roll_all(struct fixture *f)
{
	char err[256];

	assert_true(writer_roll(f->w, NULL, 0, err, sizeof(err)) >= 0);
}

static int
release(struct fixture *f)
{
	char err[256];
	int n;

	if ((n = writer_release(f->w, err, sizeof(err))) < 0)
		fail_msg("writer_release: %s", err);
	return n;
}

static void
discard(struct fixture *f, int32_t partition, uint64_t upto)
{
	char err[256];

	if (writer_discard(f->w, "top", partition, upto, err, sizeof(err)) != 0)
		fail_msg("writer_discard: %s", err);
}

/* Sets the mtime of <spool>/open/<rel> to `ago` seconds back. */
static void
age_open(const struct fixture *f, const char *rel, time_t ago)
{
	char path[256];
	struct utimbuf t;

	t.actime = t.modtime = time(NULL) - ago;
	snprintf(path, sizeof(path), "%s/open/%s", f->spool, rel);
	assert_int_equal(utime(path, &t), 0);
}

/* Puts a file of another length where rel goes in the target, so that its
 * publish fails and it stays in ready/; 0 removes it again. */
static void
block_publish(const struct fixture *f, const char *rel, int on)
{
	char path[256], dir[256];

	snprintf(path, sizeof(path), "%s/target/%s", f->dir, rel);
	if (!on) {
		assert_int_equal(unlink(path), 0);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fs_mkdirs(dir, 0755), 0);
	assert_int_equal(fs_write_atomic(path, "x", 1), 0);
}

/* Runs the publisher until it has published n files and, when blocked,
 * failed one (it never leaves ready/ empty then), or a minute passes. */
static void
publish(const struct fixture *f, uint64_t n, int blocked)
{
	struct publish_stats st;
	struct publisher *p;
	char err[1024] = "";

	if ((p = publisher_start(f->c, err, sizeof(err))) == NULL)
		fail_msg("publisher_start: %s", err);
	if (!blocked)
		assert_int_equal(publisher_drain(p, 60), 0);
	for (int i = 0; i < 6000; i++) {
		publisher_get_stats(p, &st);
		if (st.files >= n && st.errors >= (uint64_t)blocked)
			break;
		usleep(10000);
	}
	publisher_stop(p);
	assert_int_equal(st.files, n);
	assert_true(st.errors >= (uint64_t)blocked);
}

#define P0 HOUR "top+0+0+h1.txt.gz"
#define P1 HOUR "top+1+0+h1.txt.gz"
#define P2 HOUR "top+2+0+h1.txt.gz"

/* Text files from their first row to the target: the counters follow
 * each step, and the oldest file in ready/ as the others go. */
static void
test_write_release_publish(void **state)
{
	struct fixture *f = *state;
	struct spool_usage u;

	assert_int_equal(spoolcount_start(f->c->output.spool_dir), 0);
	u = assert_counted(f);
	assert_int_equal(u.bytes, 0);
	rows(f, 0, 0, 99);
	rows(f, 1, 0, 9);
	rows(f, 2, 0, 49);
	assert_counted(f);
	seal(f, 1);
	u = assert_counted(f);
	assert_true(u.bytes > 0);
	assert_int_equal(u.ready_files, 0);
	rows(f, 0, 100, 199);
	seal(f, 2);
	assert_counted(f);
	roll_all(f);
	assert_counted(f);
	/* each its own age: 300, 200 and 100 seconds */
	age_open(f, P0, 200);
	age_open(f, P1, 300);
	age_open(f, P2, 100);
	seal(f, 3);
	assert_counted(f);
	assert_int_equal(release(f), 3);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 3);
	assert_true(u.oldest_ready <= time(NULL) - 300);

	/* the oldest cannot go: the others do */
	block_publish(f, P1, 1);
	publish(f, 2, 1);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 1);
	/* the oldest goes, the newest stays */
	block_publish(f, P1, 0);
	rows(f, 0, 200, 209);
	roll_all(f);
	seal(f, 4);
	assert_int_equal(release(f), 1);
	assert_counted(f);
	block_publish(f, HOUR "top+0+200+h1.txt.gz", 1);
	publish(f, 1, 1);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 1);
	assert_true(u.oldest_ready >= time(NULL) - 100);
	block_publish(f, HOUR "top+0+200+h1.txt.gz", 0);
	publish(f, 1, 0);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 0);
	assert_int_equal(u.bytes, 0);
}

/* A partition given up: its files cut back to the decided checkpoint and
 * released, or removed when nothing in them was decided, in text and in
 * Parquet (a log converted to its file). */
static void
test_cut_back_and_removed(void **state)
{
	struct fixture *f = *state;
	struct spool_usage u;

	assert_int_equal(spoolcount_start(f->c->output.spool_dir), 0);
	for (int parquet = 0; parquet <= 1; parquet++) {
		if (parquet)
			open_writer(f, FORMAT_PARQUET, CODEC_ZSTD);
		rows(f, 0, 0, 9);
		seal(f, 1);
		rows(f, 0, 10, 19);
		seal(f, 2);
		rows(f, 0, 20, 24);     /* never sealed */
		rows(f, 1, 0, 9);
		assert_counted(f);
		discard(f, 0, 1);
		u = assert_counted(f);
		assert_int_equal(u.ready_files, 1);
		/* nothing decided: removed */
		discard(f, 1, 0);
		u = assert_counted(f);
		assert_int_equal(u.ready_files, 1);
		/* sealed but not decided: removed too */
		rows(f, 1, 10, 19);
		seal(f, 3);
		discard(f, 1, 2);
		u = assert_counted(f);
		assert_int_equal(u.ready_files, 1);
		publish(f, 1, 0);
		u = assert_counted(f);
		assert_int_equal(u.ready_files, 0);
		assert_int_equal(u.bytes, 0);
	}
}

static uint64_t
decide_3(const char *topic, int32_t partition, void *arg)
{
	(void)topic;
	(void)partition;
	(void)arg;
	return 3;
}

/* A start counts what an earlier run left, open and ready; a recovery
 * after it (cutting back, removing the leftovers) keeps the count. */
static void
test_start_on_what_is_left(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery st;
	struct spool_usage u;
	char err[256] = "", path[256];

	rows(f, 0, 0, 9);
	rows(f, 1, 0, 9);
	seal(f, 1);
	roll_all(f);
	seal(f, 2);
	assert_int_equal(release(f), 2);
	rows(f, 0, 10, 19);
	rows(f, 2, 0, 9);
	seal(f, 3);
	rows(f, 2, 10, 19);
	seal(f, 4);
	rows(f, 3, 0, 9);      /* never sealed */
	seal(f, 5);
	writer_free(f->w);     /* a crash: the open files stay */
	f->w = NULL;
	snprintf(path, sizeof(path), "%s/open/" HOUR ".left.json.tmp", f->spool);
	assert_int_equal(fs_write_atomic(path, "{}", 2), 0);

	assert_int_equal(spoolcount_start(f->c->output.spool_dir), 0);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 2);
	/* 0 kept whole, 2 cut back to 3, 3 sealed at 5 only: removed */
	if (spool_recover(f->c->output.spool_dir, decide_3, NULL, &st, err,
	    sizeof(err)) != 0)
		fail_msg("spool_recover: %s", err);
	assert_int_equal(st.kept, 2);
	assert_int_equal(st.deleted, 1);
	u = assert_counted(f);
	assert_int_equal(u.ready_files, 4);
	publish(f, 4, 0);
	u = assert_counted(f);
	assert_int_equal(u.bytes, 0);
}

/* A file of the given age (seconds before now) in ready/, counted as the
 * spool's code counts one coming. */
static void
ready_file(const struct fixture *f, int i, time_t mtime, int counted)
{
	struct utimbuf t = { mtime, mtime };
	char path[256];

	snprintf(path, sizeof(path), "%s/ready/" HOUR "f%04d.txt", f->spool, i);
	assert_int_equal(fs_write_atomic(path, "row\n", 4), 0);
	assert_int_equal(utime(path, &t), 0);
	if (counted) {
		spoolcount_grow(f->c->output.spool_dir, 4);
		spoolcount_ready(f->c->output.spool_dir, mtime, 1);
	}
}

static void
gone_file(const struct fixture *f, int i, time_t mtime)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/ready/" HOUR "f%04d.txt", f->spool, i);
	assert_int_equal(unlink(path), 0);
	spoolcount_grow(f->c->output.spool_dir, -4);
	spoolcount_ready(f->c->output.spool_dir, mtime, -1);
}

/* Many ages: 300 files in ready/, two a second, found out of order; then
 * the oldest second's two go (as the publisher takes them) while newer
 * files come, one a second; then one from the middle and the newest go.
 * At every step the counters' oldest is the walk's. */
static void
test_many_ages(void **state)
{
	struct fixture *f = *state;
	time_t base = time(NULL) - 1000;
	int of[300];  /* of[v]: the file j with j * 7 % 300 == v */
	char dir[160];

	snprintf(dir, sizeof(dir), "%s/ready/" HOUR, f->spool);
	assert_int_equal(fs_mkdirs(dir, 0755), 0);
	for (int j = 0; j < 300; j++) {
		of[j * 7 % 300] = j;
		ready_file(f, j, base + j * 7 % 300 / 2, 0);
	}
	assert_int_equal(spoolcount_start(f->c->output.spool_dir), 0);
	assert_int_equal(assert_counted(f).ready_files, 300);
	for (int k = 0; k < 150; k++) {
		gone_file(f, of[2 * k], base + k);
		gone_file(f, of[2 * k + 1], base + k);
		assert_counted(f);
		ready_file(f, 300 + k, base + 500 + k, 1);
		assert_counted(f);
	}
	gone_file(f, 300 + 75, base + 575);
	assert_counted(f);
	gone_file(f, 300 + 149, base + 649);
	assert_int_equal(assert_counted(f).ready_files, 148);
}

/* Another spool than the one counted changes nothing, and is not one to
 * ask about. */
static void
test_other_spool_not_counted(void **state)
{
	struct fixture *f = *state;
	struct spool_usage u;
	char other[128];

	snprintf(other, sizeof(other), "%s/other", f->dir);
	assert_int_equal(fs_mkdirs(other, 0755), 0);
	assert_int_equal(spoolcount_start(other), 0);
	rows(f, 0, 0, 9);
	seal(f, 1);
	assert_int_equal(spoolcount_get(f->c->output.spool_dir, &u), -ENOENT);
	assert_int_equal(spoolcount_get(other, &u), 0);
	assert_int_equal(u.bytes, 0);
	assert_int_equal(spoolcount_start(f->c->output.spool_dir), 0);
	u = assert_counted(f);
	assert_true(u.bytes > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_release_publish,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_back_and_removed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_on_what_is_left,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_ages, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_other_spool_not_counted,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
