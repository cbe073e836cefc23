#include "agent/cli/report.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/complete/complete.h"
#include "agent/complete/manifest.h"
#include "agent/target/target.h"
#include "agent/write/sidecar.h"
#include "lib/err.h"
#include "lib/grow.h"

struct report {
	struct target *t;
	const struct report_opts *o;
	FILE *out;
	char *err;
	size_t errlen;
};

struct entry {
	char *name;
	int is_dir;
};

/* The entries of a directory of the target. */
struct entries {
	struct entry *v;
	size_t n, cap;
};

/* Writes a path relative to the target into buf[PATH_MAX].  Returns 0, or
 * -ENAMETOOLONG with the sentence. */
__attribute__((format(printf, 3, 4)))
static int
rel_path(struct report *rp, char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n >= 0 && n < PATH_MAX)
		return 0;
	return err_set(rp->err, rp->errlen, -ENAMETOOLONG,
	    "%s/%.64s...: path too long",
	    target_where(rp->t), buf);
}

static void
entries_clear(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].name);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* target_entry_fn: appends the entry to the entries arg. */
static int
entries_add(const char *name, int is_dir, int64_t len, void *arg)
{
	struct entries *e = arg;

	(void)len;
	if (grow_array((void **)&e->v, &e->cap, e->n + 1, sizeof(*e->v)) < 0)
		return -ENOMEM;
	if ((e->v[e->n].name = strdup(name)) == NULL)
		return -ENOMEM;
	e->v[e->n++].is_dir = is_dir;
	return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
	    ((const struct entry *)b)->name);
}

/* Lists directory rel of the target into e, sorted by name. */
static int
list_sorted(struct report *rp, const char *rel, struct entries *e)
{
	int r = target_list(rp->t, rel, entries_add, e, rp->err, rp->errlen);

	if (r == -ENOMEM)
		snprintf(rp->err, rp->errlen, "out of memory");
	if (r == 0 && e->n > 1)
		qsort(e->v, e->n, sizeof(*e->v), cmp_entry);
	return r;
}

/* True when name is prefix followed by exactly ndigits digits. */
static int
digits_after(const char *name, const char *prefix, size_t ndigits)
{
	size_t pl = strlen(prefix);

	return strncmp(name, prefix, pl) == 0 && strlen(name) == pl + ndigits &&
	    strspn(name + pl, "0123456789") == ndigits;
}

/* Writes us as ISO 8601 UTC into buf[32], or "-" for no time. */
static const char *
iso_utc(int64_t us, char *buf)
{
	time_t s = (time_t)(us / 1000000);
	int frac = (int)(us % 1000000);
	struct tm tm;
	size_t n;

	if (us == MANIFEST_NO_TIME || gmtime_r(&s, &tm) == NULL)
		return "-";
	n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac % 1000 == 0 && frac != 0)
		snprintf(buf + n, 32 - n, ".%03dZ", frac / 1000);
	else if (frac != 0)
		snprintf(buf + n, 32 - n, ".%06dZ", frac);
	else
		snprintf(buf + n, 32 - n, "Z");
	return buf;
}

/* Prints the hour's line from its manifest.  Returns 1, 0 when the
 * manifest is gone (being replaced), or a negative errno. */
static int
report_manifest(struct report *rp, const char *dir, const char *table,
    const char *dt, const char *hr)
{
	char t0[32], t1[32];
	struct manifest m;
	int r;

	if ((r = complete_read_manifest(rp->t, dir, &m, rp->err,
	    rp->errlen)) == 1)
		fprintf(rp->out, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		    "\t%" PRIu64 "\t%zu\t%s\t%s\tyes\n", table, dt, hr,
		    m.revision, m.rows, m.rejects, m.late_rows, m.nfiles,
		    iso_utc(m.min_event_us, t0), iso_utc(m.max_event_us, t1));
	manifest_clear(&m);
	return r;
}

/* An hour without a manifest: its part files and the rows their
 * sidecars count. */
static int
report_open_hour(struct report *rp, const char *dir, const char *table,
    const char *dt, const char *hr, const struct entries *e)
{
	uint64_t rows = 0;
	size_t files = 0;
	struct sidecar sc;
	int r;

	for (size_t i = 0; i < e->n; i++) {
		const char *name = e->v[i].name;
		if (e->v[i].is_dir || name[0] == '.' || name[0] == '_')
			continue;
		r = complete_read_sidecar(rp->t, dir, name, &sc, rp->err,
		    rp->errlen);
		rows += (uint64_t)sc.rows;
		sidecar_clear(&sc);
		if (r < 0)
			return r == -ENOENT ? -EINVAL : r;
		files++;
	}
	if (files > 0)
		fprintf(rp->out, "%s\t%s\t%s\t-\t%" PRIu64 "\t-\t-\t%zu\t-\t-\t"
		    "no\n", table, dt, hr, rows, files);
	return 0;
}

/* Prints hour's line, if it has part files or a manifest. */
static int
report_hour(struct report *rp, const char *table, const char *dt,
    const char *hr)
{
	static const struct entry key = { (char *)MANIFEST_NAME, 0 };
	struct entries e = { 0 };
	char dir[PATH_MAX];
	int r;

	if ((r = rel_path(rp, dir, "%s/dt=%s/hr=%s", table, dt, hr)) < 0)
		return r;
	if ((r = list_sorted(rp, dir, &e)) == 0 && e.n > 0 &&
	    bsearch(&key, e.v, e.n, sizeof(*e.v), cmp_entry) != NULL)
		r = report_manifest(rp, dir, table, dt, hr);
	if (r == 0)
		r = report_open_hour(rp, dir, table, dt, hr, &e);
	entries_clear(&e);
	return r < 0 ? r : 0;
}

/* The hours of day dt in range. */
static int
report_day(struct report *rp, const char *table, const char *dt)
{
	struct entries e = { 0 };
	char rel[PATH_MAX], key[16];
	int r;

	if ((r = rel_path(rp, rel, "%s/dt=%s", table, dt)) < 0)
		return r;
	if ((r = list_sorted(rp, rel, &e)) == 0) {
		for (size_t i = 0; i < e.n && r == 0; i++) {
			const struct entry *en = &e.v[i];
			const char *hr = en->name + 3;
			if (!en->is_dir || !digits_after(en->name, "hr=", 2))
				continue;
			snprintf(key, sizeof(key), "%s%s", dt, hr);
			if (strcmp(key, rp->o->from) >= 0 &&
			    strcmp(key, rp->o->to) <= 0)
				r = report_hour(rp, table, dt, hr);
		}
	}
	entries_clear(&e);
	return r;
}

/* The days of table in range. */
static int
report_table(struct report *rp, const char *table)
{
	struct entries e = { 0 };
	int r;

	if ((r = list_sorted(rp, table, &e)) == 0) {
		for (size_t i = 0; i < e.n && r == 0; i++) {
			const struct entry *en = &e.v[i];
			const char *dt = en->name + 3;
			if (en->is_dir && digits_after(en->name, "dt=", 8) &&
			    strncmp(dt, rp->o->from, 8) >= 0 &&
			    strncmp(dt, rp->o->to, 8) <= 0)
				r = report_day(rp, table, dt);
		}
	}
	entries_clear(&e);
	return r;
}

static int
report_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
report_print(const struct conf *c, const struct report_opts *o, FILE *out,
    char *err, size_t errlen)
{
	struct report rp = { NULL, o, out, err, errlen };
	const char **tables;
	size_t i, n = 0;
	int r = 0;

	if ((tables = calloc(c->n_tables + 1, sizeof(*tables))) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < c->n_tables; i++)
		if (o->table == NULL || strcmp(o->table, c->tables[i].name) == 0)
			tables[n++] = c->tables[i].name;
	if (o->table != NULL && n == 0) {
		snprintf(err, errlen, "%s has no table %s", c->path, o->table);
		r = -EINVAL;
		goto out;
	}
	if (n > 1)
		qsort(tables, n, sizeof(*tables), report_cmp_str);
	if ((rp.t = target_open(c, err, errlen)) == NULL) {
		r = -EIO;
		goto out;
	}
	fprintf(out, "table\tdt\thr\trevision\trows\trejects\tlate_rows\tfiles\t"
	    "min_event\tmax_event\tcomplete\n");
	for (i = 0; i < n && r == 0; i++)
		r = report_table(&rp, tables[i]);
out:
	target_close(rp.t);
	free(tables);
	return r;
}
