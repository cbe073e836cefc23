#include "jsonread.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

int
jr_fail(struct jr *j, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (j->key != NULL)
		snprintf(j->err, j->errlen, "\"%s\": %s at column %zu", j->key,
		    what, (size_t)(j->p - j->start) + 1);
	else
		snprintf(j->err, j->errlen, "%s at column %zu", what,
		    (size_t)(j->p - j->start) + 1);
	return -EINVAL;
}

void
jr_ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

int
jr_accept(struct jr *j, char c)
{
	jr_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

int
jr_expect(struct jr *j, char c)
{
	if (jr_accept(j, c))
		return 0;
	if (j->p == j->end)
		return jr_fail(j, "expected '%c', the text ends", c);
	return jr_fail(j, "expected '%c'", c);
}

/* Reads the 4 hex digits of a \u escape; -1 when they are not. */
static long
jr_hex4(struct jr *j)
{
	long v = 0;

	if (j->end - j->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = utf8_hex_value(*j->p++);
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Decodes the escape after a backslash into out; returns its length in
 * bytes, or -EINVAL.  NUL is refused: names never hold one. */
static int
jr_escape(struct jr *j, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at;
	long cp, lo;

	if (j->p == j->end)
		return jr_fail(j, "the text ends inside a string");
	if (*j->p != 'u') {
		if ((at = strchr(from, *j->p)) == NULL || *j->p == '\0')
			return jr_fail(j, "bad escape \\%c", *j->p);
		j->p++;
		out[0] = to[at - from];
		return 1;
	}
	j->p++;
	if ((cp = jr_hex4(j)) < 0)
		return jr_fail(j, "bad \\u escape");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return jr_fail(j, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return jr_fail(j, "lone high surrogate");
		j->p += 2;
		if ((lo = jr_hex4(j)) < 0xdc00 || lo > 0xdfff)
			return jr_fail(j, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return jr_fail(j, "\\u0000 in a string");
	return (int)utf8_put(out, cp);
}

int
jr_string(struct jr *j, char **out)
{
	const char *q;
	char *s, *w;
	int r;

	if ((r = jr_expect(j, '"')) != 0)
		return r;
	/* An escape never decodes longer than it is written, so the raw
	 * length bounds the result. */
	for (q = j->p; q < j->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < j->end)
			q++;
	if ((s = w = malloc((size_t)(q - j->p) + 1)) == NULL)
		return -ENOMEM;
	for (;;) {
		if (j->p == j->end) {
			free(s);
			return jr_fail(j, "the text ends inside a string");
		}
		if (*j->p == '"')
			break;
		if ((unsigned char)*j->p < 0x20) {
			free(s);
			return jr_fail(j, "control character in a string");
		}
		if (*j->p != '\\') {
			*w++ = *j->p++;
			continue;
		}
		j->p++;
		if ((r = jr_escape(j, w)) < 0) {
			free(s);
			return r;
		}
		w += r;
	}
	j->p++;
	*w = '\0';
	*out = s;
	return 0;
}

int
jr_int(struct jr *j, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0, limit = INT64_MAX;

	jr_ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = 1;
		limit = (uint64_t)INT64_MAX + 1;
		j->p++;
	}
	if (j->p == j->end || *j->p < '0' || *j->p > '9')
		return jr_fail(j, "expected an integer");
	if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' &&
	    j->p[1] <= '9')
		return jr_fail(j, "leading zero");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');
		if (v > (limit - d) / 10)
			return jr_fail(j, "integer out of range");
		v = v * 10 + d;
		j->p++;
	}
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
		return jr_fail(j, "not an integer");
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int
jr_null(struct jr *j)
{
	jr_ws(j);
	if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
		j->p += 4;
		return 1;
	}
	return 0;
}

int
jr_object(struct jr *j, const char *const *keys, size_t nkeys,
    jr_value_fn *value, void *arg, uint64_t *seen)
{
	char *key;
	size_t i;
	int r;

	*seen = 0;
	if ((r = jr_expect(j, '{')) != 0)
		return r;
	if (jr_accept(j, '}'))
		return 0;
	do {
		j->key = NULL;
		if ((r = jr_string(j, &key)) != 0)
			return r;
		for (i = 0; i < nkeys && strcmp(keys[i], key) != 0; i++)
			;
		if (i == nkeys) {
			r = jr_fail(j, "unknown key \"%s\"", key);
			free(key);
			return r;
		}
		free(key);
		j->key = keys[i];
		if (*seen & (uint64_t)1 << i)
			return jr_fail(j, "key repeated");
		*seen |= (uint64_t)1 << i;
		if ((r = jr_expect(j, ':')) != 0 || (r = value(j, i, arg)) != 0)
			return r;
	} while (jr_accept(j, ','));
	j->key = NULL;
	return jr_expect(j, '}');
}

int
jr_end(struct jr *j)
{
	jr_ws(j);
	return j->p == j->end ? 0 : jr_fail(j, "text after the object");
}
