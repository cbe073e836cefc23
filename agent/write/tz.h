/*
 * tz: event time -> Hive partition (dt=YYYYMMDD/hr=HH) and local-time text,
 * in one configured IANA time zone.  localtime_r() is too slow to call per
 * row, so results are cached per 15-minute UTC slot: nearly every UTC
 * offset and transition in the tz database falls on a quarter hour.  The
 * few slots that hold one that does not (a change at local 00:01 in a few
 * zones, Liberia's -0:44:30 until 1972) go to localtime_r() each time.
 *
 * One time zone per process: tz_open() sets TZ for the whole process.
 */
#ifndef KEDGE_TZ_H
#define KEDGE_TZ_H

#include <stddef.h>
#include <stdint.h>

struct tz;

/* The local hour an instant falls in. */
struct tz_hour {
	char dt[9];            /* "YYYYMMDD", NUL-terminated */
	char hr[3];            /* "HH", NUL-terminated */
	int64_t key;           /* YYYYMMDDHH as a number, for comparisons */
	int32_t utc_offset_s;  /* local = UTC + offset */
};

/* Opens the zone `name` ("UTC", "Asia/Shanghai", ...).  Returns NULL with a
 * sentence in err when the zone is unknown (no file under
 * /usr/share/zoneinfo) or out of memory. */
struct tz *tz_open(const char *name, char *err, size_t errlen);
void tz_close(struct tz *tz); /* accepts NULL */

/* Fills *out for the instant ts_us (microseconds since the epoch, UTC).
 * Returns 0, or -ERANGE for an instant before 1970 or after 9999. */
int tz_hour_of(struct tz *tz, int64_t ts_us, struct tz_hour *out);

/* Writes ts_us as local time "YYYY-MM-DD HH:MM:SS" with ".fff" when it has
 * milliseconds or ".ffffff" when it has microseconds (Hive's TIMESTAMP
 * text); iso != 0 writes ISO 8601 instead, "YYYY-MM-DDTHH:MM:SS[.f]+HH:MM".
 * buf holds at least TZ_TEXT_MAX bytes.  Returns the length written (without
 * the NUL), or -ERANGE. */
#define TZ_TEXT_MAX 40
int tz_format(struct tz *tz, int64_t ts_us, int iso, char *buf);

#endif /* KEDGE_TZ_H */
