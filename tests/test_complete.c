/*
 * When an hour is complete (docs/completion.md), through the completer's
 * public API against a local target: table t reads topic a of two
 * partitions; this host consumes partition 0 (so it completes t's hours),
 * another host partition 1, whose word is its progress file.  The hour is
 * 2026-11-29 10:00 UTC, which ends at END; completion.allowed_lateness is
 * LATE seconds and completion.idle_timeout IDLE seconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/complete/complete.h"
#include "agent/complete/manifest.h"
#include "agent/complete/progress.h"
#include "agent/config/config.h"
#include "agent/target/target.h"
#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "tests/testlib.h"

#define US INT64_C(1000000)
/* 2026-11-29 11:00:00 UTC: the end of hour 10 */
#define END INT64_C(1795950000000000)
#define LATE 300
#define IDLE 600
/* the present of every run: long after the hour and its lateness */
#define NOW ((time_t)(END / US) + 7200)
#define HOUR_DIR "t/dt=20261129/hr=10"

struct fixture {
	char dir[64];
	struct conf *c;
	struct target *t;
	struct completer *cp;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128], err[1024] = "";

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-complete.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"k1:9092\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s/spool\"; target = \"local\";\n"
	    "  local_dir = \"%s/target\"; timezone = \"UTC\"; host = \"h1\"; };\n"
	    "completion = { enabled = true; allowed_lateness = %d;\n"
	    "  idle_timeout = %d; rescan = 600; };\n",
	    f->dir, f->dir, LATE, IDLE);
	snprintf(path, sizeof(path), "mkdir -p %s/target", f->dir);
	assert_int_equal(system(path), 0);
	if ((f->t = target_open(f->c, err, sizeof(err))) == NULL)
		fail_msg("target_open: %s", err);
	if ((f->cp = complete_new(f->c, err, sizeof(err))) == NULL)
		fail_msg("complete_new: %s", err);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	complete_free(f->cp);
	target_close(f->t);
	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* Partition 0 as this host's run loop sees it: its rows of t still in the
 * spool start at pending_us (INT64_MAX: none). */
static void
view(struct fixture *f, int at_end, time_t last_record, int64_t pending_us)
{
	struct complete_view v = { 0 };

	assert_non_null(v.parts = calloc(1, sizeof(*v.parts)));
	v.nparts = v.parts_cap = 1;
	assert_non_null(v.parts[0].topic = strdup("a"));
	v.parts[0].partition = 0;
	v.parts[0].at_end = at_end;
	v.parts[0].last_record = last_record;
	assert_non_null(v.parts[0].pending_us = malloc(sizeof(int64_t)));
	v.parts[0].pending_us[0] = pending_us;
	assert_non_null(v.topics = calloc(1, sizeof(*v.topics)));
	v.ntopics = 1;
	assert_non_null(v.topics[0].topic = strdup("a"));
	v.topics[0].partitions = 2;
	complete_set_view(f->cp, &v);
}

/* A file of partition 0 of hour 10 was published, of rows up to max_us:
 * it is in the target with its sidecar, and the completer is told. */
static void
published(struct fixture *f, int64_t max_us)
{
	char text[1024], err[512] = "";
	struct sidecar sc;

	snprintf(text, sizeof(text), "{\"kedge\":1,\"table\":\"t\","
	    "\"topic\":\"a\",\"partition\":0,\"host\":\"h1\","
	    "\"first_offset\":0,\"rows\":1,\"bytes\":2,\"sha256\":"
	    "\"%s\",\"format\":\"hive-text\",\"codec\":\"none\","
	    "\"min_event_us\":%" PRId64 ",\"max_event_us\":%" PRId64 ","
	    "\"offsets\":[[0,0]],\"empty\":[],\"spill\":[]}\n",
	    /* sha256sum of "x\n" */
	    "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac",
	    END - 3600 * US, max_us);
	if (target_write(f->t, HOUR_DIR "/.a+0+0+h1.txt.json", text,
	    strlen(text), err, sizeof(err)) != 0 ||
	    target_write(f->t, HOUR_DIR "/a+0+0+h1.txt", "x\n", 2, err,
	    sizeof(err)) != 0)
		fail_msg("target_write: %s", err);
	memset(&sc, 0, sizeof(sc));
	sc.topic = "a";
	sc.partition = 0;
	sc.has_event_range = 1;
	sc.min_event_us = END - 3600 * US;
	sc.max_event_us = max_us;
	complete_published(f->cp, HOUR_DIR "/a+0+0+h1.txt", &sc);
}

/* The other host's progress of partition 1. */
static void
other(struct fixture *f, int64_t max_us, int64_t pending_us, int at_end,
    time_t last_record)
{
	struct progress p = { "h2", max_us, pending_us, at_end,
	    (int64_t)last_record, (int64_t)NOW };
	struct buf text = { 0 };
	char err[512] = "";

	assert_int_equal(progress_format(&p, &text), 0);
	if (target_write(f->t, "_kedge/progress/t/a+1.json", text.data,
	    text.len, err, sizeof(err)) != 0)
		fail_msg("target_write: %s", err);
	buf_clear(&text);
}

/* Runs the completer at NOW; returns the manifests it wrote, after
 * checking that _SUCCESS of hour 10 is there exactly when one was, and
 * that its manifest lists the hour's file. */
static int
run(struct fixture *f)
{
	char path[160], err[1024] = "";
	int n;

	if ((n = complete_run(f->cp, f->t, NOW, err, sizeof(err))) < 0)
		fail_msg("complete_run: %s", err);
	snprintf(path, sizeof(path), "%s/target/" HOUR_DIR "/" MANIFEST_SUCCESS,
	    f->dir);
	assert_int_equal(access(path, F_OK) == 0, n > 0);
	if (n > 0) {
		char *text;
		size_t len;

		/* the manifest lists the hour's file */
		assert_int_equal(target_read(f->t, HOUR_DIR "/" MANIFEST_NAME,
		    1 << 20, &text, &len, err, sizeof(err)), 1);
		assert_non_null(strstr(text, "\"a+0+0+h1.txt\""));
		free(text);
	}
	return n;
}

/* Partition 1 is behind the hour's end plus the lateness by one
 * microsecond: not complete; once it reaches it exactly, complete. */
static void
test_partition_below_end(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	other(f, END + LATE * US - 1, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 0);
	other(f, END + LATE * US, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 1);
}

/* The same for this host's own partition, moved by what it publishes. */
static void
test_own_partition_below_end(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, INT64_MAX);
	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	published(f, END + LATE * US - 1);
	assert_int_equal(run(f), 0);
	published(f, END + LATE * US);
	assert_int_equal(run(f), 1);
}

/* Without partition 1's progress file, nothing completes, however far
 * partition 0 is. */
static void
test_no_progress_holds_back(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	assert_int_equal(run(f), 0);
	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 1);
}

/* A partition without a record for idle_timeout counts as the present,
 * one a second short of it as its own max_event_us. */
static void
test_idle_partition(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	other(f, END - 1800 * US, PROGRESS_NO_PENDING, 0, NOW - IDLE + 1);
	assert_int_equal(run(f), 0);
	other(f, END - 1800 * US, PROGRESS_NO_PENDING, 0, NOW - IDLE);
	assert_int_equal(run(f), 1);
}

/* This host's partition idle in its view (it never published anything
 * past the hour) counts as the present too. */
static void
test_own_idle_partition(void **state)
{
	struct fixture *f = *state;

	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	view(f, 0, NOW - IDLE + 1, INT64_MAX);
	published(f, END - 1800 * US);
	assert_int_equal(run(f), 0);
	view(f, 0, NOW - IDLE, INT64_MAX);
	assert_int_equal(run(f), 1);
}

/* A partition read to its end counts as the present. */
static void
test_partition_at_end(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	other(f, END - 1800 * US, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 0);
	other(f, END - 1800 * US, PROGRESS_NO_PENDING, 1, NOW);
	assert_int_equal(run(f), 1);
}

/* Rows of the hour still in this host's spool hold it back, even with
 * both partitions past it, at their end and idle; once they are
 * published, it completes. */
static void
test_rows_in_spool_hold_back(void **state)
{
	struct fixture *f = *state;

	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 1, NOW - IDLE);
	view(f, 1, NOW - IDLE, END - 60 * US);
	published(f, END + 3600 * US);
	assert_int_equal(run(f), 0);
	view(f, 1, NOW - IDLE, INT64_MAX);
	assert_int_equal(run(f), 1);
}

/* The same for the rows in the other host's spool, and for a host just
 * assigned a partition (pending_us 0, complete_hold()). */
static void
test_other_spool_holds_back(void **state)
{
	struct fixture *f = *state;
	char err[512] = "";

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	other(f, END + 3600 * US, END - 60 * US, 1, NOW);
	assert_int_equal(run(f), 0);
	/* gone past it, then assigned to a host that has published nothing */
	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	if (complete_hold(f->t, f->c, "a", 1, err, sizeof(err)) != 0)
		fail_msg("complete_hold: %s", err);
	assert_int_equal(run(f), 0);
	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 1);
}

/* Rows in the spool of a later time hold back only later hours: pending
 * at END + LATE is no earlier than the watermark needs. */
static void
test_later_rows_in_spool(void **state)
{
	struct fixture *f = *state;

	view(f, 0, NOW, END + LATE * US);
	published(f, END + 3600 * US);
	other(f, END + 3600 * US, PROGRESS_NO_PENDING, 0, NOW);
	assert_int_equal(run(f), 1);
}

/* An hour whose directory lists no part file (here only a sidecar, as a
 * crash between a file's sidecar and the file leaves it) is looked at
 * without fault: qsort() of the empty listing, a NULL array, was
 * undefined behaviour, on which the sanitizer build stopped. */
static void
test_hour_without_part_file(void **state)
{
	struct fixture *f = *state;
	char path[160], err[1024] = "";

	view(f, 0, NOW, INT64_MAX);
	published(f, END + 3600 * US);
	other(f, END + LATE * US, PROGRESS_NO_PENDING, 0, NOW);
	snprintf(path, sizeof(path), "%s/target/" HOUR_DIR "/a+0+0+h1.txt",
	    f->dir);
	assert_int_equal(unlink(path), 0);
	if (complete_run(f->cp, f->t, NOW, err, sizeof(err)) < 0)
		fail_msg("complete_run: %s", err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_partition_below_end, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_own_partition_below_end,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_progress_holds_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_partition, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_own_idle_partition, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_partition_at_end, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rows_in_spool_hold_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_spool_holds_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_rows_in_spool, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hour_without_part_file,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
