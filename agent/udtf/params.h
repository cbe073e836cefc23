/*
 * params: how a built-in UDTF reads the udtf_param list its init() gets,
 * against its own key table, so that every built-in fills in defaults,
 * refuses an unknown key or a missing required one, and words the
 * refusals alike.
 */
#ifndef KEDGE_UDTF_PARAMS_H
#define KEDGE_UDTF_PARAMS_H

#include <stddef.h>

#include "agent/udtf/udtf.h"

/* Sets vals[k] to the value params give keys[k] (the last one, when a key
 * is given twice), or to its default when they leave it out.  keys ends
 * with an entry whose name is NULL; vals has a slot for every entry before
 * it, and its strings point into params or keys.  udtf names the UDTF in
 * the refusal of an unknown key.  Returns 0, or -EINVAL with a sentence in
 * err: `<udtf> has no key "<key>"`, or `<key> is required: <description>`
 * for a key without default that params leave out. */
int udtf_params_read(const char *udtf, const struct udtf_key *keys,
    const struct udtf_param *params, size_t nparams, const char **vals,
    char *err, size_t errlen);

/* Sets *index to the position of value in words, a list of the values key
 * takes, terminated by NULL.  Returns 0, or -EINVAL with
 * `<key> must be A, B or C, not "<value>"` in err. */
int udtf_params_choice(const char *key, const char *value,
    const char *const *words, int *index, char *err, size_t errlen);

/* Sets *out to 1 or 0 for value, read as a bool column reads its text
 * (true or false in any case, 1 or 0).  Returns 0, or -EINVAL with
 * `<key> must be true or false, not "<value>"` in err. */
int udtf_params_bool(const char *key, const char *value, int *out, char *err,
    size_t errlen);

#endif /* KEDGE_UDTF_PARAMS_H */
