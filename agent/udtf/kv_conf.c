/*
 * kv_conf: the kv UDTF's configuration (kv_int.h): its keys; the
 * separators and the quote, with the byte tables and the SSE2 patterns
 * the scan compares with; the open-addressed hash of the keys the fields
 * want, with the chain of the columns each fills.
 */
#include "agent/udtf/kv_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/udtf/params.h"
#include "lib/err.h"

const struct udtf_key kv_keys[] = {
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

/* Hashes a key by its length and its first and last (up to) eight bytes
 * (a key of one to three bytes: its first, middle and last), in constant
 * time and inline: a key not where the last record had it is hashed, and a
 * collision only costs a comparison. */
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
	/* the SSE2 scans compare with these; a quote of -1 is never met,
	 * as a NUL byte is never a quote */
	memset(st->value_stops, pair, 16);
	memset(st->value_stops + 16, st->blank_pairs ? '\t' : pair, 16);
	memset(st->kv_stop, kv, 16);
	memset(st->quoted_stops, st->quote >= 0 ? st->quote : '\\', 16);
	memset(st->quoted_stops + 16, '\\', 16);
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
/* Whether want w is the key s[0..len) whose head is head. */
static inline int
kv_is_want(const struct kv_want *w, const char *s, size_t len, uint64_t head)
{
	return w->len == len && w->head == head &&
	    (len <= 8 || memcmp(w->key + 8, s + 8, len - 8) == 0);
}

int32_t
kv_lookup(const struct kv_state *st, const char *s, size_t len,
    uint64_t head)
{
	size_t h = kv_hash(s, len) & st->mask;
	int32_t w;

	while ((w = st->slots[h]) >= 0) {
		if (kv_is_want(&st->wants[w], s, len, head))
			return w;
		h = (h + 1) & st->mask;
	}
	return -1;
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
	    (st->seen = calloc(n, sizeof *st->seen)) == NULL ||
	    (st->values = calloc(n, sizeof *st->values)) == NULL ||
	    (st->caches = calloc(n, sizeof *st->caches)) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < size; i++)
		st->slots[i] = -1;
	for (size_t i = 0; i <= 8; i++)
		memset(&st->head_mask[i], 0xff, i);
	for (size_t i = 0; i < KV_PLACES; i++)
		st->places[i].mask = KV_PAT_NONE;
	for (size_t c = 0; c < n; c++) {
		const char *key = st->fields.v[c].source;
		size_t len = strlen(key), h;
		uint64_t head = 0;
		int32_t w;

		memcpy(&head, key, len < 8 ? len : 8);
		if ((w = kv_lookup(st, key, len, head)) >= 0) {
			st->next_col[c] = st->wants[w].col;
			st->wants[w].col = c;
			continue;
		}
		st->next_col[c] = KV_NO_COL;
		w = (int32_t)st->nwants++;
		st->wants[w] = (struct kv_want){ key, len, c, head };
		for (h = kv_hash(key, len) & st->mask; st->slots[h] >= 0;
		    h = (h + 1) & st->mask)
			;
		st->slots[h] = w;
	}
	return 0;
}

void *
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

void
kv_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct kv_state *st = state;

	*cols = st->fields.cols;
	*ncols = st->fields.n;
}

void
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
