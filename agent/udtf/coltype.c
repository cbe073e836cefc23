#include "agent/udtf/coltype.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/udtf/timeparse.h"
#include "lib/err.h"
#include "lib/grow.h"

static const char *const coltype_names[] = {
	[COLTYPE_STRING] = "string",
	[COLTYPE_INT64] = "int64",
	[COLTYPE_DOUBLE] = "double",
	[COLTYPE_BOOL] = "bool",
	[COLTYPE_TIMESTAMP] = "timestamp",
	[COLTYPE_TIMESTAMP_MS] = "timestamp_ms",
	[COLTYPE_TIMESTAMP_US] = "timestamp_us",
	[COLTYPE_JSON] = "json",
};
#define COLTYPE_NKINDS (sizeof(coltype_names) / sizeof(coltype_names[0]))

const char *
coltype_kind_name(enum coltype_kind kind)
{
	return (size_t)kind < COLTYPE_NKINDS ? coltype_names[kind] : "?";
}

enum udtf_type
coltype_udtf_type(enum coltype_kind kind)
{
	switch (kind) {
	case COLTYPE_INT64:
		return UDTF_INT64;
	case COLTYPE_DOUBLE:
		return UDTF_DOUBLE;
	case COLTYPE_BOOL:
		return UDTF_BOOL;
	case COLTYPE_TIMESTAMP:
	case COLTYPE_TIMESTAMP_MS:
	case COLTYPE_TIMESTAMP_US:
		return UDTF_TIMESTAMP;
	case COLTYPE_STRING:
	case COLTYPE_JSON:
		break;
	}
	return UDTF_STRING;
}

void
coltype_list_clear(struct coltype_list *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].source);
	}
	free(l->v);
	free(l->cols);
	memset(l, 0, sizeof(*l));
}

int
coltype_find(const struct coltype_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
coltype_is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* Returns a copy of [s, s+len) without the blanks around it. */
static char *
coltype_trimmed(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return strndup(s, len);
}

/* The default name of a source: its bytes outside [A-Za-z0-9_] become '_',
 * and the '_' at either end are dropped. */
static char *
coltype_derive_name(const char *source)
{
	size_t len = strlen(source), start = 0, end;
	char *name = malloc(len + 1);

	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++)
		name[i] = coltype_is_word(source[i]) ? source[i] : '_';
	end = len;
	while (start < end && name[start] == '_')
		start++;
	while (end > start && name[end - 1] == '_')
		end--;
	memmove(name, name + start, end - start);
	name[end - start] = '\0';
	return name;
}

static int
coltype_kind_parse(const char *text, unsigned flags, enum coltype_kind *kind)
{
	for (size_t k = 0; k < COLTYPE_NKINDS; k++) {
		if (strcmp(text, coltype_names[k]) != 0)
			continue;
		if (k == COLTYPE_JSON && !(flags & COLTYPE_ALLOW_JSON))
			return -EINVAL;
		*kind = (enum coltype_kind)k;
		return 0;
	}
	return -EINVAL;
}

/* Parses one entry [NAME =] SOURCE [: TYPE] into *spec. */
static int
coltype_parse_entry(const char *key, const char *entry, unsigned flags,
    const char *empty_name, struct coltype_spec *spec, char *err,
    size_t errlen)
{
	const char *eq = strchr(entry, '='), *colon = strrchr(entry, ':');
	const char *src = eq != NULL ? eq + 1 : entry;
	size_t srclen = colon != NULL && colon > src ? (size_t)(colon - src) :
	    strlen(src);
	char *type = NULL;
	int r = -EINVAL;

	if (eq != NULL && (flags & COLTYPE_NO_SOURCE)) {
		return err_set(err, errlen, -EINVAL,
		    "%s: \"%s\": write NAME[:TYPE], without "
		    "'='", key, entry);
	}
	if ((spec->source = coltype_trimmed(src, srclen)) == NULL)
		return -ENOMEM;
	if (spec->source[0] == '\0') {
		return err_set(err, errlen, -EINVAL,
		    "%s: \"%s\" names nothing to extract", key,
		    entry);
	}
	spec->name = eq != NULL ? coltype_trimmed(entry, (size_t)(eq - entry)) :
	    coltype_derive_name(spec->source);
	if (spec->name == NULL)
		return -ENOMEM;
	if (spec->name[0] == '\0' && empty_name != NULL) {
		free(spec->name);
		if ((spec->name = strdup(empty_name)) == NULL)
			return -ENOMEM;
	}
	if (spec->name[0] == '\0') {
		return err_set(err, errlen, -EINVAL,
		    "%s: \"%s\" needs a column name: write "
		    "NAME=%s", key, entry, spec->source);
	}
	spec->kind = COLTYPE_STRING;
	if (colon == NULL || colon < src)
		return 0;
	if ((type = coltype_trimmed(colon + 1, strlen(colon + 1))) == NULL)
		return -ENOMEM;
	if (coltype_kind_parse(type, flags, &spec->kind) < 0)
		snprintf(err, errlen, "%s: \"%s\" has unknown type \"%s\"; use "
		    "string, int64, double, bool, timestamp, timestamp_ms, "
		    "timestamp_us%s", key, entry, type,
		    flags & COLTYPE_ALLOW_JSON ? " or json" : "");
	else
		r = 0;
	free(type);
	return r;
}

int
coltype_parse(const char *key, const char *text, unsigned flags,
    const char *empty_name, struct coltype_list *out, char *err,
    size_t errlen)
{
	const char *p = text;
	size_t cap = 0;
	int r;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		char *entry = coltype_trimmed(p, len);
		struct coltype_spec *spec;

		if (entry == NULL)
			return -ENOMEM;
		if (entry[0] == '\0') {
			free(entry);
			return err_set(err, errlen, -EINVAL,
			    "%s: empty entry in \"%s\"", key,
			    text);
		}
		if (grow_array((void **)&out->v, &cap, out->n + 1,
		    sizeof(*out->v)) < 0) {
			free(entry);
			return -ENOMEM;
		}
		spec = &out->v[out->n++];
		memset(spec, 0, sizeof(*spec));
		r = coltype_parse_entry(key, entry, flags, empty_name, spec, err,
		    errlen);
		if (r == 0 && coltype_find(out, spec->name) != (int)out->n - 1) {
			snprintf(err, errlen, "%s: two columns named \"%s\"", key,
			    spec->name);
			r = -EINVAL;
		}
		free(entry);
		if (r < 0)
			return r;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if ((out->cols = calloc(out->n, sizeof(*out->cols))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < out->n; i++) {
		out->cols[i].name = out->v[i].name;
		out->cols[i].type = coltype_udtf_type(out->v[i].kind);
	}
	return 0;
}

static int
coltype_int64(const char *s, size_t len, int64_t *out)
{
	uint64_t v = 0, limit = INT64_MAX;
	size_t i = 0;
	int neg = 0;

	if (coltype_int64_simple(s, len, out))
		return 0;
	if (len > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		limit += (uint64_t)neg;
		i = 1;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9 || v > (limit - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int
coltype_double(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (coltype_double_simple(s, len, out))
		return 0;
	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	/* strtod also takes blanks, hex, inf and nan: admit decimals only */
	for (size_t i = 0; i < len; i++)
		if (strchr("0123456789+-.eE", s[i]) == NULL || s[i] == '\0')
			return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end != buf + len || !isfinite(*out))
		return -EINVAL;
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.frac]" with a blank for the T, or without a
 * zone (then UTC), as SQL and Hive write times: made ISO 8601. */
static int
coltype_sql_time(const char *s, size_t len, int64_t *us)
{
	char buf[48];
	int zoned = 0;

	if (len < 19 || len + 1 >= sizeof(buf) || (s[10] != ' ' && s[10] != 'T'))
		return -EINVAL;
	for (size_t i = 19; i < len; i++)
		zoned |= s[i] == 'Z' || s[i] == '+' || s[i] == '-';
	memcpy(buf, s, len);
	buf[10] = 'T';
	if (!zoned)
		buf[len++] = 'Z';
	return timeparse_iso8601(buf, len, us);
}

static int
coltype_timestamp(const char *s, size_t len, int64_t *us)
{
	if (timeparse_iso8601(s, len, us) == 0 ||
	    coltype_sql_time(s, len, us) == 0 ||
	    timeparse_local(s, len, us) == 0 ||
	    timeparse_msec(s, len, us) == 0)
		return 0;
	return -EINVAL;
}

static int
coltype_convert_value(enum coltype_kind kind, const char *s, size_t len,
    struct udtf_value *v)
{
	int64_t i;

	v->type = coltype_udtf_type(kind);
	switch (kind) {
	case COLTYPE_STRING:
	case COLTYPE_JSON:
		v->u.s.ptr = s;
		v->u.s.len = len;
		return 0;
	case COLTYPE_INT64:
		return coltype_int64(s, len, &v->u.i64);
	case COLTYPE_DOUBLE:
		return coltype_double(s, len, &v->u.d);
	case COLTYPE_BOOL:
		return coltype_bool_simple(s, len, &v->u.b) ? 0 : -EINVAL;
	case COLTYPE_TIMESTAMP:
		return coltype_timestamp(s, len, &v->u.ts_us);
	case COLTYPE_TIMESTAMP_MS:
		if (coltype_int64(s, len, &i) < 0 || i > INT64_MAX / 1000 ||
		    i < INT64_MIN / 1000)
			return -EINVAL;
		v->u.ts_us = i * 1000;
		return 0;
	case COLTYPE_TIMESTAMP_US:
		return coltype_int64(s, len, &v->u.ts_us);
	}
	return -EINVAL;
}

int
coltype_convert(enum coltype_kind kind, const char *name, const char *s,
    size_t len, struct udtf_value *v, char *err, size_t errlen)
{
	char shown[48];
	size_t n = 0;

	if (coltype_convert_value(kind, s, len, v) == 0)
		return 0;
	for (size_t i = 0; i < len && n + 4 < sizeof(shown); i++) {
		unsigned char c = (unsigned char)s[i];
		shown[n++] = c >= 0x20 && c < 0x7f && c != '"' ? (char)c : '?';
	}
	if (n < len)
		shown[n++] = '.', shown[n++] = '.', shown[n++] = '.';
	shown[n] = '\0';
	return err_set(err, errlen, -EINVAL, "column %s: \"%s\" is not a%s %s",
	    name, shown,
	    kind == COLTYPE_INT64 ? "n" : "", coltype_kind_name(kind));
}
