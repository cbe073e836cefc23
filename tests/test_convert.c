/*
 * convert: a Parquet writer's released files are converted on its own
 * thread.  Every file released reaches ready/ as a Parquet file with its
 * sidecar, in the order released, and its rows hold their hour back until
 * then; a conversion that fails comes back as the error of the next
 * release, tick or settle, naming the file, and stops the thread, its log
 * and the logs after it kept in open/ for recovery, which converts them
 * once the cause is gone; a writer freed with files not converted leaves
 * them to recovery too, and each lands once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/write/convert.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "agent/write/writer.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

struct fixture {
	char dir[64];
	struct tz *tz;
	struct writer *w;
};

static const struct udtf_column cols[] = { { "n", UDTF_INT64 },
	{ "s", UDTF_STRING } };

/* 2026-11-29 10:00:00 UTC */
#define T10 INT64_C(1795946400000000)
#define HOUR "t/dt=20261129/hr=10/"
#define FILES 4      /* partitions, one file each */
#define ROWS 500     /* a file */

static int
setup(void **state)
{
	struct writer_opts o = { .table = "t", .host = "h1",
	    .codec = CODEC_SNAPPY, .roll = { 1 << 30, 900, 300, 0, 0 } };
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	strcpy(f->dir, "/tmp/kedge-test-convert.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_non_null(f->tz = tz_open("UTC", err, sizeof(err)));
	o.spool_dir = f->dir;
	o.format = (struct format){ FORMAT_PARQUET, '\001', f->tz };
	assert_non_null(f->w = writer_new(&o, cols, 2, err, sizeof(err)));
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

/* ROWS rows of records 0.. of each of partitions 0..FILES-1, each file
 * rolled, sealed as checkpoint 1 and released: the checkpoint is decided.
 * Returns what writer_release() returned, with its sentence in err. */
static int
write_and_release(struct fixture *f, char *err, size_t errlen)
{
	struct tz_hour hour;
	char s[32];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	for (int32_t p = 0; p < FILES; p++)
		for (int64_t i = 0; i < ROWS; i++) {
			struct writer_origin o = { "top", p, i, 1, NULL,
			    T10 + i };
			struct udtf_value v[2] = {
				{ .type = UDTF_INT64, .u.i64 = i },
				{ .type = UDTF_STRING, .u.s = { s, 0 } } };

			v[1].u.s.len = (size_t)snprintf(s, sizeof(s),
			    "row %" PRId64 " of %" PRId32, i, p);
			assert_int_equal(writer_write(f->w, &hour, &o, v, err,
			    errlen), 0);
		}
	assert_int_equal(writer_roll(f->w, NULL, 0, err, errlen), FILES);
	assert_int_equal(writer_seal(f->w, 1, err, errlen), 0);
	return writer_release(f->w, err, errlen);
}

/* f's path of the part file of partition p, under dir (open or ready),
 * with what follows its name (".rows", or "" in ready/). */
static void
part_path(const struct fixture *f, char *out, size_t len, const char *dir,
    int32_t p, const char *ext)
{
	snprintf(out, len, "%s/%s/" HOUR "top+%" PRId32 "+0+h1.parquet%s",
	    f->dir, dir, p, ext);
}

/* The rows the sidecar of partition p's file in ready/ counts, or -1 when
 * there is none. */
static int64_t
ready_rows(const struct fixture *f, int32_t p)
{
	char path[256], err[256];
	struct sidecar sc;
	struct buf b = { 0 };
	int64_t rows;

	snprintf(path, sizeof(path), "%s/ready/" HOUR
	    ".top+%" PRId32 "+0+h1.parquet.json", f->dir, p);
	if (fs_read_all(path, &b) < 0)
		return -1;
	memset(&sc, 0, sizeof(sc));
	if (sidecar_parse(b.data, b.len, &sc, err, sizeof(err)) != 0)
		fail_msg("%s: %s", path, err);
	assert_int_equal(sc.format, FORMAT_PARQUET);
	assert_int_equal(sc.codec, CODEC_SNAPPY);
	rows = sc.rows;
	sidecar_clear(&sc);
	buf_clear(&b);
	return rows;
}

static uint64_t
decide_1(const char *topic, int32_t partition, void *arg)
{
	(void)topic, (void)partition, (void)arg;
	return 1;
}

static void
test_released_files_reach_ready(void **state)
{
	struct fixture *f = *state;
	struct writer_stats st;
	char path[256], err[256];
	int n;

	assert_true((n = write_and_release(f, err, sizeof(err))) >= 0);
	n += writer_settle(f->w, err, sizeof(err));
	assert_int_equal(n, FILES);
	for (int32_t p = 0; p < FILES; p++) {
		assert_int_equal(ready_rows(f, p), ROWS);
		part_path(f, path, sizeof(path), "open", p, ".rows");
		assert_int_equal(access(path, F_OK), -1);
		/* converted: its rows no longer hold the hour back */
		assert_true(writer_pending_min(f->w, "top", p) == INT64_MAX);
	}
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_converted, FILES);
	/* nothing left to wait for */
	assert_int_equal(writer_settle(f->w, err, sizeof(err)), 0);
}

/* Until a file is converted, its rows hold their hour back; the rows of a
 * file that waits behind a failed conversion do so for good. */
static void
test_failure_stops_and_keeps_logs(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery rec;
	char path[256], tmp[256], err[256] = "";

	/* the first file released can create no .tmp */
	snprintf(tmp, sizeof(tmp), "%s/open/" HOUR ".top+0+0+h1.parquet.tmp",
	    f->dir);
	*strrchr(tmp, '/') = '\0';
	assert_int_equal(fs_mkdirs(tmp, 0755), 0);
	tmp[strlen(tmp)] = '/';
	assert_int_equal(mkdir(tmp, 0755), 0);
	/* told by the release, if the thread was that quick, or the settle */
	if (write_and_release(f, err, sizeof(err)) == 0)
		assert_true(writer_settle(f->w, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot create"));
	assert_non_null(strstr(err, tmp));
	/* and again by every later call */
	err[0] = '\0';
	assert_true(writer_tick(f->w, time(NULL), err, sizeof(err)) < 0);
	assert_non_null(strstr(err, tmp));
	err[0] = '\0';
	assert_true(writer_release(f->w, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, tmp));
	assert_true(writer_settle(f->w, err, sizeof(err)) < 0);
	for (int32_t p = 0; p < FILES; p++) {
		part_path(f, path, sizeof(path), "open", p, ".rows");
		assert_int_equal(access(path, F_OK), 0);
		assert_int_equal(ready_rows(f, p), -1);
		assert_int_equal(writer_pending_min(f->w, "top", p), T10);
	}
	/* the cause gone, recovery converts every one */
	writer_free(f->w);
	f->w = NULL;
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(spool_recover(f->dir, decide_1, NULL, &rec, err,
	    sizeof(err)), 0);
	assert_int_equal(rec.kept, FILES);
	for (int32_t p = 0; p < FILES; p++)
		assert_int_equal(ready_rows(f, p), ROWS);
}

/* A writer freed at once: the file in conversion is finished, the others
 * are left in open/; recovery converts them, and each file lands once. */
static void
test_free_leaves_the_rest_to_recovery(void **state)
{
	struct fixture *f = *state;
	struct spool_recovery rec;
	char err[256];

	assert_true(write_and_release(f, err, sizeof(err)) >= 0);
	writer_free(f->w);
	f->w = NULL;
	assert_int_equal(spool_recover(f->dir, decide_1, NULL, &rec, err,
	    sizeof(err)), 0);
	assert_true(rec.kept <= FILES);
	for (int32_t p = 0; p < FILES; p++)
		assert_int_equal(ready_rows(f, p), ROWS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_released_files_reach_ready,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_failure_stops_and_keeps_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_free_leaves_the_rest_to_recovery, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
