/*
 * fingerprint: the canonical text of each type as docs/reconcile.md
 * defines it, which Spark's query rebuilds (real_spark_reconcile.sh runs
 * it): doubles as Java's Double.toHexString(), strings escaped with their
 * bytes that are not UTF-8 as U+0080..U+00FF, timestamps with
 * microseconds in the zone, NULL as \N; XXH64 with seed 42 as Spark's
 * xxhash64(); the hex form read back, and nothing else; a Parquet row's
 * text without its strings checked again when its log found them UTF-8.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/parquet/rowlog.h"
#include "agent/write/fingerprint.h"
#include "agent/write/format.h"
#include "lib/buf.h"
#include "lib/utf8.h"
#include "tests/testlib.h"

/* The canonical text of the one value v, in zone. */
static void
assert_text(const char *zone, struct udtf_value v, const char *want,
    size_t wantlen)
{
	struct buf out = { 0 };
	char why[256];
	struct tz *tz = tz_open(zone, why, sizeof(why));

	if (tz == NULL)
		fail_msg("%s", why);
	assert_int_equal(fingerprint_text(tz, &v, NULL, 1, &out), 0);
	if (out.len != wantlen || (wantlen > 0 &&
	    memcmp(out.data, want, wantlen) != 0))
		fail_msg("\"%.*s\", want \"%s\"", (int)out.len, out.data, want);
	buf_clear(&out);
	tz_close(tz);
}

static void
assert_double(double d, const char *want)
{
	struct udtf_value v = { .type = UDTF_DOUBLE, .u.d = d };

	assert_text("UTC", v, want, strlen(want));
}

static void
assert_string(const char *s, size_t len, const char *want, size_t wantlen)
{
	struct udtf_value v = { .type = UDTF_STRING, .u.s = { s, len } };

	assert_text("UTC", v, want, wantlen);
}

static void
assert_time(int64_t us, const char *want)
{
	struct udtf_value v = { .type = UDTF_TIMESTAMP, .u.ts_us = us };

	assert_text("Asia/Shanghai", v, want, strlen(want));
}

/* Java's Double.toHexString(), as Spark's format_string('%a') prints. */
static void
test_doubles(void **state)
{
	(void)state;
	assert_double(0.1, "0x1.999999999999ap-4");
	assert_double(1.0, "0x1.0p0");
	assert_double(100.0, "0x1.9p6");
	assert_double(-0.0, "-0x0.0p0");
	assert_double(0.0, "0x0.0p0");
	assert_double(1e300, "0x1.7e43c8800759cp996");
	assert_double(123456789.125, "0x1.d6f34548p26");
	assert_double(-1.5e-7, "-0x1.421f5f40d8376p-23");
	assert_double(5e-324, "0x0.0000000000001p-1022");
	assert_double(2.2250738585072014E-308, "0x1.0p-1022");
	assert_double(NAN, "NaN");
	assert_double(INFINITY, "Infinity");
	assert_double(-INFINITY, "-Infinity");
}

static void
test_strings(void **state)
{
	(void)state;
	assert_string("a\\b", 3, "a\\\\b", 4);
	assert_string("x\001y\nz\r", 6, "x\\\001y\\nz\\r", 9);
	assert_string("", 0, "", 0);
	assert_string("\\N", 2, "\\\\N", 3);
	/* valid UTF-8 as it is; each other byte as U+0080..U+00FF */
	assert_string("\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80", 9,
	    "\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80", 9);
	assert_string("\x16\x03\x01\xfc\x03", 5, "\x16\x03\\\001\xc3\xbc\x03",
	    7);
	assert_string("\x80", 1, "\xc2\x80", 2);
	/* a sequence cut short, an overlong one, a surrogate */
	assert_string("\xe6\xbc", 2, "\xc3\xa6\xc2\xbc", 4);
	assert_string("\xc0\xaf", 2, "\xc3\x80\xc2\xaf", 4);
	assert_string("\xed\xa0\x80", 3, "\xc3\xad\xc2\xa0\xc2\x80", 6);
}

static void
test_times(void **state)
{
	(void)state;
	assert_time(utc_us(2026, 5, 10, 1, 0, 0) + 1,
	    "2026-05-10 09:00:00.000001");
	assert_time(utc_us(2026, 5, 10, 2, 30, 0) + 500000,
	    "2026-05-10 10:30:00.500000");
	assert_time(utc_us(2026, 5, 10, 5, 0, 0) + 123000,
	    "2026-05-10 13:00:00.123000");
	assert_time(utc_us(2026, 5, 10, 4, 0, 0), "2026-05-10 12:00:00.000000");
	assert_time(utc_us(2026, 5, 10, 3, 59, 59) + 999999,
	    "2026-05-10 11:59:59.999999");
	/* before 1970, as hive-text writes it */
	assert_time(-1, "\\N");
}

/* A row: its values in pick's order, \001 between, \N for NULL. */
static void
test_row(void **state)
{
	struct udtf_value vals[4] = {
		{ .type = UDTF_INT64, .u.i64 = INT64_MIN },
		{ .type = UDTF_NULL },
		{ .type = UDTF_BOOL, .u.b = 1 },
		{ .type = UDTF_INT64, .u.i64 = INT64_MAX },
	};
	static const size_t pick[] = { 3, 2, 1, 0 };
	static const char want[] = "9223372036854775807\001true\001\\N\001"
	    "-9223372036854775808";
	struct buf out = { 0 };
	char why[256];
	struct tz *tz = tz_open("UTC", why, sizeof(why));

	(void)state;
	assert_non_null(tz);
	assert_int_equal(fingerprint_text(tz, vals, pick, 4, &out), 0);
	assert_int_equal(out.len, sizeof(want) - 1);
	assert_memory_equal(out.data, want, out.len);
	buf_reset(&out);
	vals[2].u.b = 0;
	assert_int_equal(fingerprint_text(tz, vals, NULL, 3, &out), 0);
	assert_int_equal(out.len, 29);
	assert_memory_equal(out.data, "-9223372036854775808\001\\N\001false", 29);
	buf_clear(&out);
	tz_close(tz);
}

/* fingerprint_text_hive() of vals[0..n), read from their hive-text row,
 * is fingerprint_text()'s of them. */
static void
assert_hive_same(struct tz *tz, const struct udtf_value *vals, size_t n)
{
	const struct format f = { FORMAT_HIVE_TEXT, FINGERPRINT_SEP, tz };
	struct buf row = { 0 }, want = { 0 }, got = { 0 };
	size_t ends[64];

	assert_true(n <= sizeof(ends) / sizeof(ends[0]));
	/* a row after another, as a part file's buffer holds them */
	assert_int_equal(buf_append(&row, "x\n", 2), 0);
	assert_int_equal(format_hive_row_ends(&f, vals, n, &row, ends), 0);
	assert_int_equal(fingerprint_text(tz, vals, NULL, n, &want), 0);
	assert_int_equal(fingerprint_text_hive(vals, n, row.data + 2, ends,
	    &got), 0);
	if (got.len != want.len || (want.len > 0 &&
	    memcmp(got.data, want.data, want.len) != 0))
		fail_msg("\"%.*s\", want \"%.*s\"", (int)got.len, got.data,
		    (int)want.len, want.data);
	buf_clear(&row);
	buf_clear(&want);
	buf_clear(&got);
}

/* Every kind of value: strings of valid UTF-8 and not, with the bytes
 * hive-text escapes, integers at their limits, doubles, booleans, NULL and
 * timestamps with and without a fraction. */
#define S(lit) { .type = UDTF_STRING, .u.s = { lit, sizeof(lit) - 1 } }
#define T(us) { .type = UDTF_TIMESTAMP, .u.ts_us = (us) }
#define SEC (INT64_C(1796000000) * 1000000)
static const struct udtf_value odd[] = {
	S("GET /index.html HTTP/1.1"), S(""), S("caf\xc3\xa9 \xe2\x82\xac"),
	S("\xff\xfe junk \x80"), S("bad \xc3\n then \xc3"),
	S("a\001b\001"), S("line\nbreak\r\n"), S("back\\slash\\"),
	S("\xc3\xa9\001\\\n\xe9"),
	S("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML)"),
	{ .type = UDTF_INT64, .u.i64 = 0 },
	{ .type = UDTF_INT64, .u.i64 = -1 },
	{ .type = UDTF_INT64, .u.i64 = INT64_MIN },
	{ .type = UDTF_INT64, .u.i64 = INT64_MAX },
	{ .type = UDTF_DOUBLE, .u.d = 0.1 },
	{ .type = UDTF_DOUBLE, .u.d = -0.0 },
	{ .type = UDTF_DOUBLE, .u.d = 1e300 },
	{ .type = UDTF_DOUBLE, .u.d = 5e-324 },
	{ .type = UDTF_DOUBLE, .u.d = NAN },
	{ .type = UDTF_DOUBLE, .u.d = -INFINITY },
	{ .type = UDTF_BOOL, .u.b = 1 },
	{ .type = UDTF_BOOL, .u.b = 0 },
	{ .type = UDTF_NULL },
	T(SEC), T(SEC + 123000), T(SEC + 123456), T(SEC + 100),
	T(SEC + 999999), T(0), T(-1), T(INT64_C(253402300800) * 1000000),
};
#undef S
#undef T
#undef SEC
#define NODD (sizeof(odd) / sizeof(odd[0]))
#define FIRST_ASCII 10 /* odd[FIRST_ASCII..] has no byte above 0x7f */

/* check() of each value of odd alone and of every pair of them, in a zone
 * with an offset. */
static void
each_alone_and_paired(void (*check)(struct tz *, const struct udtf_value *,
    size_t))
{
	struct udtf_value pair[2];
	char why[256];
	struct tz *tz = tz_open("Asia/Kolkata", why, sizeof(why));

	if (tz == NULL)
		fail_msg("%s", why);
	for (size_t i = 0; i < NODD; i++) {
		check(tz, &odd[i], 1);
		for (size_t j = 0; j < NODD; j++) {
			pair[0] = odd[i];
			pair[1] = odd[j];
			check(tz, pair, 2);
		}
	}
	tz_close(tz);
}

/* The canonical text read from a hive-text row, for every kind of value
 * alone, in every pair and all in one row, in a zone with an offset. */
static void
test_hive_row(void **state)
{
	char why[256];
	struct tz *tz = tz_open("Asia/Kolkata", why, sizeof(why));

	(void)state;
	if (tz == NULL)
		fail_msg("%s", why);
	assert_hive_same(tz, odd, 0);
	assert_hive_same(tz, odd, NODD);
	/* the ASCII values alone: a row with no byte above 0x7f */
	assert_hive_same(tz, odd + FIRST_ASCII, NODD - FIRST_ASCII);
	tz_close(tz);
	each_alone_and_paired(assert_hive_same);
}

/* A Parquet table's rows: rowlog_row() says 1 exactly when a string of
 * the row is not valid UTF-8, and when it says 0, fingerprint_text_utf8()
 * gives fingerprint_text()'s text. */
static void
assert_logged_same(struct tz *tz, const struct udtf_value *vals, size_t n)
{
	struct udtf_column cols[2];
	struct buf log = { 0 }, want = { 0 }, got = { 0 };
	int bad = 0, r;

	for (size_t i = 0; i < n; i++) {
		cols[i].name = "c";
		cols[i].type = vals[i].type;
		bad |= vals[i].type == UDTF_STRING &&
		    utf8_fixed_len((const unsigned char *)vals[i].u.s.ptr,
		    vals[i].u.s.len) != vals[i].u.s.len;
	}
	r = rowlog_row(cols, vals, n, &log);
	assert_int_equal(r, bad);
	assert_int_equal(fingerprint_text(tz, vals, NULL, n, &want), 0);
	if (r == 0) {
		assert_int_equal(fingerprint_text_utf8(tz, vals, n, &got), 0);
		assert_int_equal(got.len, want.len);
		assert_memory_equal(got.data, want.data, want.len);
	}
	buf_clear(&log);
	buf_clear(&want);
	buf_clear(&got);
}

/* Each value alone and in pairs. */
static void
test_logged_row(void **state)
{
	(void)state;
	each_alone_and_paired(assert_logged_same);
}

/* Spark's xxhash64('abc') and xxhash64('hello world'). */
static void
test_hash(void **state)
{
	(void)state;
	assert_true(fingerprint_hash("abc", 3) == UINT64_C(1423657621850124518));
	assert_true(fingerprint_hash("hello world", 11) ==
	    UINT64_C(7620854247404556961));
}

static void
test_hex(void **state)
{
	char buf[FINGERPRINT_HEX + 1];
	uint64_t v = 0;

	(void)state;
	assert_string_equal(fingerprint_format(UINT64_C(0x06e4cbddb72620a6), buf),
	    "06e4cbddb72620a6");
	assert_int_equal(fingerprint_parse("06e4cbddb72620a6", &v), 0);
	assert_true(v == UINT64_C(0x06e4cbddb72620a6));
	assert_int_equal(fingerprint_parse("ffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(fingerprint_parse("06E4CBDDB72620A6", &v), -EINVAL);
	assert_int_equal(fingerprint_parse("6e4cbddb72620a6", &v), -EINVAL);
	assert_int_equal(fingerprint_parse("06e4cbddb72620a60", &v), -EINVAL);
	assert_int_equal(fingerprint_parse("06e4cbddb72620ag", &v), -EINVAL);
	assert_int_equal(fingerprint_parse("", &v), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_hive_row),
		cmocka_unit_test(test_logged_row),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
