/*
 * progress: the header's example reads and writes back byte for byte;
 * event times past the bound are written as the bound, so that what is
 * written always reads back; every cut of a progress file, and each kind
 * of text that is not one (a key twice or missing, a number beyond int64
 * or its range, a value of another type), is refused saying where.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/complete/progress.h"
#include "lib/buf.h"
#include "tests/testlib.h"

static const char example[] =
    "{\"host\":\"edge01\",\"max_event_us\":1785614399000000,"
    "\"pending_us\":null,\"at_end\":0,\"last_record\":1795000000,"
    "\"written\":1795000030}\n";

static void
assert_reads_back(const char *text)
{
	struct progress p;
	struct buf out = { 0 };
	char err[512] = "";

	if (progress_parse(text, strlen(text), &p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(progress_format(&p, &out), 0);
	assert_int_equal(buf_append(&out, "", 1), 0);
	assert_string_equal(out.data, text);
	progress_clear(&p);
	buf_clear(&out);
}

static void
test_reads_back(void **state)
{
	struct progress p;
	char err[512];

	(void)state;
	assert_reads_back(example);
	assert_reads_back("{\"host\":\"h\\\"\\n\",\"max_event_us\":null,"
	    "\"pending_us\":0,\"at_end\":1,\"last_record\":0,\"written\":0}\n");
	assert_int_equal(progress_parse(example, strlen(example), &p, err,
	    sizeof(err)), 0);
	assert_string_equal(p.host, "edge01");
	assert_int_equal(p.max_event_us, 1785614399000000);
	assert_int_equal(p.pending_us, PROGRESS_NO_PENDING);
	assert_int_equal(p.last_record, 1795000000);
	progress_clear(&p);
	progress_clear(&p); /* a freed one is a zeroed one */
}

/* What the parser would refuse is written within its bounds. */
static void
test_clamped(void **state)
{
	struct progress p = { "h", INT64_MAX - 1, INT64_MIN + 1, 1, 5, 6 },
	    back;
	struct buf out = { 0 };
	char err[512];

	(void)state;
	assert_int_equal(progress_format(&p, &out), 0);
	if (progress_parse(out.data, out.len, &back, err, sizeof(err)) != 0)
		fail_msg("%s: %.*s", err, (int)out.len, out.data);
	assert_int_equal(back.max_event_us, PROGRESS_US_MAX);
	assert_int_equal(back.pending_us, -PROGRESS_US_MAX);
	progress_clear(&back);
	buf_clear(&out);
}

/* progress_parse as test_parse_fn. */
static int
parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct progress p;
	int r = progress_parse(text, len, &p, err, errlen);

	progress_clear(&p);
	return r;
}

static void
test_truncated(void **state)
{
	(void)state;
	assert_cuts_refused(parse, example);
}

static void
test_refused(void **state)
{
	static const struct test_refusal cases[] = {
		{ "\"at_end\":0,", "\"at_end\":0,\"at_end\":1,",
		    "line 1, column 86: duplicate object key near '\"at_end\"'" },
		{ "\"at_end\":0,", "", "no \"at_end\"" },
		{ "\"at_end\":0,", "\"at_end\":0,\"colour\":0,",
		    "unknown key \"colour\"" },
		{ "\"at_end\":0", "\"at_end\":2",
		    "\"at_end\": 2 is out of range [0, 1]" },
		{ "\"at_end\":0", "\"at_end\":false",
		    "\"at_end\": expected an integer, found false" },
		{ "\"last_record\":1795000000", "\"last_record\":-1",
		    "\"last_record\": negative" },
		{ "\"last_record\":1795000000",
		    "\"last_record\":-9223372036854775808",
		    "\"last_record\": negative" },
		{ "\"written\":1795000030", "\"written\":1e9",
		    "\"written\": expected an integer, found a real number" },
		{ "\"written\":1795000030", "\"written\":18446744073709551616",
		    "line 1, column 133: too big integer" },
		{ "\"pending_us\":null", "\"pending_us\":9223372036854775807",
		    "\"pending_us\": 9223372036854775807 is out of range" },
		{ "\"max_event_us\":1785614399000000",
		    "\"max_event_us\":-9223372036854775807",
		    "\"max_event_us\": -9223372036854775807 is out of range" },
		{ "\"max_event_us\":1785614399000000", "\"max_event_us\":\"1\"",
		    "\"max_event_us\": expected an integer, found a string" },
		{ "\"host\":\"edge01\"", "\"host\":\"\"", "\"host\": empty" },
		{ "\"host\":\"edge01\"", "\"host\":null",
		    "\"host\": expected a string, found null" },
		{ "\"host\":\"edge01\"", "\"host\":\"e\\u0000\"",
		    "line 1, column 17: \\u0000 is not allowed" },
	};

	(void)state;
	assert_refusals(parse, example, cases, sizeof(cases) / sizeof(cases[0]));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_back),
		cmocka_unit_test(test_clamped),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
