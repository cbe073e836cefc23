#include "agent/write/tz.h"
#include "lib/err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TZ_DIR "/usr/share/zoneinfo/"
#define TZ_SLOT_S 900
#define TZ_CACHE_SLOTS 64 /* a power of two */
#define TZ_US_PER_S INT64_C(1000000)
/* 9999-12-31T23:59:59Z plus a day: later instants are refused before any
 * arithmetic, earlier ones once their local year is known. */
#define TZ_MAX_S (INT64_C(253402300799) + 86400)
#define TZ_MAX_YEAR 9999

/* What the zone says about one 15-minute UTC slot. */
struct tz_slot {
	int64_t slot;        /* floor(t / 900 s); -1 when the entry is empty */
	int uniform;         /* one offset, one local hour for the whole slot */
	int start_s;         /* its first second, in seconds into the hour */
	struct tz_hour hour; /* of its first second */
};

struct tz {
	struct tz_slot cache[TZ_CACHE_SLOTS];
};

static void
tz_put_digits(char *p, int64_t v, int n)
{
	while (n-- > 0) {
		p[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* Asks libc for the local hour of t and how many seconds into it t is;
 * -ERANGE past year 9999. */
static int
tz_local_from_libc(int64_t t, struct tz_hour *h, int *hour_s)
{
	time_t tt = (time_t)t;
	struct tm tm;
	int64_t year;

	if (localtime_r(&tt, &tm) == NULL ||
	    (year = (int64_t)tm.tm_year + 1900) > TZ_MAX_YEAR)
		return -ERANGE;
	tz_put_digits(h->dt, year, 4);
	tz_put_digits(h->dt + 4, tm.tm_mon + 1, 2);
	tz_put_digits(h->dt + 6, tm.tm_mday, 2);
	h->dt[8] = '\0';
	tz_put_digits(h->hr, tm.tm_hour, 2);
	h->hr[2] = '\0';
	h->key = ((year * 100 + tm.tm_mon + 1) * 100 + tm.tm_mday) * 100 +
	    tm.tm_hour;
	h->utc_offset_s = (int32_t)tm.tm_gmtoff;
	*hour_s = tm.tm_min * 60 + tm.tm_sec;
	return 0;
}

/* Loads slot into e.  A slot is uniform when the offset is the same at its
 * first and last second and is a whole number of quarter hours: then the
 * slot lies inside one local hour and local time is UTC + offset
 * throughout.  Otherwise (a change at local 00:01, an offset such as
 * -0:44:30 or -10:40) every instant of the slot goes to libc. */
static int
tz_slot_load(struct tz_slot *e, int64_t slot)
{
	struct tz_slot loaded = { .slot = slot };
	time_t last = (time_t)(slot * TZ_SLOT_S + TZ_SLOT_S - 1);
	struct tm tm;
	int r;

	if ((r = tz_local_from_libc(slot * TZ_SLOT_S, &loaded.hour,
	    &loaded.start_s)) < 0)
		return r;
	if (localtime_r(&last, &tm) == NULL)
		return -ERANGE;
	loaded.uniform = loaded.hour.utc_offset_s == tm.tm_gmtoff &&
	    loaded.hour.utc_offset_s % TZ_SLOT_S == 0;
	*e = loaded;
	return 0;
}

/* Finds the local hour of ts_us and how many seconds into it ts_us is:
 * from the cache when its slot is uniform (the cached hour, not a copy),
 * else from libc into scratch.  Returns NULL out of range. */
static inline const struct tz_hour *
tz_lookup(struct tz *tz, int64_t ts_us, struct tz_hour *scratch, int *hour_s)
{
	struct tz_slot *e;
	int64_t t, slot;

	if (ts_us < 0 || ts_us / TZ_US_PER_S > TZ_MAX_S)
		return NULL;
	t = ts_us / TZ_US_PER_S;
	slot = t / TZ_SLOT_S;
	e = &tz->cache[slot & (TZ_CACHE_SLOTS - 1)];
	if (e->slot != slot && tz_slot_load(e, slot) < 0)
		return NULL;
	if (!e->uniform)
		return tz_local_from_libc(t, scratch, hour_s) < 0 ? NULL :
		    scratch;
	*hour_s = e->start_s + (int)(t - slot * TZ_SLOT_S);
	return &e->hour;
}

static int
tz_name_check(const char *name, char *err, size_t errlen)
{
	char path[512];
	char magic[4];
	struct stat st;
	int fd, n;

	if (name[0] == '\0' || name[0] == '/' || strstr(name, "..") != NULL) {
		return err_set(err, errlen, -EINVAL,
		    "time zone \"%s\" is not a zone name "
		    "like \"Asia/Shanghai\" or \"UTC\"", name);
	}
	/* Those zones count leap seconds in time_t; Kafka timestamps and
	 * the system clock do not. */
	if (strncmp(name, "right/", 6) == 0) {
		return err_set(err, errlen, -EINVAL,
		    "time zone \"%s\" counts leap seconds, "
		    "which Kafka timestamps do not; use \"%s\"", name,
		    name + 6);
	}
	n = snprintf(path, sizeof(path), "%s%s", TZ_DIR, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		return err_set(err, errlen, -ENAMETOOLONG,
		    "time zone name \"%.64s...\" is too long",
		    name);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "unknown time zone \"%s\" (no %s)", name,
		    path);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	/* zoneinfo also holds tables such as zone.tab: libc would silently
	 * read them as UTC. */
	n = (int)read(fd, magic, sizeof(magic));
	close(fd);
	if (n != (int)sizeof(magic) || memcmp(magic, "TZif", 4) != 0) {
		return err_set(err, errlen, -ENOENT,
		    "unknown time zone \"%s\" (%s is not a "
		    "TZif file)", name, path);
	}
	return 0;
}

struct tz *
tz_open(const char *name, char *err, size_t errlen)
{
	struct tz *tz = NULL;

	if (tz_name_check(name, err, errlen) < 0)
		goto fail;
	if ((tz = calloc(1, sizeof(*tz))) == NULL ||
	    setenv("TZ", name, 1) < 0) {
		snprintf(err, errlen, "time zone \"%s\": out of memory", name);
		goto fail;
	}
	tzset();
	for (size_t i = 0; i < TZ_CACHE_SLOTS; i++)
		tz->cache[i].slot = -1;
	return tz;
fail:
	tz_close(tz);
	return NULL;
}

void
tz_close(struct tz *tz)
{
	free(tz);
}

int
tz_hour_of(struct tz *tz, int64_t ts_us, struct tz_hour *out)
{
	const struct tz_hour *h;
	int hour_s;

	if ((h = tz_lookup(tz, ts_us, out, &hour_s)) == NULL)
		return -ERANGE;
	if (h != out)
		*out = *h;
	return 0;
}

/* Writes "+HH:MM", or "+HH:MM:SS" for an offset that is not whole minutes
 * (Liberia until 1972); returns the length. */
static int
tz_put_offset(char *p, int32_t offset)
{
	int32_t a = offset < 0 ? -offset : offset;

	p[0] = offset < 0 ? '-' : '+';
	tz_put_digits(p + 1, a / 3600, 2);
	p[3] = ':';
	tz_put_digits(p + 4, a / 60 % 60, 2);
	if (a % 60 == 0)
		return 6;
	p[6] = ':';
	tz_put_digits(p + 7, a % 60, 2);
	return 9;
}

int
tz_format(struct tz *tz, int64_t ts_us, int iso, char *buf)
{
	/* minutes and seconds, two digits each, from a table */
	static const char sixty[] =
	    "000102030405060708091011121314151617181920212223242526272829"
	    "303132333435363738394041424344454647484950515253545556575859";
	const struct tz_hour *h;
	struct tz_hour scratch;
	int32_t us = (int32_t)(ts_us % TZ_US_PER_S);
	int hour_s, n;

	if ((h = tz_lookup(tz, ts_us, &scratch, &hour_s)) == NULL)
		return -ERANGE;
	memcpy(buf, h->dt, 4);
	buf[4] = '-';
	memcpy(buf + 5, h->dt + 4, 2);
	buf[7] = '-';
	memcpy(buf + 8, h->dt + 6, 2);
	buf[10] = iso ? 'T' : ' ';
	memcpy(buf + 11, h->hr, 2);
	buf[13] = ':';
	memcpy(buf + 14, sixty + hour_s / 60 * 2, 2);
	buf[16] = ':';
	memcpy(buf + 17, sixty + hour_s % 60 * 2, 2);
	n = 19;
	if (us % 1000 != 0) {
		buf[n] = '.';
		tz_put_digits(buf + n + 1, us, 6);
		n += 7;
	} else if (us != 0) {
		buf[n] = '.';
		tz_put_digits(buf + n + 1, us / 1000, 3);
		n += 4;
	}
	if (iso)
		n += tz_put_offset(buf + n, h->utc_offset_s);
	buf[n] = '\0';
	return n;
}
