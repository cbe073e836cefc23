/*
 * reconcile_kedge: kedge's side of `kedge reconcile` (reconcile_int.h),
 * from its target as `kedge report` reads it: an hour's rows and
 * fingerprint from its manifest when the hour is complete and all columns
 * are compared, else from its part files' sidecars, else from the rows
 * of its part files read back; and the records the table rejected, from
 * the _rejects files of the same hours.
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli/textin.h"
#include "agent/complete/complete.h"
#include "agent/complete/manifest.h"
#include "lib/err.h"
#include "lib/grow.h"

/* The part files of an hour directory, sorted, and what else it has. */
struct rc_listing {
	char **names;
	size_t n, cap;
	int has_manifest, has_success;
};

static int
rc_list_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct rc_listing *l = arg;

	(void)len;
	if (strcmp(name, MANIFEST_NAME) == 0)
		l->has_manifest = 1;
	else if (strcmp(name, MANIFEST_SUCCESS) == 0)
		l->has_success = 1;
	if (is_dir || name[0] == '.' || name[0] == '_')
		return 0;
	if (grow_array((void **)&l->names, &l->cap, l->n + 1,
	    sizeof(*l->names)) < 0 || (l->names[l->n] = strdup(name)) == NULL)
		return -ENOMEM;
	l->n++;
	return 0;
}

static int
rc_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
rc_listing_clear(struct rc_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

static int
rc_list(struct rc *rc, const char *dir, struct rc_listing *l)
{
	int r = target_list(rc->kedge_t, dir, rc_list_entry, l, rc->err,
	    rc->errlen);

	if (r == -ENOMEM)
		return err_set(rc->err, rc->errlen, r, "out of memory");
	if (r == 0 && l->n > 1)
		qsort(l->names, l->n, sizeof(*l->names), rc_cmp_names);
	return r;
}

/* Notes which records the rows of file f come from: the records of its
 * sidecar that have rows there, in order, when each has one. */
static int
rc_kedge_origins(struct rc_file *f, const struct sidecar *sc)
{
	const struct sidecar_ranges *a = &sc->offsets, *b = &sc->spill;
	size_t i = 0, j = 0;

	if (f->topic != NULL)
		return 0;
	if ((f->topic = strdup(sc->topic)) == NULL)
		return -ENOMEM;
	f->partition = (int32_t)sc->partition;
	while (i < a->n || j < b->n) {
		const struct sidecar_range *next = j == b->n || (i < a->n &&
		    a->v[i].first < b->v[j].first) ? &a->v[i++] : &b->v[j++];
		if (sidecar_ranges_push(&f->records, next->first,
		    next->last) < 0)
			return -ENOMEM;
	}
	f->one_row_each = sidecar_ranges_count(&f->records) ==
	    (uint64_t)sc->rows;
	return 0;
}

/* Reads the rows of the part file dir/name of hour h back. */
static int
rc_kedge_file(struct rc *rc, size_t h, const char *dir, const char *name,
    const struct sidecar *sc)
{
	struct rc_rowparse p = { 0 };
	struct udtf_value *vals = NULL;
	struct textin *in = NULL;
	char path[PATH_MAX], where[PATH_MAX + 256], why[512];
	const char *line;
	size_t len;
	uint64_t n = 0;
	long id;
	int fd, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return err_set(rc->err, rc->errlen, -ENAMETOOLONG, "%s/%s: "
		    "path too long", target_where(rc->kedge_t), dir);
	snprintf(where, sizeof(where), "%s/%s", target_where(rc->kedge_t),
	    path);
	if ((id = rc_file_id(rc, RC_KEDGE, path)) < 0)
		return (int)id;
	if (rc->pass == RC_FETCH && !rc->files[id].wanted)
		return 0;
	if (rc_kedge_origins(&rc->files[id], sc) < 0)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	if (sc->format == FORMAT_PARQUET)
		return err_set(rc->err, rc->errlen, -ENOTSUP, "%s: a Parquet "
		    "file whose sidecar has no fingerprint (written by an "
		    "earlier kedge), and reconcile does not read Parquet rows "
		    "back", where);
	if ((fd = target_open_file(rc->kedge_t, path, rc->err,
	    rc->errlen)) < 0)
		return fd;
	if ((in = textin_open(fd, sc->codec, where)) == NULL ||
	    (vals = calloc(rc->ncols + 1, sizeof(*vals))) == NULL) {
		r = err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	while ((r = textin_line(in, &line, &len, rc->err, rc->errlen)) == 1) {
		n++;
		if ((r = rc_parse_line(rc, &p, sc->format == FORMAT_JSONL ?
		    RC_JSONL : RC_HIVE_TEXT, rc->ct->field_delimiter,
		    rc->names, line, len, vals, why,
		    sizeof(why))) < 0) {
			if (r == -ENOMEM)
				err_set(rc->err, rc->errlen, r, "out of memory");
			else
				err_set(rc->err, rc->errlen, r, "%s:%" PRIu64
				    ": %s", where, n, why);
			goto out;
		}
		if ((r = rc_row(rc, RC_KEDGE, h, vals, id, n, 0)) < 0)
			goto out;
	}
	if (r == 0 && n != (uint64_t)sc->rows)
		r = err_set(rc->err, rc->errlen, -EINVAL, "%s: %" PRIu64 " rows,"
		    " its sidecar says %" PRId64, where, n, sc->rows);
out:
	textin_close(in);
	free(vals);
	rc_rowparse_clear(&p);
	return r;
}

/* An hour's rows and fingerprint from what its manifest says, when it is
 * complete and has one.  Returns 1 when it did, 0 when not. */
static int
rc_kedge_manifest(struct rc *rc, size_t h, const char *dir,
    const struct rc_listing *l)
{
	struct manifest m;
	int r;

	if (!rc->all_columns || !l->has_success || !l->has_manifest)
		return 0;
	if ((r = complete_read_manifest(rc->kedge_t, dir, &m, rc->err,
	    rc->errlen)) == 1 && m.has_fingerprint) {
		rc->hours[h].rows[RC_KEDGE] = m.rows;
		rc->hours[h].fp[RC_KEDGE] = m.fingerprint;
	} else if (r == 1) {
		r = 0;
	}
	manifest_clear(&m);
	return r;
}

static int
rc_kedge_hour(struct rc *rc, size_t h)
{
	struct rc_hour *hr = &rc->hours[h];
	struct rc_listing l = { 0 };
	struct sidecar *scs = NULL;
	char dir[PATH_MAX];
	int r, sums;

	snprintf(dir, sizeof(dir), "%s/dt=%s/hr=%s", rc->ct->name, hr->dt,
	    hr->hr);
	if ((r = rc_list(rc, dir, &l)) < 0)
		goto out;
	if (rc->pass == RC_COUNT) {
		hr->complete = l.has_success;
		hr->kedge_files = l.n > 0;
		if ((r = rc_kedge_manifest(rc, h, dir, &l)) != 0)
			goto out;
	}
	if ((scs = calloc(l.n + 1, sizeof(*scs))) == NULL) {
		r = err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	sums = rc->pass == RC_COUNT && rc->all_columns;
	for (size_t i = 0; i < l.n; i++) {
		if ((r = complete_read_sidecar(rc->kedge_t, dir, l.names[i],
		    &scs[i], rc->err, rc->errlen)) < 0)
			goto out;
		sums &= scs[i].has_fingerprint;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (sums) {
			hr->rows[RC_KEDGE] += (uint64_t)scs[i].rows;
			hr->fp[RC_KEDGE] += scs[i].fingerprint;
		} else if ((r = rc_kedge_file(rc, h, dir, l.names[i],
		    &scs[i])) < 0) {
			goto out;
		}
	}
out:
	for (size_t i = 0; scs != NULL && i < l.n; i++)
		sidecar_clear(&scs[i]);
	free(scs);
	rc_listing_clear(&l);
	return r;
}

/* The records of the table that kedge rejected in hour h (by arrival). */
static int
rc_kedge_rejects(struct rc *rc, size_t h)
{
	struct rc_listing l = { 0 };
	struct sidecar sc;
	char dir[PATH_MAX];
	int r;

	snprintf(dir, sizeof(dir), REJECTS_TABLE "/dt=%s/hr=%s",
	    rc->hours[h].dt, rc->hours[h].hr);
	if ((r = rc_list(rc, dir, &l)) < 0)
		goto out;
	for (size_t i = 0; i < l.n; i++) {
		if ((r = complete_read_sidecar(rc->kedge_t, dir, l.names[i],
		    &sc, rc->err, rc->errlen)) < 0) {
			sidecar_clear(&sc);
			goto out;
		}
		for (size_t k = 0; k < sc.nrejected; k++)
			if (strcmp(sc.rejected[k].table, rc->ct->name) == 0)
				rc->rejects[RC_KEDGE] += sidecar_ranges_count(
				    &sc.rejected[k].ranges);
		sidecar_clear(&sc);
	}
out:
	rc_listing_clear(&l);
	return r;
}

int
rc_kedge_read(struct rc *rc)
{
	int r;

	for (size_t h = 0; h < rc->nhours; h++) {
		if (!rc_hour_wanted(rc, h))
			continue;
		if ((r = rc_kedge_hour(rc, h)) < 0 || (rc->pass == RC_COUNT &&
		    (r = rc_kedge_rejects(rc, h)) < 0))
			return r;
	}
	return 0;
}
