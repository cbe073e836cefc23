/*
 * Publishing into a local target again after a try that got the file
 * there but stopped before removing it from the spool: a file of the same
 * length already at the final name counts as published; one of another
 * length is refused and left for a person.  Through target_put() and
 * through the publisher thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config/config.h"
#include "agent/publish/publish.h"
#include "agent/target/target.h"
#include "lib/buf.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

#define HOUR "t/dt=20261129/hr=10/"
#define PART HOUR "a+0+0+h1.txt"
#define SIDECAR HOUR ".a+0+0+h1.txt.json"

struct fixture {
	char dir[64];
	struct conf *c;
	struct target *t;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128], err[1024] = "";

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-publish.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"k1:9092\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s/spool\"; target = \"local\";\n"
	    "  local_dir = \"%s/target\"; timezone = \"UTC\"; host = \"h1\"; };\n"
	    "completion = { enabled = false; };\n", f->dir, f->dir);
	snprintf(path, sizeof(path), "%s/target", f->dir);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	if ((f->t = target_open(f->c, err, sizeof(err))) == NULL)
		fail_msg("target_open: %s", err);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	target_close(f->t);
	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* Writes text to <dir>/<sub>/<rel>, creating its directories; the path in
 * path[256]. */
static void
put_file(const struct fixture *f, const char *sub, const char *rel,
    const char *text, char *path)
{
	char parent[256];

	snprintf(path, 256, "%s/%s/%s", f->dir, sub, rel);
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	assert_int_equal(fs_mkdirs(parent, 0755), 0);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
}

/* <dir>/<sub>/<rel> holds exactly text. */
static void
assert_holds(const struct fixture *f, const char *sub, const char *rel,
    const char *text)
{
	char path[256];
	struct buf b = { 0 };

	snprintf(path, sizeof(path), "%s/%s/%s", f->dir, sub, rel);
	if (fs_read_all(path, &b) < 0)
		fail_msg("cannot read %s", path);
	assert_int_equal(b.len, strlen(text));
	assert_memory_equal(b.data, text, b.len);
	buf_clear(&b);
}

static int
exists(const struct fixture *f, const char *sub, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/%s", f->dir, sub, rel);
	return access(path, F_OK) == 0;
}

/* A second put of the same file finds it in place: done, nothing
 * changed. */
static void
test_put_again_is_done(void **state)
{
	struct fixture *f = *state;
	char src[256], err[1024] = "";

	put_file(f, "spool/ready", PART, "1\n2\n3\n", src);
	if (target_put(f->t, src, PART, err, sizeof(err)) != 0)
		fail_msg("target_put: %s", err);
	assert_holds(f, "target", PART, "1\n2\n3\n");
	if (target_put(f->t, src, PART, err, sizeof(err)) != 0)
		fail_msg("target_put again: %s", err);
	assert_holds(f, "target", PART, "1\n2\n3\n");
	assert_true(exists(f, "spool/ready", PART)); /* src is left in place */
}

/* A file of another length at the final name is refused, saying both
 * lengths, and neither copy is touched. */
static void
test_put_other_length_refused(void **state)
{
	struct fixture *f = *state;
	char src[256], dst[256], err[1024] = "";

	put_file(f, "target", PART, "1\n2\n", dst);
	put_file(f, "spool/ready", PART, "1\n2\n3\n", src);
	assert_int_equal(target_put(f->t, src, PART, err, sizeof(err)),
	    -EEXIST);
	assert_non_null(strstr(err, dst));
	assert_non_null(strstr(err, "exists with 4 bytes, the spool's copy has "
	    "6;"));
	assert_holds(f, "target", PART, "1\n2\n");
	assert_holds(f, "spool/ready", PART, "1\n2\n3\n");
}

/* The current behaviour, as publish.h says it: the length alone is
 * compared, so a file of the same length but other bytes counts as
 * published too, and the target keeps its own bytes. */
static void
test_put_same_length_other_bytes(void **state)
{
	struct fixture *f = *state;
	char src[256], dst[256], err[1024] = "";

	put_file(f, "target", PART, "9\n9\n9\n", dst);
	put_file(f, "spool/ready", PART, "1\n2\n3\n", src);
	if (target_put(f->t, src, PART, err, sizeof(err)) != 0)
		fail_msg("target_put: %s", err);
	assert_holds(f, "target", PART, "9\n9\n9\n");
}

/* Starts the publisher, waits until it has left the ready spool empty,
 * and stops it; returns its figures. */
static void
publish_all(struct fixture *f, struct publish_stats *st)
{
	struct publisher *p;
	char err[1024] = "";

	if ((p = publisher_start(f->c, err, sizeof(err))) == NULL)
		fail_msg("publisher_start: %s", err);
	publisher_kick(p);
	assert_int_equal(publisher_drain(p, 60), 0);
	publisher_get_stats(p, st);
	publisher_stop(p);
}

/* A retry that finds the part file and its sidecar at their final names
 * with their lengths counts them published: the spool's copies go, the
 * target's stay as they were (the same inodes), no error. */
static void
test_retry_finds_both_in_place(void **state)
{
	struct fixture *f = *state;
	char path[256], side[256];
	struct publish_stats st;
	struct stat before, sbefore, after, safter;

	put_file(f, "target", PART, "1\n2\n3\n", path);
	put_file(f, "target", SIDECAR, "{\"rows\":3}\n", side);
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(stat(side, &sbefore), 0);
	put_file(f, "spool/ready", PART, "1\n2\n3\n", path);
	put_file(f, "spool/ready", SIDECAR, "{\"rows\":3}\n", path);
	publish_all(f, &st);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.bytes, 6);
	assert_int_equal(st.errors, 0);
	assert_string_equal(st.last_error, "");
	assert_false(exists(f, "spool/ready", PART));
	assert_false(exists(f, "spool/ready", SIDECAR));
	snprintf(path, sizeof(path), "%s/target/" PART, f->dir);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(stat(side, &safter), 0);
	assert_true(after.st_ino == before.st_ino);
	assert_true(safter.st_ino == sbefore.st_ino);
	assert_holds(f, "target", PART, "1\n2\n3\n");
	assert_holds(f, "target", SIDECAR, "{\"rows\":3}\n");
}

/* A try that stopped between the sidecar and the part file: the retry
 * finds the sidecar in place and puts the part file. */
static void
test_retry_finds_sidecar_in_place(void **state)
{
	struct fixture *f = *state;
	char path[256];
	struct publish_stats st;

	put_file(f, "target", SIDECAR, "{\"rows\":3}\n", path);
	put_file(f, "spool/ready", PART, "1\n2\n3\n", path);
	put_file(f, "spool/ready", SIDECAR, "{\"rows\":3}\n", path);
	publish_all(f, &st);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.errors, 0);
	assert_false(exists(f, "spool/ready", PART));
	assert_false(exists(f, "spool/ready", SIDECAR));
	assert_holds(f, "target", PART, "1\n2\n3\n");
	assert_holds(f, "target", SIDECAR, "{\"rows\":3}\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_again_is_done, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_put_other_length_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_same_length_other_bytes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_finds_both_in_place,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_retry_finds_sidecar_in_place, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
