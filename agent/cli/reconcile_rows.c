/*
 * reconcile_rows: a line of a text file as a row of the table's columns,
 * for both sides of `kedge reconcile` (reconcile_int.h): hive-text and
 * tsv (fields split by a delimiter, Hive's backslash escapes, \N for
 * NULL), csv (RFC 4180; an empty unquoted field is NULL, as Spark writes
 * it) and jsonl (an object keyed by column names; kedge's own files and
 * the offline table's).
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "lib/err.h"
#include "lib/escape.h"
#include "lib/grow.h"

#define RC_DIRECT SIZE_MAX        /* a field's text is in the line */

/* d digits at s as a number, or -1. */
static int
rc_digits(const char *s, int d)
{
	int v = 0;

	for (int i = 0; i < d; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int
rc_parse_time(struct rc *rc, const char *s, size_t len, int64_t *us)
{
	int y, mo, d, h, mi, sec, frac = 0, digits = 0, off = 0;
	size_t i = 19;

	if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' &&
	    s[10] != 'T') || s[13] != ':' || s[16] != ':' ||
	    (y = rc_digits(s, 4)) < 0 || (mo = rc_digits(s + 5, 2)) < 1 ||
	    mo > 12 || (d = rc_digits(s + 8, 2)) < 1 || d > 31 ||
	    (h = rc_digits(s + 11, 2)) < 0 || h > 23 ||
	    (mi = rc_digits(s + 14, 2)) < 0 || mi > 59 ||
	    (sec = rc_digits(s + 17, 2)) < 0 || sec > 60)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			if (digits < 6)
				frac = frac * 10 + (s[i] - '0');
		if (digits == 0)
			return -EINVAL;
		for (; digits < 6; digits++)
			frac *= 10;
	}
	if (i == len) {
		*us = rc_local_us(rc, y, mo, d, h, mi, sec, frac);
		return 0;
	}
	if (len - i == 1 && s[i] == 'Z')
		off = 0;
	else if (len - i == 6 && (s[i] == '+' || s[i] == '-') &&
	    s[i + 3] == ':' && rc_digits(s + i + 1, 2) >= 0 &&
	    rc_digits(s + i + 4, 2) >= 0)
		off = (s[i] == '-' ? -1 : 1) * (rc_digits(s + i + 1, 2) * 3600 +
		    rc_digits(s + i + 4, 2) * 60);
	else
		return -EINVAL;
	{
		struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1,
		    .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec };

		*us = ((int64_t)timegm(&tm) - off) * 1000000 + frac;
	}
	return 0;
}

/* The text s[0..len) as a value of type into v (a string stays where it
 * is).  Returns 0, or -EINVAL with "COLUMN: what" in err. */
static int
rc_convert(struct rc *rc, size_t col, const char *s, size_t len,
    struct udtf_value *v, char *err, size_t errlen)
{
	enum udtf_type type = rc->cols[col].type;
	char num[64], shown[ESCAPE_BUF], *end;
	const char *what = "";

	v->type = type;
	switch (type) {
	case UDTF_STRING:
		v->u.s.ptr = s;
		v->u.s.len = len;
		return 0;
	case UDTF_TIMESTAMP:
		if (rc_parse_time(rc, s, len, &v->u.ts_us) == 0)
			return 0;
		what = "a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff], local, or "
		    "with Z or +HH:MM)";
		break;
	case UDTF_BOOL:
		if ((len == 4 && strncasecmp(s, "true", 4) == 0) ||
		    (len == 5 && strncasecmp(s, "false", 5) == 0)) {
			v->u.b = len == 4;
			return 0;
		}
		what = "true or false";
		break;
	case UDTF_INT64:
	case UDTF_DOUBLE:
		if (len > 0 && len < sizeof(num)) {
			memcpy(num, s, len);
			num[len] = '\0';
			errno = 0;
			if (type == UDTF_INT64)
				v->u.i64 = strtoll(num, &end, 10);
			else if (strcmp(num, "Infinity") == 0 ||
			    strcmp(num, "-Infinity") == 0)
				v->u.d = num[0] == '-' ? -INFINITY : INFINITY,
				end = num + len;
			else
				v->u.d = strtod(num, &end);
			if (*end == '\0' && (errno == 0 || type == UDTF_DOUBLE))
				return 0;
		}
		what = type == UDTF_INT64 ? "a 64-bit integer" : "a number";
		break;
	case UDTF_NULL:
		break;
	}
	return err_set(err, errlen, -EINVAL, "column %s: \"%s\" is not %s",
	    rc->cols[col].name, escape_bytes(s, len, shown, sizeof(shown)),
	    what);
}

/* Makes room for the row's string offsets. */
static int
rc_offs(struct rc *rc, struct rc_rowparse *p)
{
	if (grow_array((void **)&p->offs, &p->offs_cap, rc->ncols + 1,
	    sizeof(*p->offs)) < 0)
		return -ENOMEM;
	return 0;
}

/* Splits a hive-text or tsv line into fields, unescaped, then typed. */
static int
rc_parse_delimited(struct rc *rc, struct rc_rowparse *p, char delim,
    const char *line, size_t len, struct udtf_value *vals, char *err,
    size_t errlen)
{
	size_t col = 0, i = 0, start, flen;
	const char *f;
	int r;

	buf_reset(&p->scratch);
	if ((r = rc_offs(rc, p)) < 0)
		return r;
	for (;;) {
		int escaped = 0;

		start = i;
		while (i < len && line[i] != delim) {
			if (line[i] == '\\' && i + 1 < len) {
				escaped = 1;
				i++;
			}
			i++;
		}
		if (col == rc->ncols)
			return err_set(err, errlen, -EINVAL, "more than the "
			    "table's %zu fields", rc->ncols);
		f = line + start;
		flen = i - start;
		if (flen == 2 && f[0] == '\\' && f[1] == 'N') {
			vals[col].type = UDTF_NULL;
			p->offs[col] = RC_DIRECT;
		} else if (!escaped) {
			p->offs[col] = RC_DIRECT;
			vals[col].u.s.ptr = f;
			vals[col].u.s.len = flen;
			vals[col].type = UDTF_STRING;
		} else {
			p->offs[col] = p->scratch.len;
			for (size_t k = 0; k < flen && r == 0; k++) {
				char c = f[k];
				if (c == '\\' && k + 1 < flen) {
					c = f[++k];
					c = c == 'n' ? '\n' : c == 'r' ? '\r' :
					    c == 't' ? '\t' : c;
				}
				r = buf_append(&p->scratch, &c, 1);
			}
			if (r < 0)
				return r;
			vals[col].u.s.len = p->scratch.len - p->offs[col];
			vals[col].type = UDTF_STRING;
		}
		col++;
		if (i == len)
			break;
		i++;
	}
	if (col != rc->ncols)
		return err_set(err, errlen, -EINVAL, "%zu fields, the table has "
		    "%zu columns", col, rc->ncols);
	for (col = 0; col < rc->ncols; col++) {
		if (vals[col].type == UDTF_NULL)
			continue;
		if (p->offs[col] != RC_DIRECT)
			vals[col].u.s.ptr = p->scratch.data + p->offs[col];
		if ((r = rc_convert(rc, col, vals[col].u.s.ptr,
		    vals[col].u.s.len, &vals[col], err, errlen)) < 0)
			return r;
	}
	return 0;
}

/* RFC 4180 fields; -EAGAIN when a quoted field goes on past the line. */
static int
rc_parse_csv(struct rc *rc, struct rc_rowparse *p, const char *line,
    size_t len, struct udtf_value *vals, char *err, size_t errlen)
{
	size_t col = 0, i = 0;
	int r;

	buf_reset(&p->scratch);
	if ((r = rc_offs(rc, p)) < 0)
		return r;
	for (;;) {
		if (col == rc->ncols)
			return err_set(err, errlen, -EINVAL, "more than the "
			    "table's %zu fields", rc->ncols);
		p->offs[col] = p->scratch.len;
		if (i < len && line[i] == '"') {
			for (i++;; i++) {
				if (i == len)
					return -EAGAIN;
				if (line[i] == '"' && i + 1 < len &&
				    line[i + 1] == '"')
					i++;
				else if (line[i] == '"')
					break;
				if ((r = buf_append(&p->scratch, line + i,
				    1)) < 0)
					return r;
			}
			i++;
			vals[col].type = UDTF_STRING;
			if (i < len && line[i] != ',')
				return err_set(err, errlen, -EINVAL, "field %zu: "
				    "text after its closing quote", col + 1);
		} else {
			size_t start = i;

			while (i < len && line[i] != ',')
				i++;
			if ((r = buf_append(&p->scratch, line + start,
			    i - start)) < 0)
				return r;
			vals[col].type = i == start ? UDTF_NULL : UDTF_STRING;
		}
		vals[col].u.s.len = p->scratch.len - p->offs[col];
		col++;
		if (i == len)
			break;
		i++;
	}
	if (col != rc->ncols)
		return err_set(err, errlen, -EINVAL, "%zu fields, the table has "
		    "%zu columns", col, rc->ncols);
	for (col = 0; col < rc->ncols; col++) {
		if (vals[col].type == UDTF_NULL)
			continue;
		vals[col].u.s.ptr = p->scratch.data + p->offs[col];
		if ((r = rc_convert(rc, col, vals[col].u.s.ptr,
		    vals[col].u.s.len, &vals[col], err, errlen)) < 0)
			return r;
	}
	return 0;
}

/* A JSON value of column col into v. */
static int
rc_json_value(struct rc *rc, size_t col, const json_t *j,
    struct udtf_value *v, char *err, size_t errlen)
{
	enum udtf_type type = rc->cols[col].type;

	if (j == NULL || json_is_null(j)) {
		v->type = UDTF_NULL;
		return 0;
	}
	v->type = type;
	if (json_is_string(j))
		return rc_convert(rc, col, json_string_value(j),
		    json_string_length(j), v, err, errlen);
	if (type == UDTF_INT64 && json_is_integer(j)) {
		v->u.i64 = (int64_t)json_integer_value(j);
		return 0;
	}
	if (type == UDTF_DOUBLE && json_is_number(j)) {
		v->u.d = json_number_value(j);
		return 0;
	}
	if (type == UDTF_BOOL && json_is_boolean(j)) {
		v->u.b = json_is_true(j);
		return 0;
	}
	return err_set(err, errlen, -EINVAL, "column %s: a JSON value of "
	    "another type", rc->cols[col].name);
}

static int
rc_parse_json(struct rc *rc, struct rc_rowparse *p, const char *const *names,
    const char *line, size_t len, struct udtf_value *vals, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *o;
	int r;

	json_decref(p->json);
	/* a key given twice is an error, as kedge writes each once */
	if ((p->json = o = json_loadb(line, len, JSON_REJECT_DUPLICATES |
	    JSON_ALLOW_NUL, &je)) == NULL)
		return err_set(err, errlen, -EINVAL, "not JSON: %s (column %d)",
		    je.text, je.column);
	if (!json_is_object(o))
		return err_set(err, errlen, -EINVAL, "not a JSON object");
	for (size_t col = 0; col < rc->ncols; col++)
		if ((r = rc_json_value(rc, col, json_object_get(o, names[col]),
		    &vals[col], err, errlen)) < 0)
			return r;
	return 0;
}

int
rc_parse_line(struct rc *rc, struct rc_rowparse *p, enum rc_format fmt,
    char delim, const char *const *names, const char *line, size_t len,
    struct udtf_value *vals, char *err, size_t errlen)
{
	switch (fmt) {
	case RC_JSONL:
		return rc_parse_json(rc, p, names, line, len, vals, err, errlen);
	case RC_CSV:
		return rc_parse_csv(rc, p, line, len, vals, err, errlen);
	default:
		return rc_parse_delimited(rc, p, delim, line, len, vals, err,
		    errlen);
	}
}

int
rc_is_header(const struct rc *rc, enum rc_format fmt, char delim,
    const char *const *names, const char *line, size_t len)
{
	size_t at = 0, n;

	if (fmt != RC_CSV && fmt != RC_TSV)
		return 0;
	for (size_t i = 0; i < rc->ncols; i++) {
		n = strlen(names[i]);
		if (i > 0 && (at >= len || line[at++] != delim))
			return 0;
		if (len - at < n || memcmp(line + at, names[i], n) != 0)
			return 0;
		at += n;
	}
	return at == len;
}

void
rc_rowparse_clear(struct rc_rowparse *p)
{
	buf_clear(&p->scratch);
	json_decref(p->json);
	free(p->offs);
	memset(p, 0, sizeof(*p));
}
