/*
 * nginx_int: what nginx.c (the log_format compiler, the line scan, the
 * descriptor) shares with nginx_value.c (undoing nginx's escapes, and the
 * reason a value is refused): the compiled program, and the conversion of
 * one value into its column.  The conversion runs for every field of every
 * line, so it stays here, static inline, to be inlined into the scan as it
 * was when both lived in one file; what it calls only on escaped or refused
 * values lives in nginx_value.c.  Private to nginx*.c: the rest of kedge
 * sees only the descriptor, udtf_nginx_plugin.
 */
#ifndef KEDGE_NGINX_INT_H
#define KEDGE_NGINX_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/udtf/timeparse.h"
#include "agent/udtf/udtf.h"
#include "lib/buf.h"

/* A reason quotes at most this many bytes of a value, each byte written as
 * at most 4 ("\xHH"), plus the quotes, "..." and the NUL. */
#define QUOTE_MAX 40
#define QUOTED_SIZE (QUOTE_MAX * 4 + 6)

/* The size of nginx_lint()'s note, with its NUL. */
#define NGINX_NOTE_MAX 512

/* request_time has at most this many digits: their value fits in uint64_t
 * and a power of ten this large is exact in a double. */
#define DOUBLE_DIGITS_MAX 18

/* How nginx escaped values: log_format's escape= parameter. */
enum nginx_escape {
	NGINX_ESCAPE_DEFAULT, /* " \ and non-ASCII or control bytes as \xHH */
	NGINX_ESCAPE_JSON,    /* JSON string escapes */
	NGINX_ESCAPE_NONE
};

enum nginx_kind {
	NGINX_STRING,
	NGINX_INT,
	NGINX_DOUBLE,
	NGINX_TIME_LOCAL,
	NGINX_TIME_ISO8601,
	NGINX_MSEC
};

/* Where a value can be seen to end without find_literal()'s scan: after
 * its digits, or its 26 bytes of $time_local, when its literal's first
 * byte cannot be among those (nor a backslash) and the literal follows
 * there.  find_literal() would then stop there too, and the value is
 * converted as it is read. */
enum nginx_quick {
	NGINX_QUICK_NONE,
	NGINX_QUICK_DIGITS,
	NGINX_QUICK_TIME_LOCAL  /* once the time has parsed */
};

/* One step of the program: a variable, then the literal that follows it,
 * which is empty only when the variable ends the format. */
struct nginx_field {
	const char *var; /* the name in the format, not NUL-terminated */
	size_t varlen;
	enum nginx_kind kind;
	enum nginx_quick quick;
	const char *lit;
	size_t litlen;
	char first[16];  /* lit[0] sixteen times: what find_literal() seeks */
	uint64_t rest;   /* lit[1..], its first (up to) eight bytes */
	uint64_t rest_mask; /* the bytes of a word that rest holds */
	struct timeparse_date_cache time_cache; /* a $time_local's last */
};

struct nginx_state {
	char *format;             /* the literals and names point into it */
	const char *prefix;       /* the literal before the first variable */
	size_t prefixlen;
	enum nginx_escape escape;
	struct nginx_field *fields;
	struct udtf_column *cols; /* one per field; owns the names */
	struct udtf_value *values; /* one per field, refilled per record */
	size_t nfields;
	struct buf scratch;       /* unescaped values of the current record */
	char note[NGINX_NOTE_MAX]; /* nginx_lint()'s, "" when none */
};

/* Writes s[0..len) into dst, which holds QUOTED_SIZE bytes, as a short,
 * printable, double-quoted, NUL-terminated text for a reason. */
void nginx_quote(char *dst, const char *s, size_t len);

/* Writes "COLUMN: "VALUE" WHY" into err, the value quoted by nginx_quote().
 * Returns -EINVAL, for the caller to return. */
int nginx_reject_value(const char *column, const char *s, size_t len,
    const char *why, char *err, size_t errlen);

/* Undo escape=default (\xHH is the byte 0xHH; any other backslash is
 * itself) and escape=json (an escape that is not valid JSON stays as
 * written) on s[0..len) into dst, which holds at least len bytes, as no
 * escape grows when decoded.  Return the length written. */
size_t nginx_unescape_default(char *dst, const char *s, size_t len);
size_t nginx_unescape_json(char *dst, const char *s, size_t len);

static inline int
nginx_is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* A byte of a variable's name, as nginx reads it. */
static inline int
nginx_is_name_char(char c)
{
	return nginx_is_digit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_';
}

/* Checks the log_format format as nginx.conf would have it (nginx_lint.c):
 * "[" and '"' closed, every $variable one of nginx's or of a family such
 * as $http_NAME, a name a misspelling away from one of nginx's refused
 * unless written ${name}.  Returns 0, with the names it did not know (the
 * configuration's own, from map or set) in note as one sentence ("" when
 * none); or -EINVAL with the sentence in err. */
int nginx_lint(const char *format, char *note, size_t notelen, char *err,
    size_t errlen);

static inline int
nginx_parse_int(const char *s, size_t len, int64_t *out)
{
	uint64_t v = 0, limit = INT64_MAX;
	size_t i = 0;
	int neg = len > 0 && s[0] == '-';

	if (neg) {
		limit++;
		i++;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9)
			return -EINVAL;
		/* v * 10 + d > limit, without a division a digit */
		if (v >= limit / 10 && (v > limit / 10 || d > limit % 10))
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* Reads "123" or "0.123" as strtod() would, without its locale: while the
 * digits, read as one integer, stay below 2^53, the result is one division
 * of two exact doubles and so correctly rounded. */
static inline int
nginx_parse_double(const char *s, size_t len, double *out)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
	    1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
	    1e18 };
	uint64_t mant = 0;
	size_t i, digits = 0, dot = len;

	for (i = 0; i < len; i++) {
		if (s[i] == '.' && dot == len && i > 0 && i + 1 < len) {
			dot = i;
			continue;
		}
		if (!nginx_is_digit(s[i]) || ++digits > DOUBLE_DIGITS_MAX)
			return -EINVAL;
		mant = mant * 10 + (uint64_t)(s[i] - '0');
	}
	if (digits == 0)
		return -EINVAL;
	*out = (double)mant / pow10[dot == len ? 0 : len - dot - 1];
	return 0;
}

/* Sets *out to the string value s, unescaped into the scratch buffer when it
 * holds escapes (escaped: 1 it does, 0 it does not, -1 not known yet).
 * rest is how many bytes of the line are left from s on: the values still
 * to come are no longer, so reserving rest once keeps every string already
 * in the scratch buffer where it is.  Returns 0 or -ENOMEM. */
static inline int
nginx_convert_string(struct nginx_state *st, const char *s, size_t len,
    size_t rest, int escaped, struct udtf_value *out)
{
	char *dst;

	out->type = UDTF_STRING;
	if (escaped < 0)
		escaped = memchr(s, '\\', len) != NULL;
	if (st->escape == NGINX_ESCAPE_NONE || !escaped) {
		out->u.s.ptr = s;
		out->u.s.len = len;
		return 0;
	}
	if (buf_reserve(&st->scratch, rest) < 0)
		return -ENOMEM;
	dst = st->scratch.data + st->scratch.len;
	if (st->escape == NGINX_ESCAPE_JSON)
		out->u.s.len = nginx_unescape_json(dst, s, len);
	else
		out->u.s.len = nginx_unescape_default(dst, s, len);
	out->u.s.ptr = dst;
	st->scratch.len += out->u.s.len;
	return 0;
}

/* Turns the value of field i, s[0..len), into st->values[i]; rest and
 * escaped as for nginx_convert_string().  Returns 0, or -EINVAL or -ENOMEM
 * with a sentence in err. */
static inline int
nginx_convert_value(struct nginx_state *st, size_t i, const char *s,
    size_t len, size_t rest, int escaped, char *err, size_t errlen)
{
	struct udtf_value *out = &st->values[i];
	const char *column = st->cols[i].name;
	int r = 0;

	if (len == 1 && s[0] == '-') {
		out->type = UDTF_NULL;
		return 0;
	}
	out->type = st->cols[i].type;
	switch (st->fields[i].kind) {
	case NGINX_STRING:
		if (nginx_convert_string(st, s, len, rest, escaped, out) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	case NGINX_INT:
		if ((r = nginx_parse_int(s, len, &out->u.i64)) == -ERANGE)
			return nginx_reject_value(column, s, len,
			    "is out of range", err, errlen);
		break;
	case NGINX_DOUBLE:
		r = nginx_parse_double(s, len, &out->u.d);
		break;
	case NGINX_TIME_LOCAL:
		r = timeparse_local_cached(&st->fields[i].time_cache, s, len,
		    &out->u.ts_us);
		break;
	case NGINX_TIME_ISO8601:
		r = timeparse_iso8601(s, len, &out->u.ts_us);
		break;
	case NGINX_MSEC:
		r = timeparse_msec(s, len, &out->u.ts_us);
		break;
	}
	if (r < 0)
		return nginx_reject_value(column, s, len,
		    out->type == UDTF_INT64 ? "is not an integer" :
		    out->type == UDTF_DOUBLE ? "is not a number" :
		    "is not a time", err, errlen);
	return 0;
}

#endif
