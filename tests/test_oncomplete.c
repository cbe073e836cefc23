/*
 * output.on_complete's records (agent/complete/oncomplete.c): a record
 * that cannot be read (here a directory where the file should be) is left
 * out, saying so, and stops nothing: the other tables' records are read,
 * their lines that are not records left out; a reload's handover gives
 * the new thread the records and the figures of the old one, whatever the
 * files hold by then.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/complete/oncomplete.h"
#include "agent/config/config.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

struct fixture {
	char dir[64];
	struct conf *c;
};

static int
setup(void **state)
{
	static const char u[] = "done 20261129 09 1 3\n"
	    "not a record\n"
	    "pending 20261129 10 1 5 /srv/u/dt=20261129/hr=10\n";
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-oncomplete.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	/* a command that always fails: a pending revision stays pending */
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"k1:9092\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; },\n"
	    "  { name = \"u\"; topics = [ \"b\" ]; udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s/spool\"; local_dir = \"%s/target\";\n"
	    "  timezone = \"UTC\"; on_complete = [ \"false\" ]; };\n",
	    f->dir, f->dir);
	/* t's record is a directory; u's holds two records and a bad line */
	snprintf(path, sizeof(path), "%s/spool/on_complete/t", f->dir);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/spool/on_complete/u", f->dir);
	assert_int_equal(fs_write_atomic(path, u, sizeof(u) - 1), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
	return 0;
}

static void
test_unreadable_record_left_out(void **state)
{
	struct fixture *f = *state;
	struct oncomplete_stats st;
	struct oncomplete *oc;
	char err[1024] = "";

	if ((oc = oncomplete_start(f->c, err, sizeof(err))) == NULL)
		fail_msg("oncomplete_start: %s", err);
	assert_int_equal(oncomplete_load(oc), 0);
	oncomplete_get_stats(oc, 0, &st);
	assert_int_equal(st.pending, 0);
	oncomplete_get_stats(oc, 1, &st);
	assert_int_equal(st.pending, 1);
	assert_int_equal(st.ok, 0);
	oncomplete_stop(oc);
}

static void
test_handover_keeps_records(void **state)
{
	struct fixture *f = *state;
	struct oncomplete_stats st;
	struct oncomplete *old, *next;
	char err[1024] = "", path[128];

	if ((old = oncomplete_start(f->c, err, sizeof(err))) == NULL)
		fail_msg("oncomplete_start: %s", err);
	assert_int_equal(oncomplete_load(old), 0);
	oncomplete_note(old, "t", "20261129", "11", 2, 7, "/srv/t/hr=11");
	/* what the files hold now is not what the new one is to run */
	snprintf(path, sizeof(path), "%s/spool/on_complete/u", f->dir);
	assert_int_equal(fs_write_atomic(path, "", 0), 0);
	if ((next = oncomplete_start(f->c, err, sizeof(err))) == NULL)
		fail_msg("oncomplete_start: %s", err);
	oncomplete_handover(next, old);
	oncomplete_get_stats(next, 0, &st);
	assert_int_equal(st.pending, 1);
	oncomplete_get_stats(next, 1, &st);
	assert_int_equal(st.pending, 1);
	oncomplete_stop(next);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unreadable_record_left_out,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_handover_keeps_records,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
