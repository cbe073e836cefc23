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
 *
 * The scan is hand-written (SSE2 sixteen bytes a step, with a portable
 * fallback), not a generic tokenizer: it runs once per record on the
 * daemon's hot path, and each of its shortcuts stays only for the
 * instructions per record it saves, measured under callgrind by
 * scripts/bench-udtf.sh's instr lines.  kv_conf.c reads the configuration
 * and builds the hash of the wanted keys, kv_reject.c words the reasons
 * (kv_int.h).
 */
#include "agent/udtf/kv_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/err.h"

/* Forced inline: the pair loop is instantiated once per separator mode,
 * and the mode's tests fold away only when these are inlined into it. */
#define KV_HOT static inline __attribute__((always_inline))

/* Scanning a record. */

/* Which bytes kv_stops() looks for. */
enum kv_stop {
	KV_STOP_VALUE,  /* value_end's */
	KV_STOP_KEY,    /* key_end's: value_end's and the kv separator */
	KV_STOP_QUOTED, /* the quote and the backslash */
};

#if defined(__SSE2__)
/* kv_stops() of the sixteen bytes in x. */
KV_HOT unsigned
kv_stops_in(const struct kv_state *st, __m128i x, enum kv_stop stop,
    unsigned *value)
{
	const char *pat = stop == KV_STOP_QUOTED ? st->quoted_stops :
	    st->value_stops;
	unsigned m, v;

	m = v = (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_load_si128((const __m128i *)(const void *)
	    pat)), _mm_cmpeq_epi8(x, _mm_load_si128((const __m128i *)
	    (const void *)(pat + 16)))));
	if (stop == KV_STOP_KEY)
		m |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x,
		    _mm_load_si128((const __m128i *)(const void *)
		    st->kv_stop)));
	if (value != NULL)
		*value = v;
	return m;
}
#endif

/* Returns the bits of the bytes that stop looks for among the (up to)
 * sixteen at p, bit i for p[i], reading nothing outside the record: a
 * step that would pass its end reads its last sixteen bytes instead, a
 * record shorter than that is copied.  *value gets value_end's bits from
 * the same load when it is not NULL. */
KV_HOT unsigned
kv_stops(const struct kv_state *st, const struct kv_cursor *c,
    const char *p, enum kv_stop stop, unsigned *value)
{
#if defined(__SSE2__)
	unsigned shift, m;

	if (c->end - p >= 16)
		return kv_stops_in(st, _mm_loadu_si128((const __m128i *)
		    (const void *)p), stop, value);
	if (c->end - c->base >= 16) {
		shift = 16 - (unsigned)(c->end - p);
		m = kv_stops_in(st, _mm_loadu_si128((const __m128i *)
		    (const void *)(c->end - 16)), stop, value) >> shift;
	} else {
		char tmp[16] = { 0 }; /* no stop is a NUL byte */

		shift = 0;
		memcpy(tmp, p, (size_t)(c->end - p));
		m = kv_stops_in(st, _mm_loadu_si128((const __m128i *)
		    (const void *)tmp), stop, value);
	}
	if (value != NULL)
		*value >>= shift;
	return m;
#else
	size_t n = c->end - p < 16 ? (size_t)(c->end - p) : 16;
	unsigned m = 0, v = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)p[i];

		v |= (unsigned)st->value_end[b] << i;
		if (stop == KV_STOP_KEY)
			m |= (unsigned)st->key_end[b] << i;
		else if (stop == KV_STOP_QUOTED)
			m |= (unsigned)(b == '\\' || (int)b == st->quote) << i;
	}
	if (stop == KV_STOP_VALUE)
		m = v;
	if (value != NULL)
		*value = v;
	return m;
#endif
}

/* Whether the pair at k has the key of place pl and then the kv separator,
 * in the sixteen bytes at k; *chunk then gets value_end's bits of them,
 * as kv_stops() gives them.  Without SSE2, never. */
KV_HOT int
kv_at_place(const struct kv_state *st, const struct kv_cursor *c,
    const char *k, const struct kv_place *pl, unsigned *chunk)
{
#if defined(__SSE2__)
	__m128i x;
	unsigned eq;

	if (c->end - k < 16)
		return 0;
	x = _mm_loadu_si128((const __m128i *)(const void *)k);
	eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_load_si128(
	    (const __m128i *)(const void *)pl->pat)));
	if ((eq & pl->mask) != pl->mask)
		return 0;
	kv_stops_in(st, x, KV_STOP_VALUE, chunk);
	return 1;
#else
	(void)st;
	(void)c;
	(void)k;
	(void)pl;
	(void)chunk;
	return 0;
#endif
}

/* Returns the first byte in [p, end) that stop looks for, or end. */
KV_HOT const char *
kv_find(const struct kv_state *st, const struct kv_cursor *c, const char *p,
    enum kv_stop stop)
{
	for (; p < c->end; p += 16) {
		unsigned m = kv_stops(st, c, p, stop, NULL);

		if (m != 0)
			return p + __builtin_ctz(m);
		if (c->end - p <= 16)
			break;
	}
	return c->end;
}

/* Parsing a record. */
KV_HOT void
kv_skip_blanks(const struct kv_state *st, struct kv_cursor *c)
{
	while (c->p < c->end && st->blank[(unsigned char)*c->p])
		c->p++;
}

/* Reads the quoted value at c->p (its opening quote) into pair and steps
 * past the closing quote.  A backslash escapes the byte after it, so a
 * quote preceded by an odd run of backslashes is escaped.  Returns 0 or
 * -EINVAL with a reason in err. */
KV_HOT int
kv_read_quoted(const struct kv_state *st, struct kv_cursor *c,
    struct kv_pair *pair, char *err, size_t errlen)
{
	const char *open = c->p, *q = open + 1;

	pair->escaped = 0;
	for (;;) {
		unsigned m = q < c->end ? kv_stops(st, c, q, KV_STOP_QUOTED,
		    NULL) : 0;

		if (m == 0) {
			if (c->end - q <= 16)
				break;
			q += 16;
			continue;
		}
		q += __builtin_ctz(m);
		if (*q != '\\') {
			pair->value = open + 1;
			pair->len = (size_t)(q - pair->value);
			c->p = q + 1;
			return 0;
		}
		pair->escaped = 1;
		if (c->end - q <= 2)
			break; /* nothing after the escaped byte */
		q += 2;
	}
	return kv_reject_at(c->base, open, "unterminated quoted value of key ",
	    pair->key, pair->keylen, err, errlen);
}

/* After a quoted value comes the end, or a pair separator (which is
 * consumed unless it is blanks); blank as in kv_next_pair(). */
KV_HOT int
kv_end_quoted(const struct kv_state *st, struct kv_cursor *c,
    const struct kv_pair *pair, char *err, size_t errlen, int blank)
{
	if (blank) {
		if (c->p == c->end || st->blank[(unsigned char)*c->p])
			return 0;
		return kv_reject_at(c->base, c->p, "expected a blank after the "
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
	return kv_reject_named(st, c->base, c->p, pair, err, errlen);
}

/* Reads the unquoted value at v up to the pair separator, which it
 * consumes unless it is blanks.  chunk holds value_end's bits of the
 * sixteen bytes from k on (the pair's key), which most short values end
 * within, and with blank pairs the blanks after them too. */
KV_HOT void
kv_read_unquoted(const struct kv_state *st, struct kv_cursor *c,
    struct kv_pair *pair, const char *k, unsigned chunk, const char *v,
    int blank)
{
	size_t off = (size_t)(v - k);
	const char *stop;

	if (off < 16 && (chunk >> off) != 0) {
		off += (size_t)__builtin_ctz(chunk >> off);
		stop = k + off;
		c->p = stop;
		if (blank) {
			/* the blanks after it: ~chunk has a bit past the
			 * record and past the sixteen bytes */
			off += (size_t)__builtin_ctz(~chunk >> off);
			c->p = k + off;
			if (off >= 16)
				kv_skip_blanks(st, c);
		}
	} else {
		if (off <= 16)
			stop = c->end - k <= 16 ? c->end :
			    kv_find(st, c, k + 16, KV_STOP_VALUE);
		else
			stop = kv_find(st, c, v, KV_STOP_VALUE);
		c->p = stop;
		if (blank)
			kv_skip_blanks(st, c);
	}
	if (!blank) {
		while (stop > v && st->blank[(unsigned char)stop[-1]])
			stop--;
		if (c->p < c->end)
			c->p++;
	}
	pair->value = v;
	pair->len = (size_t)(stop - v);
}

/* The first (up to) eight bytes of the key s[0..len) as one word, the
 * bytes past the key 0; s + len is at most end. */
KV_HOT uint64_t
kv_head(const struct kv_state *st, const char *s, size_t len,
    const char *end)
{
	uint64_t x = 0;

	if (end - s >= 8)
		memcpy(&x, s, 8);
	else
		memcpy(&x, s, len);
	return x & st->head_mask[len < 8 ? len : 8];
}

/* Makes pl the place of the key s[0..len), unless it is already: the key
 * the last record had there when it is the same, else looked up (and
 * remembered there for the next record); s + len is at most end. */
KV_HOT void
kv_place_key(struct kv_state *st, struct kv_place *pl, const char *s,
    size_t len, const char *end)
{
	uint64_t head = kv_head(st, s, len, end);

	if (pl->len == len && pl->head == head && (len <= 8 ||
	    (pl->want >= 0 && memcmp(st->wants[pl->want].key + 8, s + 8,
	    len - 8) == 0)))
		return;
	pl->want = kv_lookup(st, s, len, head);
	pl->head = head;
	pl->len = len;
	pl->mask = KV_PAT_NONE;
	if (len < sizeof pl->pat) {
		memset(pl->pat, 0, sizeof pl->pat);
		memcpy(pl->pat, s, len);
		pl->pat[len] = st->kv_sep;
		pl->mask = (UINT32_C(2) << len) - 1;
	}
}

/* Reads the next pair into *pair, whose place is pl; blank is
 * st->blank_pairs, a constant where this is inlined.  With blank pairs,
 * c->p is past the blanks before the pair, and is left past those after
 * it.  Returns 1, 0 at the end of the record, or -EINVAL with a reason in
 * err.  pl then holds the pair's key, and its want. */
KV_HOT int
kv_next_pair(struct kv_state *st, struct kv_cursor *c,
    struct kv_place *pl, struct kv_pair *pair, char *err,
    size_t errlen, int blank)
{
	const char *k, *e;
	unsigned chunk, m;

	for (;;) {
		if (!blank)
			kv_skip_blanks(st, c);
		if (c->p == c->end)
			return 0;
		if (blank || *c->p != st->pair_sep)
			break;
		c->p++; /* an empty pair: "a=1;;b=2" */
	}
	k = c->p;
	pair->key = k;
	pair->escaped = 0;
	if (kv_at_place(st, c, k, pl, &chunk)) {
		/* a scan would stop at the same separator: the place's key
		 * holds no byte that ends a key, nor a blank at its end */
		e = k + pl->len;
		pair->keylen = pl->len;
	} else {
		if (*k == st->kv_sep)
			return kv_reject_named(st, c->base, k, NULL, err,
			    errlen);
		/* one load finds the key's end and, mostly, its value's */
		m = kv_stops(st, c, k, KV_STOP_KEY, &chunk);
		e = m != 0 ? k + __builtin_ctz(m) : c->end - k <= 16 ?
		    c->end : kv_find(st, c, k + 16, KV_STOP_KEY);
		pair->keylen = (size_t)(e - k);
		if (!blank)
			while (st->blank[(unsigned char)k[pair->keylen - 1]])
				pair->keylen--;
		kv_place_key(st, pl, k, pair->keylen, c->end);
		if (e == c->end || *e != st->kv_sep) {
			pair->value = NULL; /* a bare key */
			pair->len = 0;
			c->p = e;
			if (blank)
				kv_skip_blanks(st, c);
			else if (e < c->end)
				c->p++;
			return 1;
		}
	}
	c->p = e + 1;
	if (!blank)
		kv_skip_blanks(st, c);
	/* a quote of -1 (none) is no byte */
	if (c->p == c->end || (unsigned char)*c->p != st->quote) {
		kv_read_unquoted(st, c, pair, k, chunk, c->p, blank);
		return 1;
	}
	if (kv_read_quoted(st, c, pair, err, errlen) < 0 ||
	    kv_end_quoted(st, c, pair, err, errlen, blank) < 0)
		return -EINVAL;
	if (blank)
		kv_skip_blanks(st, c);
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
KV_HOT int
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
	/* the common texts without a call; coltype decides the others */
	if (coltype_convert_simple(spec->kind, pair->value, pair->len, v))
		return 0;
	return coltype_convert_cached(spec->kind, &st->caches[col],
	    spec->name, pair->value, pair->len, v, err, errlen);
}

/* Fills the columns of pair's key, whose place is pl, when the fields want
 * it and it is the key's first pair in the record. */
KV_HOT int
kv_take(struct kv_state *st, const struct kv_place *pl, size_t reclen,
    struct kv_pair *pair, char *err, size_t errlen)
{
	int32_t w = pl->want;
	size_t c;
	int r;

	if (w < 0 || st->seen[w] == st->record)
		return 0;
	st->seen[w] = st->record;
	st->taken++;
	if (pair->escaped && kv_unescape(st, reclen, pair) < 0)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	c = st->wants[w].col;
	do {
		if ((r = kv_convert(st, c, pair, err, errlen)) < 0)
			return r;
	} while ((c = st->next_col[c]) != KV_NO_COL);
	return 0;
}

/* Gives NULL to the columns of the wants the record did not have. */
static void
kv_null_missing(struct kv_state *st)
{
	for (size_t w = 0; w < st->nwants; w++) {
		if (st->seen[w] == st->record)
			continue;
		for (size_t c = st->wants[w].col; c != KV_NO_COL;
		    c = st->next_col[c])
			st->values[c].type = UDTF_NULL;
	}
}

/* Reads and takes every pair of the record; blank as in kv_next_pair().
 * Returns 1, 0 when the record has no pair, or -EINVAL with a reason in
 * err. */
KV_HOT int
kv_pairs(struct kv_state *st, struct kv_cursor *c, size_t reclen,
    char *err, size_t errlen, int blank)
{
	struct kv_pair pair;
	struct kv_place *pl = st->places;
	int r;

	if (blank)
		kv_skip_blanks(st, c);
	while ((r = kv_next_pair(st, c, pl, &pair, err, errlen, blank)) > 0) {
		if ((r = kv_take(st, pl, reclen, &pair, err, errlen)) < 0)
			return r;
		pl += pl < st->places + KV_PLACES - 1;
	}
	/* pl left the first place at the first pair and never comes back:
	 * no counter of pairs needed */
	return r < 0 ? r : pl != st->places;
}

static int
kv_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct kv_state *st = state;
	struct kv_cursor c = { rec->data, rec->data, rec->data + rec->len };
	int r;

	if (c.end > c.p && c.end[-1] == '\n')
		c.end--;
	if (c.end > c.p && c.end[-1] == '\r')
		c.end--;
	st->taken = 0;
	if (++st->record == 0) { /* numbers wrapped: forget them all */
		memset(st->seen, 0, st->nwants * sizeof *st->seen);
		st->record = 1;
	}
	buf_reset(&st->scratch);
	/* one loop per separator mode, its tests folded away */
	r = st->blank_pairs ? kv_pairs(st, &c, rec->len, err, errlen, 1) :
	    kv_pairs(st, &c, rec->len, err, errlen, 0);
	if (r < 0)
		return r;
	if (r == 0)
		return err_set(err, errlen, -EINVAL, "no pair in the record");
	if (st->taken < st->nwants) {
		if (st->reject_missing && kv_reject_missing(st, err, errlen) < 0)
			return -EINVAL;
		kv_null_missing(st);
	}
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
