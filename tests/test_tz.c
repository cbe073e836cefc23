/*
 * tz: partition hours and timestamp text in several zones, across DST
 * transitions and half-hour offsets, checked against hand-worked values and
 * against localtime_r() over many pseudo-random instants.
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

#include "agent/write/tz.h"

#define US INT64_C(1000000)

static struct tz *
open_zone(const char *name)
{
	char err[256] = "";
	struct tz *tz = tz_open(name, err, sizeof(err));

	if (tz == NULL)
		fail_msg("tz_open(%s): %s", name, err);
	return tz;
}

/* Checks the partition hour of ts_us and its UTC offset. */
static void
expect_hour(struct tz *tz, int64_t ts_us, const char *dt, const char *hr,
    int32_t offset)
{
	struct tz_hour h;
	int64_t key;

	memset(&h, 0x55, sizeof(h));
	assert_int_equal(tz_hour_of(tz, ts_us, &h), 0);
	assert_string_equal(h.dt, dt);
	assert_string_equal(h.hr, hr);
	assert_int_equal(h.utc_offset_s, offset);
	key = 0;
	for (const char *p = dt; *p != '\0'; p++)
		key = key * 10 + (*p - '0');
	key = key * 100 + (hr[0] - '0') * 10 + (hr[1] - '0');
	assert_int_equal(h.key, key);
}

static void
expect_text(struct tz *tz, int64_t ts_us, int iso, const char *want)
{
	char buf[TZ_TEXT_MAX];
	int n;

	memset(buf, 'x', sizeof(buf));
	n = tz_format(tz, ts_us, iso, buf);
	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void
test_unknown_zone(void **state)
{
	static const char *const bad[] = {
		"", "/etc/localtime", "../zoneinfo/UTC", "Asia/../UTC",
		"Asia", "zone.tab", "right/UTC",
	};
	char err[256];

	(void)state;
	err[0] = '\0';
	assert_null(tz_open("Asia/Shangai", err, sizeof(err)));
	assert_string_equal(err, "unknown time zone \"Asia/Shangai\" "
	    "(no /usr/share/zoneinfo/Asia/Shangai)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_null(tz_open(bad[i], err, sizeof(err)));
		assert_non_null(strstr(err, "time zone"));
	}
	err[0] = '\0';
	assert_null(tz_open("zone.tab", err, sizeof(err)));
	assert_non_null(strstr(err, "not a TZif file"));
	err[0] = '\0';
	assert_null(tz_open("right/UTC", err, sizeof(err)));
	assert_non_null(strstr(err, "leap seconds"));
	tz_close(NULL);
}

static void
test_utc(void **state)
{
	struct tz *tz = open_zone("UTC");

	(void)state;
	expect_hour(tz, 0, "19700101", "00", 0);
	expect_hour(tz, utc_us(2026, 3, 29, 1, 0, 0), "20260329", "01", 0);
	expect_hour(tz, utc_us(2026, 12, 31, 23, 59, 59) + 999999, "20261231",
	    "23", 0);
	expect_hour(tz, utc_us(2028, 2, 29, 12, 0, 0), "20280229", "12", 0);
	expect_text(tz, utc_us(2026, 3, 29, 1, 2, 3), 0, "2026-03-29 01:02:03");
	expect_text(tz, utc_us(2026, 3, 29, 1, 2, 3), 1,
	    "2026-03-29T01:02:03+00:00");
	tz_close(tz);
}

static void
test_shanghai_next_day(void **state)
{
	struct tz *tz = open_zone("Asia/Shanghai");

	(void)state;
	/* 16:30 UTC is already tomorrow in UTC+8. */
	expect_hour(tz, utc_us(2026, 5, 4, 16, 30, 0), "20260505", "00", 28800);
	expect_hour(tz, utc_us(2026, 5, 4, 15, 59, 59) + 999999, "20260504",
	    "23", 28800);
	expect_hour(tz, utc_us(2026, 5, 4, 16, 0, 0), "20260505", "00", 28800);
	/* Midnight that is also a new month and a new year. */
	expect_hour(tz, utc_us(2026, 2, 28, 15, 59, 59), "20260228", "23",
	    28800);
	expect_hour(tz, utc_us(2026, 2, 28, 16, 0, 0), "20260301", "00", 28800);
	expect_hour(tz, utc_us(2025, 12, 31, 16, 0, 0), "20260101", "00",
	    28800);
	expect_hour(tz, utc_us(2025, 12, 31, 15, 0, 0), "20251231", "23",
	    28800);
	expect_text(tz, utc_us(2026, 5, 4, 16, 30, 0), 0,
	    "2026-05-05 00:30:00");
	expect_text(tz, utc_us(2026, 5, 4, 16, 30, 0), 1,
	    "2026-05-05T00:30:00+08:00");
	tz_close(tz);
}

static void
test_berlin_spring_forward(void **state)
{
	struct tz *tz = open_zone("Europe/Berlin");
	int64_t day = utc_us(2026, 3, 28, 23, 0, 0); /* local midnight */
	struct tz_hour h;

	(void)state;
	expect_hour(tz, utc_us(2026, 3, 29, 0, 0, 0), "20260329", "01", 3600);
	expect_hour(tz, utc_us(2026, 3, 29, 0, 59, 59) + 999999, "20260329",
	    "01", 3600);
	expect_hour(tz, utc_us(2026, 3, 29, 1, 0, 0), "20260329", "03", 7200);
	expect_hour(tz, utc_us(2026, 3, 29, 2, 0, 0), "20260329", "04", 7200);
	expect_text(tz, utc_us(2026, 3, 29, 0, 59, 59), 1,
	    "2026-03-29T01:59:59+01:00");
	expect_text(tz, utc_us(2026, 3, 29, 1, 0, 0), 1,
	    "2026-03-29T03:00:00+02:00");
	/* Local 02:00..02:59 does not exist that day. */
	for (int64_t m = 0; m < 23 * 60; m++) {
		assert_int_equal(tz_hour_of(tz, day + m * 60 * US, &h), 0);
		assert_string_equal(h.dt, "20260329");
		assert_string_not_equal(h.hr, "02");
	}
	tz_close(tz);
}

static void
test_berlin_fall_back(void **state)
{
	struct tz *tz = open_zone("Europe/Berlin");
	struct tz_hour first, second;

	(void)state;
	expect_hour(tz, utc_us(2026, 10, 24, 23, 59, 59), "20261025", "01",
	    7200);
	expect_hour(tz, utc_us(2026, 10, 25, 0, 0, 0), "20261025", "02", 7200);
	expect_hour(tz, utc_us(2026, 10, 25, 0, 59, 59), "20261025", "02",
	    7200);
	expect_hour(tz, utc_us(2026, 10, 25, 1, 0, 0), "20261025", "02", 3600);
	expect_hour(tz, utc_us(2026, 10, 25, 1, 59, 59), "20261025", "02",
	    3600);
	expect_hour(tz, utc_us(2026, 10, 25, 2, 0, 0), "20261025", "03", 3600);
	/* Local hour 02 happens twice, for two different UTC hours. */
	assert_int_equal(tz_hour_of(tz, utc_us(2026, 10, 25, 0, 30, 0), &first),
	    0);
	assert_int_equal(tz_hour_of(tz, utc_us(2026, 10, 25, 1, 30, 0),
	    &second), 0);
	assert_int_equal(first.key, second.key);
	assert_int_not_equal(first.utc_offset_s, second.utc_offset_s);
	expect_text(tz, utc_us(2026, 10, 25, 0, 30, 0), 1,
	    "2026-10-25T02:30:00+02:00");
	expect_text(tz, utc_us(2026, 10, 25, 1, 30, 0), 1,
	    "2026-10-25T02:30:00+01:00");
	expect_text(tz, utc_us(2026, 10, 25, 1, 30, 0), 0,
	    "2026-10-25 02:30:00");
	tz_close(tz);
}

static void
test_kolkata_half_hour(void **state)
{
	struct tz *tz = open_zone("Asia/Kolkata");

	(void)state;
	/* The local hour turns at :30 UTC. */
	expect_hour(tz, utc_us(2026, 6, 1, 12, 29, 59) + 999999, "20260601",
	    "17", 19800);
	expect_hour(tz, utc_us(2026, 6, 1, 12, 30, 0), "20260601", "18", 19800);
	expect_hour(tz, utc_us(2026, 6, 1, 13, 15, 0), "20260601", "18", 19800);
	expect_hour(tz, utc_us(2026, 6, 1, 18, 29, 59), "20260601", "23",
	    19800);
	expect_hour(tz, utc_us(2026, 6, 1, 18, 30, 0), "20260602", "00", 19800);
	expect_text(tz, utc_us(2026, 6, 1, 12, 30, 0) + 5000, 1,
	    "2026-06-01T18:00:00.005+05:30");
	tz_close(tz);
}

static void
test_format_fractions(void **state)
{
	struct tz *tz = open_zone("Asia/Shanghai");
	int64_t t = utc_us(2026, 1, 1, 0, 0, 0);

	(void)state;
	expect_text(tz, t, 0, "2026-01-01 08:00:00");
	expect_text(tz, t + 123000, 0, "2026-01-01 08:00:00.123");
	expect_text(tz, t + 1000, 0, "2026-01-01 08:00:00.001");
	expect_text(tz, t + 123456, 0, "2026-01-01 08:00:00.123456");
	expect_text(tz, t + 100, 0, "2026-01-01 08:00:00.000100");
	expect_text(tz, t + 999999, 0, "2026-01-01 08:00:00.999999");
	expect_text(tz, t, 1, "2026-01-01T08:00:00+08:00");
	expect_text(tz, t + 120000, 1, "2026-01-01T08:00:00.120+08:00");
	expect_text(tz, t + 7, 1, "2026-01-01T08:00:00.000007+08:00");
	tz_close(tz);

	tz = open_zone("America/Sao_Paulo");
	expect_text(tz, t + 5, 1, "2025-12-31T21:00:00.000005-03:00");
	expect_hour(tz, t, "20251231", "21", -10800);
	tz_close(tz);

	tz = open_zone("America/Argentina/Buenos_Aires");
	expect_text(tz, t, 1, "2025-12-31T21:00:00-03:00");
	tz_close(tz);

	/* Liberia kept GMT-0:44:30 until 1972: seconds in the offset. */
	tz = open_zone("Africa/Monrovia");
	expect_text(tz, utc_us(1971, 6, 1, 12, 0, 0), 1,
	    "1971-06-01T11:15:30-00:44:30");
	expect_hour(tz, utc_us(1972, 1, 7, 0, 44, 29), "19720106", "23", -2670);
	expect_hour(tz, utc_us(1972, 1, 7, 0, 44, 30), "19720107", "00", 0);
	tz_close(tz);
}

static void
test_range(void **state)
{
	struct tz *tz = open_zone("UTC");
	struct tz_hour h;
	char buf[TZ_TEXT_MAX];

	(void)state;
	assert_int_equal(tz_hour_of(tz, -1, &h), -ERANGE);
	assert_int_equal(tz_hour_of(tz, INT64_MIN, &h), -ERANGE);
	assert_int_equal(tz_hour_of(tz, INT64_MAX, &h), -ERANGE);
	assert_int_equal(tz_format(tz, -1, 0, buf), -ERANGE);
	assert_int_equal(tz_format(tz, INT64_MAX, 1, buf), -ERANGE);
	expect_hour(tz, utc_us(9999, 12, 31, 23, 59, 59) + 999999, "99991231",
	    "23", 0);
	expect_text(tz, utc_us(9999, 12, 31, 23, 59, 59) + 999999, 1,
	    "9999-12-31T23:59:59.999999+00:00");
	assert_int_equal(tz_hour_of(tz, utc_us(10000, 1, 1, 0, 0, 0), &h),
	    -ERANGE);
	assert_int_equal(tz_format(tz, utc_us(10000, 1, 1, 0, 0, 0), 0, buf),
	    -ERANGE);
	tz_close(tz);

	/* In UTC+8 the year 10000 begins eight hours earlier. */
	tz = open_zone("Asia/Shanghai");
	expect_hour(tz, utc_us(9999, 12, 31, 15, 59, 59), "99991231", "23",
	    28800);
	assert_int_equal(tz_hour_of(tz, utc_us(9999, 12, 31, 16, 0, 0), &h),
	    -ERANGE);
	assert_int_equal(tz_format(tz, utc_us(9999, 12, 31, 16, 0, 0), 1, buf),
	    -ERANGE);
	tz_close(tz);

	/* The epoch is still 1969 west of Greenwich. */
	tz = open_zone("America/New_York");
	expect_hour(tz, 0, "19691231", "19", -18000);
	expect_text(tz, 0, 1, "1969-12-31T19:00:00-05:00");
	tz_close(tz);
}

/* What libc says about one instant. */
struct expected {
	char text[128];
	char dt[32];
	char hr[32];
	int64_t key;
	long offset;
};

/* Builds the expected text and hour of ts_us from localtime_r(). */
static void
oracle(int64_t ts_us, int iso, struct expected *e)
{
	time_t t = (time_t)(ts_us / US);
	int us = (int)(ts_us % US);
	struct tm tm;
	char frac[16] = "", off[32] = "";
	long a;

	assert_non_null(localtime_r(&t, &tm));
	e->offset = tm.tm_gmtoff;
	if (us % 1000 != 0)
		snprintf(frac, sizeof(frac), ".%06d", us);
	else if (us != 0)
		snprintf(frac, sizeof(frac), ".%03d", us / 1000);
	a = e->offset < 0 ? -e->offset : e->offset;
	if (iso && a % 60 != 0)
		snprintf(off, sizeof(off), "%c%02ld:%02ld:%02ld",
		    e->offset < 0 ? '-' : '+', a / 3600, a / 60 % 60, a % 60);
	else if (iso)
		snprintf(off, sizeof(off), "%c%02ld:%02ld",
		    e->offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
	snprintf(e->text, sizeof(e->text), "%04d-%02d-%02d%c%02d:%02d:%02d%s%s",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, iso ? 'T' : ' ',
	    tm.tm_hour, tm.tm_min, tm.tm_sec, frac, off);
	snprintf(e->dt, sizeof(e->dt), "%04d%02d%02d", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday);
	snprintf(e->hr, sizeof(e->hr), "%02d", tm.tm_hour);
	e->key = ((int64_t)(tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 +
	    tm.tm_mday) * 100 + tm.tm_hour;
}

static void
check_against_libc(struct tz *tz, const char *zone, int64_t ts_us)
{
	struct expected want;
	struct tz_hour got;
	char text[TZ_TEXT_MAX];
	int iso = (int)(ts_us & 1), n;

	oracle(ts_us, iso, &want);
	assert_int_equal(tz_hour_of(tz, ts_us, &got), 0);
	n = tz_format(tz, ts_us, iso, text);
	if (strcmp(got.dt, want.dt) != 0 || strcmp(got.hr, want.hr) != 0 ||
	    got.key != want.key || got.utc_offset_s != want.offset ||
	    strcmp(text, want.text) != 0 || n != (int)strlen(want.text))
		fail_msg("%s at %lld us: got %s %s %lld %d \"%s\", libc says "
		    "%s %s %lld %ld \"%s\"", zone, (long long)ts_us, got.dt,
		    got.hr, (long long)got.key, got.utc_offset_s, text, want.dt,
		    want.hr, (long long)want.key, want.offset, want.text);
}

/* Half of the instants jump anywhere in 1970..2100 (mostly cache misses),
 * half walk from there by up to an hour (mostly hits, and every slot
 * boundary nearby).  Monrovia's -0:44:30 until 1972 cannot be cached by
 * slot. */
static void
test_random_against_localtime(void **state)
{
	static const char *const zones[] = {
		"UTC", "Asia/Shanghai", "Europe/Berlin", "Asia/Kolkata",
		"America/Sao_Paulo", "America/New_York", "America/St_Johns",
		"Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham",
		"Africa/Monrovia",
	};
	const int64_t span = utc_us(2100, 1, 1, 0, 0, 0);
	uint64_t seed = 20260329;

	(void)state;
	for (size_t z = 0; z < sizeof(zones) / sizeof(zones[0]); z++) {
		struct tz *tz = open_zone(zones[z]);
		int64_t ts = 0;

		for (int i = 0; i < 200000; i++) {
			uint64_t r = splitmix64(&seed);

			if (i % 2 == 0)
				ts = (int64_t)(r % (uint64_t)span);
			else
				ts += (int64_t)(r % (3600 * (uint64_t)US));
			/* Whole seconds and whole milliseconds too. */
			if (r >> 62 == 0)
				ts -= ts % US;
			else if (r >> 62 == 1)
				ts -= ts % 1000;
			check_against_libc(tz, zones[z], ts);
		}
		tz_close(tz);
	}
}

/* Transitions that are not on a quarter hour (local 00:01 in some zones,
 * Kiritimati leaving -10:40, Liberia leaving -0:44:30): every second of the
 * hour before and after, against libc. */
static void
test_odd_transitions(void **state)
{
	static const struct {
		const char *zone;
		int y, mo, d, h, mi, s;
	} at[] = {
		{ "Asia/Gaza", 2010, 3, 26, 22, 1, 0 },
		{ "America/Moncton", 1993, 4, 4, 4, 1, 0 },
		{ "America/St_Johns", 1990, 4, 1, 3, 31, 0 },
		{ "Pacific/Guam", 1976, 8, 21, 15, 1, 0 },
		{ "Antarctica/Casey", 2020, 10, 3, 16, 1, 0 },
		{ "Pacific/Kiritimati", 1979, 10, 1, 10, 40, 0 },
		{ "Africa/Monrovia", 1972, 1, 7, 0, 44, 30 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct tz *tz = open_zone(at[i].zone);
		int64_t t = utc_us(at[i].y, at[i].mo, at[i].d, at[i].h,
		    at[i].mi, at[i].s);

		for (int64_t k = -3600; k <= 3600; k++)
			check_against_libc(tz, at[i].zone,
			    t + k * US + (k & 1) * 250000);
		tz_close(tz);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_zone),
		cmocka_unit_test(test_utc),
		cmocka_unit_test(test_shanghai_next_day),
		cmocka_unit_test(test_berlin_spring_forward),
		cmocka_unit_test(test_berlin_fall_back),
		cmocka_unit_test(test_kolkata_half_hour),
		cmocka_unit_test(test_format_fractions),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_random_against_localtime),
		cmocka_unit_test(test_odd_transitions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
