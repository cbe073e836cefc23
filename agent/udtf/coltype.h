/*
 * coltype: the column lists the built-in UDTFs take in their config
 * ("fields", "columns", "types") and the conversion of text to typed
 * values, shared so that every UDTF reads "status:int64" and "1e3" alike.
 *
 * A list is comma-separated entries, blanks around them ignored:
 *
 *     [NAME =] SOURCE [: TYPE]
 *
 * SOURCE is what the UDTF extracts (a JSON path, a key, a group name); NAME
 * defaults to SOURCE with every byte other than [A-Za-z0-9_] turned into
 * '_' and leading and trailing '_' dropped ("request.method" becomes
 * "request_method").  TYPE is one of:
 *
 *     string        the text as is (the default)
 *     int64         decimal, optional sign
 *     double        decimal or exponent notation, inf and nan refused
 *     bool          true/false, 1/0 (case-insensitive true/false)
 *     timestamp     ISO 8601 ("2026-11-29T10:00:00.123Z"), also with a
 *                   blank for the T and, then UTC, without a zone
 *                   ("2026-11-29 10:00:00"), nginx's $time_local, or
 *                   seconds since the epoch ("1795946400.5")
 *     timestamp_ms  milliseconds since the epoch, an integer
 *     timestamp_us  microseconds since the epoch, an integer
 *     json          the value's JSON text, as a string (json UDTF only)
 */
#ifndef KEDGE_UDTF_COLTYPE_H
#define KEDGE_UDTF_COLTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/udtf/timeparse.h"
#include "agent/udtf/udtf.h"
#include "lib/digits.h"
#include "lib/le.h"

enum coltype_kind {
	COLTYPE_STRING,
	COLTYPE_INT64,
	COLTYPE_DOUBLE,
	COLTYPE_BOOL,
	COLTYPE_TIMESTAMP,
	COLTYPE_TIMESTAMP_MS,
	COLTYPE_TIMESTAMP_US,
	COLTYPE_JSON,
};

/* Flags of coltype_parse(). */
#define COLTYPE_ALLOW_JSON 0x1  /* accept the type json */
#define COLTYPE_NO_SOURCE  0x2  /* refuse NAME=: the source is the name */

struct coltype_spec {
	char *name;
	char *source;
	enum coltype_kind kind;
};

struct coltype_list {
	struct coltype_spec *v;
	struct udtf_column *cols; /* v's names and types, for columns() */
	size_t n;
};

/* Parses text, the value of config key `key`, into *out (which the caller
 * frees with coltype_list_clear, also on failure).  empty_name names a
 * column whose derived name is empty (the source "@", say); NULL makes that
 * an error.  Returns 0, or -EINVAL with a sentence naming key and entry in
 * err (unknown type, empty entry, duplicate column), or -ENOMEM. */
int coltype_parse(const char *key, const char *text, unsigned flags,
    const char *empty_name, struct coltype_list *out, char *err,
    size_t errlen);
void coltype_list_clear(struct coltype_list *l);

/* Returns the index of the column named name, or -1. */
int coltype_find(const struct coltype_list *l, const char *name);

/* The ABI type of a kind's values: json and string are UDTF_STRING. */
enum udtf_type coltype_udtf_type(enum coltype_kind kind);
const char *coltype_kind_name(enum coltype_kind kind);

/* Converts the len bytes at s to a value of kind into *v.  A string or
 * json value points at s.  Returns 0, or -EINVAL with "column NAME: "TEXT"
 * is not a TYPE" in err (the text cut short and made printable). */
int coltype_convert(enum coltype_kind kind, const char *name, const char *s,
    size_t len, struct udtf_value *v, char *err, size_t errlen);

/* Whether the four bytes at s are digits; if so sets *out to their
 * number. */
static inline int
coltype_digits4(const char *s, uint32_t *out)
{
	uint32_t x = le_get32(s) ^ 0x30303030u;

	if (!digits_fit(x, 0x01010101u))
		return 0;
	/* bytes 0 and 2 become ten times themselves plus the next, the two
	 * pairs, and the multiply puts the first pair times 100 plus the
	 * second in bits 16..31 */
	x = (x * 10 + (x >> 8)) & 0x00ff00ffu;
	*out = (x * 0x00640001u) >> 16;
	return 1;
}

/* The common cases of coltype_convert(), inline for the UDTFs' per-record
 * paths: each sets *out and returns 1, or returns 0 when the text is not
 * that simple, and coltype_convert() then decides (giving the same value
 * for a text these take).  An int64 of [-+]digits, eighteen at most (no
 * overflow). */
static inline int
coltype_int64_simple(const char *s, size_t len, int64_t *out)
{
	size_t i = len > 0 && (s[0] == '-' || s[0] == '+');
	uint64_t v = 0;
	uint32_t q;

	if (i == len || len - i > 18)
		return 0;
	for (; len - i >= 4; i += 4) {
		if (!coltype_digits4(s + i, &q))
			return 0;
		v = v * 10000 + q;
	}
	for (; i < len; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			return 0;
		v = v * 10 + d;
	}
	*out = s[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

/* A double of [-]digits[.digits], fifteen digits at most: they then make
 * an integer below 2^53 and the power of ten is exact, so one division
 * rounds correctly, as strtod() would. */
static inline int
coltype_double_simple(const char *s, size_t len, double *out)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	size_t start = len > 0 && s[0] == '-', i = start, point, frac = 0;
	uint64_t m = 0;
	unsigned d;

	for (; i < len && (d = (unsigned)(unsigned char)s[i] - '0') <= 9; i++)
		m = m * 10 + d;
	point = i;
	if (i < len && s[i] == '.') {
		for (i++; i < len &&
		    (d = (unsigned)(unsigned char)s[i] - '0') <= 9; i++)
			m = m * 10 + d;
		if ((frac = i - point - 1) == 0)
			return 0;
	}
	if (i != len || point - start + frac == 0 ||
	    point - start + frac > 15)
		return 0;
	*out = (double)m / pow10[frac];
	if (start)
		*out = -*out;
	return 1;
}

/* A bool: all of them, true/false in any case, 1 and 0. */
static inline int
coltype_bool_simple(const char *s, size_t len, int *out)
{
	uint32_t w;

	if (len == 1 && (s[0] == '0' || s[0] == '1')) {
		*out = s[0] == '1';
		return 1;
	}
	if (len != 4 && len != 5)
		return 0;
	/* ORing 0x20 into a byte folds exactly the two cases of a letter */
	memcpy(&w, s, 4);
	w |= 0x20202020u;
	if (len == 4 ? memcmp(&w, "true", 4) != 0 :
	    memcmp(&w, "fals", 4) != 0 || (s[4] | 0x20) != 'e')
		return 0;
	*out = len == 4;
	return 1;
}

/* The three above for a column of kind: sets *v and returns 1, or returns
 * 0 (any other kind, or a text they do not take) to leave the text to
 * coltype_convert().  Forced inline: a call would cost kv 57 instructions
 * a record and json 40 (callgrind). */
static inline __attribute__((always_inline)) int
coltype_convert_simple(enum coltype_kind kind, const char *s, size_t len,
    struct udtf_value *v)
{
	if (kind == COLTYPE_INT64 && coltype_int64_simple(s, len, &v->u.i64))
		v->type = UDTF_INT64;
	else if (kind == COLTYPE_DOUBLE &&
	    coltype_double_simple(s, len, &v->u.d))
		v->type = UDTF_DOUBLE;
	else if (kind == COLTYPE_BOOL && coltype_bool_simple(s, len, &v->u.b))
		v->type = UDTF_BOOL;
	else
		return 0;
	return 1;
}

/* What a column keeps from one conversion to the next: the date of its
 * last ISO 8601 timestamp.  Zeroed, it is empty. */
struct coltype_cache {
	struct timeparse_date_cache date;
};

/* coltype_convert(), exactly, with the column's cache.  Only an ISO 8601
 * timestamp goes through the cache; anything else, and a timestamp in
 * another format, is coltype_convert()'s, whose first try,
 * timeparse_iso8601(), then fails as the cached one did.  Inline, so that
 * the other kinds cost no call more. */
static inline int
coltype_convert_cached(enum coltype_kind kind, struct coltype_cache *cache,
    const char *name, const char *s, size_t len, struct udtf_value *v,
    char *err, size_t errlen)
{
	if (kind == COLTYPE_TIMESTAMP && timeparse_iso8601_cached(&cache->date,
	    s, len, &v->u.ts_us) == 0) {
		v->type = UDTF_TIMESTAMP;
		return 0;
	}
	return coltype_convert(kind, name, s, len, v, err, errlen);
}

#endif /* KEDGE_UDTF_COLTYPE_H */
