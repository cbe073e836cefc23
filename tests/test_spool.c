/*
 * Recovery of the spool after a crash: part files cut back to the decided
 * checkpoint by their journals, sidecars written from them, files with
 * nothing decided removed, and part file names read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"
#include "writer.h"

struct fixture {
	char dir[64];
	struct tz *tz;
	struct writer *w;
};

static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };

/* 2026-11-29 10:00:00 UTC */
#define T10 INT64_C(1795946400000000)
#define PART "t/dt=20261129/hr=10/top+0+0+h1.txt"

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct writer_opts o = { .table = "t", .host = "h1",
	    .codec = CODEC_NONE, .roll = { 1 << 30, 900, 300 } };
	char err[256];

	strcpy(f->dir, "/tmp/kedge-test-spool.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_non_null(f->tz = tz_open("UTC", err, sizeof(err)));
	o.spool_dir = f->dir;
	o.format = (struct format){ FORMAT_HIVE_TEXT, '\001', f->tz };
	assert_non_null(f->w = writer_new(&o, cols, 1, err, sizeof(err)));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	writer_free(f->w);
	tz_close(f->tz);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Writes rows for records from..to (one row each) of partition 0. */
static void
rows(struct fixture *f, int64_t from, int64_t to, const char *rejected_for)
{
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	for (int64_t i = from; i <= to; i++) {
		struct writer_origin o = { "top", 0, i, 1, rejected_for };
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

	rows(f, 3, 4, "access");
	rows(f, 8, 8, "access");
	seal(f, 1);
	crash_and_recover(f, 1, &st);
	assert_non_null(side = slurp(f, "ready/t/dt=20261129/hr=10/"
	    ".top+0+3+h1.txt.json"));
	assert_non_null(strstr(side, "\"offsets\":[],"));
	assert_non_null(strstr(side, "\"rejected\":{\"access\":[[3,4],[8,8]]}"));
	free(side);
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
	assert_int_equal(spool_name_parse(".t+0+0+h.txt.json", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0+h.csv", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+x+0+h.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0+h+i.txt", &sn), -EINVAL);
	assert_int_equal(spool_name_parse("t+0+0.txt", &sn), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cut_back_to_decided, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_decided_later_keeps_more,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_decided_is_removed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_journal_line_ignored,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_sidecar, setup,
		    teardown),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
