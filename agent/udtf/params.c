#include "agent/udtf/params.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/udtf/coltype.h"
#include "lib/err.h"

/* The interface, described in params.h. */

int
udtf_params_read(const char *udtf, const struct udtf_key *keys,
    const struct udtf_param *params, size_t nparams, const char **vals,
    char *err, size_t errlen)
{
	size_t k;

	for (k = 0; keys[k].name != NULL; k++)
		vals[k] = keys[k].default_value;
	for (size_t i = 0; i < nparams; i++) {
		for (k = 0; keys[k].name != NULL; k++)
			if (strcmp(params[i].key, keys[k].name) == 0)
				break;
		if (keys[k].name == NULL) {
			return err_set(err, errlen, -EINVAL,
			    "%s has no key \"%s\"", udtf,
			    params[i].key);
		}
		vals[k] = params[i].value;
	}
	for (k = 0; keys[k].name != NULL; k++) {
		if (vals[k] == NULL) {
			return err_set(err, errlen, -EINVAL,
			    "%s is required: %s", keys[k].name,
			    keys[k].description);
		}
	}
	return 0;
}

int
udtf_params_choice(const char *key, const char *value,
    const char *const *words, int *index, char *err, size_t errlen)
{
	size_t used;
	int n;

	for (n = 0; words[n] != NULL; n++) {
		if (strcmp(value, words[n]) == 0) {
			*index = n;
			return 0;
		}
	}
	used = (size_t)snprintf(err, errlen, "%s must be", key);
	for (int i = 0; i < n && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
		    i == 0 ? " " : i == n - 1 ? " or " : ", ", words[i]);
	if (used < errlen)
		snprintf(err + used, errlen - used, ", not \"%s\"", value);
	return -EINVAL;
}

int
udtf_params_bool(const char *key, const char *value, int *out, char *err,
    size_t errlen)
{
	struct udtf_value v;
	char why[128];

	if (coltype_convert(COLTYPE_BOOL, key, value, strlen(value), &v, why,
	    sizeof(why)) < 0) {
		return err_set(err, errlen, -EINVAL,
		    "%s must be true or false, not \"%s\"",
		    key, value);
	}
	*out = v.u.b;
	return 0;
}
