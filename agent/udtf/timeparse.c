#include "agent/udtf/timeparse.h"

#include "lib/digits.h"
#include "lib/le.h"

#include <errno.h>
#include <string.h>

#define US_PER_S 1000000LL
#define ISO_DATETIME_LEN 19 /* "2000-10-10T13:55:36" */
/* The largest whole second whose microseconds, fraction included, fit. */
#define MSEC_MAX_S (INT64_MAX / US_PER_S - 1)

static int
timeparse_is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* Reads exactly n ASCII digits as a number; returns -1 if one is not a
 * digit. */
static int
read_digits(const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (!timeparse_is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Reads the fraction of a second after the '.', keeping six digits; returns
 * the number of bytes read, 0 when there is no digit. */
static size_t
read_fraction(const char *s, size_t len, int *frac_us)
{
	static const int scale[] = { 100000, 10000, 1000, 100, 10, 1 };
	size_t i;
	int v = 0;

	for (i = 0; i < len && timeparse_is_digit(s[i]); i++)
		if (i < 6)
			v += (s[i] - '0') * scale[i];
	*frac_us = v;
	return i;
}

/* English month abbreviation, as nginx writes it, to 1..12; 0 if none. */
static int
month_of(const char *s)
{
	switch ((unsigned)(unsigned char)s[0] << 16 |
	    (unsigned)(unsigned char)s[1] << 8 | (unsigned char)s[2]) {
	case 'J' << 16 | 'a' << 8 | 'n': return 1;
	case 'F' << 16 | 'e' << 8 | 'b': return 2;
	case 'M' << 16 | 'a' << 8 | 'r': return 3;
	case 'A' << 16 | 'p' << 8 | 'r': return 4;
	case 'M' << 16 | 'a' << 8 | 'y': return 5;
	case 'J' << 16 | 'u' << 8 | 'n': return 6;
	case 'J' << 16 | 'u' << 8 | 'l': return 7;
	case 'A' << 16 | 'u' << 8 | 'g': return 8;
	case 'S' << 16 | 'e' << 8 | 'p': return 9;
	case 'O' << 16 | 'c' << 8 | 't': return 10;
	case 'N' << 16 | 'o' << 8 | 'v': return 11;
	case 'D' << 16 | 'e' << 8 | 'c': return 12;
	default: return 0;
	}
}

static int
days_in_month(int year, int mon)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (mon == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return days[mon - 1];
}

/* Reads a UTC offset that is the whole of s: "Z", "+hhmm" or "+hh:mm". */
static int
read_offset(const char *s, size_t len, int *offset_s)
{
	int hh, mm, sign;

	if (len == 1 && s[0] == 'Z') {
		*offset_s = 0;
		return 0;
	}
	if (len != 5 && len != 6)
		return -EINVAL;
	if (s[0] == '+')
		sign = 1;
	else if (s[0] == '-')
		sign = -1;
	else
		return -EINVAL;
	hh = read_digits(s + 1, 2);
	if (len == 6 && s[3] != ':')
		return -EINVAL;
	mm = read_digits(s + len - 2, 2);
	if (hh < 0 || hh > 23 || mm < 0 || mm > 59)
		return -EINVAL;
	*offset_s = sign * (hh * 3600 + mm * 60);
	return 0;
}

/* Howard Hinnant's days_from_civil: shift the year to start in March so
 * that the leap day is the last day of the year, then count 400-year eras
 * of 146097 days. */
int64_t
timeparse_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The date of a $time_local, "10/Oct/2000", into *days.  Returns 0 or
 * -EINVAL when it is not one or names a day that does not exist. */
static int
local_days(const char *s, int64_t *days)
{
	int day, mon, year;

	if (s[2] != '/' || s[6] != '/')
		return -EINVAL;
	day = read_digits(s, 2);
	mon = month_of(s + 3);
	year = read_digits(s + 7, 4);
	if (year < 0 || mon < 1 || day < 1 || day > days_in_month(year, mon))
		return -EINVAL;
	*days = timeparse_days_from_civil(year, (unsigned)mon, (unsigned)day);
	return 0;
}

/* Two ASCII digits as a number; -1 if one is not a digit. */
static inline int
two_digits(const char *s)
{
	unsigned hi = (unsigned)(unsigned char)s[0] - '0',
	    lo = (unsigned)(unsigned char)s[1] - '0';

	return hi <= 9 && lo <= 9 ? (int)(hi * 10 + lo) : -1;
}

/* "HH:MM:SS", the eight bytes at s, as the seconds of the day; -1 when a
 * byte is not a digit or not the colon it must be, or the hour is past 23
 * or the minute or the second past 59: one word for all eight. */
static inline int
clock_seconds(const char *s)
{
	uint64_t x = le_get64(s) ^ 0x30303a30303a3030u, pairs;

	if (!digits_fit(x, 0x0101000101000101u))
		return -1;
	/* each byte ten times itself plus the next: the hour in byte 0, the
	 * minute in byte 3, the second in byte 6, none past 99, no carry */
	pairs = x * 10 + (x >> 8);
	/* 104 takes an hour past 23, 68 a minute or second past 59, to 128 */
	if (((pairs + 0x0044000044000068u) & 0x0080000080000080u) != 0)
		return -1;
	return (int)(pairs & 0xff) * 3600 + (int)(pairs >> 24 & 0xff) * 60 +
	    (int)(pairs >> 48 & 0xff);
}

/* The rest of a $time_local, ":13:55:36 -0700" from byte 11 on, at the
 * date that is days: sets *us and returns 0, or returns -EINVAL.  The
 * offset is read here, not by read_offset(): it has one form only. */
static inline int
local_clock(const char *s, int64_t days, int64_t *us)
{
	int clock = clock_seconds(s + 12), off_h = two_digits(s + 22),
	    off_m = two_digits(s + 24), sign = s[21] == '+' ? 1 :
	    s[21] == '-' ? -1 : 0;

	/* a value of -1 is past every bound as an unsigned */
	if (s[11] != ':' || s[20] != ' ' || sign == 0 || clock < 0 ||
	    (unsigned)off_h > 23 || (unsigned)off_m > 59)
		return -EINVAL;
	*us = (days * 86400 + clock - sign * (off_h * 3600 + off_m * 60)) *
	    US_PER_S;
	return 0;
}

/* Fixed width, so every field is at a known offset. */
int
timeparse_local(const char *s, size_t len, int64_t *us)
{
	int64_t days;

	if (len != TIMEPARSE_LOCAL_LEN || local_days(s, &days) < 0)
		return -EINVAL;
	return local_clock(s, days, us);
}

/* Whether the date of datelen bytes at s (at least eight) is the one
 * cache holds; a date taken has a separator among its first eight bytes,
 * so its head is never 0, the head of an empty cache, which a text of NUL
 * bytes must not match.  Sets *head and *tail to its key. */
static inline int
date_cached(const struct timeparse_date_cache *cache, const char *s,
    size_t datelen, uint64_t *head, uint32_t *tail)
{
	memcpy(head, s, 8);
	memcpy(tail, s + datelen - 4, 4);
	return cache->head != 0 && *head == cache->head &&
	    *tail == cache->tail;
}

static void
date_keep(struct timeparse_date_cache *cache, uint64_t head, uint32_t tail,
    int64_t days)
{
	cache->head = head;
	cache->tail = tail;
	cache->days = days;
}

int
timeparse_local_cached(struct timeparse_date_cache *cache, const char *s,
    size_t len, int64_t *us)
{
	uint64_t head;
	uint32_t tail;
	int64_t days;

	if (len != TIMEPARSE_LOCAL_LEN)
		return -EINVAL;
	if (date_cached(cache, s, 11, &head, &tail))
		return local_clock(s, cache->days, us);
	if (local_days(s, &days) < 0)
		return -EINVAL;
	date_keep(cache, head, tail, days);
	return local_clock(s, days, us);
}

/* The date of an ISO 8601 time, "2000-10-10", into *days.  Returns 0 or
 * -EINVAL when it is not one or names a day that does not exist. */
static int
iso_days(const char *s, int64_t *days)
{
	int year, mon, day;

	if (s[4] != '-' || s[7] != '-')
		return -EINVAL;
	year = read_digits(s, 4);
	mon = read_digits(s + 5, 2);
	day = read_digits(s + 8, 2);
	if (year < 0 || mon < 1 || mon > 12 || day < 1 ||
	    day > days_in_month(year, mon))
		return -EINVAL;
	*days = timeparse_days_from_civil(year, (unsigned)mon, (unsigned)day);
	return 0;
}

/* The rest of an ISO 8601 time of len bytes (more than 19), "T13:55:36"
 * from byte 10 on with a fraction and an offset, at the date that is days:
 * sets *us and returns 0, or returns -EINVAL. */
static int
iso_clock(const char *s, size_t len, int64_t days, int64_t *us)
{
	size_t pos = ISO_DATETIME_LEN;
	int clock = clock_seconds(s + 11), frac_us = 0, offset_s;

	if (s[10] != 'T' || clock < 0)
		return -EINVAL;
	if (s[pos] == '.') {
		size_t n = read_fraction(s + pos + 1, len - pos - 1, &frac_us);

		if (n == 0)
			return -EINVAL;
		pos += 1 + n;
	}
	if (read_offset(s + pos, len - pos, &offset_s) < 0)
		return -EINVAL;
	*us = (days * 86400 + clock - offset_s) * US_PER_S + frac_us;
	return 0;
}

int
timeparse_iso8601_cached(struct timeparse_date_cache *cache, const char *s,
    size_t len, int64_t *us)
{
	uint64_t head;
	uint32_t tail;
	int64_t days;

	if (len <= ISO_DATETIME_LEN)
		return -EINVAL;
	if (date_cached(cache, s, 10, &head, &tail))
		return iso_clock(s, len, cache->days, us);
	if (iso_days(s, &days) < 0)
		return -EINVAL;
	date_keep(cache, head, tail, days);
	return iso_clock(s, len, days, us);
}

/* The date and time have a fixed width; the fraction and the offset
 * follow. */
int
timeparse_iso8601(const char *s, size_t len, int64_t *us)
{
	int64_t days;

	if (len <= ISO_DATETIME_LEN || iso_days(s, &days) < 0)
		return -EINVAL;
	return iso_clock(s, len, days, us);
}

/* Stops short of overflow: the largest instant accepted is MSEC_MAX_S plus
 * a fraction. */
int
timeparse_msec(const char *s, size_t len, int64_t *us)
{
	int64_t secs = 0;
	int frac_us = 0;
	size_t i;

	for (i = 0; i < len && timeparse_is_digit(s[i]); i++) {
		int d = s[i] - '0';

		if (secs > (MSEC_MAX_S - d) / 10)
			return -EINVAL;
		secs = secs * 10 + d;
	}
	if (i == 0)
		return -EINVAL;
	if (i < len) {
		size_t n;

		if (s[i] != '.')
			return -EINVAL;
		n = read_fraction(s + i + 1, len - i - 1, &frac_us);
		if (n == 0 || i + 1 + n != len)
			return -EINVAL;
	}
	*us = secs * US_PER_S + frac_us;
	return 0;
}
