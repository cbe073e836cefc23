#include "sidecar.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rejects.h"
#include "utf8.h"

/* A cursor over the text; key names the value being read, for messages. */
struct jp {
	const char *start, *p, *end;
	const char *key;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int
jp_fail(struct jp *j, const char *fmt, ...)
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

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Skips whitespace; true when the next byte is c, which it then consumes. */
static int
jp_accept(struct jp *j, char c)
{
	jp_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

static int
jp_expect(struct jp *j, char c)
{
	if (jp_accept(j, c))
		return 0;
	if (j->p == j->end)
		return jp_fail(j, "expected '%c', the text ends", c);
	return jp_fail(j, "expected '%c'", c);
}

/* Reads the 4 hex digits of a \u escape; -1 when they are not. */
static long
jp_hex4(struct jp *j)
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
jp_escape(struct jp *j, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at;
	long cp, lo;

	if (j->p == j->end)
		return jp_fail(j, "the text ends inside a string");
	if (*j->p != 'u') {
		if ((at = strchr(from, *j->p)) == NULL || *j->p == '\0')
			return jp_fail(j, "bad escape \\%c", *j->p);
		j->p++;
		out[0] = to[at - from];
		return 1;
	}
	j->p++;
	if ((cp = jp_hex4(j)) < 0)
		return jp_fail(j, "bad \\u escape");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return jp_fail(j, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return jp_fail(j, "lone high surrogate");
		j->p += 2;
		if ((lo = jp_hex4(j)) < 0xdc00 || lo > 0xdfff)
			return jp_fail(j, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return jp_fail(j, "\\u0000 in a string");
	return (int)utf8_put(out, cp);
}

/* Reads a string into a new NUL-terminated *out (the caller frees it). */
static int
jp_string(struct jp *j, char **out)
{
	const char *q;
	char *s, *w;
	int r;

	if ((r = jp_expect(j, '"')) != 0)
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
			return jp_fail(j, "the text ends inside a string");
		}
		if (*j->p == '"')
			break;
		if ((unsigned char)*j->p < 0x20) {
			free(s);
			return jp_fail(j, "control character in a string");
		}
		if (*j->p != '\\') {
			*w++ = *j->p++;
			continue;
		}
		j->p++;
		if ((r = jp_escape(j, w)) < 0) {
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

/* Reads a JSON integer (no fraction, no exponent) that fits in int64. */
static int
jp_int(struct jp *j, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0, limit = INT64_MAX;

	jp_ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = 1;
		limit = (uint64_t)INT64_MAX + 1;
		j->p++;
	}
	if (j->p == j->end || *j->p < '0' || *j->p > '9')
		return jp_fail(j, "expected an integer");
	if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' &&
	    j->p[1] <= '9')
		return jp_fail(j, "leading zero");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');
		if (v > (limit - d) / 10)
			return jp_fail(j, "integer out of range");
		v = v * 10 + d;
		j->p++;
	}
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
		return jp_fail(j, "not an integer");
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int
ranges_push(struct sidecar_ranges *r, int64_t first, int64_t last)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct sidecar_range *v = realloc(r->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].first = first;
	r->v[r->n].last = last;
	r->n++;
	return 0;
}

/* Reads [[a,b],...] into out, which must be empty; checks what the format
 * promises: 0 <= a <= b, ascending, non-overlapping. */
static int
jp_ranges(struct jp *j, struct sidecar_ranges *out)
{
	int64_t a, b;
	int r;

	if ((r = jp_expect(j, '[')) != 0)
		return r;
	if (jp_accept(j, ']'))
		return 0;
	do {
		if ((r = jp_expect(j, '[')) != 0 || (r = jp_int(j, &a)) != 0 ||
		    (r = jp_expect(j, ',')) != 0 || (r = jp_int(j, &b)) != 0 ||
		    (r = jp_expect(j, ']')) != 0)
			return r;
		if (a < 0)
			return jp_fail(j, "negative offset in [%" PRId64 ",%"
			    PRId64 "]", a, b);
		if (a > b)
			return jp_fail(j, "range [%" PRId64 ",%" PRId64
			    "] ends before it starts", a, b);
		if (out->n > 0 && a <= out->v[out->n - 1].last)
			return jp_fail(j, "range [%" PRId64 ",%" PRId64
			    "] is out of order or overlaps the one before", a,
			    b);
		if ((r = ranges_push(out, a, b)) != 0)
			return r;
	} while (jp_accept(j, ','));
	return jp_expect(j, ']');
}

/* Reads {"table":[ranges],...} into sc->rejected. */
static int
jp_rejected(struct jp *j, struct sidecar *sc)
{
	size_t cap = 0;
	char *table;
	int r;

	if ((r = jp_expect(j, '{')) != 0)
		return r;
	if (jp_accept(j, '}'))
		return 0;
	do {
		if ((r = jp_string(j, &table)) != 0)
			return r;
		for (size_t i = 0; i < sc->nrejected; i++) {
			if (strcmp(sc->rejected[i].table, table) == 0) {
				free(table);
				return jp_fail(j, "table \"%s\" named twice",
				    sc->rejected[i].table);
			}
		}
		if (sc->nrejected == cap) {
			struct sidecar_rejected *v;
			cap = cap ? cap * 2 : 4;
			v = realloc(sc->rejected, cap * sizeof(*v));
			if (v == NULL) {
				free(table);
				return -ENOMEM;
			}
			sc->rejected = v;
		}
		/* sc->rejected owns table from here, so sidecar_free() frees it
		 * whatever fails next */
		memset(&sc->rejected[sc->nrejected], 0, sizeof(*sc->rejected));
		sc->rejected[sc->nrejected++].table = table;
		if (strcmp(table, REJECTS_TABLE) == 0)
			return jp_fail(j, "rejects for the rejects table");
		if ((r = jp_expect(j, ':')) != 0 || (r = jp_ranges(j,
		    &sc->rejected[sc->nrejected - 1].ranges)) != 0)
			return r;
	} while (jp_accept(j, ','));
	return jp_expect(j, '}');
}

enum field_kind { F_INT, F_NAME, F_FORMAT, F_CODEC, F_RANGES, F_REJECTED };

static const struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
} fields[] = {
	{ "kedge", F_INT, offsetof(struct sidecar, version) },
	{ "table", F_NAME, offsetof(struct sidecar, table) },
	{ "topic", F_NAME, offsetof(struct sidecar, topic) },
	{ "partition", F_INT, offsetof(struct sidecar, partition) },
	{ "host", F_NAME, offsetof(struct sidecar, host) },
	{ "first_offset", F_INT, offsetof(struct sidecar, first_offset) },
	{ "rows", F_INT, offsetof(struct sidecar, rows) },
	{ "bytes", F_INT, offsetof(struct sidecar, bytes) },
	{ "format", F_FORMAT, offsetof(struct sidecar, format) },
	{ "codec", F_CODEC, offsetof(struct sidecar, codec) },
	{ "offsets", F_RANGES, offsetof(struct sidecar, offsets) },
	{ "empty", F_RANGES, offsetof(struct sidecar, empty) },
	{ "spill", F_RANGES, offsetof(struct sidecar, spill) },
	{ "rejected", F_REJECTED, 0 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int
jp_value(struct jp *j, const struct field *f, struct sidecar *sc)
{
	char *base = (char *)sc + f->off, *s = NULL;
	int r;

	switch (f->kind) {
	case F_INT:
		if ((r = jp_int(j, (int64_t *)(void *)base)) == 0 &&
		    *(int64_t *)(void *)base < 0)
			return jp_fail(j, "negative");
		return r;
	case F_NAME:
		/* a name becomes a path component */
		if ((r = jp_string(j, (char **)(void *)base)) == 0 &&
		    (**(char **)(void *)base == '\0' ||
		    strchr(*(char **)(void *)base, '/') != NULL))
			return jp_fail(j, "empty, or holds '/'");
		return r;
	case F_FORMAT:
	case F_CODEC:
		if ((r = jp_string(j, &s)) != 0)
			return r;
		r = f->kind == F_FORMAT ?
		    format_kind_parse(s, (enum format_kind *)(void *)base) :
		    codec_kind_parse(s, (enum codec_kind *)(void *)base);
		free(s);
		return r == 0 ? 0 : jp_fail(j, "unknown name");
	case F_RANGES:
		return jp_ranges(j, (struct sidecar_ranges *)(void *)base);
	case F_REJECTED:
		return jp_rejected(j, sc);
	}
	return -EINVAL;
}

/* The rules that tie fields together. */
static int
sidecar_check(const struct sidecar *sc, char *err, size_t errlen)
{
	int rejects = strcmp(sc->table, REJECTS_TABLE) == 0;

	if (sc->version != SIDECAR_VERSION) {
		snprintf(err, errlen, "version %" PRId64 ", this kedge reads %d",
		    sc->version, SIDECAR_VERSION);
		return -EINVAL;
	}
	if (sc->partition > INT32_MAX) {
		snprintf(err, errlen, "partition %" PRId64 " out of range",
		    sc->partition);
		return -EINVAL;
	}
	if (rejects && (sc->offsets.n || sc->empty.n || sc->spill.n)) {
		snprintf(err, errlen, "a rejects file with \"offsets\", "
		    "\"empty\" or \"spill\" ranges");
		return -EINVAL;
	}
	if (!rejects && sc->nrejected > 0) {
		snprintf(err, errlen, "\"rejected\" in a file of table %s",
		    sc->table);
		return -EINVAL;
	}
	return 0;
}

int
sidecar_parse(const char *text, size_t len, struct sidecar *sc, char *err,
    size_t errlen)
{
	struct jp j = { text, text, text + len, NULL, err, errlen };
	unsigned seen = 0;
	char *key;
	size_t i;
	int r;

	if ((r = jp_expect(&j, '{')) != 0)
		return r;
	do {
		j.key = NULL;
		if ((r = jp_string(&j, &key)) != 0)
			return r;
		for (i = 0; i < NFIELDS && strcmp(fields[i].key, key) != 0; i++)
			;
		free(key);
		if (i == NFIELDS)
			return jp_fail(&j, "unknown key");
		j.key = fields[i].key;
		if (seen & 1u << i)
			return jp_fail(&j, "key repeated");
		seen |= 1u << i;
		if ((r = jp_expect(&j, ':')) != 0 ||
		    (r = jp_value(&j, &fields[i], sc)) != 0)
			return r;
	} while (jp_accept(&j, ','));
	j.key = NULL;
	if ((r = jp_expect(&j, '}')) != 0)
		return r;
	jp_ws(&j);
	if (j.p != j.end)
		return jp_fail(&j, "text after the object");
	for (i = 0; i < NFIELDS; i++) {
		if (seen & 1u << i)
			continue;
		/* only a rejects file must have "rejected" */
		if (fields[i].kind != F_REJECTED ||
		    strcmp(sc->table, REJECTS_TABLE) == 0) {
			snprintf(err, errlen, "no \"%s\"", fields[i].key);
			return -EINVAL;
		}
	}
	return sidecar_check(sc, err, errlen);
}

static void
ranges_free(struct sidecar_ranges *r)
{
	free(r->v);
}

void
sidecar_free(struct sidecar *sc)
{
	if (sc == NULL)
		return;
	free(sc->table);
	free(sc->topic);
	free(sc->host);
	ranges_free(&sc->offsets);
	ranges_free(&sc->empty);
	ranges_free(&sc->spill);
	for (size_t i = 0; i < sc->nrejected; i++) {
		free(sc->rejected[i].table);
		ranges_free(&sc->rejected[i].ranges);
	}
	free(sc->rejected);
	memset(sc, 0, sizeof(*sc));
}

uint64_t
sidecar_ranges_count(const struct sidecar_ranges *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		uint64_t k = (uint64_t)(r->v[i].last - r->v[i].first) + 1;
		if (n > UINT64_MAX - k)
			return UINT64_MAX;
		n += k;
	}
	return n;
}
