#include "lib/jsondoc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"

/* What jansson may still allocate in this thread's jsondoc_load(). */
static _Thread_local struct {
	int on;
	int over;          /* it asked for more */
	size_t left;
} jsondoc_budget;

static void *
jsondoc_malloc(size_t n)
{
	if (jsondoc_budget.on) {
		if (n > jsondoc_budget.left) {
			jsondoc_budget.over = 1;
			return NULL; /* jansson gives up, freeing what it built */
		}
		jsondoc_budget.left -= n;
	}
	return malloc(n);
}

/* jansson's allocator is one for the process and must be set before any
 * thread uses jansson: before main(), then. */
__attribute__((constructor)) static void
jsondoc_init(void)
{
	json_set_alloc_funcs(jsondoc_malloc, free);
}

json_t *
jsondoc_load(const char *text, size_t len, size_t flags, size_t max,
    json_error_t *e)
{
	json_t *v;

	jsondoc_budget.on = 1;
	jsondoc_budget.over = 0;
	jsondoc_budget.left = max;
	v = json_loadb(text, len, flags, e);
	jsondoc_budget.on = 0;
	if (v == NULL && jsondoc_budget.over) {
		snprintf(e->text, sizeof(e->text), "takes more than %zu bytes of "
		    "memory to read", max);
		e->line = e->column = -1;
	}
	return v;
}

json_t *
jsondoc_parse(struct jsondoc *d, const char *text, size_t len)
{
	json_error_t e;
	json_t *v;

	/* JSON_REJECT_DUPLICATES: a second value of a key must not win
	 * silently; \u0000 stays refused (names never hold one). */
	if ((v = jsondoc_load(text, len, JSON_REJECT_DUPLICATES,
	    JSONDOC_MEM_MAX, &e)) == NULL) {
		/* the text may quote bytes of the file: no control byte
		 * reaches a log line */
		for (char *p = e.text; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		if (e.line < 0)
			snprintf(d->err, d->errlen, "%s", e.text);
		else
			snprintf(d->err, d->errlen, "line %d, column %d: %s",
			    e.line, e.column, e.text);
		return NULL;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		snprintf(d->err, d->errlen, "line 1, column 1: not an object");
		return NULL;
	}
	return v;
}

int
jsondoc_fail(struct jsondoc *d, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (d->key != NULL)
		snprintf(d->err, d->errlen, "%s\"%s\": %s", d->in, d->key, what);
	else
		snprintf(d->err, d->errlen, "%s%s", d->in, what);
	return -EINVAL;
}

static const char *
jsondoc_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

int
jsondoc_object(struct jsondoc *d, const json_t *v, const char *const *keys,
    size_t nkeys, const json_t **vals)
{
	const char *key;
	json_t *val;
	size_t i;

	if (!json_is_object(v))
		return jsondoc_fail(d, "expected an object, found %s",
		    jsondoc_type(v));
	for (i = 0; i < nkeys; i++)
		vals[i] = NULL;
	json_object_foreach((json_t *)v, key, val) {
		for (i = 0; i < nkeys && strcmp(keys[i], key) != 0; i++)
			;
		if (i < nkeys) {
			vals[i] = val;
			continue;
		}
		/* the key is the file's: shown escaped, in ASCII */
		json_t *s = json_string(key);
		char *q = s != NULL ? json_dumps(s, JSON_ENCODE_ANY |
		    JSON_ENSURE_ASCII) : NULL;
		const char *was = d->key;
		int r;

		d->key = NULL;
		r = jsondoc_fail(d, "unknown key %s", q != NULL ? q : "");
		d->key = was;
		free(q);
		json_decref(s);
		return r;
	}
	return 0;
}

int
jsondoc_fields(struct jsondoc *d, const json_t *v, const char *const *keys,
    size_t nkeys, int (*read)(struct jsondoc *d, size_t i, const json_t *v,
    void *arg), void *arg)
{
	const json_t *vals[JSONDOC_KEYS_MAX];
	const char *was = d->key;
	int r;

	if (nkeys > JSONDOC_KEYS_MAX)
		return -EINVAL;
	if ((r = jsondoc_object(d, v, keys, nkeys, vals)) != 0)
		return r;
	for (size_t i = 0; i < nkeys && r == 0; i++) {
		d->key = keys[i];
		r = read(d, i, vals[i], arg);
	}
	d->key = was;
	return r;
}

int
jsondoc_missing(struct jsondoc *d, const char *key)
{
	const char *was = d->key;
	int r;

	d->key = NULL;
	r = jsondoc_fail(d, "no \"%s\"", key);
	d->key = was;
	return r;
}

int
jsondoc_int(struct jsondoc *d, const json_t *v, int64_t min, int64_t max,
    int64_t *out)
{
	json_int_t n;

	if (!json_is_integer(v))
		return jsondoc_fail(d, "expected an integer, found %s",
		    jsondoc_type(v));
	n = json_integer_value(v);
	if (n < min && min == 0)
		return jsondoc_fail(d, "negative");
	if (n < min || n > max)
		return jsondoc_fail(d, "%lld is out of range [%" PRId64 ", %"
		    PRId64 "]", (long long)n, min, max);
	*out = (int64_t)n;
	return 0;
}

int
jsondoc_int_or_null(struct jsondoc *d, const json_t *v, int64_t min,
    int64_t max, int64_t none, int64_t *out)
{
	if (json_is_null(v)) {
		*out = none;
		return 0;
	}
	return jsondoc_int(d, v, min, max, out);
}

int
jsondoc_str(struct jsondoc *d, const json_t *v, const char **out)
{
	if (!json_is_string(v))
		return jsondoc_fail(d, "expected a string, found %s",
		    jsondoc_type(v));
	*out = json_string_value(v);
	return 0;
}

int
jsondoc_string(struct jsondoc *d, const json_t *v, char **out)
{
	const char *s = NULL;
	int r;

	if ((r = jsondoc_str(d, v, &s)) != 0)
		return r;
	return (*out = strdup(s)) != NULL ? 0 : -ENOMEM;
}

int
jsondoc_name(struct jsondoc *d, const json_t *v, char **out)
{
	int r;

	if ((r = jsondoc_string(d, v, out)) != 0)
		return r;
	if (**out == '\0' || strchr(*out, '/') != NULL ||
	    strcmp(*out, ".") == 0 || strcmp(*out, "..") == 0)
		return jsondoc_fail(d, "empty, \".\", \"..\", or holds '/'");
	return 0;
}

int
jsondoc_array(struct jsondoc *d, const json_t *v)
{
	if (!json_is_array(v))
		return jsondoc_fail(d, "expected an array, found %s",
		    jsondoc_type(v));
	return 0;
}

int
jsondoc_set(json_t *o, const char *key, json_t *v)
{
	/* json_object_set_new() takes the reference of v, even on failure */
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		return -ENOMEM;
	return 0;
}

int
jsondoc_utf8(const char *s)
{
	json_t *v;

	if ((v = json_string(s)) != NULL) {
		json_decref(v);
		return 0;
	}
	/* json_string() refuses both invalid UTF-8 and a failed allocation;
	 * the unchecked copy tells them apart */
	if ((v = json_string_nocheck(s)) == NULL)
		return -ENOMEM;
	json_decref(v);
	return -EILSEQ;
}

json_t *
jsondoc_text(const char *s)
{
	char escaped[4096];
	json_t *v;

	if ((v = json_string(s)) != NULL)
		return v;
	return json_string(escape_bytes(s, strlen(s), escaped,
	    sizeof(escaped)));
}

int
jsondoc_set_str(json_t *o, const char *key, const char *s)
{
	json_t *v;
	int r;

	if ((v = json_string(s)) == NULL)
		return (r = jsondoc_utf8(s)) != 0 ? r : -ENOMEM;
	return jsondoc_set(o, key, v);
}

int
jsondoc_set_int(json_t *o, const char *key, int64_t v)
{
	return jsondoc_set(o, key, json_integer((json_int_t)v));
}

int
jsondoc_set_int_or_null(json_t *o, const char *key, int64_t v, int64_t none)
{
	return jsondoc_set(o, key, v == none ? json_null() :
	    json_integer((json_int_t)v));
}

int
jsondoc_dump(const json_t *v, struct buf *out)
{
	size_t n = json_dumpb(v, NULL, 0, JSON_COMPACT);
	int r;

	if (n == 0 || (r = buf_reserve(out, n + 1)) < 0)
		return -ENOMEM;
	if (json_dumpb(v, out->data + out->len, n, JSON_COMPACT) != n)
		return -ENOMEM;
	out->len += n;
	out->data[out->len++] = '\n';
	return 0;
}

int
jsondoc_print(const json_t *v, FILE *out)
{
	if (json_dumpf(v, out, JSON_INDENT(2)) < 0 || fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}
