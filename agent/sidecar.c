#include "sidecar.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "rejects.h"

int
sidecar_ranges_push(struct sidecar_ranges *r, int64_t first, int64_t last)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct sidecar_range *v = realloc(r->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].first = first;
	r->v[r->n].last = last;
	r->n++;
	return 0;
}

int
sidecar_ranges_parse(struct jr *j, struct sidecar_ranges *out)
{
	int64_t a, b;
	int r;

	if ((r = jr_expect(j, '[')) != 0)
		return r;
	if (jr_accept(j, ']'))
		return 0;
	do {
		if ((r = jr_expect(j, '[')) != 0 || (r = jr_int(j, &a)) != 0 ||
		    (r = jr_expect(j, ',')) != 0 || (r = jr_int(j, &b)) != 0 ||
		    (r = jr_expect(j, ']')) != 0)
			return r;
		if (a < 0)
			return jr_fail(j, "negative offset in [%" PRId64 ",%"
			    PRId64 "]", a, b);
		if (a > b)
			return jr_fail(j, "range [%" PRId64 ",%" PRId64
			    "] ends before it starts", a, b);
		if (out->n > 0 && a <= out->v[out->n - 1].last)
			return jr_fail(j, "range [%" PRId64 ",%" PRId64
			    "] is out of order or overlaps the one before", a,
			    b);
		if ((r = sidecar_ranges_push(out, a, b)) != 0)
			return r;
	} while (jr_accept(j, ','));
	return jr_expect(j, ']');
}

/* Reads {"table":[ranges],...} into sc->rejected. */
static int
jr_rejected(struct jr *j, struct sidecar *sc)
{
	size_t cap = 0;
	char *table;
	int r;

	if ((r = jr_expect(j, '{')) != 0)
		return r;
	if (jr_accept(j, '}'))
		return 0;
	do {
		if ((r = jr_string(j, &table)) != 0)
			return r;
		for (size_t i = 0; i < sc->nrejected; i++) {
			if (strcmp(sc->rejected[i].table, table) == 0) {
				free(table);
				return jr_fail(j, "table \"%s\" named twice",
				    sc->rejected[i].table);
			}
		}
		if (sc->nrejected == cap) {
			struct sidecar_rejected *v;
			cap = cap ? cap * 2 : 4;
			v = realloc(sc->rejected, cap * sizeof(*v));
			if (v == NULL) {
				free(table);
				return -ENOMEM;
			}
			sc->rejected = v;
		}
		/* sc->rejected owns table from here, so sidecar_free() frees it
		 * whatever fails next */
		memset(&sc->rejected[sc->nrejected], 0, sizeof(*sc->rejected));
		sc->rejected[sc->nrejected++].table = table;
		if (strcmp(table, REJECTS_TABLE) == 0)
			return jr_fail(j, "rejects for the rejects table");
		if ((r = jr_expect(j, ':')) != 0 || (r = sidecar_ranges_parse(j,
		    &sc->rejected[sc->nrejected - 1].ranges)) != 0)
			return r;
	} while (jr_accept(j, ','));
	return jr_expect(j, '}');
}

/* Reads 64 lowercase hex digits into out. */
static int
jr_sha256(struct jr *j, char *out)
{
	char *s;
	int r;

	if ((r = jr_string(j, &s)) != 0)
		return r;
	if (strlen(s) != SIDECAR_SHA256_HEX ||
	    strspn(s, "0123456789abcdef") != SIDECAR_SHA256_HEX) {
		free(s);
		return jr_fail(j, "not %d lowercase hex digits",
		    SIDECAR_SHA256_HEX);
	}
	memcpy(out, s, SIDECAR_SHA256_HEX + 1);
	free(s);
	return 0;
}

enum field_kind {
	F_INT, F_NAME, F_FORMAT, F_CODEC, F_RANGES, F_REJECTED, F_SHA256,
	F_EVENT
};

static const struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
	int optional;    /* absent from sidecars of earlier versions */
} fields[] = {
	{ "kedge", F_INT, offsetof(struct sidecar, version), 0 },
	{ "table", F_NAME, offsetof(struct sidecar, table), 0 },
	{ "topic", F_NAME, offsetof(struct sidecar, topic), 0 },
	{ "partition", F_INT, offsetof(struct sidecar, partition), 0 },
	{ "host", F_NAME, offsetof(struct sidecar, host), 0 },
	{ "first_offset", F_INT, offsetof(struct sidecar, first_offset), 0 },
	{ "rows", F_INT, offsetof(struct sidecar, rows), 0 },
	{ "bytes", F_INT, offsetof(struct sidecar, bytes), 0 },
	{ "sha256", F_SHA256, offsetof(struct sidecar, sha256), 1 },
	{ "format", F_FORMAT, offsetof(struct sidecar, format), 0 },
	{ "codec", F_CODEC, offsetof(struct sidecar, codec), 0 },
	{ "min_event_us", F_EVENT, offsetof(struct sidecar, min_event_us), 1 },
	{ "max_event_us", F_EVENT, offsetof(struct sidecar, max_event_us), 1 },
	{ "offsets", F_RANGES, offsetof(struct sidecar, offsets), 0 },
	{ "empty", F_RANGES, offsetof(struct sidecar, empty), 0 },
	{ "spill", F_RANGES, offsetof(struct sidecar, spill), 0 },
	{ "unread", F_RANGES, offsetof(struct sidecar, unread), 1 },
	{ "rejected", F_REJECTED, 0, 0 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The sidecar being parsed, and what its fields alone do not keep. */
struct sidecar_read {
	struct sidecar *sc;
	int event_nulls;    /* event-time keys that were null */
};

static int
jr_value(struct jr *j, const struct field *f, struct sidecar_read *rd)
{
	struct sidecar *sc = rd->sc;
	char *base = (char *)sc + f->off, *s = NULL;
	int r;

	switch (f->kind) {
	case F_INT:
		if ((r = jr_int(j, (int64_t *)(void *)base)) == 0 &&
		    *(int64_t *)(void *)base < 0)
			return jr_fail(j, "negative");
		return r;
	case F_NAME:
		/* a name becomes a path component */
		if ((r = jr_string(j, (char **)(void *)base)) == 0 &&
		    (**(char **)(void *)base == '\0' ||
		    strchr(*(char **)(void *)base, '/') != NULL))
			return jr_fail(j, "empty, or holds '/'");
		return r;
	case F_FORMAT:
	case F_CODEC:
		if ((r = jr_string(j, &s)) != 0)
			return r;
		r = f->kind == F_FORMAT ?
		    format_kind_parse(s, (enum format_kind *)(void *)base) :
		    codec_kind_parse(s, (enum codec_kind *)(void *)base);
		free(s);
		return r == 0 ? 0 : jr_fail(j, "unknown name");
	case F_RANGES:
		return sidecar_ranges_parse(j,
		    (struct sidecar_ranges *)(void *)base);
	case F_REJECTED:
		return jr_rejected(j, sc);
	case F_SHA256:
		return jr_sha256(j, base);
	case F_EVENT:
		if (jr_null(j)) {
			rd->event_nulls++;
			return 0;
		}
		return jr_int(j, (int64_t *)(void *)base);
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
		snprintf(err, errlen, "only one of \"min_event_us\" and "
		    "\"max_event_us\" is %s", present == 1 ? "given" : "null");
		return -EINVAL;
	}
	if (nulls == 2) {
		if (sc->rows == 0)
			return 0;
		snprintf(err, errlen, "no event times for %" PRId64 " rows",
		    sc->rows);
		return -EINVAL;
	}
	if (sc->rows == 0) {
		snprintf(err, errlen, "event times in a file of no row");
		return -EINVAL;
	}
	if (sc->min_event_us > sc->max_event_us) {
		snprintf(err, errlen, "min_event_us %" PRId64 " is after "
		    "max_event_us %" PRId64, sc->min_event_us,
		    sc->max_event_us);
		return -EINVAL;
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
		snprintf(err, errlen, "version %" PRId64 ", this kedge reads %d",
		    sc->version, SIDECAR_VERSION);
		return -EINVAL;
	}
	if (sc->partition > INT32_MAX) {
		snprintf(err, errlen, "partition %" PRId64 " out of range",
		    sc->partition);
		return -EINVAL;
	}
	if (rejects && (sc->offsets.n || sc->empty.n || sc->spill.n ||
	    sc->unread.n)) {
		snprintf(err, errlen, "a rejects file with \"offsets\", "
		    "\"empty\", \"spill\" or \"unread\" ranges");
		return -EINVAL;
	}
	if (!rejects && sc->nrejected > 0) {
		snprintf(err, errlen, "\"rejected\" in a file of table %s",
		    sc->table);
		return -EINVAL;
	}
	return 0;
}

/* jr_value_fn: the value of fields[i]. */
static int
sidecar_value(struct jr *j, size_t i, void *arg)
{
	return jr_value(j, &fields[i], arg);
}

int
sidecar_parse(const char *text, size_t len, struct sidecar *sc, char *err,
    size_t errlen)
{
	static const char *keys[NFIELDS];
	struct jr j = JR_INIT(text, len, err, errlen);
	struct sidecar_read rd = { sc, 0 };
	uint64_t seen;
	size_t i;
	int r, events = 0;

	for (i = 0; i < NFIELDS; i++)
		keys[i] = fields[i].key;
	if ((r = jr_object(&j, keys, NFIELDS, sidecar_value, &rd,
	    &seen)) != 0 || (r = jr_end(&j)) != 0)
		return r;
	for (i = 0; i < NFIELDS; i++) {
		if (seen & (uint64_t)1 << i) {
			events += fields[i].kind == F_EVENT;
			continue;
		}
		/* only a rejects file must have "rejected" */
		if (!fields[i].optional && (fields[i].kind != F_REJECTED ||
		    strcmp(sc->table, REJECTS_TABLE) == 0)) {
			snprintf(err, errlen, "no \"%s\"", fields[i].key);
			return -EINVAL;
		}
	}
	if ((r = sidecar_check(sc, err, errlen)) != 0)
		return r;
	return sidecar_check_events(sc, events, rd.event_nulls, err, errlen);
}

void
sidecar_ranges_free(struct sidecar_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void
sidecar_free(struct sidecar *sc)
{
	if (sc == NULL)
		return;
	free(sc->table);
	free(sc->topic);
	free(sc->host);
	sidecar_ranges_free(&sc->offsets);
	sidecar_ranges_free(&sc->empty);
	sidecar_ranges_free(&sc->spill);
	sidecar_ranges_free(&sc->unread);
	for (size_t i = 0; i < sc->nrejected; i++) {
		free(sc->rejected[i].table);
		sidecar_ranges_free(&sc->rejected[i].ranges);
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
