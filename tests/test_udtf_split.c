/*
 * The split UDTF: one row per event, cut at a separator of one byte or
 * several; CRLF lines; empty events kept or skipped; the column name; the
 * limit on events per record; rows that point into the record.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/udtf_harness.h"

extern const struct udtf_plugin udtf_split_plugin;

#define P (&udtf_split_plugin)

static void
test_defaults_lines(void **state)
{
	(void)state;
	hx_open_ok(P, NULL);
	assert_int_equal(hx.ncols, 1);
	assert_string_equal(hx.cols[0].name, "event");
	assert_int_equal(hx.cols[0].type, UDTF_STRING);
	hx_run_ok("one\ntwo\nthree", 3);
	hx_assert_str(0, "event", "one");
	hx_assert_str(1, "event", "two");
	hx_assert_str(2, "event", "three");
	/* A trailing newline ends the last line; it makes no empty row */
	hx_run_ok("one\ntwo\n", 2);
	hx_assert_str(1, "event", "two");
	/* No separator: the record is the one event */
	hx_run_ok("just one", 1);
	hx_assert_str(0, "event", "just one");
	/* Blank lines, and separators at both ends, make no rows */
	hx_run_ok("\na\n\n\nb\n", 2);
	hx_assert_str(0, "event", "a");
	hx_assert_str(1, "event", "b");
	hx_run_ok("", 0);
	hx_run_ok("\n", 0);
	hx_run_ok("\n\n\n", 0);
	/* Blanks are data */
	hx_run_ok(" \n\t", 2);
	hx_assert_str(0, "event", " ");
	hx_assert_str(1, "event", "\t");
}

static void
test_crlf_lines(void **state)
{
	(void)state;
	hx_open_ok(P, NULL);
	hx_run_ok("one\r\ntwo\r\n", 2);
	hx_assert_str(0, "event", "one");
	hx_assert_str(1, "event", "two");
	/* The last line's "\r" goes too, and blank CRLF lines are empty */
	hx_run_ok("one\r\n\r\n\r\ntwo\r", 2);
	hx_assert_str(1, "event", "two");
	hx_run_ok("\r\n\r", 0);
	/* Only one "\r", only at the end of a line */
	hx_run_ok("a\r\r\nb\rc", 2);
	hx_assert_str(0, "event", "a\r");
	hx_assert_str(1, "event", "b\rc");
	hx_open_ok(P, "trim_cr", "false", NULL);
	hx_run_ok("one\r\ntwo\r\n\r\n", 3);
	hx_assert_str(0, "event", "one\r");
	hx_assert_str(1, "event", "two\r");
	hx_assert_str(2, "event", "\r");
}

static void
test_other_separators(void **state)
{
	(void)state;
	hx_open_ok(P, "separator", ";", NULL);
	hx_run_ok(";a;b;;c;", 3);
	hx_assert_str(0, "event", "a");
	hx_assert_str(2, "event", "c");
	/* trim_cr is for "\n" only */
	hx_run_ok("a\r;b\n", 2);
	hx_assert_str(0, "event", "a\r");
	hx_assert_str(1, "event", "b\n");
	hx_open_ok(P, "separator", "\r\n", NULL);
	hx_run_ok("a\r\nb\nc\r\n\r\nd\r", 3);
	hx_assert_str(0, "event", "a");
	hx_assert_str(1, "event", "b\nc");
	hx_assert_str(2, "event", "d\r");
	/* Several bytes, overlapping ones included */
	hx_open_ok(P, "separator", "\xe2\x80\xa8", NULL);
	hx_run_ok("x\xe2\x80\xa8y\xe2\x80z\xe2\x80\xa8", 2);
	hx_assert_str(0, "event", "x");
	hx_assert_str(1, "event", "y\xe2\x80z");
	hx_open_ok(P, "separator", "--", NULL);
	hx_run_ok("a---b----c", 3);
	hx_assert_str(0, "event", "a");
	hx_assert_str(1, "event", "-b");
	hx_assert_str(2, "event", "c");
	/* A separator longer than the record */
	hx_open_ok(P, "separator", "<end-of-event>", NULL);
	hx_run_ok("ab", 1);
	hx_assert_str(0, "event", "ab");
	/* A NUL separator */
	hx_open_ok(P, "separator", "\x1e", NULL);
	assert_int_equal(hx_run_len("a\x1e" "b\0c\x1e", 6), 0);
	assert_int_equal(hx.nrows, 2);
	assert_int_equal(hx.rows[1].v[0].u.s.len, 3);
}

static void
test_keep_empty(void **state)
{
	(void)state;
	hx_open_ok(P, "skip_empty", "false", NULL);
	/* n separators, n + 1 events */
	hx_run_ok("a\n\nb\n", 4);
	hx_assert_str(0, "event", "a");
	hx_assert_str(1, "event", "");
	hx_assert_str(2, "event", "b");
	hx_assert_str(3, "event", "");
	hx_run_ok("", 1);
	hx_assert_str(0, "event", "");
	hx_run_ok("\r\n", 2);
	hx_assert_str(0, "event", "");
	hx_assert_str(1, "event", "");
	hx_open_ok(P, "skip_empty", "false", "separator", "||", NULL);
	hx_run_ok("||x||", 3);
	hx_assert_str(0, "event", "");
	hx_assert_str(1, "event", "x");
	hx_assert_str(2, "event", "");
}

static void
test_rows_point_into_the_record(void **state)
{
	struct udtf_record rec;

	(void)state;
	hx_open_ok(P, NULL);
	hx_run_ok("ab\r\ncd", 2);
	hx_assert_str(0, "event", "ab");
	hx_assert_zero_copy(0, "event", 1);
	hx_assert_str(1, "event", "cd");
	hx_assert_zero_copy(1, "event", 1);
	/* A record without data is an empty one */
	memset(&rec, 0, sizeof rec);
	hx_clear_rows();
	assert_int_equal(P->process(hx.state, &rec, &hx.em, hx.err,
	    sizeof hx.err), 0);
	assert_int_equal(hx.nrows, 0);
}

static void
test_column_name(void **state)
{
	(void)state;
	hx_open_ok(P, "column", "line_2", NULL);
	assert_string_equal(hx.cols[0].name, "line_2");
	hx_run_ok("x", 1);
	hx_assert_str(0, "line_2", "x");
}

static void
test_max_events(void **state)
{
	char big[2 * 1000 + 1];

	(void)state;
	hx_open_ok(P, "max_events", "3", NULL);
	hx_run_ok("a\nb\nc", 3);
	hx_run_rejected("a\nb\nc\nd", "more than 3 events in one record");
	/* Empty events that make no row do not count */
	hx_run_ok("a\n\n\n\nb\n\n\nc\n\n", 3);
	hx_open_ok(P, "max_events", "3", "skip_empty", "false", NULL);
	hx_run_rejected("a\n\n\n", "more than 3 events in one record");
	for (size_t i = 0; i < 1000; i++) {
		big[2 * i] = 'x';
		big[2 * i + 1] = '\n';
	}
	big[2000] = '\0';
	hx_open_ok(P, "max_events", "999", NULL);
	hx_run_rejected(big, "more than 999 events in one record");
	hx_open_ok(P, "max_events", "1000", NULL);
	hx_run_ok(big, 1000);
	hx_open_ok(P, "max_events", "1", NULL);
	hx_run_ok("one line\n", 1);
	hx_run_rejected("one\ntwo", "more than 1 events in one record");
}

static void
test_max_events_default(void **state)
{
	size_t n = 100001;
	char *big = malloc(2 * n + 1);

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++) {
		big[2 * i] = 'x';
		big[2 * i + 1] = '\n';
	}
	big[2 * n] = '\0';
	hx_open_ok(P, NULL);
	hx_run_rejected(big, "more than 100000 events in one record");
	/* 100000 are fine: count them without keeping them */
	hx_open_ok(P, "skip_empty", "false", NULL);
	big[2 * n - 3] = '\0';
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run(big), -E2BIG);
	hx.refuse = 0;
	free(big);
}

static void
test_emit_refusal_propagates(void **state)
{
	(void)state;
	hx_open_ok(P, NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("a\nb"), -E2BIG);
	assert_int_equal(hx.nrows, 0);
}

static void
test_bad_configs_refused(void **state)
{
	(void)state;
	hx_open_fails("separator must not be empty", P, "separator", "", NULL);
	hx_open_fails("trim_cr must be true or false, not \"yes\"", P,
	    "trim_cr", "yes", NULL);
	hx_open_fails("skip_empty must be true or false, not \"\"", P,
	    "skip_empty", "", NULL);
	hx_open_fails("max_events must be a whole number of at least 1, not "
	    "\"0\"", P, "max_events", "0", NULL);
	hx_open_fails("max_events must be a whole number of at least 1, not "
	    "\"-5\"", P, "max_events", "-5", NULL);
	hx_open_fails("max_events must be a whole number of at least 1, not "
	    "\"1e5\"", P, "max_events", "1e5", NULL);
	hx_open_fails("column: \"my event\" is not a column name; use "
	    "letters, digits and _", P, "column", "my event", NULL);
	hx_open_fails("column: \"\" is not a column name", P, "column", "",
	    NULL);
	hx_open_fails("split has no key \"sep\"", P, "sep", ";", NULL);
	/* Booleans as coltype reads them */
	hx_open_ok(P, "trim_cr", "FALSE", "skip_empty", "0", NULL);
	hx_run_ok("\r\n", 2);
}

static void
test_keys_declared(void **state)
{
	static const char *const names[] = { "column", "separator", "trim_cr",
	    "skip_empty", "max_events" };
	static const char *const defaults[] = { "event", "\n", "true", "true",
	    "100000" };

	(void)state;
	assert_string_equal(P->name, "split");
	assert_int_equal(P->abi_version, KEDGE_UDTF_ABI_VERSION);
	assert_null(P->note);
	for (size_t i = 0; i < 5; i++) {
		assert_non_null(P->keys[i].name);
		assert_string_equal(P->keys[i].name, names[i]);
		assert_string_equal(P->keys[i].default_value, defaults[i]);
		assert_non_null(P->keys[i].description);
	}
	assert_null(P->keys[5].name);
	/* The defaults as kedge passes them, every key filled in */
	hx_open_ok(P, "column", "event", "separator", "\n", "trim_cr", "true",
	    "skip_empty", "true", "max_events", "100000", NULL);
	hx_run_ok("a\r\n\r\nb", 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_defaults_lines, hx_teardown),
		cmocka_unit_test_teardown(test_crlf_lines, hx_teardown),
		cmocka_unit_test_teardown(test_other_separators, hx_teardown),
		cmocka_unit_test_teardown(test_keep_empty, hx_teardown),
		cmocka_unit_test_teardown(test_rows_point_into_the_record,
		    hx_teardown),
		cmocka_unit_test_teardown(test_column_name, hx_teardown),
		cmocka_unit_test_teardown(test_max_events, hx_teardown),
		cmocka_unit_test_teardown(test_max_events_default, hx_teardown),
		cmocka_unit_test_teardown(test_emit_refusal_propagates,
		    hx_teardown),
		cmocka_unit_test_teardown(test_bad_configs_refused,
		    hx_teardown),
		cmocka_unit_test_teardown(test_keys_declared, hx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
