/*
 * kv: the built-in UDTF for key=value records, logfmt above all
 * (level=info msg="user logged in" user.id=42).  init() hashes the keys the
 * fields name; process() walks a record's pairs once, keeps the first value
 * of every wanted key, skips the other keys and gives one row per record.
 *
 * A pair is KEY=VALUE, KEY= (an empty value) or a bare KEY.  Pairs are
 * separated by runs of blanks, or by one literal byte around which blanks
 * are ignored (as are blanks around its '=' and empty pairs).  A value that
 * starts with the quote byte runs to the matching quote; inside it a
 * backslash escapes the quote, a backslash, n, t and r, and any other
 * backslash stays as written.  Such a value without a backslash points into
 * the record; one with a backslash is unescaped into the state's scratch
 * buffer.  An empty value is the empty string in a string column and NULL in
 * any other, except that a bare KEY is true in a bool column.  One line
 * end at the end of a record is dropped; a record without any pair is
 * rejected.  Offsets in reasons count bytes from 0, the start of the
 * record.
 */
#include "agent/udtf/udtf.h"

#include "agent/udtf/coltype.h"
#include "agent/udtf/params.h"
#include "lib/buf.h"
#include "lib/err.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A reason shows at most this many bytes of a key. */
#define KV_SHOW_MAX 40
#define KV_SHOWN_SIZE (KV_SHOW_MAX + 4)

/* next_col's end of a chain. */
#define KV_NO_COL SIZE_MAX

enum {
	KV_FIELDS,
	KV_PAIR_SEPARATOR,
	KV_KV_SEPARATOR,
	KV_QUOTE,
	KV_ON_MISSING,
	KV_NKEYS
};

static const struct udtf_key kv_keys[] = {
	[KV_FIELDS] = { "fields", NULL,
	    "the keys to extract, comma-separated, as [NAME=]KEY[:TYPE]; one "
	    "column each, named after the key unless NAME is given" },
	[KV_PAIR_SEPARATOR] = { "pair_separator", " ",
	    "the byte between pairs; \" \" means any run of spaces and tabs, "
	    "and blanks around pairs are ignored with any separator" },
	[KV_KV_SEPARATOR] = { "kv_separator", "=",
	    "the byte between a key and its value" },
	[KV_QUOTE] = { "quote", "\"",
	    "the byte that may enclose a value; inside, a backslash escapes "
	    "the quote, a backslash, n, t and r; empty: values are never "
	    "quoted" },
	[KV_ON_MISSING] = { "on_missing", "null",
	    "a record without one of the keys: null gives that column NULL, "
	    "reject sends the record to the rejects table" },
	[KV_NKEYS] = { NULL, NULL, NULL },
};

/* A distinct key the fields name. */
struct kv_want {
	const char *key; /* a field's source */
	size_t len;
	size_t col;      /* heads the next_col chain of the columns it fills */
	int32_t follow;  /* the want found after it in the last record, -1 */
	uint64_t head;   /* the key's first (up to) eight bytes */
	uint64_t head_mask; /* the bytes of a word that head holds */
};

struct kv_state {
	struct coltype_list fields;
	struct kv_want *wants;
	size_t nwants;
	int32_t *slots;            /* a hash of wants: an index in it, or -1 */
	size_t mask;               /* slots has mask + 1 entries */
	size_t *next_col;          /* the next column of the same key */
	unsigned char *seen;       /* per want: met in the current record */
	int32_t first;             /* the want found first in the last record */
	int32_t last;              /* the want found last in this one, -1 */
	struct udtf_value *values; /* per column, refilled per record */
	struct coltype_cache *caches; /* per column */
	struct buf scratch;        /* unescaped values of the current record */
	unsigned char blank[256];     /* the blanks around pairs */
	unsigned char key_end[256];   /* the bytes that end a key */
	unsigned char value_end[256]; /* the bytes that end an unquoted value */
	char key_stops[48];        /* key_end's bytes, 16 copies of each */
	char value_stops[48];      /* value_end's */
	int blank_pairs;           /* pairs are separated by runs of blanks */
	char pair_sep;             /* when they are not */
	char kv_sep;
	int quote;                 /* the quote byte, or -1 */
	int reject_missing;
};

/* One pair of the record: value is NULL for a bare key. */
struct kv_pair {
	const char *key;
	size_t keylen;
	const char *value;
	size_t len;
	int escaped; /* the quoted value holds a backslash */
};

/* Where process() is in the record. */
struct kv_cursor {
	const char *base;
	const char *p;
	const char *end;
};

static void kv_fini(void *state);

/* Writes s, cut short and made printable, into dst for a reason. */
static void
kv_show(char *dst, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < KV_SHOW_MAX; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (n < len) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = '\0';
}

/* Config. */

/* Reads key k's value, one byte (or none when may_be_empty) into *out, -1
 * for none.  Returns 0 or -EINVAL with a sentence in err. */
static int
kv_one_byte(const char **vals, int k, int may_be_empty, int *out, char *err,
    size_t errlen)
{
	const char *v = vals[k];

	if (v[0] != '\0' && v[1] == '\0') {
		*out = (unsigned char)v[0];
		return 0;
	}
	if (v[0] == '\0' && may_be_empty) {
		*out = -1;
		return 0;
	}
	return err_set(err, errlen, -EINVAL, "%s: \"%s\" must be one byte%s",
	    kv_keys[k].name, v, may_be_empty ? ", or empty" : "");
}

/* Lists the (one to three) bytes that table stop marks in out[48], each
 * sixteen times, the first standing in for those missing: kv_scan()
 * compares sixteen bytes of a record with each. */
static void
kv_list_stops(const unsigned char *stop, char *out)
{
	size_t n = 0;

	for (int c = 0; c < 256; c++)
		if (stop[c] && n < 3)
			memset(out + 16 * n++, c, 16);
	for (size_t i = n; i < 3; i++)
		memcpy(out + 16 * i, out, 16);
}

/* Reads the separators and the quote, refusing ones that could not be
 * told apart, and fills the byte tables.  The blanks are the spaces and
 * tabs, less the pair separator.  Returns 0 or -EINVAL with a sentence in
 * err. */
static int
kv_read_syntax(struct kv_state *st, const char **vals, char *err,
    size_t errlen)
{
	int pair, kv;

	if (kv_one_byte(vals, KV_PAIR_SEPARATOR, 0, &pair, err, errlen) < 0 ||
	    kv_one_byte(vals, KV_KV_SEPARATOR, 0, &kv, err, errlen) < 0 ||
	    kv_one_byte(vals, KV_QUOTE, 1, &st->quote, err, errlen) < 0)
		return -EINVAL;
	st->blank_pairs = pair == ' ';
	st->pair_sep = (char)pair;
	st->kv_sep = (char)kv;
	st->blank[' '] = st->blank['\t'] = 1;
	st->blank[pair] = st->blank_pairs;
	st->key_end[kv] = 1;
	st->key_end[pair] = st->value_end[pair] = 1;
	if (st->blank_pairs)
		st->key_end['\t'] = st->value_end['\t'] = 1;
	kv_list_stops(st->key_end, st->key_stops);
	kv_list_stops(st->value_end, st->value_stops);
	if (pair == kv || st->blank[kv]) {
		return err_set(err, errlen, -EINVAL,
		    "kv_separator: \"%s\" cannot be told "
		    "apart from pair_separator \"%s\" or the blanks around "
		    "pairs", vals[KV_KV_SEPARATOR], vals[KV_PAIR_SEPARATOR]);
	}
	if (st->quote == pair || st->quote == kv || st->quote == '\\' ||
	    (st->quote >= 0 && st->blank[st->quote])) {
		return err_set(err, errlen, -EINVAL,
		    "quote: \"%s\" cannot be a separator, a "
		    "blank or the backslash", vals[KV_QUOTE]);
	}
	return 0;
}

/* Hashes a key by its length and its first and last (up to) eight bytes
 * (a key of one to three bytes: its first, middle and last), in constant
 * time and inline: every key of a record is hashed, most of them unwanted,
 * and a collision only costs a comparison. */
static inline size_t
kv_hash(const char *s, size_t len)
{
	uint64_t a = 0, b = 0;
	uint32_t x, y;

	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
	} else if (len >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
		a = x;
		b = y;
	} else if (len > 0) {
		a = (uint64_t)(unsigned char)s[0] << 16 |
		    (uint64_t)(unsigned char)s[len / 2] << 8 |
		    (unsigned char)s[len - 1];
	}
	a = (a ^ b * UINT64_C(0x9e3779b97f4a7c15) ^ len) *
	    UINT64_C(0xff51afd7ed558ccd);
	return (size_t)(a >> 32 ^ a);
}

/* Whether want w is the key s[0..len), of which eight bytes at least can
 * be read: the first eight compare at once, as one word. */
static inline int
kv_same_key(const struct kv_want *w, const char *s, size_t len)
{
	uint64_t x;

	memcpy(&x, s, 8);
	return (x & w->head_mask) == w->head && (len <= 8 ||
	    memcmp(w->key + 8, s + 8, len - 8) == 0);
}

/* Returns the index in st->wants of the key s[0..len), or -1.  readable
 * says how many bytes from s on may be read. */
static inline int32_t
kv_lookup(const struct kv_state *st, const char *s, size_t len,
    size_t readable)
{
	size_t h = kv_hash(s, len) & st->mask;
	int32_t w;

	while ((w = st->slots[h]) >= 0) {
		if (st->wants[w].len == len && (readable >= 8 ?
		    kv_same_key(&st->wants[w], s, len) :
		    memcmp(st->wants[w].key, s, len) == 0))
			return w;
		h = (h + 1) & st->mask;
	}
	return -1;
}

/* Returns the want that came after the last one found in the record
 * before, when it is the key s[0..len), or -1: records mostly hold their
 * keys in one order, and a guess right spares the hash.  readable as in
 * kv_lookup(). */
static inline int32_t
kv_guess(const struct kv_state *st, const char *s, size_t len,
    size_t readable)
{
	int32_t g = st->last < 0 ? st->first : st->wants[st->last].follow;

	if (g < 0 || st->wants[g].len != len || !(readable >= 8 ?
	    kv_same_key(&st->wants[g], s, len) :
	    memcmp(st->wants[g].key, s, len) == 0))
		return -1;
	return g;
}

/* Builds wants, their hash and the column chains from the fields: columns
 * of one key (a=k, b=k:int64) are all filled from its value. */
static int
kv_build_wants(struct kv_state *st)
{
	size_t n = st->fields.n, size = 4;

	while (size < 2 * n)
		size *= 2;
	st->mask = size - 1;
	if ((st->wants = calloc(n, sizeof *st->wants)) == NULL ||
	    (st->slots = malloc(size * sizeof *st->slots)) == NULL ||
	    (st->next_col = malloc(n * sizeof *st->next_col)) == NULL ||
	    (st->seen = calloc(n, 1)) == NULL ||
	    (st->values = calloc(n, sizeof *st->values)) == NULL ||
	    (st->caches = calloc(n, sizeof *st->caches)) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < size; i++)
		st->slots[i] = -1;
	st->first = -1;
	for (size_t c = 0; c < n; c++) {
		const char *key = st->fields.v[c].source;
		size_t len = strlen(key), h;
		int32_t w = kv_lookup(st, key, len, 0);

		if (w >= 0) {
			st->next_col[c] = st->wants[w].col;
			st->wants[w].col = c;
			continue;
		}
		st->next_col[c] = KV_NO_COL;
		w = (int32_t)st->nwants++;
		st->wants[w] = (struct kv_want){ key, len, c, -1, 0, 0 };
		memcpy(&st->wants[w].head, key, len < 8 ? len : 8);
		memset(&st->wants[w].head_mask, 0xff, len < 8 ? len : 8);
		for (h = kv_hash(key, len) & st->mask; st->slots[h] >= 0;
		    h = (h + 1) & st->mask)
			;
		st->slots[h] = w;
	}
	return 0;
}

static void *
kv_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	static const char *const on_missing[] = { "null", "reject", NULL };
	const char *vals[KV_NKEYS];
	struct kv_state *st = NULL;
	int r;

	if (udtf_params_read("kv", kv_keys, params, nparams, vals, err,
	    errlen) < 0)
		return NULL;
	if ((st = calloc(1, sizeof *st)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (kv_read_syntax(st, vals, err, errlen) < 0 ||
	    udtf_params_choice("on_missing", vals[KV_ON_MISSING], on_missing,
	    &st->reject_missing, err, errlen) < 0)
		goto fail;
	r = coltype_parse("fields", vals[KV_FIELDS], 0, NULL, &st->fields, err,
	    errlen);
	if (r == 0)
		r = kv_build_wants(st);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r < 0)
		goto fail;
	return st;
fail:
	kv_fini(st);
	return NULL;
}

static void
kv_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct kv_state *st = state;

	*cols = st->fields.cols;
	*ncols = st->fields.n;
}

static void
kv_fini(void *state)
{
	struct kv_state *st = state;

	if (st == NULL)
		return;
	coltype_list_clear(&st->fields);
	free(st->wants);
	free(st->slots);
	free(st->next_col);
	free(st->seen);
	free(st->values);
	free(st->caches);
	buf_clear(&st->scratch);
	free(st);
}

/* Parsing a record. */

static int
kv_reject_at(const struct kv_cursor *c, const char *at, const char *why,
    const char *key, size_t keylen, char *err, size_t errlen)
{
	char shown[KV_SHOWN_SIZE];

	kv_show(shown, key, keylen);
	return err_set(err, errlen, -EINVAL, "byte %zu: %s%s",
	    (size_t)(at - c->base), why,
	    shown);
}

/* Returns the first byte in [p, end) that stop marks, or end.  Most of a
 * record's time goes here, hence sixteen bytes a step with SSE2 (always
 * there on x86-64), compared with the bytes stops lists, then four bytes a
 * round through the table, never reading past end. */
static const char *
kv_scan(const unsigned char *stop, const char *stops, const char *p,
    const char *end)
{
#if defined(__SSE2__)
	const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)stops),
	    b = _mm_loadu_si128((const __m128i *)(const void *)(stops + 16)),
	    c = _mm_loadu_si128((const __m128i *)(const void *)(stops + 32));

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)),
		    _mm_cmpeq_epi8(v, c)));

		if (m != 0)
			return p + __builtin_ctz(m);
	}
#else
	(void)stops;
#endif
	for (; end - p >= 4; p += 4) {
		if (stop[(unsigned char)p[0]])
			return p;
		if (stop[(unsigned char)p[1]])
			return p + 1;
		if (stop[(unsigned char)p[2]])
			return p + 2;
		if (stop[(unsigned char)p[3]])
			return p + 3;
	}
	while (p < end && !stop[(unsigned char)*p])
		p++;
	return p;
}

static void
kv_skip_blanks(const struct kv_state *st, struct kv_cursor *c)
{
	while (c->p < c->end && st->blank[(unsigned char)*c->p])
		c->p++;
}

/* Reads the quoted value at c->p (its opening quote) into pair and steps
 * past the closing quote.  A quote preceded by an odd run of backslashes is
 * escaped.  Returns 0 or -EINVAL with a reason in err. */
static int
kv_read_quoted(const struct kv_state *st, struct kv_cursor *c,
    struct kv_pair *pair, char *err, size_t errlen)
{
	const char *open = c->p, *q = open + 1;

	for (;;) {
		const char *bs;

		q = memchr(q, st->quote, (size_t)(c->end - q));
		if (q == NULL)
			return kv_reject_at(c, open, "unterminated quoted "
			    "value of key ", pair->key, pair->keylen, err,
			    errlen);
		for (bs = q; bs > open + 1 && bs[-1] == '\\'; bs--)
			;
		if ((q - bs) % 2 == 0)
			break;
		q++;
	}
	pair->value = open + 1;
	pair->len = (size_t)(q - pair->value);
	pair->escaped = memchr(pair->value, '\\', pair->len) != NULL;
	c->p = q + 1;
	return 0;
}

/* After a quoted value comes the end, or a pair separator (which is
 * consumed unless it is blanks). */
static int
kv_end_quoted(const struct kv_state *st, struct kv_cursor *c,
    const struct kv_pair *pair, char *err, size_t errlen)
{
	char why[64];

	if (st->blank_pairs) {
		if (c->p == c->end || st->blank[(unsigned char)*c->p])
			return 0;
		return kv_reject_at(c, c->p, "expected a blank after the "
		    "quoted value of key ", pair->key, pair->keylen, err,
		    errlen);
	}
	kv_skip_blanks(st, c);
	if (c->p == c->end)
		return 0;
	if (*c->p == st->pair_sep) {
		c->p++;
		return 0;
	}
	snprintf(why, sizeof why, "expected '%c' after the quoted value of "
	    "key ", st->pair_sep);
	return kv_reject_at(c, c->p, why, pair->key, pair->keylen, err, errlen);
}

/* Reads an unquoted value up to the pair separator, which it consumes
 * unless it is blanks. */
static void
kv_read_unquoted(const struct kv_state *st, struct kv_cursor *c,
    struct kv_pair *pair)
{
	const char *v = c->p, *stop;

	c->p = stop = kv_scan(st->value_end, st->value_stops, v, c->end);
	if (!st->blank_pairs) {
		while (stop > v && st->blank[(unsigned char)stop[-1]])
			stop--;
		if (c->p < c->end)
			c->p++;
	}
	pair->value = v;
	pair->len = (size_t)(stop - v);
}

/* Reads the next pair into *pair.  Returns 1, 0 at the end of the record,
 * or -EINVAL with a reason in err. */
static int
kv_next_pair(const struct kv_state *st, struct kv_cursor *c,
    struct kv_pair *pair, char *err, size_t errlen)
{
	for (;;) {
		kv_skip_blanks(st, c);
		if (c->p == c->end)
			return 0;
		if (st->blank_pairs || *c->p != st->pair_sep)
			break;
		c->p++; /* an empty pair: "a=1;;b=2" */
	}
	if (*c->p == st->kv_sep) {
		char why[32];

		snprintf(why, sizeof why, "empty key before '%c'", st->kv_sep);
		return kv_reject_at(c, c->p, why, "", 0, err, errlen);
	}
	pair->key = c->p;
	c->p = kv_scan(st->key_end, st->key_stops, c->p, c->end);
	pair->keylen = (size_t)(c->p - pair->key);
	while (st->blank[(unsigned char)pair->key[pair->keylen - 1]])
		pair->keylen--;
	pair->escaped = 0;
	if (c->p == c->end || *c->p != st->kv_sep) {
		pair->value = NULL; /* a bare key */
		pair->len = 0;
		if (c->p < c->end && !st->blank_pairs)
			c->p++;
		return 1;
	}
	c->p++;
	if (!st->blank_pairs)
		kv_skip_blanks(st, c);
	if (st->quote < 0 || c->p == c->end || *c->p != (char)st->quote) {
		kv_read_unquoted(st, c, pair);
		return 1;
	}
	if (kv_read_quoted(st, c, pair, err, errlen) < 0 ||
	    kv_end_quoted(st, c, pair, err, errlen) < 0)
		return -EINVAL;
	return 1;
}

/* Unescapes pair's quoted value into the scratch buffer.  reclen bounds
 * every value of the record together, so one reservation keeps the values
 * already there in place. */
static int
kv_unescape(struct kv_state *st, size_t reclen, struct kv_pair *pair)
{
	const char *s = pair->value;
	size_t len = pair->len, i = 0;
	char *dst;

	if (buf_reserve(&st->scratch, reclen - st->scratch.len) < 0)
		return -ENOMEM;
	dst = st->scratch.data + st->scratch.len;
	while (i < len) {
		const char *bs = memchr(s + i, '\\', len - i);
		size_t run = bs != NULL ? (size_t)(bs - (s + i)) : len - i;
		char e;

		memcpy(dst, s + i, run);
		dst += run;
		i += run;
		if (i + 1 >= len) {
			if (i < len)
				*dst++ = s[i++];
			break;
		}
		e = s[i + 1];
		if (e == 'n' || e == 't' || e == 'r' || e == '\\' ||
		    e == (char)st->quote) {
			*dst++ = e == 'n' ? '\n' : e == 't' ? '\t' :
			    e == 'r' ? '\r' : e;
			i += 2;
		} else {
			*dst++ = s[i++];
		}
	}
	pair->value = st->scratch.data + st->scratch.len;
	pair->len = (size_t)(dst - pair->value);
	st->scratch.len += pair->len;
	return 0;
}

/* Fills column col from pair's value. */
static int
kv_convert(struct kv_state *st, size_t col, const struct kv_pair *pair,
    char *err, size_t errlen)
{
	const struct coltype_spec *spec = &st->fields.v[col];
	struct udtf_value *v = &st->values[col];

	if (spec->kind == COLTYPE_STRING) {
		/* coltype's conversion of a string is the text itself */
		v->type = UDTF_STRING;
		v->u.s.ptr = pair->value != NULL ? pair->value : pair->key;
		v->u.s.len = pair->len;
		return 0;
	}
	if (pair->len == 0) {
		if (pair->value == NULL && spec->kind == COLTYPE_BOOL) {
			v->type = UDTF_BOOL;
			v->u.b = 1;
		} else {
			v->type = UDTF_NULL;
		}
		return 0;
	}
	return coltype_convert_cached(spec->kind, &st->caches[col], spec->name,
	    pair->value != NULL ? pair->value : pair->key, pair->len, v, err,
	    errlen);
}

/* Fills the columns of pair's key when the fields want it and it is the
 * key's first pair in the record; the record ends at end. */
static int
kv_take(struct kv_state *st, size_t reclen, const char *end,
    struct kv_pair *pair, char *err, size_t errlen)
{
	size_t readable = (size_t)(end - pair->key);
	int32_t w = kv_guess(st, pair->key, pair->keylen, readable);
	int r;

	if (w < 0)
		w = kv_lookup(st, pair->key, pair->keylen, readable);
	if (w < 0 || st->seen[w])
		return 0;
	st->seen[w] = 1;
	if (st->last < 0)
		st->first = w;
	else
		st->wants[st->last].follow = w;
	st->last = w;
	if (pair->escaped && kv_unescape(st, reclen, pair) < 0)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	for (size_t c = st->wants[w].col; c != KV_NO_COL; c = st->next_col[c])
		if ((r = kv_convert(st, c, pair, err, errlen)) < 0)
			return r;
	return 0;
}

static int
kv_reject_missing(const struct kv_state *st, char *err, size_t errlen)
{
	char shown[KV_SHOWN_SIZE];

	for (size_t w = 0; w < st->nwants; w++) {
		if (st->seen[w])
			continue;
		kv_show(shown, st->wants[w].key, st->wants[w].len);
		return err_set(err, errlen, -EINVAL, "missing key %s", shown);
	}
	return 0;
}

static int
kv_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct kv_state *st = state;
	struct kv_cursor c = { rec->data, rec->data, rec->data + rec->len };
	struct kv_pair pair;
	size_t npairs = 0;
	int r;

	if (c.end > c.p && c.end[-1] == '\n')
		c.end--;
	if (c.end > c.p && c.end[-1] == '\r')
		c.end--;
	for (size_t i = 0; i < st->fields.n; i++)
		st->values[i].type = UDTF_NULL;
	memset(st->seen, 0, st->nwants);
	st->last = -1;
	buf_reset(&st->scratch);
	while ((r = kv_next_pair(st, &c, &pair, err, errlen)) > 0) {
		npairs++;
		if ((r = kv_take(st, rec->len, c.end, &pair, err,
		    errlen)) < 0)
			return r;
	}
	if (r < 0)
		return r;
	if (npairs == 0)
		return err_set(err, errlen, -EINVAL, "no pair in the record");
	if (st->reject_missing && kv_reject_missing(st, err, errlen) < 0)
		return -EINVAL;
	r = out->emit(out, st->values, st->fields.n);
	return r < 0 ? r : 0;
}

/* The descriptor registry.c lists among the built-ins. */
const struct udtf_plugin udtf_kv_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "kv",
	.description = "key=value records such as logfmt: one row per record, "
	    "one column per wanted key",
	.keys = kv_keys,
	.init = kv_init,
	.columns = kv_columns,
	.process = kv_process,
	.fini = kv_fini,
};
