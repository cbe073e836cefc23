/*
 * confunits: the sizes and durations of kedge.conf (CONF_SIZE,
 * CONF_DURATION in the key table): read from "512MiB" and "1h30m", and
 * written back in their largest whole unit for messages and for
 * docs/config.md.
 */
#include "agent/config/confkeys.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/err.h"

/* A size's units: powers of 1024, in both spellings. */
static const struct {
	const char *unit;
	int shift;
} conf_size_units[] = {
	{ "", 0 }, { "B", 0 },
	{ "K", 10 }, { "k", 10 }, { "KiB", 10 },
	{ "M", 20 }, { "m", 20 }, { "MiB", 20 },
	{ "G", 30 }, { "g", 30 }, { "GiB", 30 },
	{ "T", 40 }, { "t", 40 }, { "TiB", 40 },
	{ "P", 50 }, { "p", 50 }, { "PiB", 50 },
};

#define CONF_NSIZE_UNITS (sizeof(conf_size_units) / sizeof(conf_size_units[0]))

/* Reads the decimal digits at *p into *v, up to INT64_MAX; returns the
 * digits read, or -1 past INT64_MAX. */
static int
conf_digits(const char **p, int64_t *v)
{
	int n = 0;

	for (*v = 0; **p >= '0' && **p <= '9'; (*p)++, n++) {
		if (*v > (INT64_MAX - (**p - '0')) / 10)
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return n;
}

int
conf_parse_size(const char *s, int64_t *out, char *why, size_t whylen)
{
	const char *p = s;
	int64_t v;
	int n = conf_digits(&p, &v);

	for (size_t i = 0; n > 0 && i < CONF_NSIZE_UNITS; i++) {
		int shift = conf_size_units[i].shift;

		if (strcmp(p, conf_size_units[i].unit) != 0)
			continue;
		if (v > INT64_MAX >> shift)
			n = -1;
		else {
			*out = v << shift;
			return 0;
		}
	}
	if (n < 0)
		return err_set(why, whylen, -EINVAL, "\"%s\" is past the "
		    "largest size there is, 8EiB", s);
	return err_set(why, whylen, -EINVAL, "\"%s\" is not a size: write "
	    "bytes, or a number with K, M, G, T or P after it (or KiB, MiB, "
	    "GiB, TiB, PiB: powers of 1024 all), such as \"512MiB\"", s);
}

int
conf_parse_duration(const char *s, int64_t *out, char *why, size_t whylen)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	const char *p = s;
	int64_t total = 0, v;
	int n;

	while ((n = conf_digits(&p, &v)) > 0) {
		size_t i = 0;

		/* a bare number is seconds, alone */
		if (*p == '\0' && p - n == s)
			break;
		while (i < sizeof(units) / sizeof(units[0]) &&
		    units[i].unit != *p)
			i++;
		if (i == sizeof(units) / sizeof(units[0]) || p[1] == 's' ||
		    v > (INT64_MAX - total) / units[i].seconds)
			goto bad;
		total += v * units[i].seconds;
		if (*++p == '\0') {
			*out = total;
			return 0;
		}
	}
	if (n > 0) {
		*out = v;
		return 0;
	}
bad:
	return err_set(why, whylen, -EINVAL, "\"%s\" is not a duration: write "
	    "seconds, or numbers with s, m, h or d after them, such as "
	    "\"90s\", \"5m\" or \"1h30m\"", s);
}

void
conf_int_text(enum conf_type type, long long v, char *buf, size_t len)
{
	static const struct {
		char unit;
		long long seconds;
	} units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
	size_t used = 0;
	int shift = 50;

	if (type == CONF_SIZE && v > 0) {
		while (shift > 0 && (v & ((1LL << shift) - 1)) != 0)
			shift -= 10;
		snprintf(buf, len, "%lld%s", v >> shift, shift == 0 ? "" :
		    shift == 10 ? "KiB" : shift == 20 ? "MiB" : shift == 30 ?
		    "GiB" : shift == 40 ? "TiB" : "PiB");
		return;
	}
	if (type != CONF_DURATION || v <= 0) {
		snprintf(buf, len, "%lld", v);
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (v / units[i].seconds == 0 || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%lld%c",
		    v / units[i].seconds, units[i].unit);
		v %= units[i].seconds;
	}
}
