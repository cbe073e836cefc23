/*
 * kv_int: what kv.c (the scan of a record and its pairs, the descriptor)
 * shares with kv_conf.c (the keys, the separators, the hash of the wanted
 * keys: init, columns, fini) and kv_reject.c (the reasons a record is
 * refused): the state.  What runs for every pair stays in kv.c, static
 * inline, to be inlined into the pair loop as it was when all lived in one
 * file; the other files hold what runs once, on a key not where the last
 * record had it, or for a refused record.  Private to kv*.c: the rest of
 * kedge sees only the descriptor, udtf_kv_plugin.
 */
#ifndef KEDGE_KV_INT_H
#define KEDGE_KV_INT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/udtf/coltype.h"
#include "agent/udtf/udtf.h"
#include "lib/buf.h"

/* next_col's end of a chain. */
#define KV_NO_COL SIZE_MAX

/* The places of a record whose keys are remembered for the next one. */
#define KV_PLACES 32
_Static_assert(KV_PLACES > 1, "kv_pairs() tells a record without pairs "
    "by its first place");

/* The keys of kv's configuration, in kv_keys (kv_conf.c). */
enum {
	KV_FIELDS,
	KV_PAIR_SEPARATOR,
	KV_KV_SEPARATOR,
	KV_QUOTE,
	KV_ON_MISSING,
	KV_NKEYS
};

extern const struct udtf_key kv_keys[];

/* A distinct key the fields name. */
struct kv_want {
	const char *key; /* a field's source */
	size_t len;
	size_t col;      /* heads the next_col chain of the columns it fills */
	uint64_t head;   /* the key's first (up to) eight bytes, 0 after */
};

/* The key at one place of the last record: records mostly hold their keys
 * in one order, and a key found where the last record had it costs no
 * hash, wanted or not.  With SSE2, one compare of the sixteen bytes at a
 * pair with pat finds such a key and its kv separator without a scan. */
struct kv_place {
	_Alignas(16) char pat[16]; /* the key, the kv separator, then NULs */
	uint64_t head; /* as kv_head() reads it */
	size_t len;    /* 0: none yet */
	uint32_t mask; /* the bits of pat's len + 1 bytes; KV_PAT_NONE */
	int32_t want;  /* its index in wants, or -1 */
};

/* The mask of a place without a pattern (none yet, or a key too long for
 * sixteen bytes): no compare of sixteen bytes sets its bit. */
#define KV_PAT_NONE (UINT32_C(1) << 16)

struct kv_state {
	struct coltype_list fields;
	struct kv_want *wants;
	size_t nwants;
	int32_t *slots;            /* a hash of wants: an index in it, or -1 */
	size_t mask;               /* slots has mask + 1 entries */
	size_t *next_col;          /* the next column of the same key */
	uint32_t *seen;            /* per want: the record that last took it */
	uint32_t record;           /* the current record's number, not 0 */
	size_t taken;              /* the wants it has taken */
	struct kv_place places[KV_PLACES];
	uint64_t head_mask[9];     /* the bytes of a word that n bytes fill */
	struct udtf_value *values; /* per column, refilled per record */
	struct coltype_cache *caches; /* per column */
	struct buf scratch;        /* unescaped values of the current record */
	unsigned char blank[256];     /* the blanks around pairs */
	unsigned char key_end[256];   /* the bytes that end a key */
	unsigned char value_end[256]; /* the bytes that end an unquoted value */
	/* aligned, so that the SSE2 scans compare with them in memory */
	_Alignas(16) char value_stops[32]; /* value_end's (one or two) bytes,
					    * sixteen copies of each */
	_Alignas(16) char kv_stop[16];     /* the kv separator, sixteen times */
	_Alignas(16) char quoted_stops[32]; /* the quote and the backslash,
					     * likewise */
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

/* kv_conf.c: the descriptor's init, columns and fini. */
void *kv_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen);
void kv_columns(void *state, const struct udtf_column **cols,
    size_t *ncols);
void kv_fini(void *state);

/* Returns the index in st->wants of the key s[0..len) whose head (its
 * first, up to eight, bytes as one word, the bytes past the key 0) is
 * head, or -1.  kv_conf.c builds the hash; kv.c looks a key up in it where
 * its place misses. */
int32_t kv_lookup(const struct kv_state *st, const char *s, size_t len,
    uint64_t head);

/* kv_reject.c: writes the reason "byte N: <why><key>", N the offset of at from base,
 * into err, and returns -EINVAL.  Out of line, so that no cursor leaves
 * the inlined pair loop for memory. */
int kv_reject_at(const char *base, const char *at, const char *why,
    const char *key, size_t keylen, char *err, size_t errlen);

/* The reasons of a pair separator missing after a quoted value (pair) and
 * of an empty key (pair NULL), which name the separators.  Returns
 * -EINVAL. */
int kv_reject_named(const struct kv_state *st, const char *base,
    const char *at, const struct kv_pair *pair, char *err, size_t errlen);

/* The reason of the first wanted key the record did not have: returns
 * -EINVAL, or 0 when it had them all. */
int kv_reject_missing(const struct kv_state *st, char *err, size_t errlen);

#endif /* KEDGE_KV_INT_H */
