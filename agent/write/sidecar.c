#include "agent/write/sidecar.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/write/fingerprint.h"
#include "lib/err.h"
#include "lib/grow.h"
#include "lib/jsondoc.h"

int
sidecar_ranges_push(struct sidecar_ranges *r, int64_t first, int64_t last)
{
	if (grow_array((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return -ENOMEM;
	r->v[r->n].first = first;
	r->v[r->n].last = last;
	r->n++;
	return 0;
}

int
sidecar_ranges_parse(struct jsondoc *d, const json_t *v,
    struct sidecar_ranges *out)
{
	const json_t *pair;
	size_t i;
	int64_t a, b;
	int r;

	if ((r = jsondoc_array(d, v)) != 0)
		return r;
	json_array_foreach(v, i, pair) {
		if (!json_is_array(pair) || json_array_size(pair) != 2 ||
		    !json_is_integer(json_array_get(pair, 0)) ||
		    !json_is_integer(json_array_get(pair, 1)))
			return jsondoc_fail(d, "element %zu is not a range "
			    "[first,last] of two integers", i);
		a = (int64_t)json_integer_value(json_array_get(pair, 0));
		b = (int64_t)json_integer_value(json_array_get(pair, 1));
		if (a < 0)
			return jsondoc_fail(d, "negative offset in [%" PRId64 ",%"
			    PRId64 "]", a, b);
		if (a > b)
			return jsondoc_fail(d, "range [%" PRId64 ",%" PRId64
			    "] ends before it starts", a, b);
		if (out->n > 0 && a <= out->v[out->n - 1].last)
			return jsondoc_fail(d, "range [%" PRId64 ",%" PRId64
			    "] is out of order or overlaps the one before", a,
			    b);
		if ((r = sidecar_ranges_push(out, a, b)) != 0)
			return r;
	}
	return 0;
}

json_t *
sidecar_ranges_json(const struct sidecar_ranges *r)
{
	json_t *a = json_array(), *pair;

	for (size_t i = 0; a != NULL && i < r->n; i++) {
		pair = json_pack("[II]", (json_int_t)r->v[i].first,
		    (json_int_t)r->v[i].last);
		/* json_array_append_new() takes pair, even on failure */
		if (pair == NULL || json_array_append_new(a, pair) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

/* Reads {"table":[ranges],...} into sc->rejected. */
static int
read_rejected(struct jsondoc *d, const json_t *v, struct sidecar *sc)
{
	const char *table;
	json_t *ranges;
	size_t n = json_object_size(v);
	int r;

	if (!json_is_object(v))
		return jsondoc_fail(d, "expected an object of ranges");
	if (n == 0)
		return 0;
	if ((sc->rejected = calloc(n, sizeof(*sc->rejected))) == NULL)
		return -ENOMEM;
	json_object_foreach((json_t *)v, table, ranges) {
		struct sidecar_rejected *rj = &sc->rejected[sc->nrejected];

		/* counted now, so sidecar_clear() frees it whatever fails
		 * next */
		if ((rj->table = strdup(table)) == NULL)
			return -ENOMEM;
		sc->nrejected++;
		if (strcmp(table, REJECTS_TABLE) == 0)
			return jsondoc_fail(d, "rejects for the rejects table");
		if ((r = sidecar_ranges_parse(d, ranges, &rj->ranges)) != 0)
			return r;
	}
	return 0;
}

int
sidecar_digest_parse(struct jsondoc *d, const json_t *v, size_t digits,
    int empty_ok, char *out)
{
	const char *s = NULL;
	size_t len;
	int r;

	if ((r = jsondoc_str(d, v, &s)) != 0)
		return r;
	len = strlen(s);
	if ((len != digits && (len != 0 || !empty_ok)) ||
	    strspn(s, "0123456789abcdef") != len)
		return jsondoc_fail(d, "%s%zu lowercase hex digits", empty_ok ?
		    "neither empty nor " : "not ", digits);
	memcpy(out, s, len + 1);
	return 0;
}

enum field_kind {
	F_VERSION, F_PARTITION, F_COUNT, F_NAME, F_FORMAT, F_CODEC, F_RANGES,
	F_REJECTED, F_CRC32C, F_SHA256, F_EVENT, F_FINGERPRINT
};

static const struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
	int optional;    /* absent from sidecars of earlier versions */
} fields[] = {
	{ "kedge", F_VERSION, offsetof(struct sidecar, version), 0 },
	{ "table", F_NAME, offsetof(struct sidecar, table), 0 },
	{ "topic", F_NAME, offsetof(struct sidecar, topic), 0 },
	{ "partition", F_PARTITION, offsetof(struct sidecar, partition), 0 },
	{ "host", F_NAME, offsetof(struct sidecar, host), 0 },
	{ "first_offset", F_COUNT, offsetof(struct sidecar, first_offset), 0 },
	{ "rows", F_COUNT, offsetof(struct sidecar, rows), 0 },
	{ "bytes", F_COUNT, offsetof(struct sidecar, bytes), 0 },
	{ "crc32c", F_CRC32C, offsetof(struct sidecar, crc32c), 1 },
	{ "sha256", F_SHA256, offsetof(struct sidecar, sha256), 1 },
	{ "format", F_FORMAT, offsetof(struct sidecar, format), 0 },
	{ "codec", F_CODEC, offsetof(struct sidecar, codec), 0 },
	{ "min_event_us", F_EVENT, offsetof(struct sidecar, min_event_us), 1 },
	{ "max_event_us", F_EVENT, offsetof(struct sidecar, max_event_us), 1 },
	{ "fingerprint", F_FINGERPRINT, offsetof(struct sidecar, fingerprint),
	    1 },
	{ "offsets", F_RANGES, offsetof(struct sidecar, offsets), 0 },
	{ "empty", F_RANGES, offsetof(struct sidecar, empty), 0 },
	{ "spill", F_RANGES, offsetof(struct sidecar, spill), 0 },
	{ "unread", F_RANGES, offsetof(struct sidecar, unread), 1 },
	{ "rejected", F_REJECTED, 0, 0 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
_Static_assert(NFIELDS <= JSONDOC_KEYS_MAX, "jsondoc_fields() has room");

/* The sidecar being parsed, and what its fields alone do not keep. */
struct sidecar_read {
	struct sidecar *sc;
	int events;         /* event-time keys given */
	int event_nulls;    /* event-time keys that were null */
};

static int
sidecar_read_value(struct jsondoc *d, const struct field *f, const json_t *v,
    struct sidecar_read *rd)
{
	struct sidecar *sc = rd->sc;
	char *base = (char *)sc + f->off;
	int64_t *i64 = (int64_t *)(void *)base;
	const char *s = NULL;
	int r;

	switch (f->kind) {
	case F_VERSION:
		return jsondoc_int(d, v, 0, INT64_MAX, i64);
	case F_PARTITION:
		return jsondoc_int(d, v, 0, INT32_MAX, i64);
	case F_COUNT:
		return jsondoc_int(d, v, 0, INT64_MAX, i64);
	case F_NAME:
		return jsondoc_name(d, v, (char **)(void *)base);
	case F_FORMAT:
	case F_CODEC:
		if ((r = jsondoc_str(d, v, &s)) != 0)
			return r;
		r = f->kind == F_FORMAT ?
		    format_kind_parse(s, (enum format_kind *)(void *)base) :
		    codec_kind_parse(s, (enum codec_kind *)(void *)base);
		return r == 0 ? 0 : jsondoc_fail(d, "unknown name");
	case F_RANGES:
		return sidecar_ranges_parse(d, v,
		    (struct sidecar_ranges *)(void *)base);
	case F_REJECTED:
		return read_rejected(d, v, sc);
	case F_CRC32C:
		return sidecar_digest_parse(d, v, CRC32C_HEX, 0, base);
	case F_SHA256:
		return sidecar_digest_parse(d, v, SIDECAR_SHA256_HEX, 0, base);
	case F_EVENT:
		if (json_is_null(v)) {
			rd->event_nulls++;
			return 0;
		}
		/* INT64_MIN is a manifest's "no time" */
		return jsondoc_int(d, v, -INT64_MAX, INT64_MAX, i64);
	case F_FINGERPRINT:
		if ((r = jsondoc_str(d, v, &s)) != 0)
			return r;
		if (fingerprint_parse(s, (uint64_t *)(void *)base) < 0)
			return jsondoc_fail(d, "not %d lowercase hex digits",
			    FINGERPRINT_HEX);
		sc->has_fingerprint = 1;
		return 0;
	}
	return -EINVAL;
}

/* The event range: both keys or neither (an earlier version's sidecar),
 * null exactly when the file holds no row. */
static int
sidecar_check_events(struct sidecar *sc, int present, int nulls, char *err,
    size_t errlen)
{
	if (present == 0)
		return 0;
	if (present == 1 || nulls == 1) {
		return err_set(err, errlen, -EINVAL,
		    "only one of \"min_event_us\" and "
		    "\"max_event_us\" is %s", present == 1 ? "given" : "null");
	}
	if (nulls == 2) {
		if (sc->rows == 0)
			return 0;
		return err_set(err, errlen, -EINVAL,
		    "no event times for %" PRId64 " rows",
		    sc->rows);
	}
	if (sc->rows == 0) {
		return err_set(err, errlen, -EINVAL,
		    "event times in a file of no row");
	}
	if (sc->min_event_us > sc->max_event_us) {
		return err_set(err, errlen, -EINVAL,
		    "min_event_us %" PRId64 " is after "
		    "max_event_us %" PRId64, sc->min_event_us,
		    sc->max_event_us);
	}
	sc->has_event_range = 1;
	return 0;
}

/* The rules that tie fields together. */
static int
sidecar_check(const struct sidecar *sc, char *err, size_t errlen)
{
	int rejects = strcmp(sc->table, REJECTS_TABLE) == 0;

	if (sc->version != SIDECAR_VERSION) {
		return err_set(err, errlen, -EINVAL,
		    "version %" PRId64 ", this kedge reads %d",
		    sc->version, SIDECAR_VERSION);
	}
	if (rejects && (sc->offsets.n || sc->empty.n || sc->spill.n ||
	    sc->unread.n)) {
		return err_set(err, errlen, -EINVAL,
		    "a rejects file with \"offsets\", "
		    "\"empty\", \"spill\" or \"unread\" ranges");
	}
	if (!rejects && sc->nrejected > 0) {
		return err_set(err, errlen, -EINVAL,
		    "\"rejected\" in a file of table %s",
		    sc->table);
	}
	return 0;
}

static int
sidecar_read_field(struct jsondoc *d, size_t i, const json_t *v, void *arg)
{
	struct sidecar_read *rd = arg;
	const struct field *f = &fields[i];

	if (v != NULL) {
		rd->events += f->kind == F_EVENT;
		return sidecar_read_value(d, f, v, rd);
	}
	/* only a rejects file must have "rejected"; "table" comes before it,
	 * so is read by then */
	if (!f->optional && (f->kind != F_REJECTED ||
	    strcmp(rd->sc->table, REJECTS_TABLE) == 0))
		return jsondoc_missing(d, f->key);
	return 0;
}

/* Reads the fields of the object root into rd. */
static int
sidecar_read(struct jsondoc *d, const json_t *root, struct sidecar_read *rd)
{
	const char *keys[NFIELDS];

	for (size_t i = 0; i < NFIELDS; i++)
		keys[i] = fields[i].key;
	return jsondoc_fields(d, root, keys, NFIELDS, sidecar_read_field, rd);
}

int
sidecar_parse(const char *text, size_t len, struct sidecar *sc, char *err,
    size_t errlen)
{
	struct jsondoc d = JSONDOC_INIT(err, errlen);
	struct sidecar_read rd = { sc, 0, 0 };
	json_t *root;
	int r;

	if ((root = jsondoc_parse(&d, text, len)) == NULL)
		return -EINVAL;
	r = sidecar_read(&d, root, &rd);
	json_decref(root);
	if (r != 0 || (r = sidecar_check(sc, err, errlen)) != 0)
		return r;
	return sidecar_check_events(sc, rd.events, rd.event_nulls, err,
	    errlen);
}

/* Sets key of o to the ranges r. */
static int
set_ranges(json_t *o, const char *key, const struct sidecar_ranges *r)
{
	return jsondoc_set(o, key, sidecar_ranges_json(r));
}

/* Sets "rejected" of o. */
static int
set_rejected(json_t *o, const struct sidecar *sc)
{
	json_t *rj = json_object();
	int r;

	if ((r = jsondoc_set(o, "rejected", rj)) != 0)
		return r;
	for (size_t i = 0; i < sc->nrejected; i++) {
		if ((r = jsondoc_utf8(sc->rejected[i].table)) != 0 ||
		    (r = set_ranges(rj, sc->rejected[i].table,
		    &sc->rejected[i].ranges)) != 0)
			return r;
	}
	return 0;
}

int
sidecar_format(const struct sidecar *sc, struct buf *out)
{
	char fp[FINGERPRINT_HEX + 1];
	json_t *o = json_object();
	int r;

	if (o == NULL)
		return -ENOMEM;
	if ((r = jsondoc_set_int(o, "kedge", sc->version)) != 0 ||
	    (r = jsondoc_set_str(o, "table", sc->table)) != 0 ||
	    (r = jsondoc_set_str(o, "topic", sc->topic)) != 0 ||
	    (r = jsondoc_set_int(o, "partition", sc->partition)) != 0 ||
	    (r = jsondoc_set_str(o, "host", sc->host)) != 0 ||
	    (r = jsondoc_set_int(o, "first_offset", sc->first_offset)) != 0 ||
	    (r = jsondoc_set_int(o, "rows", sc->rows)) != 0 ||
	    (r = jsondoc_set_int(o, "bytes", sc->bytes)) != 0 ||
	    (sc->crc32c[0] != '\0' &&
	    (r = jsondoc_set_str(o, "crc32c", sc->crc32c)) != 0) ||
	    (sc->sha256[0] != '\0' &&
	    (r = jsondoc_set_str(o, "sha256", sc->sha256)) != 0) ||
	    (r = jsondoc_set_str(o, "format",
	    format_kind_name(sc->format))) != 0 ||
	    (r = jsondoc_set_str(o, "codec", codec_kind_name(sc->codec))) != 0)
		goto out;
	if (sc->has_event_range) {
		if ((r = jsondoc_set_int(o, "min_event_us",
		    sc->min_event_us)) != 0 || (r = jsondoc_set_int(o,
		    "max_event_us", sc->max_event_us)) != 0)
			goto out;
	} else if (sc->rows == 0) {
		if ((r = jsondoc_set(o, "min_event_us", json_null())) != 0 ||
		    (r = jsondoc_set(o, "max_event_us", json_null())) != 0)
			goto out;
	}
	if (sc->has_fingerprint && (r = jsondoc_set_str(o, "fingerprint",
	    fingerprint_format(sc->fingerprint, fp))) != 0)
		goto out;
	if ((r = set_ranges(o, "offsets", &sc->offsets)) != 0 ||
	    (r = set_ranges(o, "empty", &sc->empty)) != 0 ||
	    (r = set_ranges(o, "spill", &sc->spill)) != 0 ||
	    (sc->unread.n > 0 &&
	    (r = set_ranges(o, "unread", &sc->unread)) != 0))
		goto out;
	if ((sc->nrejected > 0 || strcmp(sc->table, REJECTS_TABLE) == 0) &&
	    (r = set_rejected(o, sc)) != 0)
		goto out;
	r = jsondoc_dump(o, out);
out:
	json_decref(o);
	return r;
}

void
sidecar_ranges_clear(struct sidecar_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void
sidecar_clear(struct sidecar *sc)
{
	if (sc == NULL)
		return;
	free(sc->table);
	free(sc->topic);
	free(sc->host);
	sidecar_ranges_clear(&sc->offsets);
	sidecar_ranges_clear(&sc->empty);
	sidecar_ranges_clear(&sc->spill);
	sidecar_ranges_clear(&sc->unread);
	for (size_t i = 0; i < sc->nrejected; i++) {
		free(sc->rejected[i].table);
		sidecar_ranges_clear(&sc->rejected[i].ranges);
	}
	free(sc->rejected);
	memset(sc, 0, sizeof(*sc));
}

uint64_t
sidecar_ranges_count(const struct sidecar_ranges *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		uint64_t k = (uint64_t)(r->v[i].last - r->v[i].first) + 1;
		if (n > UINT64_MAX - k)
			return UINT64_MAX;
		n += k;
	}
	return n;
}
