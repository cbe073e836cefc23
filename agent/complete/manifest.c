#include "agent/complete/manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/write/fingerprint.h"
#include "lib/err.h"
#include "lib/jsondoc.h"

/*
 * Writing: the keys in the order of the example in manifest.h.
 */

/* The counts are uint64_t, JSON integers int64: none of kedge's comes
 * near, and a larger one must not turn negative. */
static int
set_count(json_t *o, const char *key, uint64_t v)
{
	if (v > INT64_MAX)
		return -ERANGE;
	return jsondoc_set_int(o, key, (int64_t)v);
}

static int
set_time(json_t *o, const char *key, int64_t us)
{
	return jsondoc_set_int_or_null(o, key, us, MANIFEST_NO_TIME);
}

/* The file f as an object (NULL: *r says why); for set_array(). */
static json_t *
file_json(const void *arg, int *r)
{
	const struct manifest_file *f = arg;
	json_t *o = json_object();

	if (o == NULL)
		*r = -ENOMEM;
	else if ((*r = jsondoc_set_str(o, "name", f->name)) != 0 ||
	    (*r = set_count(o, "bytes", f->bytes)) != 0 ||
	    (*r = set_count(o, "rows", f->rows)) != 0 ||
	    (f->crc32c[0] != '\0' &&
	    (*r = jsondoc_set_str(o, "crc32c", f->crc32c)) != 0) ||
	    (f->sha256[0] != '\0' &&
	    (*r = jsondoc_set_str(o, "sha256", f->sha256)) != 0) ||
	    (*r = jsondoc_set_str(o, "topic", f->topic)) != 0 ||
	    (*r = jsondoc_set_int(o, "partition", f->partition)) != 0 ||
	    (*r = jsondoc_set(o, "offsets",
	    sidecar_ranges_json(&f->offsets))) != 0 ||
	    (*r = set_time(o, "min_event_us", f->min_event_us)) != 0 ||
	    (*r = set_time(o, "max_event_us", f->max_event_us)) != 0 ||
	    (*r = set_count(o, "revision", f->revision)) != 0) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

/* The partition p as an object (NULL: *r says why); for set_array(). */
static json_t *
part_json(const void *arg, int *r)
{
	const struct manifest_partition *p = arg;
	json_t *o = json_object();

	if (o == NULL)
		*r = -ENOMEM;
	else if ((*r = jsondoc_set_str(o, "topic", p->topic)) != 0 ||
	    (*r = jsondoc_set_int(o, "partition", p->partition)) != 0 ||
	    (*r = jsondoc_set(o, "offsets",
	    sidecar_ranges_json(&p->offsets))) != 0 ||
	    (*r = set_count(o, "rows", p->rows)) != 0) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

/* Sets key of o to the array of the n elements of v, each of size bytes,
 * made by elem(). */
static int
set_array(json_t *o, const char *key, const void *v, size_t n, size_t size,
    json_t *(*elem)(const void *, int *))
{
	json_t *a = json_array(), *e;
	int r;

	if ((r = jsondoc_set(o, key, a)) != 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if ((e = elem((const char *)v + i * size, &r)) == NULL)
			return r;
		if (json_array_append_new(a, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

int
manifest_format(const struct manifest *m, struct buf *out)
{
	char fp[FINGERPRINT_HEX + 1];
	json_t *o = json_object();
	int r;

	if (o == NULL)
		return -ENOMEM;
	if ((r = jsondoc_set_int(o, "kedge", MANIFEST_VERSION)) == 0 &&
	    (r = jsondoc_set_str(o, "table", m->table)) == 0 &&
	    (r = jsondoc_set_str(o, "dt", m->dt)) == 0 &&
	    (r = jsondoc_set_str(o, "hr", m->hr)) == 0 &&
	    (r = set_count(o, "revision", m->revision)) == 0 &&
	    (r = jsondoc_set_str(o, "host", m->host)) == 0 &&
	    (r = jsondoc_set_str(o, "written", m->written)) == 0 &&
	    (r = jsondoc_set_int(o, "watermark_us", m->watermark_us)) == 0 &&
	    (r = set_count(o, "rows", m->rows)) == 0 &&
	    (r = set_count(o, "bytes", m->bytes)) == 0 &&
	    (r = set_count(o, "rejects", m->rejects)) == 0 &&
	    (r = set_count(o, "late_rows", m->late_rows)) == 0 &&
	    (r = set_time(o, "min_event_us", m->min_event_us)) == 0 &&
	    (r = set_time(o, "max_event_us", m->max_event_us)) == 0 &&
	    (!m->has_fingerprint || (r = jsondoc_set_str(o, "fingerprint",
	    fingerprint_format(m->fingerprint, fp))) == 0) &&
	    (r = set_array(o, "files", m->files, m->nfiles, sizeof(*m->files),
	    file_json)) == 0 &&
	    (r = set_array(o, "partitions", m->parts, m->nparts,
	    sizeof(*m->parts), part_json)) == 0)
		r = jsondoc_dump(o, out);
	json_decref(o);
	return r;
}

/*
 * Reading: one table of fields per kind of object, in the order they are
 * written, and one function that reads a value by its field's kind.
 */

enum field_kind {
	F_VERSION,    /* "kedge": must be MANIFEST_VERSION; not stored */
	F_NAME,       /* char *: not empty, ".", ".." nor holding '/' */
	F_FILENAME,   /* char *: a part file's name */
	F_DT,         /* char[9]: YYYYMMDD */
	F_HR,         /* char[3]: 00..23 */
	F_WRITTEN,    /* char[21]: YYYY-MM-DDTHH:MM:SSZ */
	F_CRC32C,     /* char[9]: 8 lowercase hex digits, or empty; optional */
	F_SHA256,     /* char[65]: 64 lowercase hex digits, or empty; optional */
	F_COUNT,      /* uint64_t, from a non-negative JSON integer */
	F_REVISION,   /* uint64_t, at least 1 */
	F_PARTITION,  /* int32_t, not negative */
	F_MICROS,     /* int64_t, an instant (before 1970: negative) */
	F_TIME,       /* int64_t, an instant, or null: MANIFEST_NO_TIME */
	F_RANGES,     /* struct sidecar_ranges */
	F_FINGERPRINT, /* uint64_t, 16 hex digits; optional: has_fingerprint */
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
	M("fingerprint", F_FINGERPRINT, fingerprint),
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
	F("crc32c", F_CRC32C, crc32c),
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

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NELEMS(manifest_fields) <= JSONDOC_KEYS_MAX &&
    NELEMS(file_fields) <= JSONDOC_KEYS_MAX,
    "jsondoc_fields() has room for the keys");

static int manifest_read_object(struct jsondoc *d, const json_t *v,
    const struct field *fields, size_t nfields, void *base);

/* Reads a string of the form shape, in which each of the letters Y, M, D,
 * H and S stands for a digit and any other character for itself, into out
 * (size bytes). */
static int
manifest_read_digits(struct jsondoc *d, const json_t *v, char *out, size_t size,
    const char *shape)
{
	const char *s = NULL;
	size_t i, len = strlen(shape);
	int r;

	if ((r = jsondoc_str(d, v, &s)) != 0)
		return r;
	for (i = 0; i < len && s[i] != '\0'; i++) {
		int digit = s[i] >= '0' && s[i] <= '9';
		if (strchr("YMDHS", shape[i]) != NULL ? !digit :
		    s[i] != shape[i])
			break;
	}
	if (i < len || s[i] != '\0' || len >= size)
		return jsondoc_fail(d, "not of the form %s", shape);
	memcpy(out, s, len + 1);
	return 0;
}

/* Reads a string that is a name (jsondoc_name()), and with part_file not
 * starting with '.' or '_' either. */
static int
manifest_read_name(struct jsondoc *d, const json_t *v, char **out,
    int part_file)
{
	int r;

	if ((r = jsondoc_name(d, v, out)) != 0)
		return r;
	if (part_file && (**out == '.' || **out == '_'))
		return jsondoc_fail(d, "not a part file's name");
	return 0;
}

/* Reads the array v of objects of fields[0..nfields), each size bytes,
 * into *out[0..*n); names the element in a problem found inside one. */
static int
manifest_read_array(struct jsondoc *d, const json_t *v,
    const struct field *fields, size_t nfields, void **out, size_t *n,
    size_t size)
{
	const char *key = d->key, *in = d->in;
	char where[128];
	const json_t *e;
	size_t i;
	int r;

	if ((r = jsondoc_array(d, v)) != 0)
		return r;
	if (json_array_size(v) == 0)
		return 0;
	if ((*out = calloc(json_array_size(v), size)) == NULL)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		/* counted now, so manifest_clear() frees what was read */
		(*n)++;
		snprintf(where, sizeof(where), "%s\"%s\"[%zu]: ", in, key, i);
		d->in = where;
		d->key = NULL;
		r = manifest_read_object(d, e, fields, nfields,
		    (char *)*out + i * size);
		d->in = in;
		d->key = key;
		if (r != 0)
			return r;
	}
	return 0;
}

static int
manifest_read_value(struct jsondoc *d, const json_t *v, const struct field *f,
    char *base)
{
	struct manifest *m = (struct manifest *)(void *)base;
	void *at = base + f->off;
	int64_t i64;
	int r;

	switch (f->kind) {
	case F_VERSION:
		if ((r = jsondoc_int(d, v, 0, INT64_MAX, &i64)) == 0 &&
		    i64 != MANIFEST_VERSION)
			return jsondoc_fail(d, "version %" PRId64 ", this kedge "
			    "reads %d", i64, MANIFEST_VERSION);
		return r;
	case F_NAME:
	case F_FILENAME:
		return manifest_read_name(d, v, at, f->kind == F_FILENAME);
	case F_DT:
		return manifest_read_digits(d, v, at, sizeof(m->dt),
		    "YYYYMMDD");
	case F_HR:
		r = manifest_read_digits(d, v, at, sizeof(m->hr), "HH");
		if (r == 0 && strcmp(at, "23") > 0)
			return jsondoc_fail(d, "no hour %s", (char *)at);
		return r;
	case F_WRITTEN:
		return manifest_read_digits(d, v, at, sizeof(m->written),
		    "YYYY-MM-DDTHH:MM:SSZ");
	case F_CRC32C:
		return sidecar_digest_parse(d, v, CRC32C_HEX, 1, at);
	case F_SHA256:
		return sidecar_digest_parse(d, v, SIDECAR_SHA256_HEX, 1, at);
	case F_COUNT:
	case F_REVISION:
		if ((r = jsondoc_int(d, v, 0, INT64_MAX, &i64)) != 0)
			return r;
		if (f->kind == F_REVISION && i64 == 0)
			return jsondoc_fail(d, "revisions start at 1");
		*(uint64_t *)at = (uint64_t)i64;
		return 0;
	case F_PARTITION:
		if ((r = jsondoc_int(d, v, 0, INT32_MAX, &i64)) != 0)
			return r;
		*(int32_t *)at = (int32_t)i64;
		return 0;
	case F_TIME:
		/* an event time is the sidecar's, which may precede 1970;
		 * INT64_MIN is MANIFEST_NO_TIME */
		return jsondoc_int_or_null(d, v, -INT64_MAX, INT64_MAX,
		    MANIFEST_NO_TIME, at);
	case F_MICROS:
		return jsondoc_int(d, v, -INT64_MAX, INT64_MAX, at);
	case F_RANGES:
		return sidecar_ranges_parse(d, v, at);
	case F_FINGERPRINT:
		{
			const char *s = NULL;

			if ((r = jsondoc_str(d, v, &s)) != 0)
				return r;
			if (fingerprint_parse(s, at) < 0)
				return jsondoc_fail(d, "not %d lowercase hex "
				    "digits", FINGERPRINT_HEX);
			m->has_fingerprint = 1;
			return 0;
		}
	case F_FILES:
		return manifest_read_array(d, v, file_fields,
		    NELEMS(file_fields), (void **)&m->files, &m->nfiles,
		    sizeof(*m->files));
	case F_PARTS:
		return manifest_read_array(d, v, part_fields,
		    NELEMS(part_fields), (void **)&m->parts, &m->nparts,
		    sizeof(*m->parts));
	}
	return -EINVAL;
}

/* The object manifest_read_object() reads: its fields, and where they go. */
struct object_read {
	const struct field *fields;
	char *base;
};

static int
manifest_read_field(struct jsondoc *d, size_t i, const json_t *v, void *arg)
{
	const struct object_read *o = arg;

	/* manifests written before the fingerprint have none, those
	 * written before the crc32c no crc32c, and later ones no sha256 */
	if (v == NULL && (o->fields[i].kind == F_FINGERPRINT ||
	    o->fields[i].kind == F_CRC32C || o->fields[i].kind == F_SHA256))
		return 0;
	if (v == NULL)
		return jsondoc_missing(d, o->fields[i].key);
	return manifest_read_value(d, v, &o->fields[i], o->base);
}

/* Reads the object v, which has each of fields[0..nfields) once, into
 * base. */
static int
manifest_read_object(struct jsondoc *d, const json_t *v,
    const struct field *fields, size_t nfields, void *base)
{
	const char *keys[JSONDOC_KEYS_MAX];
	struct object_read o = { fields, base };

	for (size_t i = 0; i < nfields; i++)
		keys[i] = fields[i].key;
	return jsondoc_fields(d, v, keys, nfields, manifest_read_field, &o);
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
		return err_set(err, errlen, -EINVAL,
		    "\"min_event_us\" and \"max_event_us\" "
		    "are not both null or an interval");
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		if (check_times(f->min_event_us, f->max_event_us) != 0) {
			return err_set(err, errlen, -EINVAL,
			    "\"files\"[%zu]: \"min_event_us\" "
			    "and \"max_event_us\" are not both null or an "
			    "interval", i);
		}
		if (f->revision > m->revision) {
			return err_set(err, errlen, -EINVAL,
			    "\"files\"[%zu]: revision %" PRIu64
			    " after the manifest's %" PRIu64, i, f->revision,
			    m->revision);
		}
	}
	return 0;
}

int
manifest_parse(const char *text, size_t len, struct manifest *m, char *err,
    size_t errlen)
{
	struct jsondoc d = JSONDOC_INIT(err, errlen);
	json_t *root;
	int r;

	memset(m, 0, sizeof(*m));
	if ((root = jsondoc_parse(&d, text, len)) == NULL)
		return -EINVAL;
	r = manifest_read_object(&d, root, manifest_fields,
	    NELEMS(manifest_fields), m);
	json_decref(root);
	if (r != 0)
		return r;
	return manifest_check(m, err, errlen);
}

void
manifest_clear(struct manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	free(m->table);
	free(m->host);
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].name);
		free(m->files[i].topic);
		sidecar_ranges_clear(&m->files[i].offsets);
	}
	free(m->files);
	for (i = 0; i < m->nparts; i++) {
		free(m->parts[i].topic);
		sidecar_ranges_clear(&m->parts[i].offsets);
	}
	free(m->parts);
	memset(m, 0, sizeof(*m));
}
