/*
 * kv_reject: the reasons the kv UDTF refuses a record (kv_int.h); a
 * reason shows at most KV_SHOW_MAX bytes of a key, made printable.
 */
#include "agent/udtf/kv_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/err.h"

#define KV_SHOW_MAX 40
#define KV_SHOWN_SIZE (KV_SHOW_MAX + 4)

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

int
kv_reject_at(const char *base, const char *at, const char *why,
    const char *key, size_t keylen, char *err, size_t errlen)
{
	char shown[KV_SHOWN_SIZE];

	kv_show(shown, key, keylen);
	return err_set(err, errlen, -EINVAL, "byte %zu: %s%s",
	    (size_t)(at - base), why, shown);
}

int
kv_reject_named(const struct kv_state *st, const char *base, const char *at,
    const struct kv_pair *pair, char *err, size_t errlen)
{
	char why[64];

	if (pair == NULL) {
		snprintf(why, sizeof why, "empty key before '%c'", st->kv_sep);
		return kv_reject_at(base, at, why, "", 0, err, errlen);
	}
	snprintf(why, sizeof why, "expected '%c' after the quoted value of "
	    "key ", st->pair_sep);
	return kv_reject_at(base, at, why, pair->key, pair->keylen, err,
	    errlen);
}

int
kv_reject_missing(const struct kv_state *st, char *err, size_t errlen)
{
	char shown[KV_SHOWN_SIZE];

	for (size_t w = 0; w < st->nwants; w++) {
		if (st->seen[w] == st->record)
			continue;
		kv_show(shown, st->wants[w].key, st->wants[w].len);
		return err_set(err, errlen, -EINVAL, "missing key %s", shown);
	}
	return 0;
}
