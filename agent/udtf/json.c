/*
 * json: the built-in UDTF for records that hold one JSON value (RFC 8259),
 * normally an object.  Each column is a path into the value (jsonpath.h),
 * named after the path flattened by coltype's rule ("user.name" gives
 * user_name), and typed by coltype.  A record gives one row, or, with
 * explode, one row per element of the array at that path, whose columns
 * combine paths from the root and paths from the element ("@.sku").
 *
 * process() scans the record once; only once all of it has proved valid
 * are the values converted, and only once all rows have converted are they
 * emitted: a rejected record emits no row.  Of an explode array, only as
 * many elements as the emitter takes rows, and one more, are recorded and
 * converted (udtf.h's max_rows): a huge array costs no memory for the
 * rows that would be refused anyway.  What a column gets:
 * - a missing path: NULL, or a reject with on_missing=reject; JSON null:
 *   NULL, whatever the type;
 * - string: a string's unescaped text, a number's or a bool's literal
 *   text; an object or an array is refused (type json keeps it);
 * - int64, double, bool, timestamp*: coltype's conversion of a string's
 *   unescaped text or of a number's or bool's literal text (1.5 or 1e3 is
 *   not an int64);
 * - json: the value's JSON text exactly as in the record.
 */
#include "agent/udtf/udtf.h"

#include "agent/udtf/coltype.h"
#include "agent/udtf/jsonpath.h"
#include "agent/udtf/params.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A column's value: its slot among the root's values or, for a path
 * relative to the explode element, among the element's. */
struct json_field {
	int elem;
	size_t slot;
	enum coltype_kind kind; /* the column's, kept beside its slot */
};

/* The per-column helpers, inlined into the loop over the columns. */
#define JSON_HOT static inline __attribute__((always_inline))

struct json_state {
	struct coltype_list cols;   /* the paths are the sources */
	struct json_field *fields;  /* one per column */
	struct jsonpath *paths;     /* points into cols */
	char *explode;              /* "": none */
	int reject_missing;
	struct udtf_value *row;     /* the root's columns */
	struct coltype_cache *caches; /* per column */
	struct udtf_value *rows;    /* with explode: a row per element */
	size_t rows_cap;            /* in rows */
	size_t maxshare;            /* the most columns that unescape a value */
	size_t reserve;             /* scratch bytes the record may need */
	struct buf scratch;         /* unescaped strings of the record */
};

enum {
	JSON_FIELDS,
	JSON_EXPLODE,
	JSON_ON_MISSING,
	JSON_NKEYS
};

static const struct udtf_key json_keys[] = {
	[JSON_FIELDS] = { "fields", NULL,
	    "the columns, comma-separated [NAME=]PATH[:TYPE]; PATH is member "
	    "names joined by '.' with [N] for array elements (user.name, "
	    "items[0].sku) and starts with @ for the explode element (@.sku); "
	    "NAME defaults to PATH flattened (user.name gives user_name); TYPE "
	    "is string (the default), int64, double, bool, timestamp, "
	    "timestamp_ms, timestamp_us or json (the value's JSON text)" },
	[JSON_EXPLODE] = { "explode", "",
	    "the path of an array: one row per element, which fields reach "
	    "with paths starting with @; a missing, null or empty array gives "
	    "no row; empty: one row per record" },
	[JSON_ON_MISSING] = { "on_missing", "null",
	    "what a path absent from the record gives: null, or reject (the "
	    "record goes to the rejects table); JSON null is always NULL" },
	[JSON_NKEYS] = { NULL, NULL, NULL },
};

static void json_fini(void *state);

/* Sets *text and *len to the text of string v, unescaped when needed into
 * the scratch buffer, whose room for the whole record is made once so that
 * no string handed out moves. */
JSON_HOT int
json_string_text(struct json_state *st, const struct jsonpath_value *v,
    const char **text, size_t *len)
{
	char *dst;

	*text = v->p + 1;
	*len = v->len - 2;
	if (!v->escaped)
		return 0;
	if (st->scratch.len == 0 && buf_reserve(&st->scratch, st->reserve) < 0)
		return -ENOMEM;
	dst = st->scratch.data + st->scratch.len;
	*len = jsonpath_unescape(dst, *text, *len);
	*text = dst;
	st->scratch.len += *len;
	return 0;
}

/* What the scan already knows spares coltype's conversion, with the same
 * result: a string column takes the text as it is, a bool column a JSON
 * true or false, any other a number that coltype_convert_simple() takes.
 * Returns whether *out is set. */
JSON_HOT int
json_convert_known(enum coltype_kind kind, const struct jsonpath_value *v,
    const char *text, size_t len, struct udtf_value *out)
{
	switch (kind) {
	case COLTYPE_STRING:
		out->type = UDTF_STRING;
		out->u.s.ptr = text;
		out->u.s.len = len;
		return 1;
	case COLTYPE_BOOL:
		if (v->kind != JSONPATH_TRUE && v->kind != JSONPATH_FALSE)
			return 0;
		out->type = UDTF_BOOL;
		out->u.b = v->kind == JSONPATH_TRUE;
		return 1;
	default:
		return v->kind == JSONPATH_NUMBER &&
		    coltype_convert_simple(kind, text, len, out);
	}
}

/* json_convert() for a missing value, null, an object or an array, and
 * for a column of type json. */
static int
json_convert_other(struct json_state *st, size_t i,
    const struct jsonpath_value *v, struct udtf_value *out, char *err,
    size_t errlen)
{
	const struct coltype_spec *spec = &st->cols.v[i];
	const char *text = v->p;
	size_t len = v->len;

	if (v->kind == JSONPATH_MISSING && st->reject_missing) {
		return err_set(err, errlen, -EINVAL, "path %s is missing",
		    spec->source);
	}
	if (v->kind == JSONPATH_MISSING || v->kind == JSONPATH_NULL) {
		out->type = UDTF_NULL;
		return 0;
	}
	if (spec->kind != COLTYPE_JSON && (v->kind == JSONPATH_OBJECT ||
	    v->kind == JSONPATH_ARRAY)) {
		return err_set(err, errlen, -EINVAL,
		    "column %s: is %s, not a%s %s%s",
		    spec->name, jsonpath_kind_name(v->kind),
		    spec->kind == COLTYPE_INT64 ? "n" : "",
		    coltype_kind_name(spec->kind),
		    spec->kind == COLTYPE_STRING ?
		    "; type json keeps its JSON text" : "");
	}
	if (spec->kind != COLTYPE_JSON && v->kind == JSONPATH_STRING &&
	    json_string_text(st, v, &text, &len) < 0) {
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	if (json_convert_known(spec->kind, v, text, len, out))
		return 0;
	return coltype_convert_cached(spec->kind, &st->caches[i], spec->name,
	    text, len, out, err, errlen);
}

/* Turns column i's value v into *out.  A string, number or bool for a
 * column that is not json, the common case, is told apart by one test. */
JSON_HOT int
json_convert(struct json_state *st, size_t i, const struct jsonpath_value *v,
    struct udtf_value *out, char *err, size_t errlen)
{
	enum coltype_kind kind = st->fields[i].kind;
	const char *text = v->p;
	size_t len = v->len;

	if (v->kind < JSONPATH_FALSE || v->kind > JSONPATH_STRING ||
	    kind == COLTYPE_JSON)
		return json_convert_other(st, i, v, out, err, errlen);
	if (v->kind == JSONPATH_STRING &&
	    json_string_text(st, v, &text, &len) < 0)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if (json_convert_known(kind, v, text, len, out))
		return 0;
	return coltype_convert_cached(kind, &st->caches[i],
	    st->cols.v[i].name, text, len, out, err, errlen);
}

/* Converts into row the root's columns (elem 0) or element e's
 * (elem 1). */
static int
json_convert_row(struct json_state *st, int elem, size_t e,
    struct udtf_value *row, char *err, size_t errlen)
{
	const struct jsonpath_value *values = elem ?
	    jsonpath_elem(st->paths, e) : jsonpath_root(st->paths);
	int r;

	for (size_t i = 0; i < st->cols.n; i++) {
		if (st->fields[i].elem != elem)
			continue;
		r = json_convert(st, i, &values[st->fields[i].slot], &row[i],
		    err, errlen);
		if (r < 0) {
			size_t n = strlen(err);

			if (elem && n < errlen)
				snprintf(err + n, errlen - n, " (%s[%zu])",
				    st->explode, e);
			return r;
		}
	}
	return 0;
}

/* Converts a row per element of the explode array, the first n, into
 * st->rows. */
static int
json_convert_elems(struct json_state *st, size_t n, char *err,
    size_t errlen)
{
	size_t ncols = st->cols.n;
	struct udtf_value *rows;
	int r;

	/* a row is ncols values */
	if (grow_array((void **)&st->rows, &st->rows_cap, n,
	    ncols * sizeof(*st->rows)) < 0) {
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t e = 0; e < n; e++) {
		rows = st->rows + e * ncols;
		memcpy(rows, st->row, ncols * sizeof(*rows));
		if ((r = json_convert_row(st, 1, e, rows, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int
json_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct json_state *st = state;
	/* the emitter refuses row max_rows + 1: no more need be made */
	size_t keep = out->max_rows != 0 && out->max_rows < SIZE_MAX ?
	    (size_t)out->max_rows + 1 : SIZE_MAX, n;
	int r;

	if (rec->len == 0)
		return err_set(err, errlen, -EINVAL, "empty record");
	if ((r = jsonpath_scan(st->paths, rec->data, rec->len, keep, err,
	    errlen)) < 0)
		return r;
	if (rec->len > SIZE_MAX / st->maxshare)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	/* an unescaped string is no longer than its JSON text, and the
	 * strings of distinct paths do not overlap */
	st->reserve = rec->len * st->maxshare;
	buf_reset(&st->scratch);
	if ((r = json_convert_row(st, 0, 0, st->row, err, errlen)) < 0)
		return r;
	if (st->explode[0] == '\0') {
		r = out->emit(out, st->row, st->cols.n);
		return r < 0 ? r : 0;
	}
	/* every row converts before the first is emitted */
	n = jsonpath_nelems(st->paths);
	if ((r = json_convert_elems(st, n < keep ? n : keep, err, errlen)) < 0)
		return r;
	for (size_t e = 0; e < n && e < keep; e++)
		if ((r = out->emit(out, st->rows + e * st->cols.n,
		    st->cols.n)) < 0)
			return r;
	if (n > keep) {
		return err_set(err, errlen, -E2BIG,
		    "explode array %s has %zu elements, more "
		    "than the %zu rows the emitter said it takes", st->explode,
		    n, keep - 1);
	}
	return 0;
}

/* Parses fields into st->cols.  A column whose path flattens to nothing
 * ("@") is named after the explode path, flattened by coltype's own rule:
 * the name coltype gives the explode path as a source. */
static int
json_parse_fields(struct json_state *st, const char *fields, char *err,
    size_t errlen)
{
	struct coltype_list ex = { NULL, NULL, 0 };
	const char *empty_name = NULL;
	char why[8];
	int r;

	if (st->explode[0] != '\0' && coltype_parse("explode", st->explode, 0,
	    NULL, &ex, why, sizeof(why)) == 0 && ex.n == 1 &&
	    strcmp(ex.v[0].source, st->explode) == 0)
		empty_name = ex.v[0].name;
	r = coltype_parse("fields", fields, COLTYPE_ALLOW_JSON, empty_name,
	    &st->cols, err, errlen);
	coltype_list_clear(&ex);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return r;
}

/* Sets st->maxshare: the most columns that unescape the same value. */
static void
json_count_shares(struct json_state *st)
{
	st->maxshare = 1;
	for (size_t i = 0; i < st->cols.n; i++) {
		size_t n = 0;

		for (size_t j = 0; j < st->cols.n; j++)
			n += st->fields[j].elem == st->fields[i].elem &&
			    st->fields[j].slot == st->fields[i].slot &&
			    st->cols.v[j].kind != COLTYPE_JSON;
		if (n > st->maxshare)
			st->maxshare = n;
	}
}

static int
json_compile(struct json_state *st, const char *fields, char *err,
    size_t errlen)
{
	int r;

	if ((st->paths = jsonpath_new(st->explode, err, errlen)) == NULL)
		return -EINVAL;
	if ((r = json_parse_fields(st, fields, err, errlen)) < 0)
		return r;
	st->fields = calloc(st->cols.n, sizeof(*st->fields));
	st->row = calloc(st->cols.n, sizeof(*st->row));
	st->caches = calloc(st->cols.n, sizeof(*st->caches));
	if (st->fields == NULL || st->row == NULL || st->caches == NULL)
		goto oom;
	for (size_t i = 0; i < st->cols.n; i++)
		if ((r = jsonpath_add(st->paths, "fields", st->cols.v[i].source,
		    &st->fields[i].elem, &st->fields[i].slot, err,
		    errlen)) < 0)
			return r;
	for (size_t i = 0; i < st->cols.n; i++)
		st->fields[i].kind = st->cols.v[i].kind;
	json_count_shares(st);
	if (jsonpath_seal(st->paths) < 0)
		goto oom;
	return 0;
oom:
	return err_set(err, errlen, -ENOMEM, "out of memory");
}

static void *
json_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	static const char *const on_missing[] = { "null", "reject", NULL };
	const char *vals[JSON_NKEYS];
	struct json_state *st = NULL;
	int reject_missing;

	if (udtf_params_read("json", json_keys, params, nparams, vals, err,
	    errlen) < 0 ||
	    udtf_params_choice("on_missing", vals[JSON_ON_MISSING], on_missing,
	    &reject_missing, err, errlen) < 0)
		return NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL ||
	    (st->explode = strdup(vals[JSON_EXPLODE])) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	st->reject_missing = reject_missing;
	if (json_compile(st, vals[JSON_FIELDS], err, errlen) < 0)
		goto fail;
	return st;
fail:
	json_fini(st);
	return NULL;
}

static void
json_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct json_state *st = state;

	*cols = st->cols.cols;
	*ncols = st->cols.n;
}

static void
json_fini(void *state)
{
	struct json_state *st = state;

	if (st == NULL)
		return;
	jsonpath_free(st->paths);
	coltype_list_clear(&st->cols);
	free(st->fields);
	free(st->explode);
	free(st->row);
	free(st->caches);
	free(st->rows);
	buf_clear(&st->scratch);
	free(st);
}

/* The descriptor registry.c lists among the built-ins. */
const struct udtf_plugin udtf_json_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "json",
	.description = "one JSON value per record (an object, normally): one "
	    "row per record, or per element of the explode array, one column "
	    "per path",
	.keys = json_keys,
	.init = json_init,
	.columns = json_columns,
	.process = json_process,
	.fini = json_fini,
};
