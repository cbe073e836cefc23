/*
 * The csv and tsv UDTFs: typed columns, RFC 4180 quoting ("" inside,
 * delimiters and newlines inside quotes), null_value, the field-count
 * rules and allow_missing/allow_extra, line ends, every reject reason,
 * truncated and huge lines, non-UTF-8 bytes, the configs they refuse, and
 * a refused emit.
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

extern const struct udtf_plugin udtf_csv_plugin;
extern const struct udtf_plugin udtf_tsv_plugin;

#define CSV (&udtf_csv_plugin)
#define TSV (&udtf_tsv_plugin)

#define COLUMNS6 "ts:timestamp, host, status:int64, dur:double, ok:bool, " \
	"msg"
#define LINE6 "2026-11-29T10:00:00Z,web-1,200,0.25,true," \
	"\"GET /a?x=1,2 \"\"q\"\"\""

static void
test_descriptors(void **state)
{
	const struct udtf_plugin *p[] = { CSV, TSV };

	(void)state;
	assert_string_equal(CSV->name, "csv");
	assert_string_equal(TSV->name, "tsv");
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(p[i]->abi_version, KEDGE_UDTF_ABI_VERSION);
		for (const struct udtf_key *k = p[i]->keys; k->name != NULL;
		    k++) {
			assert_non_null(k->description);
			if (strcmp(k->name, "columns") == 0)
				assert_null(k->default_value);
			else
				assert_non_null(k->default_value);
		}
	}
}

static void
test_typed_line(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", COLUMNS6, NULL);
	assert_int_equal(hx.ncols, 6);
	assert_int_equal(hx.cols[0].type, UDTF_TIMESTAMP);
	assert_int_equal(hx.cols[2].type, UDTF_INT64);
	assert_int_equal(hx.cols[3].type, UDTF_DOUBLE);
	assert_int_equal(hx.cols[4].type, UDTF_BOOL);
	assert_int_equal(hx.cols[5].type, UDTF_STRING);
	hx_run_ok(LINE6, 1);
	hx_assert_ts(0, "ts", INT64_C(1795946400000000));
	hx_assert_str(0, "host", "web-1");
	hx_assert_i64(0, "status", 200);
	hx_assert_double(0, "dur", 0.25);
	hx_assert_bool(0, "ok", 1);
	hx_assert_str(0, "msg", "GET /a?x=1,2 \"q\"");
}

static void
test_quoting(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b, c, d, e", NULL);
	hx_run_ok("\"a,b\",\"c\"\"d\",\"\",,x", 1);
	hx_assert_str(0, "a", "a,b");
	hx_assert_str(0, "b", "c\"d");
	hx_assert_str(0, "c", "");
	hx_assert_null(0, "d");
	hx_assert_str(0, "e", "x");
	/* newlines and CRs inside quotes are data */
	hx_run_ok("\"l1\nl2\",\"\r\n\",\"\"\"\",\"\"\"\"\"\",\"x\r\"", 1);
	hx_assert_str(0, "a", "l1\nl2");
	hx_assert_str(0, "b", "\r\n");
	hx_assert_str(0, "c", "\"");
	hx_assert_str(0, "d", "\"\"");
	hx_assert_str(0, "e", "x\r");
	/* a quote inside an unquoted field, and blanks, are data */
	hx_run_ok("a\"b, \"c\" ,d\"\", ,\"\"", 1);
	hx_assert_str(0, "a", "a\"b");
	hx_assert_str(0, "b", " \"c\" ");
	hx_assert_str(0, "c", "d\"\"");
	hx_assert_str(0, "d", " ");
	hx_assert_str(0, "e", "");
	/* several unescaped fields of one line, all kept in place */
	hx_run_ok("\"\"\"1\",\"2\"\"\",plain,\"\"\"\"\"\"\"\",\"a\"\"b\"\"c\"",
	    1);
	hx_assert_str(0, "a", "\"1");
	hx_assert_str(0, "b", "2\"");
	hx_assert_str(0, "c", "plain");
	hx_assert_str(0, "d", "\"\"\"");
	hx_assert_str(0, "e", "a\"b\"c");
}

static void
test_null_value(void **state)
{
	(void)state;
	/* csv: an empty unquoted field is NULL, "" the empty string */
	hx_open_ok(CSV, "columns", "s, t, n:int64, m:int64", NULL);
	hx_run_ok(",\"\",,\"\"", 1);
	hx_assert_null(0, "s");
	hx_assert_str(0, "t", "");
	hx_assert_null(0, "n");
	hx_assert_null(0, "m");
	hx_open_ok(CSV, "columns", "s, t, n:int64, m:int64", "null_value",
	    "NULL", NULL);
	hx_run_ok("NULL,\"NULL\",NULL,", 1);
	hx_assert_null(0, "s");
	hx_assert_str(0, "t", "NULL");
	hx_assert_null(0, "n");
	hx_assert_null(0, "m");
	hx_run_ok(",,1,2", 1);
	hx_assert_str(0, "s", "");
	hx_assert_i64(0, "m", 2);
	hx_run_rejected("a,b,\"NULL\",1", "column n: \"NULL\" is not an int64");
}

static void
test_tsv(void **state)
{
	(void)state;
	hx_open_ok(TSV, "columns", "a, b, c, n:int64, q", NULL);
	hx_run_ok("x y\t\\N\t\t\t\"q\"\"", 1);
	hx_assert_str(0, "a", "x y");
	hx_assert_null(0, "b");
	hx_assert_str(0, "c", "");
	hx_assert_null(0, "n");
	hx_assert_str(0, "q", "\"q\"\"");
	hx_run_ok("a,b\t\\n\t\\\\N\t\\N\tx\r\n", 1);
	hx_assert_str(0, "a", "a,b");
	hx_assert_str(0, "b", "\\n");
	hx_assert_str(0, "c", "\\\\N");
	hx_assert_null(0, "n");
	hx_assert_str(0, "q", "x");
	hx_run_rejected("a\tb", "2 fields, expected 5");
	/* tsv takes a quote when asked */
	hx_open_ok(TSV, "columns", "a, b", "quote", "\"", NULL);
	hx_run_ok("\"x\ty\"\t\"\"", 1);
	hx_assert_str(0, "a", "x\ty");
	hx_assert_str(0, "b", "");
}

static void
test_delimiter_and_quote(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b, c", "delimiter", ";", "quote", "'",
	    NULL);
	hx_run_ok("'x;y';'it''s';\"z\"", 1);
	hx_assert_str(0, "a", "x;y");
	hx_assert_str(0, "b", "it's");
	hx_assert_str(0, "c", "\"z\"");
	hx_open_ok(CSV, "columns", "a, b, c", "delimiter", "|", "quote", "",
	    NULL);
	hx_run_ok("\"x|\"y|,", 1);
	hx_assert_str(0, "a", "\"x");
	hx_assert_str(0, "b", "\"y");
	hx_assert_str(0, "c", ",");
}

static void
test_field_counts(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b, c:int64", NULL);
	hx_run_rejected("1,2", "2 fields, expected 3");
	hx_run_rejected("1", "1 field, expected 3");
	hx_run_rejected("", "1 field, expected 3");
	hx_run_rejected("1,2,3,4", "4 fields, expected 3");
	hx_run_rejected("1,2,3,", "4 fields, expected 3");
	/* the count is checked before a misaligned value */
	hx_run_rejected("x,y,z,w", "4 fields, expected 3");
	hx_run_rejected("x,z", "2 fields, expected 3");
	hx_open_ok(CSV, "columns", "a, b, c:int64", "allow_missing", "true",
	    NULL);
	hx_run_ok("1", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_null(0, "b");
	hx_assert_null(0, "c");
	hx_run_ok("", 1);
	hx_assert_null(0, "a");
	hx_run_ok("1,\"2\"", 1);
	hx_assert_str(0, "b", "2");
	hx_assert_null(0, "c");
	hx_run_rejected("1,2,3,4", "4 fields, expected 3");
	hx_open_ok(CSV, "columns", "a, b, c:int64", "allow_extra", "true",
	    NULL);
	hx_run_ok("1,2,3,4,\"unterminated", 1);
	hx_assert_i64(0, "c", 3);
	hx_run_ok("1,2,3", 1);
	hx_run_ok("1,2,\"3\"", 1);
	hx_assert_i64(0, "c", 3);
	hx_run_rejected("1,2", "2 fields, expected 3");
	hx_open_ok(CSV, "columns", "a", "allow_missing", "false",
	    "allow_extra", "false", NULL);
	hx_run_ok("", 1);
	hx_assert_null(0, "a");
	hx_run_ok("\"\"", 1);
	hx_assert_str(0, "a", "");
}

static void
test_line_ends(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, n:int64", NULL);
	hx_run_ok("x,1\r\n", 1);
	hx_assert_i64(0, "n", 1);
	hx_run_ok("x,1\n", 1);
	hx_assert_i64(0, "n", 1);
	hx_run_ok("x,1\r", 1);
	hx_assert_i64(0, "n", 1);
	hx_run_ok("x,\"1\"\r\n", 1);
	hx_assert_i64(0, "n", 1);
	hx_run_rejected("x,1\r\r\n", "column n: \"1?\" is not an int64");
	hx_run_rejected("x,1\n\n", "column n: \"1?\" is not an int64");
}

static void
test_rejects(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b, n:int64, d:double, ok:bool, "
	    "t:timestamp_ms", NULL);
	hx_run_rejected("a,\"bc", "byte 2: unterminated quoted field");
	hx_run_rejected("a,\"bc\"\"", "byte 2: unterminated quoted field");
	hx_run_rejected("\"", "byte 0: unterminated quoted field");
	hx_run_rejected("\"ab\"c,d", "byte 4: expected delimiter after "
	    "closing quote");
	hx_run_rejected("a,\"b\" ,c", "byte 5: expected delimiter after "
	    "closing quote");
	hx_run_rejected("a,b,1x,1,true,0", "column n: \"1x\" is not an int64");
	hx_run_rejected("a,b,1,nan,true,0", "column d: \"nan\" is not a "
	    "double");
	hx_run_rejected("a,b,1,1,maybe,0", "column ok: \"maybe\" is not a "
	    "bool");
	hx_run_rejected("a,b,1,1,1,1.5", "column t: \"1.5\" is not a "
	    "timestamp_ms");
	hx_run_ok("a,b,1,1,1,1500", 1);
	hx_assert_ts(0, "t", 1500000);
}

/* Every prefix of a line gives a row or a reason, never a crash or a read
 * past the end (AddressSanitizer). */
static void
test_truncated(void **state)
{
	static const char *const lines[] = {
		LINE6,
		"\"\",\"\"\"\",,\"a\nb\",x\"y,\"z\"\r\n",
	};

	(void)state;
	for (int allow = 0; allow < 2; allow++) {
		const char *b = allow ? "true" : "false";

		hx_open_ok(CSV, "columns", COLUMNS6, "allow_missing", b,
		    "allow_extra", b, NULL);
		for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
			size_t len = strlen(lines[l]);

			for (size_t i = 0; i <= len; i++) {
				int rc = hx_run_len(lines[l], i);

				assert_true(rc == 0 || rc == -EINVAL);
				assert_int_equal(hx.nrows, rc == 0);
				if (rc < 0)
					assert_true(hx.err[0] != '\0');
			}
		}
	}
}

static void
test_huge_fields(void **state)
{
	size_t big = 4u << 20;
	char *line = malloc(3 * big + 16);
	size_t n = 0;

	(void)state;
	assert_non_null(line);
	hx_open_ok(CSV, "columns", "a, b", NULL);
	memset(line, 'x', big);
	n = big;
	line[n++] = ',';
	line[n++] = '"';
	memset(line + n, '"', 2 * big);
	n += 2 * big;
	line[n++] = '"';
	assert_int_equal(hx_run_len(line, n), 0);
	assert_int_equal(hx.rows[0].v[0].u.s.len, big);
	assert_int_equal(hx.rows[0].v[1].u.s.len, big);
	assert_int_equal(hx.rows[0].str[1][big - 1], '"');
	assert_int_equal(hx_run_len(line, n - 1), -EINVAL);
	assert_non_null(strstr(hx.err, "unterminated quoted field"));
	free(line);
}

static void
test_non_utf8_and_nul(void **state)
{
	static const char line[] = "\xff\xfe,\"\xc3\x28,\x80\",x\0y";

	(void)state;
	hx_open_ok(CSV, "columns", "a, b, c", NULL);
	assert_int_equal(hx_run_len(line, sizeof line - 1), 0);
	hx_assert_str(0, "a", "\xff\xfe");
	hx_assert_str(0, "b", "\xc3\x28,\x80");
	hx_assert_bytes(0, "c", "x\0y", 3);
	hx_open_ok(CSV, "columns", "a, n:int64", NULL);
	hx_run_rejected("a,\xff", "column n: \"?\" is not an int64");
}

static void
test_bad_configs(void **state)
{
	(void)state;
	hx_open_fails("columns is required", CSV, NULL);
	hx_open_fails("columns is required", TSV, "delimiter", ",", NULL);
	hx_open_fails("csv has no key \"header_line\"", CSV, "columns", "a",
	    "header_line", "true", NULL);
	hx_open_fails("tsv has no key \"fields\"", TSV, "fields", "a", NULL);
	hx_open_fails("columns: \"x=a\": write NAME[:TYPE], without '='", CSV,
	    "columns", "x=a", NULL);
	hx_open_fails("columns: \"b:int\" has unknown type \"int\"", CSV,
	    "columns", "a, b:int", NULL);
	hx_open_fails("columns: two columns named \"a\"", CSV, "columns",
	    "a, b, a:int64", NULL);
	hx_open_fails("columns: empty entry", CSV, "columns", "", NULL);
	hx_open_fails("delimiter: \"::\" must be one byte", CSV, "columns",
	    "a", "delimiter", "::", NULL);
	hx_open_fails("delimiter: \"\" must be one byte", CSV, "columns", "a",
	    "delimiter", "", NULL);
	hx_open_fails("delimiter: \"\n\" must be one byte other than a line "
	    "end", TSV, "columns", "a", "delimiter", "\n", NULL);
	hx_open_fails("quote: \"''\" must be one byte", CSV, "columns", "a",
	    "quote", "''", NULL);
	hx_open_fails("quote: \"\r\" must be one byte", CSV, "columns", "a",
	    "quote", "\r", NULL);
	hx_open_fails("quote and delimiter are both \",\"", CSV, "columns",
	    "a", "quote", ",", NULL);
	hx_open_fails("quote and delimiter are both \"\t\"", TSV, "columns",
	    "a", "quote", "\t", NULL);
	hx_open_fails("allow_missing must be true or false, not \"yes\"", CSV,
	    "columns", "a", "allow_missing", "yes", NULL);
	hx_open_fails("allow_extra must be true or false, not \"on\"", TSV,
	    "columns", "a", "allow_extra", "on", NULL);
}

/* Unquoted values, and quoted ones without escapes, are not copied. */
static void
test_zero_copy(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b, c, d", NULL);
	hx_run_ok("plain,\"quoted\",\"es\"\"c\",", 1);
	hx_assert_zero_copy(0, "a", 1);
	hx_assert_zero_copy(0, "b", 1);
	hx_assert_zero_copy(0, "c", 0);
	hx_assert_zero_copy(0, "d", -1);
}

static void
test_emit_refused(void **state)
{
	(void)state;
	hx_open_ok(CSV, "columns", "a, b", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("1,2"), -E2BIG);
	assert_int_equal(hx.nrows, 0);
	hx_open_ok(TSV, "columns", "a, b", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("1\t2"), -E2BIG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_descriptors, hx_teardown),
		cmocka_unit_test_teardown(test_typed_line, hx_teardown),
		cmocka_unit_test_teardown(test_quoting, hx_teardown),
		cmocka_unit_test_teardown(test_null_value, hx_teardown),
		cmocka_unit_test_teardown(test_tsv, hx_teardown),
		cmocka_unit_test_teardown(test_delimiter_and_quote,
		    hx_teardown),
		cmocka_unit_test_teardown(test_field_counts, hx_teardown),
		cmocka_unit_test_teardown(test_line_ends, hx_teardown),
		cmocka_unit_test_teardown(test_rejects, hx_teardown),
		cmocka_unit_test_teardown(test_truncated, hx_teardown),
		cmocka_unit_test_teardown(test_huge_fields, hx_teardown),
		cmocka_unit_test_teardown(test_non_utf8_and_nul, hx_teardown),
		cmocka_unit_test_teardown(test_bad_configs, hx_teardown),
		cmocka_unit_test_teardown(test_zero_copy, hx_teardown),
		cmocka_unit_test_teardown(test_emit_refused, hx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
