/*
 * coltype: the column-list grammar the UDTFs share, the names it derives,
 * its refusals, and the conversions of text to typed values, checked
 * against libc (strtod, timegm) where libc is the oracle.
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

#include "agent/udtf/coltype.h"
#include "tests/testlib.h"

static void
test_grammar_and_names(void **state)
{
	struct coltype_list l;
	char err[256] = "";

	(void)state;
	assert_int_equal(coltype_parse("fields", " user.name , n=x[1].y:int64,"
	    "@:json,ts : timestamp_ms", COLTYPE_ALLOW_JSON, "items", &l, err,
	    sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].name, "user_name");
	assert_string_equal(l.v[0].source, "user.name");
	assert_int_equal(l.v[0].kind, COLTYPE_STRING);
	assert_string_equal(l.v[1].name, "n");
	assert_string_equal(l.v[1].source, "x[1].y");
	assert_int_equal(l.cols[1].type, UDTF_INT64);
	assert_string_equal(l.v[2].name, "items");   /* the empty_name */
	assert_int_equal(l.v[2].kind, COLTYPE_JSON);
	assert_int_equal(l.cols[2].type, UDTF_STRING);
	assert_string_equal(l.v[3].name, "ts");
	assert_int_equal(l.cols[3].type, UDTF_TIMESTAMP);
	assert_int_equal(coltype_find(&l, "n"), 1);
	assert_int_equal(coltype_find(&l, "x"), -1);
	coltype_list_clear(&l);
}

/* Parses text and expects -EINVAL with why in err. */
static void
refused(const char *text, unsigned flags, const char *why)
{
	struct coltype_list l;
	char err[256] = "";

	assert_int_equal(coltype_parse("k", text, flags, NULL, &l, err,
	    sizeof(err)), -EINVAL);
	coltype_list_clear(&l);
	if (strcmp(err, why) != 0)
		fail_msg("\"%s\": got \"%s\", want \"%s\"", text, err, why);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("a,,b", 0, "k: empty entry in \"a,,b\"");
	refused("a:int", 0, "k: \"a:int\" has unknown type \"int\"; use string, "
	    "int64, double, bool, timestamp, timestamp_ms, timestamp_us");
	refused("a:json", 0, "k: \"a:json\" has unknown type \"json\"; use "
	    "string, int64, double, bool, timestamp, timestamp_ms, "
	    "timestamp_us");
	refused("a, a=b", 0, "k: two columns named \"a\"");
	refused("@", 0, "k: \"@\" needs a column name: write NAME=@");
	refused("x=", 0, "k: \"x=\" names nothing to extract");
	refused("x=a", COLTYPE_NO_SOURCE, "k: \"x=a\": write NAME[:TYPE], "
	    "without '='");
}

static int
conv(enum coltype_kind kind, const char *s, struct udtf_value *v)
{
	char err[256];

	return coltype_convert(kind, "c", s, strlen(s), v, err, sizeof(err));
}

static void
test_int64_bounds(void **state)
{
	struct udtf_value v;
	char err[256];

	(void)state;
	assert_int_equal(conv(COLTYPE_INT64, "9223372036854775807", &v), 0);
	assert_int_equal(v.u.i64, INT64_MAX);
	assert_int_equal(conv(COLTYPE_INT64, "-9223372036854775808", &v), 0);
	assert_int_equal(v.u.i64, INT64_MIN);
	assert_int_equal(conv(COLTYPE_INT64, "+7", &v), 0);
	assert_int_equal(v.u.i64, 7);
	assert_int_equal(conv(COLTYPE_INT64, "9223372036854775808", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_INT64, "1.0", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_INT64, "-", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_INT64, "", &v), -EINVAL);
	assert_int_equal(coltype_convert(COLTYPE_INT64, "status", "4\"04", 4, &v,
	    err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "column status: \"4?04\" is not an int64");
}

/* What an int64 of the len bytes at s must be: [-+]digits within range,
 * as strtoll() reads them. */
static int
int64_expected(const char *s, size_t len, int64_t *out)
{
	char buf[64];
	size_t i = len > 0 && (s[0] == '-' || s[0] == '+');

	if (i == len || len >= sizeof(buf))
		return -EINVAL;
	for (size_t j = i; j < len; j++)
		if (s[j] < '0' || s[j] > '9')
			return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoll(buf, NULL, 10);
	return errno == ERANGE ? -EINVAL : 0;
}

/* An int64 text converts as int64_expected() says, and the fast path
 * takes every one of eighteen digits or fewer, with the same value. */
static void
assert_int64(const char *s, size_t len)
{
	struct udtf_value v;
	char err[256];
	int64_t want = 42, fast = 0; /* -O1 cannot tell it is set when read */
	int r = int64_expected(s, len, &want);
	size_t digits = len - (len > 0 && (s[0] == '-' || s[0] == '+'));

	v.u.i64 = 42;
	if (coltype_convert(COLTYPE_INT64, "c", s, len, &v, err,
	    sizeof(err)) != r || (r == 0 && v.u.i64 != want))
		fail_msg("\"%.*s\": %lld, not %d %lld", (int)len, s,
		    (long long)v.u.i64, r, (long long)want);
	if (coltype_int64_simple(s, len, &fast) !=
	    (r == 0 && digits <= 18) || (r == 0 && digits <= 18 &&
	    fast != want))
		fail_msg("\"%.*s\": the fast path differs", (int)len, s);
}

/* Every length from 1 to 20 digits, signed and not, each with every byte
 * value in each place, read four digits at a time or one; and the bounds,
 * with one past them, at 18, 19 and 20 bytes. */
static void
test_int64_every_place(void **state)
{
	static const char *const bounds[] = {
		"9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809",
		"+9223372036854775807", "+9223372036854775808",
		"9223372036854775806", "-9223372036854775807",
		"999999999999999999", "-999999999999999999",
		"1000000000000000000", "99999999999999999",
		"9999999999999999999", "10000000000000000000",
		"00000000000000000009223372036854775807",
	};
	static const char digits[] = "90817263545362718091827364554637281909";
	char s[32];

	(void)state;
	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
		assert_int64(bounds[i], strlen(bounds[i]));
	for (size_t n = 1; n <= 20; n++)
		for (int sign = 0; sign < 3; sign++) {
			size_t at = sign > 0, len = at + n;

			s[0] = sign == 1 ? '-' : '+';
			for (size_t p = 0; p < len; p++)
				for (int c = 0; c < 256; c++) {
					memcpy(s + at, digits + n % 16, n);
					s[p] = (char)c;
					assert_int64(s, len);
				}
		}
}

/* The fast path agrees with strtod() on every decimal it takes, and the
 * rest still goes to strtod(). */
static void
test_double_matches_strtod(void **state)
{
	uint64_t seed = 7;
	struct udtf_value v;
	char s[64];

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint64_t r = splitmix64(&seed);
		int digits = 1 + (int)(r % 15), frac = (int)((r >> 8) % (digits + 1));
		size_t o = 0;

		/* digits random digits, frac of them after the point */
		if ((r >> 20) & 1)
			s[o++] = '-';
		for (int d = 0; d < digits; d++) {
			if (d == digits - frac)
				s[o++] = '.';
			s[o++] = (char)('0' + splitmix64(&seed) % 10);
		}
		s[o] = '\0';
		if (digits == frac)
			continue;    /* ".5": strtod's, not the fast path's */
		assert_int_equal(conv(COLTYPE_DOUBLE, s, &v), 0);
		assert_int_equal(v.type, UDTF_DOUBLE);
		if (v.u.d != strtod(s, NULL))
			fail_msg("\"%s\": %.17g, strtod %.17g", s, v.u.d,
			    strtod(s, NULL));
	}
	assert_int_equal(conv(COLTYPE_DOUBLE, "1e3", &v), 0);
	assert_true(v.u.d == 1000.0);
	assert_int_equal(conv(COLTYPE_DOUBLE, "0.1", &v), 0);
	assert_true(v.u.d == 0.1);
	assert_int_equal(conv(COLTYPE_DOUBLE, "12345678901234567890.5", &v), 0);
	assert_true(v.u.d == strtod("12345678901234567890.5", NULL));
	assert_int_equal(conv(COLTYPE_DOUBLE, "inf", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_DOUBLE, "nan", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_DOUBLE, "0x10", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_DOUBLE, " 1", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_DOUBLE, "1e999", &v), -EINVAL);
	assert_int_equal(conv(COLTYPE_DOUBLE, "1..2", &v), -EINVAL);
}

static void
test_bool(void **state)
{
	struct udtf_value v;

	(void)state;
	assert_int_equal(conv(COLTYPE_BOOL, "TRUE", &v), 0);
	assert_true(v.u.b);
	assert_int_equal(conv(COLTYPE_BOOL, "0", &v), 0);
	assert_false(v.u.b);
	assert_int_equal(conv(COLTYPE_BOOL, "yes", &v), -EINVAL);
}

static void
test_timestamps(void **state)
{
	int64_t t = utc_us(2026, 11, 29, 10, 0, 0);
	struct udtf_value v;

	(void)state;
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-11-29T10:00:00.123Z", &v),
	    0);
	assert_int_equal(v.u.ts_us, t + 123000);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-11-29T18:00:00+08:00", &v),
	    0);
	assert_int_equal(v.u.ts_us, t);
	/* SQL's form and a zone-less ISO time are UTC */
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-11-29 10:00:00", &v), 0);
	assert_int_equal(v.u.ts_us, t);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-11-29T10:00:00.5", &v), 0);
	assert_int_equal(v.u.ts_us, t + 500000);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-11-29 05:00:00-05:00", &v),
	    0);
	assert_int_equal(v.u.ts_us, t);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "29/Nov/2026:11:00:00 +0100", &v),
	    0);
	assert_int_equal(v.u.ts_us, t);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "1795946400.25", &v), 0);
	assert_int_equal(v.u.ts_us, t + 250000);
	assert_int_equal(conv(COLTYPE_TIMESTAMP_MS, "1795946400001", &v), 0);
	assert_int_equal(v.u.ts_us, t + 1000);
	assert_int_equal(conv(COLTYPE_TIMESTAMP_US, "1795946400000001", &v), 0);
	assert_int_equal(v.u.ts_us, t + 1);
	assert_int_equal(conv(COLTYPE_TIMESTAMP, "2026-02-30 10:00:00", &v),
	    -EINVAL);
	assert_int_equal(conv(COLTYPE_TIMESTAMP_MS, "92233720368547759", &v),
	    -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar_and_names),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_int64_bounds),
		cmocka_unit_test(test_int64_every_place),
		cmocka_unit_test(test_double_matches_strtod),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_timestamps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
