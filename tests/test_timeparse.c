/*
 * timeparse: nginx's time formats to UTC microseconds, checked against
 * timegm()/gmtime_r() as an independent oracle.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tests/testlib.h"

#include "agent/udtf/timeparse.h"

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
	"Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

static int
parse_local(const char *text, int64_t *us)
{
	return timeparse_local(text, strlen(text), us);
}

static int
parse_iso(const char *text, int64_t *us)
{
	return timeparse_iso8601(text, strlen(text), us);
}

static int
parse_msec(const char *text, int64_t *us)
{
	return timeparse_msec(text, strlen(text), us);
}

static void
test_days_from_civil_matches_timegm(void **state)
{
	(void)state;
	assert_int_equal(timeparse_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(timeparse_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(timeparse_days_from_civil(2000, 3, 1), 11017);
	for (int y = 1600; y <= 2400; y++)
		for (int m = 1; m <= 12; m++)
			for (int d = 1; d <= 28; d += 9)
				assert_int_equal(
				    timeparse_days_from_civil(y, (unsigned)m,
				    (unsigned)d) * 86400000000LL,
				    oracle_us(y, m, d, 0, 0, 0, 0));
}

static void
test_local_examples(void **state)
{
	int64_t us;

	(void)state;
	assert_int_equal(parse_local("10/Oct/2000:13:55:36 -0700", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	assert_int_equal(us, 971211336LL * 1000000);
	assert_int_equal(parse_local("10/Oct/2000:13:55:36 +0800", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, 8 * 3600));
	assert_int_equal(parse_local("10/Oct/2000:13:55:36 +0000", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, 0));
	assert_int_equal(parse_local("01/Jan/1970:00:00:00 +0000", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(parse_local("17/Jun/2023:08:15:00 +0530", &us), 0);
	assert_int_equal(us, oracle_us(2023, 6, 17, 8, 15, 0, 5 * 3600 + 1800));
	assert_int_equal(parse_local("17/Jun/2023:08:15:00 -0930", &us), 0);
	assert_int_equal(us, oracle_us(2023, 6, 17, 8, 15, 0,
	    -(9 * 3600 + 1800)));
}

static void
test_local_boundaries(void **state)
{
	int64_t us;

	(void)state;
	/* Local new year that is still the old year in UTC, and back. */
	assert_int_equal(parse_local("01/Jan/2024:00:30:00 +0800", &us), 0);
	assert_int_equal(us, oracle_us(2023, 12, 31, 16, 30, 0, 0));
	assert_int_equal(parse_local("31/Dec/2023:23:59:59 -0700", &us), 0);
	assert_int_equal(us, oracle_us(2024, 1, 1, 6, 59, 59, 0));
	/* End of a 30-day month and of February. */
	assert_int_equal(parse_local("30/Apr/2023:20:00:00 -0500", &us), 0);
	assert_int_equal(us, oracle_us(2023, 5, 1, 1, 0, 0, 0));
	assert_int_equal(parse_local("28/Feb/2023:23:00:00 -0100", &us), 0);
	assert_int_equal(us, oracle_us(2023, 3, 1, 0, 0, 0, 0));
	/* Leap days. */
	assert_int_equal(parse_local("29/Feb/2024:12:00:00 +0000", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 12, 0, 0, 0));
	assert_int_equal(parse_local("28/Feb/2024:23:30:00 -0100", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 0, 30, 0, 0));
	assert_int_equal(parse_local("01/Mar/2024:07:00:00 +0800", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 23, 0, 0, 0));
	assert_int_equal(parse_local("29/Feb/2000:00:00:00 +0000", &us), 0);
	assert_int_equal(us, oracle_us(2000, 2, 29, 0, 0, 0, 0));
	/* Before the epoch. */
	assert_int_equal(parse_local("31/Dec/1969:23:59:59 +0000", &us), 0);
	assert_int_equal(us, -1000000);
}

/* Every month and hour of a few years, at several offsets: written the way
 * nginx writes them from gmtime_r(), read back. */
static void
test_local_round_trip(void **state)
{
	static const int offsets[] = { 0, 3600, -3600, 8 * 3600, -7 * 3600,
	    5 * 3600 + 1800, -(9 * 3600 + 1800), 14 * 3600, -12 * 3600 };
	char text[64];
	int64_t us;

	(void)state;
	for (time_t t = 1700000000 - 400 * 86400; t < 1700000000 + 800 * 86400;
	    t += 3 * 3600 + 17 * 60 + 13) {
		for (size_t i = 0; i < sizeof offsets / sizeof offsets[0];
		    i++) {
			int off = offsets[i];
			time_t local = t + off;
			struct tm tm;

			gmtime_r(&local, &tm);
			snprintf(text, sizeof text,
			    "%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d",
			    tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900,
			    tm.tm_hour, tm.tm_min, tm.tm_sec,
			    off < 0 ? '-' : '+', (off < 0 ? -off : off) / 3600,
			    (off < 0 ? -off : off) % 3600 / 60);
			assert_int_equal(parse_local(text, &us), 0);
			assert_int_equal(us, (int64_t)t * 1000000);
		}
	}
}

static void
test_local_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"10/Oct/2000:13:55:36",           /* no offset */
		"10/Oct/2000:13:55:36 -07000",    /* too long */
		"10/Oct/2000:13:55:36 -070",      /* too short */
		"10/Foo/2000:13:55:36 -0700",
		"10/oct/2000:13:55:36 -0700",     /* month case */
		"10/OCT/2000:13:55:36 -0700",
		"1x/Oct/2000:13:55:36 -0700",
		"10-Oct-2000:13:55:36 -0700",
		"10/Oct/2000 13:55:36 -0700",
		"10/Oct/2000:13:55:36 *0700",
		"10/Oct/2000:13:55:36 -07:0",
		"00/Oct/2000:13:55:36 -0700",     /* day 0 */
		"32/Oct/2000:13:55:36 -0700",
		"31/Apr/2000:13:55:36 -0700",
		"29/Feb/2023:13:55:36 -0700",     /* not a leap year */
		"29/Feb/1900:13:55:36 -0700",
		"30/Feb/2024:13:55:36 -0700",
		"10/Oct/2000:24:00:00 -0700",
		"10/Oct/2000:13:60:36 -0700",
		"10/Oct/2000:13:55:60 -0700",
		"10/Oct/2000:13:55:36 -2400",
		"10/Oct/2000:13:55:36 -0760",
		"10/Oct/2000:13:55:36 +07a0",
	};
	int64_t us = 42;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse_local(bad[i], &us) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(us, 42);
	/* Only len bytes are read: a valid time followed by more text. */
	assert_int_equal(timeparse_local("10/Oct/2000:13:55:36 -0700]",
	    26, &us), 0);
	assert_int_equal(timeparse_local("10/Oct/2000:13:55:36 -0700",
	    25, &us), -EINVAL);
}

/* A parse through a cache gives what the plain one gives, for each of n
 * texts in turn through one cache; a cut of cut bytes of the first is
 * refused; and an empty cache does not take the text of nul_len bytes
 * whose date is NUL bytes (the key an empty cache holds). */
static void
assert_cached_matches(int (*plain)(const char *, size_t, int64_t *),
    int (*cached)(struct timeparse_date_cache *, const char *, size_t,
    int64_t *), const char *const *texts, size_t n, size_t cut,
    const char *nul, size_t nul_len)
{
	struct timeparse_date_cache cache;
	int64_t want, got;

	memset(&cache, 0, sizeof(cache));
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(texts[i]);
		int r = plain(texts[i], len, &want);

		want = r < 0 ? 42 : want;
		got = 42;
		assert_int_equal(cached(&cache, texts[i], len, &got), r);
		if (got != want)
			fail_msg("\"%s\": %lld, not %lld", texts[i],
			    (long long)got, (long long)want);
	}
	assert_int_equal(cached(&cache, texts[0], cut, &got), -EINVAL);
	memset(&cache, 0, sizeof(cache));
	assert_int_equal(cached(&cache, nul, nul_len, &got), -EINVAL);
	assert_int_equal(plain(nul, nul_len, &got), -EINVAL);
}

/* The cached parse gives what timeparse_local() gives, for every text in
 * turn: a changed day, time or offset, a text refused after one of the
 * same date was taken, and one of a date taken before a refused one. */
static void
test_local_cached_matches(void **state)
{
	static const char *const texts[] = {
		"10/Oct/2000:13:55:36 -0700",
		"10/Oct/2000:13:55:37 -0700",
		"10/Oct/2000:23:59:59 +0530",     /* same date, other offset */
		"10/Oct/2000:00:00:00 +0000",
		"10/Oct/2000:13:55:60 -0700",     /* same date, bad second */
		"10/Oct/2000:24:00:00 -0700",
		"10/Oct/2000:13:55:36 -2400",
		"10/Oct/2000:13:55:36 *0700",
		"10/Oct/2000 13:55:36 -0700",
		"10/Oct/2000:13-55:36 -0700",
		"10/Oct/2000:13:55:3x -0700",
		"11/Oct/2000:13:55:36 -0700",     /* the next day */
		"29/Feb/2023:13:55:36 -0700",     /* a refused date... */
		"11/Oct/2000:13:55:36 -0700",     /* ...leaves the last taken */
		"29/Feb/2024:00:00:00 -1200",
		"29/Feb/2024:00:00:01 +1400",
		"01/Jan/0000:00:00:00 +0000",
		"01/Jan/1969:23:59:59 -0001",
		"01/Jan/1969:23:59:58 -0001",
	};
	static const char nul[] = "\0\0\0\0\0\0\0\0\0\0\0:13:55:36 -0700";

	(void)state;
	assert_cached_matches(timeparse_local, timeparse_local_cached, texts,
	    sizeof texts / sizeof texts[0], 25, nul, sizeof nul - 1);
}

static void
test_iso8601(void **state)
{
	int64_t us;

	(void)state;
	assert_int_equal(parse_iso("2000-10-10T13:55:36-07:00", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	assert_int_equal(parse_iso("2000-10-10T13:55:36+08:00", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, 8 * 3600));
	assert_int_equal(parse_iso("2000-10-10T13:55:36Z", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, 0));
	assert_int_equal(parse_iso("2000-10-10T13:55:36+0000", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36, 0));
	assert_int_equal(parse_iso("2000-10-10T13:55:36-0730", &us), 0);
	assert_int_equal(us, oracle_us(2000, 10, 10, 13, 55, 36,
	    -(7 * 3600 + 1800)));
	assert_int_equal(parse_iso("2024-02-29T23:59:59.5+00:00", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 23, 59, 59, 0) + 500000);
	assert_int_equal(parse_iso("2024-02-29T23:59:59.1234567Z", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 23, 59, 59, 0) + 123456);
	assert_int_equal(parse_iso("2024-03-01T01:00:00+02:00", &us), 0);
	assert_int_equal(us, oracle_us(2024, 2, 29, 23, 0, 0, 0));
}

static void
test_iso8601_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"2000-10-10T13:55:36",            /* offset required */
		"2000-10-10 13:55:36Z",
		"2000/10/10T13:55:36Z",
		"2000-13-10T13:55:36Z",
		"2000-00-10T13:55:36Z",
		"2023-02-29T13:55:36Z",
		"2000-10-10T13:55:36z",
		"2000-10-10T13:55:36+07",
		"2000-10-10T13:55:36+07:000",
		"2000-10-10T13:55:36+07-00",
		"2000-10-10T13:55:36.Z",
		"2000-10-10T13:55:36.12",         /* no offset after fraction */
		"2000-10-10T13:55:36Zx",
		"2000-1x-10T13:55:36Z",
	};
	int64_t us;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse_iso(bad[i], &us) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
}

/* The cached ISO 8601 parse gives what timeparse_iso8601() gives, text
 * after text, as the $time_local one does. */
static void
test_iso8601_cached_matches(void **state)
{
	static const char *const texts[] = {
		"2000-10-10T13:55:36-07:00",
		"2000-10-10T13:55:37.5Z",
		"2000-10-10T23:59:59.1234567+0530",
		"2000-10-10T13:55:60Z",           /* same date, bad second */
		"2000-10-10T24:00:00Z",
		"2000-10-10 13:55:36Z",
		"2000-10-10T13:55:36.Z",
		"2000-10-10T13:55:36",
		"2000-10-10T13:55:36+2400",
		"2000-10-10T1x:55:36Z",
		"2000-10-11T00:00:00Z",           /* the next day */
		"2023-02-29T00:00:00Z",           /* a refused date... */
		"2000-10-11T00:00:01Z",           /* ...leaves the last taken */
		"2024-02-29T12:00:00-12:00",
		"0000-01-01T00:00:00Z",
		"1969-12-31T23:59:59.999999Z",
	};
	static const char nul[] = "\0\0\0\0\0\0\0\0\0\0T13:55:36Z";

	(void)state;
	assert_cached_matches(timeparse_iso8601, timeparse_iso8601_cached,
	    texts, sizeof texts / sizeof texts[0], 19, nul, sizeof nul - 1);
}

/* What the "HH:MM:SS" at s must give: its seconds of the day, or -1 for
 * a byte other than a digit or a colon where it should be, an hour past
 * 23 or a minute or second past 59.  Read a byte at a time, as a check of
 * the parsers, which read the eight at once. */
static int
clock_expected(const char *s)
{
	int v[3];

	for (int i = 0; i < 8; i++)
		if (i % 3 == 2 ? s[i] != ':' : s[i] < '0' || s[i] > '9')
			return -1;
	for (int i = 0; i < 3; i++)
		v[i] = (s[3 * i] - '0') * 10 + (s[3 * i + 1] - '0');
	if (v[0] > 23 || v[1] > 59 || v[2] > 59)
		return -1;
	return v[0] * 3600 + v[1] * 60 + v[2];
}

/* text, a time whose "HH:MM:SS" is at byte at, is taken or refused as
 * clock_expected() says, by the plain parse and through a cache; taken, it
 * is base (its time at midnight) plus the clock. */
static void
assert_clock(int (*plain)(const char *, size_t, int64_t *),
    int (*cached)(struct timeparse_date_cache *, const char *, size_t,
    int64_t *), const char *text, size_t len, size_t at, int64_t base)
{
	struct timeparse_date_cache cache;
	int want = clock_expected(text + at);
	int64_t us = 42, cached_us = 42;
	int r = plain(text, len, &us);

	memset(&cache, 0, sizeof(cache));
	if (cached(&cache, text, len, &cached_us) != r || cached_us != us)
		fail_msg("\"%.*s\": the cached parse differs", (int)len, text);
	if (want < 0 ? r != -EINVAL : r != 0 ||
	    us != base + (int64_t)want * 1000000)
		fail_msg("\"%.*s\": %d, %lld, not the clock %d", (int)len,
		    text, r, (long long)us, want);
}

/* Every byte value in each of the eight places of the time of day, and
 * every two digits in each field (so 23, 24, 59 and 60 among them), in
 * both formats, with the time last in the text and with a fraction or an
 * offset after it. */
static void
test_clock_every_byte(void **state)
{
	static const struct {
		const char *text;
		size_t at;
	} cases[] = {
		{ "2000-10-10T13:55:36Z", 11 },
		{ "2000-10-10T13:55:36.25+01:00", 11 },
		{ "10/Oct/2000:13:55:36 +0000", 12 },
	};
	char text[64];

	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t len = strlen(cases[k].text), at = cases[k].at;
		int local = at == 12;
		int (*plain)(const char *, size_t, int64_t *) = local ?
		    timeparse_local : timeparse_iso8601;
		int (*cached)(struct timeparse_date_cache *, const char *,
		    size_t, int64_t *) = local ? timeparse_local_cached :
		    timeparse_iso8601_cached;
		int64_t base;

		memcpy(text, cases[k].text, len + 1);
		memcpy(text + at, "00:00:00", 8);
		assert_int_equal(plain(text, len, &base), 0);
		for (size_t i = 0; i < 8; i++)
			for (int c = 0; c < 256; c++) {
				memcpy(text, cases[k].text, len + 1);
				text[at + i] = (char)c;
				assert_clock(plain, cached, text, len, at,
				    base);
			}
		for (size_t f = 0; f < 3; f++)
			for (int v = 0; v < 100; v++) {
				memcpy(text, cases[k].text, len + 1);
				text[at + 3 * f] = (char)('0' + v / 10);
				text[at + 3 * f + 1] = (char)('0' + v % 10);
				assert_clock(plain, cached, text, len, at,
				    base);
			}
	}
}

static void
test_msec(void **state)
{
	static const char *const bad[] = { "", ".", "1.", ".5", "1.2.3", "-1",
	    "abc", "1700000000,123", "1e9", "1700000000.12x",
	    "99999999999999999999", "9223372036855" };
	int64_t us;

	(void)state;
	assert_int_equal(parse_msec("1700000000.123", &us), 0);
	assert_int_equal(us, 1700000000123000LL);
	assert_int_equal(parse_msec("1700000000", &us), 0);
	assert_int_equal(us, 1700000000000000LL);
	assert_int_equal(parse_msec("0.000001", &us), 0);
	assert_int_equal(us, 1);
	assert_int_equal(parse_msec("1.1234569", &us), 0);
	assert_int_equal(us, 1123456);
	assert_int_equal(parse_msec("9223372036853.999999", &us), 0);
	assert_int_equal(us, 9223372036853999999LL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse_msec(bad[i], &us) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_days_from_civil_matches_timegm),
		cmocka_unit_test(test_local_examples),
		cmocka_unit_test(test_local_boundaries),
		cmocka_unit_test(test_local_round_trip),
		cmocka_unit_test(test_local_rejects),
		cmocka_unit_test(test_local_cached_matches),
		cmocka_unit_test(test_iso8601),
		cmocka_unit_test(test_iso8601_rejects),
		cmocka_unit_test(test_iso8601_cached_matches),
		cmocka_unit_test(test_clock_every_byte),
		cmocka_unit_test(test_msec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
