#include "manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "jsonread.h"

/*
 * Writing.  Each put_*() appends `"key":value`, with the comma before it
 * unless it opens an object, and returns 0 or -ENOMEM.
 */

static int
put(struct buf *out, const char *s)
{
	return buf_append(out, s, strlen(s));
}

static int
put_key(struct buf *out, const char *key)
{
	char text[64];
	int n, r;

	if (out->len > 0 && out->data[out->len - 1] != '{' &&
	    (r = put(out, ",")) < 0)
		return r;
	n = snprintf(text, sizeof(text), "\"%s\":", key);
	return buf_append(out, text, (size_t)n);
}

static int
put_str(struct buf *out, const char *key, const char *s)
{
	int r;

	if ((r = put_key(out, key)) < 0)
		return r;
	return format_json_string(s, strlen(s), out);
}

static int
put_u64(struct buf *out, const char *key, uint64_t v)
{
	char text[32];
	int r;

	if ((r = put_key(out, key)) < 0)
		return r;
	snprintf(text, sizeof(text), "%" PRIu64, v);
	return put(out, text);
}

static int
put_i64(struct buf *out, const char *key, int64_t v)
{
	char text[32];
	int r;

	if ((r = put_key(out, key)) < 0)
		return r;
	snprintf(text, sizeof(text), "%" PRId64, v);
	return put(out, text);
}

/* An event time, or null for MANIFEST_NO_TIME. */
static int
put_time(struct buf *out, const char *key, int64_t us)
{
	int r;

	if (us != MANIFEST_NO_TIME)
		return put_i64(out, key, us);
	if ((r = put_key(out, key)) < 0)
		return r;
	return put(out, "null");
}

static int
put_ranges(struct buf *out, const char *key, const struct sidecar_ranges *rs)
{
	char text[64];
	int r;

	if ((r = put_key(out, key)) < 0 || (r = put(out, "[")) < 0)
		return r;
	for (size_t i = 0; i < rs->n; i++) {
		snprintf(text, sizeof(text), "%s[%" PRId64 ",%" PRId64 "]",
		    i > 0 ? "," : "", rs->v[i].first, rs->v[i].last);
		if ((r = put(out, text)) < 0)
			return r;
	}
	return put(out, "]");
}

static int
put_file(struct buf *out, const struct manifest_file *f)
{
	int r;

	if ((r = put(out, "{")) < 0 ||
	    (r = put_str(out, "name", f->name)) < 0 ||
	    (r = put_u64(out, "bytes", f->bytes)) < 0 ||
	    (r = put_u64(out, "rows", f->rows)) < 0 ||
	    (r = put_str(out, "sha256", f->sha256)) < 0 ||
	    (r = put_str(out, "topic", f->topic)) < 0 ||
	    (r = put_i64(out, "partition", f->partition)) < 0 ||
	    (r = put_ranges(out, "offsets", &f->offsets)) < 0 ||
	    (r = put_time(out, "min_event_us", f->min_event_us)) < 0 ||
	    (r = put_time(out, "max_event_us", f->max_event_us)) < 0 ||
	    (r = put_u64(out, "revision", f->revision)) < 0)
		return r;
	return put(out, "}");
}

static int
put_part(struct buf *out, const struct manifest_partition *p)
{
	int r;

	if ((r = put(out, "{")) < 0 ||
	    (r = put_str(out, "topic", p->topic)) < 0 ||
	    (r = put_i64(out, "partition", p->partition)) < 0 ||
	    (r = put_ranges(out, "offsets", &p->offsets)) < 0 ||
	    (r = put_u64(out, "rows", p->rows)) < 0)
		return r;
	return put(out, "}");
}

int
manifest_format(const struct manifest *m, struct buf *out)
{
	size_t i;
	int r;

	if ((r = put(out, "{")) < 0 ||
	    (r = put_i64(out, "kedge", MANIFEST_VERSION)) < 0 ||
	    (r = put_str(out, "table", m->table)) < 0 ||
	    (r = put_str(out, "dt", m->dt)) < 0 ||
	    (r = put_str(out, "hr", m->hr)) < 0 ||
	    (r = put_u64(out, "revision", m->revision)) < 0 ||
	    (r = put_str(out, "host", m->host)) < 0 ||
	    (r = put_str(out, "written", m->written)) < 0 ||
	    (r = put_i64(out, "watermark_us", m->watermark_us)) < 0 ||
	    (r = put_u64(out, "rows", m->rows)) < 0 ||
	    (r = put_u64(out, "bytes", m->bytes)) < 0 ||
	    (r = put_u64(out, "rejects", m->rejects)) < 0 ||
	    (r = put_u64(out, "late_rows", m->late_rows)) < 0 ||
	    (r = put_time(out, "min_event_us", m->min_event_us)) < 0 ||
	    (r = put_time(out, "max_event_us", m->max_event_us)) < 0 ||
	    (r = put_key(out, "files")) < 0 || (r = put(out, "[")) < 0)
		return r;
	for (i = 0; i < m->nfiles; i++)
		if ((i > 0 && (r = put(out, ",")) < 0) ||
		    (r = put_file(out, &m->files[i])) < 0)
			return r;
	if ((r = put(out, "]")) < 0 ||
	    (r = put_key(out, "partitions")) < 0 || (r = put(out, "[")) < 0)
		return r;
	for (i = 0; i < m->nparts; i++)
		if ((i > 0 && (r = put(out, ",")) < 0) ||
		    (r = put_part(out, &m->parts[i])) < 0)
			return r;
	return put(out, "]}\n");
}

/*
 * Reading: one table of fields per kind of object, in the order they are
 * written, and one function that reads a value by its field's kind.
 */

enum field_kind {
	F_VERSION,    /* "kedge": must be MANIFEST_VERSION; not stored */
	F_NAME,       /* char *: not empty, no '/' */
	F_FILENAME,   /* char *: a part file's name */
	F_DT,         /* char[9]: YYYYMMDD */
	F_HR,         /* char[3]: 00..23 */
	F_WRITTEN,    /* char[21]: YYYY-MM-DDTHH:MM:SSZ */
	F_SHA256,     /* char[65]: 64 lowercase hex digits, or empty */
	F_COUNT,      /* uint64_t, from a non-negative JSON integer */
	F_REVISION,   /* uint64_t, at least 1 */
	F_PARTITION,  /* int32_t, not negative */
	F_MICROS,     /* int64_t, not negative */
	F_TIME,       /* int64_t, not negative, or null: MANIFEST_NO_TIME */
	F_RANGES,     /* struct sidecar_ranges */
	F_FILES,      /* the manifest's files */
	F_PARTS       /* the manifest's partitions */
};

struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
};

#define M(key, kind, member) { key, kind, offsetof(struct manifest, member) }
static const struct field manifest_fields[] = {
	{ "kedge", F_VERSION, 0 },
	M("table", F_NAME, table),
	M("dt", F_DT, dt),
	M("hr", F_HR, hr),
	M("revision", F_REVISION, revision),
	M("host", F_NAME, host),
	M("written", F_WRITTEN, written),
	M("watermark_us", F_MICROS, watermark_us),
	M("rows", F_COUNT, rows),
	M("bytes", F_COUNT, bytes),
	M("rejects", F_COUNT, rejects),
	M("late_rows", F_COUNT, late_rows),
	M("min_event_us", F_TIME, min_event_us),
	M("max_event_us", F_TIME, max_event_us),
	{ "files", F_FILES, 0 },
	{ "partitions", F_PARTS, 0 },
};
#undef M

#define F(key, kind, member) \
	{ key, kind, offsetof(struct manifest_file, member) }
static const struct field file_fields[] = {
	F("name", F_FILENAME, name),
	F("bytes", F_COUNT, bytes),
	F("rows", F_COUNT, rows),
	F("sha256", F_SHA256, sha256),
	F("topic", F_NAME, topic),
	F("partition", F_PARTITION, partition),
	F("offsets", F_RANGES, offsets),
	F("min_event_us", F_TIME, min_event_us),
	F("max_event_us", F_TIME, max_event_us),
	F("revision", F_REVISION, revision),
};
#undef F

#define P(key, kind, member) \
	{ key, kind, offsetof(struct manifest_partition, member) }
static const struct field part_fields[] = {
	P("topic", F_NAME, topic),
	P("partition", F_PARTITION, partition),
	P("offsets", F_RANGES, offsets),
	P("rows", F_COUNT, rows),
};
#undef P

#define NKEYS_MAX 16
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NELEMS(manifest_fields) <= NKEYS_MAX &&
    NELEMS(file_fields) <= NKEYS_MAX, "read_object() has room for the keys");

/* What jr_object() passes to object_value(). */
struct object {
	const struct field *fields;
	char *base;            /* the struct the fields are in */
};

static int read_object(struct jr *j, const struct field *fields,
    size_t nfields, void *base);

/* Reads a string of the form shape, in which each of the letters Y, M, D,
 * H and S stands for a digit and any other character for itself, into out
 * (size bytes). */
static int
read_digits(struct jr *j, char *out, size_t size, const char *shape)
{
	char *s;
	size_t i, len = strlen(shape);
	int r;

	if ((r = jr_string(j, &s)) != 0)
		return r;
	for (i = 0; i < len && s[i] != '\0'; i++) {
		int digit = s[i] >= '0' && s[i] <= '9';
		if (strchr("YMDHS", shape[i]) != NULL ? !digit :
		    s[i] != shape[i])
			break;
	}
	if (i < len || s[i] != '\0' || len >= size) {
		free(s);
		return jr_fail(j, "not of the form %s", shape);
	}
	memcpy(out, s, len + 1);
	free(s);
	return 0;
}

static int
read_nonneg(struct jr *j, int64_t *v)
{
	int r;

	if ((r = jr_int(j, v)) == 0 && *v < 0)
		return jr_fail(j, "negative");
	return r;
}

/* Reads a string that is a name: not empty, no '/', and with part_file
 * not starting with '.' or '_' either. */
static int
read_name(struct jr *j, char **out, int part_file)
{
	int r;

	if ((r = jr_string(j, out)) != 0)
		return r;
	if (**out == '\0' || strchr(*out, '/') != NULL)
		return jr_fail(j, "empty, or holds '/'");
	if (part_file && (**out == '.' || **out == '_'))
		return jr_fail(j, "not a part file's name");
	return 0;
}

static int
read_sha256(struct jr *j, char *out)
{
	char *s;
	size_t len;
	int r;

	if ((r = jr_string(j, &s)) != 0)
		return r;
	len = strlen(s);
	if ((len != 0 && len != 64) || strspn(s, "0123456789abcdef") != len) {
		free(s);
		return jr_fail(j, "neither empty nor 64 lowercase hex digits");
	}
	memcpy(out, s, len + 1);
	free(s);
	return 0;
}

/* Reads [{...},...] into *v[0..*n), objects of fields[0..nfields), each
 * size bytes; names the element in a problem found inside one. */
static int
read_array(struct jr *j, const struct field *fields, size_t nfields,
    void **v, size_t *n, size_t size)
{
	const char *key = j->key;
	char inner[512];
	size_t cap = 0;
	void *nv, *elem;
	int r;

	if ((r = jr_expect(j, '[')) != 0)
		return r;
	if (jr_accept(j, ']'))
		return 0;
	do {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			if ((nv = realloc(*v, cap * size)) == NULL)
				return -ENOMEM;
			*v = nv;
		}
		/* counted now, so manifest_free() frees what was read */
		elem = (char *)*v + *n * size;
		memset(elem, 0, size);
		(*n)++;
		if ((r = read_object(j, fields, nfields, elem)) == -EINVAL) {
			snprintf(inner, sizeof(inner), "%s", j->err);
			snprintf(j->err, j->errlen, "\"%s\"[%zu]: %s", key,
			    *n - 1, inner);
		}
		if (r != 0)
			return r;
		j->key = key;
	} while (jr_accept(j, ','));
	return jr_expect(j, ']');
}

static int
read_value(struct jr *j, const struct field *f, char *base)
{
	struct manifest *m = (struct manifest *)(void *)base;
	void *at = base + f->off;
	int64_t v;
	int r;

	switch (f->kind) {
	case F_VERSION:
		if ((r = jr_int(j, &v)) == 0 && v != MANIFEST_VERSION)
			return jr_fail(j, "version %" PRId64 ", this kedge reads "
			    "%d", v, MANIFEST_VERSION);
		return r;
	case F_NAME:
	case F_FILENAME:
		return read_name(j, at, f->kind == F_FILENAME);
	case F_DT:
		return read_digits(j, at, sizeof(m->dt), "YYYYMMDD");
	case F_HR:
		if ((r = read_digits(j, at, sizeof(m->hr), "HH")) == 0 &&
		    strcmp(at, "23") > 0)
			return jr_fail(j, "no hour %s", (char *)at);
		return r;
	case F_WRITTEN:
		return read_digits(j, at, sizeof(m->written),
		    "YYYY-MM-DDTHH:MM:SSZ");
	case F_SHA256:
		return read_sha256(j, at);
	case F_COUNT:
	case F_REVISION:
		if ((r = read_nonneg(j, &v)) != 0)
			return r;
		if (f->kind == F_REVISION && v == 0)
			return jr_fail(j, "revisions start at 1");
		*(uint64_t *)at = (uint64_t)v;
		return 0;
	case F_PARTITION:
		if ((r = read_nonneg(j, &v)) != 0)
			return r;
		if (v > INT32_MAX)
			return jr_fail(j, "partition out of range");
		*(int32_t *)at = (int32_t)v;
		return 0;
	case F_TIME:
		if (jr_null(j)) {
			*(int64_t *)at = MANIFEST_NO_TIME;
			return 0;
		}
		/* FALLTHROUGH */
	case F_MICROS:
		return read_nonneg(j, at);
	case F_RANGES:
		return sidecar_ranges_parse(j, at);
	case F_FILES:
		return read_array(j, file_fields, NELEMS(file_fields),
		    (void **)&m->files, &m->nfiles, sizeof(*m->files));
	case F_PARTS:
		return read_array(j, part_fields, NELEMS(part_fields),
		    (void **)&m->parts, &m->nparts, sizeof(*m->parts));
	}
	return -EINVAL;
}

/* jr_value_fn: the value of the object's fields[i]. */
static int
object_value(struct jr *j, size_t i, void *arg)
{
	struct object *o = arg;

	return read_value(j, &o->fields[i], o->base);
}

/* Reads an object that has each of fields[0..nfields) once into base. */
static int
read_object(struct jr *j, const struct field *fields, size_t nfields,
    void *base)
{
	const char *keys[NKEYS_MAX];
	struct object o = { fields, base };
	size_t at, i;
	uint64_t seen;
	int r;

	for (i = 0; i < nfields; i++)
		keys[i] = fields[i].key;
	jr_ws(j);
	at = (size_t)(j->p - j->start) + 1;
	if ((r = jr_object(j, keys, nfields, object_value, &o, &seen)) != 0)
		return r;
	for (i = 0; i < nfields; i++)
		if (!(seen & (uint64_t)1 << i)) {
			snprintf(j->err, j->errlen, "no \"%s\" in the object at "
			    "column %zu", fields[i].key, at);
			return -EINVAL;
		}
	return 0;
}

/* Checks that min and max are both times with min <= max, or both none. */
static int
check_times(int64_t min, int64_t max)
{
	if ((min == MANIFEST_NO_TIME) != (max == MANIFEST_NO_TIME))
		return -EINVAL;
	return min <= max ? 0 : -EINVAL;
}

/* The rules that tie fields together. */
static int
manifest_check(const struct manifest *m, char *err, size_t errlen)
{
	const struct manifest_file *f;

	if (check_times(m->min_event_us, m->max_event_us) != 0) {
		snprintf(err, errlen, "\"min_event_us\" and \"max_event_us\" "
		    "are not both null or an interval");
		return -EINVAL;
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		if (check_times(f->min_event_us, f->max_event_us) != 0) {
			snprintf(err, errlen, "\"files\"[%zu]: \"min_event_us\" "
			    "and \"max_event_us\" are not both null or an "
			    "interval", i);
			return -EINVAL;
		}
		if (f->revision > m->revision) {
			snprintf(err, errlen, "\"files\"[%zu]: revision %" PRIu64
			    " after the manifest's %" PRIu64, i, f->revision,
			    m->revision);
			return -EINVAL;
		}
	}
	return 0;
}

int
manifest_parse(const char *text, size_t len, struct manifest *m, char *err,
    size_t errlen)
{
	struct jr j = JR_INIT(text, len, err, errlen);
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = read_object(&j, manifest_fields, NELEMS(manifest_fields),
	    m)) != 0 || (r = jr_end(&j)) != 0)
		return r;
	return manifest_check(m, err, errlen);
}

void
manifest_free(struct manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	free(m->table);
	free(m->host);
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].name);
		free(m->files[i].topic);
		sidecar_ranges_free(&m->files[i].offsets);
	}
	free(m->files);
	for (i = 0; i < m->nparts; i++) {
		free(m->parts[i].topic);
		sidecar_ranges_free(&m->parts[i].offsets);
	}
	free(m->parts);
	memset(m, 0, sizeof(*m));
}
