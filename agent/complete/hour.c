/* An hour's manifest and _SUCCESS, built from the part files and sidecars
 * in the target: see complete_int.h. */
#include "agent/complete/complete_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/complete/manifest.h"
#include "agent/complete/oncomplete.h"
#include "agent/parse/rejects.h"
#include "lib/buf.h"
#include "lib/grow.h"

struct complete_listing {
	char **names;             /* part files */
	size_t n, cap;
	int has_manifest;
	int has_success;
};

static int
complete_list_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct complete_listing *l = arg;

	(void)len;
	if (is_dir || name[0] == '.' || name[0] == '_') {
		if (strcmp(name, MANIFEST_NAME) == 0)
			l->has_manifest = 1;
		if (strcmp(name, MANIFEST_SUCCESS) == 0)
			l->has_success = 1;
		return 0;
	}
	if (grow_array((void **)&l->names, &l->cap, l->n + 1,
	    sizeof(*l->names)) < 0)
		return -ENOMEM;
	if ((l->names[l->n] = strdup(name)) == NULL)
		return -ENOMEM;
	l->n++;
	return 0;
}

static void
complete_listing_clear(struct complete_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
}

static int
complete_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
complete_read_sidecar(struct target *t, const char *dir, const char *name,
    struct sidecar *sc, char *err, size_t errlen)
{
	char rel[2048], why[512], *text;
	size_t len;
	int r;

	memset(sc, 0, sizeof(*sc));
	snprintf(rel, sizeof(rel), "%s/.%s.json", dir, name);
	if ((r = target_read(t, rel, SIDECAR_MAX, &text, &len, err,
	    errlen)) <= 0) {
		if (r == 0)
			snprintf(err, errlen, "%s/%s/%s: no sidecar",
			    target_where(t), dir, name);
		return r < 0 ? r : -ENOENT;
	}
	r = sidecar_parse(text, len, sc, why, sizeof(why));
	free(text);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (r < 0)
		snprintf(err, errlen, "%s/%s: malformed sidecar: %s",
		    target_where(t), rel, why);
	return r;
}

/* Adds [first, last] to r, kept ascending; merges it with a neighbour it
 * touches. */
static int
complete_ranges_add(struct sidecar_ranges *r, int64_t first, int64_t last)
{
	size_t i = r->n;

	while (i > 0 && r->v[i - 1].first > first)
		i--;
	if (i > 0 && r->v[i - 1].last + 1 >= first) {
		if (last > r->v[i - 1].last)
			r->v[i - 1].last = last;
		return 0;
	}
	if (i < r->n && last + 1 >= r->v[i].first) {
		r->v[i].first = first;
		if (last > r->v[i].last)
			r->v[i].last = last;
		return 0;
	}
	if (sidecar_ranges_push(r, first, last) < 0)
		return -ENOMEM;
	memmove(&r->v[i + 1], &r->v[i], (r->n - 1 - i) * sizeof(*r->v));
	r->v[i].first = first;
	r->v[i].last = last;
	return 0;
}

/* Adds ranges to the partition's union in m. */
static int
complete_add_part(struct manifest *m, const char *topic, int32_t partition,
    const struct sidecar_ranges *ranges, uint64_t rows)
{
	struct manifest_partition *p = NULL;

	for (size_t i = 0; i < m->nparts && p == NULL; i++)
		if (m->parts[i].partition == partition &&
		    strcmp(m->parts[i].topic, topic) == 0)
			p = &m->parts[i];
	if (p == NULL) {
		if (grow_array((void **)&m->parts, &m->parts_cap, m->nparts + 1,
		    sizeof(*m->parts)) < 0)
			return -ENOMEM;
		p = &m->parts[m->nparts];
		memset(p, 0, sizeof(*p));
		if ((p->topic = strdup(topic)) == NULL)
			return -ENOMEM;
		p->partition = partition;
		m->nparts++;
	}
	p->rows += rows;
	for (size_t i = 0; i < ranges->n; i++)
		if (complete_ranges_add(&p->offsets, ranges->v[i].first,
		    ranges->v[i].last) < 0)
			return -ENOMEM;
	return 0;
}

/* Fills file f of m from its sidecar; revision is the one that first
 * lists it. */
static int
complete_add_file(struct manifest *m, const char *name,
    const struct sidecar *sc, uint64_t revision)
{
	struct manifest_file *f = &m->files[m->nfiles++];

	memset(f, 0, sizeof(*f));
	if ((f->name = strdup(name)) == NULL ||
	    (f->topic = strdup(sc->topic)) == NULL)
		return -ENOMEM;
	f->bytes = (uint64_t)sc->bytes;
	f->rows = (uint64_t)sc->rows;
	snprintf(f->crc32c, sizeof(f->crc32c), "%s", sc->crc32c);
	snprintf(f->sha256, sizeof(f->sha256), "%s", sc->sha256);
	f->partition = (int32_t)sc->partition;
	f->min_event_us = sc->has_event_range ? sc->min_event_us :
	    MANIFEST_NO_TIME;
	f->max_event_us = sc->has_event_range ? sc->max_event_us :
	    MANIFEST_NO_TIME;
	f->revision = revision;
	for (size_t i = 0; i < sc->offsets.n; i++)
		if (complete_ranges_add(&f->offsets, sc->offsets.v[i].first,
		    sc->offsets.v[i].last) < 0)
			return -ENOMEM;
	m->rows += f->rows;
	m->bytes += f->bytes;
	m->has_fingerprint &= sc->has_fingerprint;
	m->fingerprint += sc->fingerprint;
	if (revision > 1)
		m->late_rows += f->rows;
	if (f->min_event_us != MANIFEST_NO_TIME &&
	    (m->min_event_us == MANIFEST_NO_TIME || f->min_event_us <
	    m->min_event_us))
		m->min_event_us = f->min_event_us;
	if (f->max_event_us != MANIFEST_NO_TIME &&
	    (m->max_event_us == MANIFEST_NO_TIME || f->max_event_us >
	    m->max_event_us))
		m->max_event_us = f->max_event_us;
	return complete_add_part(m, sc->topic, (int32_t)sc->partition,
	    &sc->offsets, f->rows);
}

struct complete_rejects {
	struct target *t;
	const char *dir;
	const char *table;
	uint64_t n;
	char *err;
	size_t errlen;
};

static int
complete_count_rejects(const char *name, int is_dir, int64_t len, void *arg)
{
	struct complete_rejects *cr = arg;
	struct sidecar sc;
	int r;

	(void)len;
	if (is_dir || name[0] == '.' || name[0] == '_')
		return 0;
	if ((r = complete_read_sidecar(cr->t, cr->dir, name, &sc, cr->err,
	    cr->errlen)) < 0)
		return r;
	for (size_t i = 0; i < sc.nrejected; i++)
		if (strcmp(sc.rejected[i].table, cr->table) == 0)
			cr->n += sidecar_ranges_count(&sc.rejected[i].ranges);
	sidecar_clear(&sc);
	return 0;
}

/* The revision that first listed name in the old manifest, or 0. */
static uint64_t
complete_old_revision(const struct manifest *old, const char *name)
{
	for (size_t i = 0; i < old->nfiles; i++)
		if (strcmp(old->files[i].name, name) == 0)
			return old->files[i].revision;
	return 0;
}

int
complete_read_manifest(struct target *t, const char *dir, struct manifest *m,
    char *err, size_t errlen)
{
	char rel[2048], why[512], *text;
	size_t len;
	int r;

	memset(m, 0, sizeof(*m));
	snprintf(rel, sizeof(rel), "%s/" MANIFEST_NAME, dir);
	if ((r = target_read(t, rel, SIDECAR_MAX, &text, &len, err,
	    errlen)) <= 0)
		return r;
	r = manifest_parse(text, len, m, why, sizeof(why));
	free(text);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (r < 0)
		snprintf(err, errlen, "%s/%s: malformed manifest: %s",
		    target_where(t), rel, why);
	return r < 0 ? r : 1;
}

/* Tells output.on_complete that the manifest m of directory dir, with its
 * _SUCCESS, is in the target. */
static void
complete_announce(struct completer *cp, const char *dir,
    const struct manifest *m)
{
	const struct conf *c = cp->c;
	char path[2048];

	if (cp->oc == NULL || m->revision == 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", strcmp(c->output.target,
	    "webhdfs") == 0 ? c->output.webhdfs.base_dir : c->output.local_dir,
	    dir);
	oncomplete_note(cp->oc, m->table, m->dt, m->hr, m->revision, m->rows,
	    path);
}

/* Writes _SUCCESS into dir, beside its manifest m, and announces m.
 * Returns 1, or a negative errno with the sentence in err. */
static int
complete_success(struct completer *cp, struct target *t, const char *dir,
    const struct manifest *m, char *err, size_t errlen)
{
	char rel[1100];
	int r;

	snprintf(rel, sizeof(rel), "%s/" MANIFEST_SUCCESS, dir);
	if ((r = target_write(t, rel, "", 0, err, errlen)) < 0)
		return r;
	complete_announce(cp, dir, m);
	return 1;
}

int
complete_hour_write(struct completer *cp, struct target *t,
    struct complete_hour *h, int64_t wm, char *err, size_t errlen)
{
	struct complete_listing l = { 0 };
	struct manifest m = { 0 }, old = { 0 };
	struct complete_rejects cr = { 0 };
	char dir[1024], rdir[1024], rel[1100];
	struct tm tm;
	struct buf out = { 0 };
	uint64_t revision;
	time_t now = time(NULL);
	int r, same;

	snprintf(dir, sizeof(dir), "%s/dt=%s/hr=%s", h->table, h->dt, h->hr);
	if ((r = target_list(t, dir, complete_list_entry, &l, err, errlen)) < 0)
		goto out;
	if (l.n > 1) /* qsort() takes no NULL, which an empty listing is */
		qsort(l.names, l.n, sizeof(*l.names), complete_cmp_names);
	if (complete_read_manifest(t, dir, &old, err, errlen) < 0)
		manifest_clear(&old);
	same = old.nfiles == l.n;
	for (size_t i = 0; same && i < l.n; i++)
		same = complete_old_revision(&old, l.names[i]) != 0;
	/* a revision whose command a crash kept from running, found again */
	if (l.has_success)
		complete_announce(cp, dir, &old);
	if (same && l.has_manifest) {
		/* without _SUCCESS, a crash came between the manifest and it */
		r = l.has_success ? 0 : complete_success(cp, t, dir, &old, err,
		    errlen);
		goto out;
	}
	/* _SUCCESS goes first, so that it never stands beside a manifest
	 * it does not belong to: a crash before the new one is written leaves
	 * none, and the next look writes it */
	snprintf(rel, sizeof(rel), "%s/" MANIFEST_SUCCESS, dir);
	if (l.has_success && (r = target_remove(t, rel, err, errlen)) < 0)
		goto out;
	revision = old.revision + 1;
	if ((m.files = calloc(l.n ? l.n : 1, sizeof(*m.files))) == NULL ||
	    (m.table = strdup(h->table)) == NULL ||
	    (m.host = strdup(cp->c->output.host)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(m.dt, sizeof(m.dt), "%s", h->dt);
	snprintf(m.hr, sizeof(m.hr), "%s", h->hr);
	m.revision = revision;
	strftime(m.written, sizeof(m.written), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime_r(&now, &tm));
	m.watermark_us = wm;
	m.min_event_us = m.max_event_us = MANIFEST_NO_TIME;
	m.has_fingerprint = 1;
	for (size_t i = 0; i < l.n; i++) {
		struct sidecar sc;
		uint64_t first = complete_old_revision(&old, l.names[i]);

		if ((r = complete_read_sidecar(t, dir, l.names[i], &sc, err,
		    errlen)) < 0)
			goto out;
		r = complete_add_file(&m, l.names[i], &sc, first ? first :
		    revision);
		sidecar_clear(&sc);
		if (r < 0)
			goto out;
	}
	snprintf(rdir, sizeof(rdir), REJECTS_TABLE "/dt=%s/hr=%s", h->dt, h->hr);
	cr = (struct complete_rejects){ t, rdir, h->table, 0, err, errlen };
	if ((r = target_list(t, rdir, complete_count_rejects, &cr, err,
	    errlen)) < 0)
		goto out;
	m.rejects = cr.n;
	snprintf(rel, sizeof(rel), "%s/" MANIFEST_NAME, dir);
	if ((r = manifest_format(&m, &out)) < 0) {
		if (r != -ENOMEM)
			snprintf(err, errlen, "%s: %s", rel, r == -EILSEQ ?
			    "a name is not UTF-8" : "a count out of range");
		goto out;
	}
	if ((r = target_write(t, rel, out.data, out.len, err, errlen)) < 0)
		goto out;
	r = complete_success(cp, t, dir, &m, err, errlen);
out:
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	buf_clear(&out);
	manifest_clear(&m);
	manifest_clear(&old);
	complete_listing_clear(&l);
	return r;
}
