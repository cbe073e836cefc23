/*
 * timeparse: the time formats nginx writes in its access log, turned into
 * microseconds since the epoch (UTC).  Calendar arithmetic is done here, not
 * with mktime()/timegm()/strptime(): these run once per record, must not
 * depend on the locale or the TZ environment, and must be fast.
 *
 * Every parser reads exactly len bytes (the text need not be NUL-terminated)
 * and accepts only the whole text, nothing before or after it.
 */
#ifndef KEDGE_UDTF_TIMEPARSE_H
#define KEDGE_UDTF_TIMEPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Returns the number of days from 1970-01-01 to the proleptic Gregorian
 * date y-m-d (negative before 1970).  m is 1..12 and d 1..31; the date is
 * not checked. */
int64_t timeparse_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The length of every $time_local. */
#define TIMEPARSE_LOCAL_LEN 26

/* Parses nginx's $time_local, "10/Oct/2000:13:55:36 -0700": English month
 * abbreviation, a UTC offset that is required.  Sets *us and returns 0, or
 * returns -EINVAL when the text is not such a time or names a day that does
 * not exist. */
int timeparse_local(const char *s, size_t len, int64_t *us);

/* The date of the last time that timeparse_local_cached() or
 * timeparse_iso8601_cached() took: the records of a stream mostly share
 * it, whatever their times and offsets.  One cache serves one of the two
 * formats.  Zeroed, it is empty. */
struct timeparse_date_cache {
	uint64_t head;  /* the date's first eight bytes; 0: none */
	uint32_t tail;  /* its last four */
	int64_t days;   /* since 1970-01-01 */
};

/* timeparse_local(), exactly, through cache: a text of the date last
 * taken costs the reading of its time and offset only. */
int timeparse_local_cached(struct timeparse_date_cache *cache,
    const char *s, size_t len, int64_t *us);

/* Parses nginx's $time_iso8601, "2000-10-10T13:55:36-07:00", and also an
 * offset written "Z" or "+0000", and an optional fraction of a second after
 * the seconds (".123", digits past the sixth are ignored).  Sets *us and
 * returns 0, or returns -EINVAL. */
int timeparse_iso8601(const char *s, size_t len, int64_t *us);

/* timeparse_iso8601(), exactly, through cache, as
 * timeparse_local_cached() is. */
int timeparse_iso8601_cached(struct timeparse_date_cache *cache,
    const char *s, size_t len, int64_t *us);

/* Parses nginx's $msec, "1700000000.123": seconds since the epoch with an
 * optional fraction (digits past the sixth are ignored).  Sets *us and
 * returns 0, or returns -EINVAL when the text is not such a number or does
 * not fit in 64-bit microseconds. */
int timeparse_msec(const char *s, size_t len, int64_t *us);

#endif /* KEDGE_UDTF_TIMEPARSE_H */
