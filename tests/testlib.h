/*
 * Helpers the unit tests share: a seeded pseudo-random generator and libc's
 * timegm() as the oracle for civil times.
 */
#ifndef KEDGE_TESTLIB_H
#define KEDGE_TESTLIB_H

#include <stdint.h>
#include <string.h>
#include <time.h>

/* splitmix64: a fast, well-mixed generator; *s is the state. */
static inline uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Microseconds since the epoch of a civil time at UTC offset offset_s,
 * computed by libc's timegm(). */
static inline int64_t
oracle_us(int year, int mon, int day, int hour, int min, int sec,
    int offset_s)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	return ((int64_t)timegm(&tm) - offset_s) * 1000000;
}

/* Microseconds since the epoch of a UTC civil time. */
static inline int64_t
utc_us(int year, int mon, int day, int hour, int min, int sec)
{
	return oracle_us(year, mon, day, hour, min, sec, 0);
}

#endif /* KEDGE_TESTLIB_H */
