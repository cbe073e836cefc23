/*
 * csv and tsv: the built-in UDTFs for delimited lines, one record being one
 * line and giving one row.  csv follows RFC 4180: a field that starts with
 * the quote runs to the matching quote, "" inside it is one quote, and
 * delimiters and newlines inside it are data.  tsv is the same code with
 * other defaults: tabs, no quoting, and \N for NULL as in Hive's text
 * format (whose backslash escapes it does not decode).  One line end
 * (\n, \r\n or \r) at the end of a record is dropped.
 *
 * process() first splits the line, so that a line with the wrong number of
 * fields is rejected for that and not for a value it misaligned, then
 * converts each field.  A field is NULL when it is unquoted and equals
 * null_value, or when it is empty and its column is not a string; a quote
 * inside an unquoted field, and blanks around a field, are data.  Unquoted
 * fields and quoted ones without "" point into the record; the others are
 * unescaped into the state's scratch buffer.  Offsets in reasons count
 * bytes from 0, the start of the record.
 */
#include "agent/udtf/udtf.h"

#include "agent/udtf/coltype.h"
#include "agent/udtf/params.h"
#include "lib/buf.h"
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	CSV_COLUMNS,
	CSV_DELIMITER,
	CSV_QUOTE,
	CSV_NULL_VALUE,
	CSV_ALLOW_MISSING,
	CSV_ALLOW_EXTRA,
	CSV_NKEYS
};

#define CSV_KEY_COLUMNS { "columns", NULL, \
	"the fields of a line, in order, comma-separated, as NAME[:TYPE]; " \
	"one column each" }
#define CSV_KEY_DELIMITER(d) { "delimiter", (d), "the byte between fields" }
#define CSV_KEY_NULL_VALUE(n) { "null_value", (n), \
	"an unquoted field equal to this text is NULL; so is an empty field " \
	"in a column that is not a string" }
#define CSV_KEY_ALLOW_MISSING { "allow_missing", "false", \
	"true: a line with fewer fields than columns gets NULL for the rest; " \
	"false: it is rejected" }
#define CSV_KEY_ALLOW_EXTRA { "allow_extra", "false", \
	"true: the fields after the last column are ignored, unread; false: " \
	"a line with more fields than columns is rejected" }

static const struct udtf_key csv_keys[] = {
	[CSV_COLUMNS] = CSV_KEY_COLUMNS,
	[CSV_DELIMITER] = CSV_KEY_DELIMITER(","),
	[CSV_QUOTE] = { "quote", "\"",
	    "the byte that may enclose a field, in which a doubled quote is "
	    "one quote and delimiters and newlines are data; empty: none" },
	[CSV_NULL_VALUE] = CSV_KEY_NULL_VALUE(""),
	[CSV_ALLOW_MISSING] = CSV_KEY_ALLOW_MISSING,
	[CSV_ALLOW_EXTRA] = CSV_KEY_ALLOW_EXTRA,
	[CSV_NKEYS] = { NULL, NULL, NULL },
};

static const struct udtf_key tsv_keys[] = {
	[CSV_COLUMNS] = CSV_KEY_COLUMNS,
	[CSV_DELIMITER] = CSV_KEY_DELIMITER("\t"),
	[CSV_QUOTE] = { "quote", "",
	    "the byte that may enclose a field, as in csv; empty (the "
	    "default): fields are never quoted" },
	[CSV_NULL_VALUE] = CSV_KEY_NULL_VALUE("\\N"),
	[CSV_ALLOW_MISSING] = CSV_KEY_ALLOW_MISSING,
	[CSV_ALLOW_EXTRA] = CSV_KEY_ALLOW_EXTRA,
	[CSV_NKEYS] = { NULL, NULL, NULL },
};

/* One field of the current line. */
struct csv_field {
	const char *s;
	size_t len;
	int quoted;
	int escaped; /* quoted and holding a doubled quote */
};

struct csv_state {
	struct coltype_list columns;
	struct csv_field *fields;  /* per column, refilled per line */
	struct udtf_value *values; /* per column, refilled per line */
	struct buf scratch;        /* unescaped fields of the current line */
	char *null_value;
	size_t null_len;
	char delim;
	int quote;                 /* the quote byte, or -1 */
	int allow_missing;
	int allow_extra;
};

/* Where process() is in the line. */
struct csv_cursor {
	const char *base;
	const char *p;
	const char *end;
	int more; /* a field starts at p, though p may be end */
};

static void csv_fini(void *state);

/* Config. */

/* Reads the delimiter and the quote: one byte each (the quote may be
 * none), neither a line end, not the same.  Returns 0 or -EINVAL with a
 * sentence in err. */
static int
csv_read_syntax(struct csv_state *st, const char **vals, char *err,
    size_t errlen)
{
	const char *d = vals[CSV_DELIMITER], *q = vals[CSV_QUOTE];

	if (d[0] == '\0' || d[1] != '\0' || d[0] == '\n' || d[0] == '\r') {
		return err_set(err, errlen, -EINVAL,
		    "delimiter: \"%s\" must be one byte "
		    "other than a line end", d);
	}
	if (q[0] != '\0' && (q[1] != '\0' || q[0] == '\n' || q[0] == '\r')) {
		return err_set(err, errlen, -EINVAL,
		    "quote: \"%s\" must be one byte other "
		    "than a line end, or empty", q);
	}
	if (q[0] == d[0]) {
		return err_set(err, errlen, -EINVAL,
		    "quote and delimiter are both \"%s\"; "
		    "they must differ", d);
	}
	st->delim = d[0];
	st->quote = q[0] != '\0' ? (unsigned char)q[0] : -1;
	return 0;
}

static void *
csv_init_keys(const char *udtf, const struct udtf_key *keys,
    const struct udtf_param *params, size_t nparams, char *err, size_t errlen)
{
	const char *vals[CSV_NKEYS];
	struct csv_state *st = NULL;
	int r;

	if (udtf_params_read(udtf, keys, params, nparams, vals, err, errlen) < 0)
		return NULL;
	if ((st = calloc(1, sizeof *st)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (csv_read_syntax(st, vals, err, errlen) < 0 ||
	    udtf_params_bool("allow_missing", vals[CSV_ALLOW_MISSING],
	    &st->allow_missing, err, errlen) < 0 ||
	    udtf_params_bool("allow_extra", vals[CSV_ALLOW_EXTRA],
	    &st->allow_extra, err, errlen) < 0)
		goto fail;
	r = coltype_parse("columns", vals[CSV_COLUMNS], COLTYPE_NO_SOURCE, NULL,
	    &st->columns, err, errlen);
	if (r == 0 &&
	    ((st->null_value = strdup(vals[CSV_NULL_VALUE])) == NULL ||
	    (st->fields = calloc(st->columns.n, sizeof *st->fields)) == NULL ||
	    (st->values = calloc(st->columns.n, sizeof *st->values)) == NULL))
		r = -ENOMEM;
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r < 0)
		goto fail;
	st->null_len = strlen(st->null_value);
	return st;
fail:
	csv_fini(st);
	return NULL;
}

static void *
csv_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	return csv_init_keys("csv", csv_keys, params, nparams, err, errlen);
}

static void *
tsv_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	return csv_init_keys("tsv", tsv_keys, params, nparams, err, errlen);
}

static void
csv_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct csv_state *st = state;

	*cols = st->columns.cols;
	*ncols = st->columns.n;
}

static void
csv_fini(void *state)
{
	struct csv_state *st = state;

	if (st == NULL)
		return;
	coltype_list_clear(&st->columns);
	free(st->fields);
	free(st->values);
	free(st->null_value);
	buf_clear(&st->scratch);
	free(st);
}

/* Splitting a line. */

static int
csv_reject_at(const struct csv_cursor *c, const char *at, const char *why,
    char *err, size_t errlen)
{
	return err_set(err, errlen, -EINVAL, "byte %zu: %s",
	    (size_t)(at - c->base), why);
}

/* Reads the quoted field at c->p (its opening quote) into *f. */
static int
csv_read_quoted(const struct csv_state *st, struct csv_cursor *c,
    struct csv_field *f, char *err, size_t errlen)
{
	const char *open = c->p, *q = open + 1;

	f->escaped = 0;
	for (;;) {
		q = memchr(q, st->quote, (size_t)(c->end - q));
		if (q == NULL)
			return csv_reject_at(c, open, "unterminated quoted "
			    "field", err, errlen);
		if (q + 1 == c->end || q[1] != (char)st->quote)
			break;
		f->escaped = 1;
		q += 2;
	}
	f->s = open + 1;
	f->len = (size_t)(q - f->s);
	f->quoted = 1;
	c->p = q + 1;
	c->more = c->p < c->end;
	if (!c->more)
		return 0;
	if (*c->p != st->delim)
		return csv_reject_at(c, c->p, "expected delimiter after "
		    "closing quote", err, errlen);
	c->p++;
	return 0;
}

/* Reads the field at c->p into *f (into nothing when f is NULL: a field
 * past the columns, only counted) and steps past its delimiter.  Returns 0
 * or -EINVAL with a reason in err. */
static int
csv_next_field(const struct csv_state *st, struct csv_cursor *c,
    struct csv_field *f, char *err, size_t errlen)
{
	struct csv_field extra;
	const char *d;

	if (f == NULL)
		f = &extra;
	if (st->quote >= 0 && c->p < c->end && *c->p == (char)st->quote)
		return csv_read_quoted(st, c, f, err, errlen);
	d = memchr(c->p, st->delim, (size_t)(c->end - c->p));
	f->s = c->p;
	f->len = (size_t)((d != NULL ? d : c->end) - c->p);
	f->quoted = f->escaped = 0;
	c->more = d != NULL;
	c->p = d != NULL ? d + 1 : c->end;
	return 0;
}

/* Splits the line into st->fields; sets *nfields to the fields counted,
 * all of them unless allow_extra stops at the columns. */
static int
csv_split(struct csv_state *st, struct csv_cursor *c, size_t *nfields,
    char *err, size_t errlen)
{
	size_t n = 0, ncols = st->columns.n;

	do {
		if (n == ncols && st->allow_extra)
			break;
		if (csv_next_field(st, c, n < ncols ? &st->fields[n] : NULL,
		    err, errlen) < 0)
			return -EINVAL;
		n++;
	} while (c->more);
	*nfields = n;
	return 0;
}

/* Converting fields. */

/* Undoes the doubled quotes of f into the scratch buffer.  reclen bounds
 * every field of the line together, so one reservation keeps the fields
 * already there in place. */
static int
csv_unescape(struct csv_state *st, size_t reclen, struct csv_field *f)
{
	const char *s = f->s, *end = f->s + f->len;
	char *start, *dst;

	if (buf_reserve(&st->scratch, reclen - st->scratch.len) < 0)
		return -ENOMEM;
	start = dst = st->scratch.data + st->scratch.len;
	while (s < end) {
		const char *q = memchr(s, st->quote, (size_t)(end - s));
		size_t run = (size_t)((q != NULL ? q + 1 : end) - s);

		memcpy(dst, s, run);
		dst += run;
		s += run + (q != NULL); /* the second quote of the pair */
	}
	f->s = start;
	f->len = (size_t)(dst - start);
	st->scratch.len += f->len;
	return 0;
}

/* Fills column i from field f. */
static int
csv_convert(struct csv_state *st, size_t reclen, size_t i,
    struct csv_field *f, char *err, size_t errlen)
{
	const struct coltype_spec *spec = &st->columns.v[i];
	struct udtf_value *v = &st->values[i];

	if ((!f->quoted && f->len == st->null_len &&
	    memcmp(f->s, st->null_value, f->len) == 0) ||
	    (f->len == 0 && spec->kind != COLTYPE_STRING)) {
		v->type = UDTF_NULL;
		return 0;
	}
	if (f->escaped && csv_unescape(st, reclen, f) < 0)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	return coltype_convert(spec->kind, spec->name, f->s, f->len, v, err,
	    errlen);
}

static int
csv_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct csv_state *st = state;
	struct csv_cursor c = { rec->data, rec->data, rec->data + rec->len, 1 };
	size_t n, ncols = st->columns.n;
	int r;

	if (c.end > c.p && c.end[-1] == '\n')
		c.end--;
	if (c.end > c.p && c.end[-1] == '\r')
		c.end--;
	if (csv_split(st, &c, &n, err, errlen) < 0)
		return -EINVAL;
	if ((n < ncols && !st->allow_missing) || n > ncols) {
		return err_set(err, errlen, -EINVAL,
		    "%zu field%s, expected %zu", n,
		    n == 1 ? "" : "s", ncols);
	}
	buf_reset(&st->scratch);
	for (size_t i = 0; i < ncols; i++) {
		if (i >= n)
			st->values[i].type = UDTF_NULL;
		else if ((r = csv_convert(st, rec->len, i, &st->fields[i], err,
		    errlen)) < 0)
			return r;
	}
	r = out->emit(out, st->values, ncols);
	return r < 0 ? r : 0;
}

/* The descriptors registry.c lists among the built-ins. */
const struct udtf_plugin udtf_csv_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "csv",
	.description = "comma-separated lines (RFC 4180): one row per line, "
	    "one column per field",
	.keys = csv_keys,
	.init = csv_init,
	.columns = csv_columns,
	.process = csv_process,
	.fini = csv_fini,
};

const struct udtf_plugin udtf_tsv_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "tsv",
	.description = "tab-separated lines as in Hive's text format: one row "
	    "per line, one column per field",
	.keys = tsv_keys,
	.init = tsv_init,
	.columns = csv_columns,
	.process = csv_process,
	.fini = csv_fini,
};
