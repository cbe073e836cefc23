#include "agent/complete/mfcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/write/fingerprint.h"
#include "lib/err.h"

/* a + b, or UINT64_MAX when that does not fit: a total that overflows
 * never equals the manifest's. */
static uint64_t
sum(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int
mfcheck_same_partition(const char *ta, int32_t pa, const char *tb, int32_t pb)
{
	return pa == pb && strcmp(ta, tb) == 0;
}

/* The index in files[0..n), sorted by name, of the one called name, or n. */
static size_t
file_find(const struct mfcheck_file *files, size_t n, const char *name)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(files[mid].name, name)) == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

static int
ranges_equal(const struct sidecar_range *a, size_t na,
    const struct sidecar_range *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

static int
cmp_range(const void *pa, const void *pb)
{
	const struct sidecar_range *a = pa, *b = pb;

	return (a->first > b->first) - (a->first < b->first);
}

/* Sorts r[0..n) and joins the ranges that touch or overlap, so that equal
 * sets of offsets come out equal.  Returns the new count. */
static size_t
ranges_canon(struct sidecar_range *r, size_t n)
{
	size_t w = 0;

	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < n; i++) {
		if (w > 0 && (r[w - 1].last == INT64_MAX ||
		    r[i].first <= r[w - 1].last + 1)) {
			if (r[i].last > r[w - 1].last)
				r[w - 1].last = r[i].last;
			continue;
		}
		r[w++] = r[i];
	}
	return w;
}

/* A listed file against its sidecar. */
static int
check_listed(const struct manifest_file *mf, const struct mfcheck_file *f,
    char *why, size_t whylen)
{
	const struct sidecar *sc = f->sc;

	if (mf->rows != (uint64_t)sc->rows)
		return err_set(why, whylen, 1, "%s: says %" PRIu64 " rows, its "
		    "sidecar %" PRId64, f->name, mf->rows, sc->rows);
	if (mf->bytes != (uint64_t)sc->bytes)
		return err_set(why, whylen, 1,
		    "%s: says %" PRIu64 " bytes, its "
		    "sidecar %" PRId64, f->name, mf->bytes, sc->bytes);
	if (strcmp(mf->topic, sc->topic) != 0 || mf->partition != sc->partition)
		return err_set(why, whylen, 1, "%s: says %s[%" PRId32 "], its "
		    "sidecar %s[%" PRId64 "]", f->name, mf->topic,
		    mf->partition, sc->topic, sc->partition);
	if (!ranges_equal(mf->offsets.v, mf->offsets.n, sc->offsets.v,
	    sc->offsets.n))
		return err_set(why, whylen, 1,
		    "%s: says other offsets than its "
		    "sidecar", f->name);
	if (mf->crc32c[0] != '\0' && sc->crc32c[0] != '\0' &&
	    strcmp(mf->crc32c, sc->crc32c) != 0)
		return err_set(why, whylen, 1,
		    "%s: says crc32c %s, its sidecar %s",
		    f->name, mf->crc32c, sc->crc32c);
	if (mf->sha256[0] != '\0' && sc->sha256[0] != '\0' &&
	    strcmp(mf->sha256, sc->sha256) != 0)
		return err_set(why, whylen, 1,
		    "%s: says sha256 %s, its sidecar %s",
		    f->name, mf->sha256, sc->sha256);
	if (sc->has_event_range && (mf->min_event_us != sc->min_event_us ||
	    mf->max_event_us != sc->max_event_us))
		return err_set(why, whylen, 1,
		    "%s: says other event times than its "
		    "sidecar", f->name);
	return 0;
}

/* m lists exactly files[0..n), each as its sidecar describes it. */
static int
check_files(const struct manifest *m, const struct mfcheck_file *files,
    size_t n, char *why, size_t whylen)
{
	unsigned char *listed;
	const char *name;
	size_t i, k;
	int r = 0;

	/* listed[n] takes the marks of the names that are not there */
	if ((listed = calloc(n + 1, 1)) == NULL)
		return -ENOMEM;
	for (i = 0; i < m->nfiles && r == 0; i++) {
		name = m->files[i].name;
		if ((k = file_find(files, n, name)) == n)
			r = err_set(why, whylen, 1,
			    "lists %s, which is not there",
			    name);
		else if (listed[k])
			r = err_set(why, whylen, 1, "lists %s twice", name);
		else
			r = check_listed(&m->files[i], &files[k], why, whylen);
		listed[k] = 1;
	}
	for (k = 0; k < n && r == 0; k++)
		if (!listed[k])
			r = err_set(why, whylen, 1, "does not list %s",
			    files[k].name);
	free(listed);
	return r;
}

/* m's fingerprint, when it has one, is the sum of its files' (which all
 * have one). */
static int
check_fingerprint(const struct manifest *m, const struct mfcheck_file *files,
    size_t n, char *why, size_t whylen)
{
	char a[FINGERPRINT_HEX + 1], b[FINGERPRINT_HEX + 1];
	uint64_t fp = 0;

	if (!m->has_fingerprint)
		return 0;
	for (size_t k = 0; k < n; k++) {
		if (!files[k].sc->has_fingerprint)
			return err_set(why, whylen, 1, "has a fingerprint, "
			    "and the sidecar of %s none", files[k].name);
		fp += files[k].sc->fingerprint;
	}
	if (fp != m->fingerprint)
		return err_set(why, whylen, 1, "says fingerprint %s, its "
		    "files' sidecars add up to %s",
		    fingerprint_format(m->fingerprint, a),
		    fingerprint_format(fp, b));
	return 0;
}

/* "null" or the time in microseconds, in buf[24]. */
static const char *
time_text(int64_t us, char *buf)
{
	if (us == MANIFEST_NO_TIME)
		return "null";
	snprintf(buf, 24, "%" PRId64, us);
	return buf;
}

/* m's totals are its files'. */
static int
check_totals(const struct manifest *m, char *why, size_t whylen)
{
	int64_t min = MANIFEST_NO_TIME, max = MANIFEST_NO_TIME;
	uint64_t rows = 0, bytes = 0, late = 0;
	const struct manifest_file *f;
	char t[4][24];

	for (size_t i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		rows = sum(rows, f->rows);
		bytes = sum(bytes, f->bytes);
		if (f->revision > 1)
			late = sum(late, f->rows);
		/* the parser saw to it that min and max are both set or not */
		if (f->min_event_us == MANIFEST_NO_TIME)
			continue;
		if (min == MANIFEST_NO_TIME || f->min_event_us < min)
			min = f->min_event_us;
		if (max == MANIFEST_NO_TIME || f->max_event_us > max)
			max = f->max_event_us;
	}
	if (m->rows != rows)
		return err_set(why, whylen, 1,
		    "says %" PRIu64 " rows, its files "
		    "hold %" PRIu64, m->rows, rows);
	if (m->bytes != bytes)
		return err_set(why, whylen, 1,
		    "says %" PRIu64 " bytes, its files "
		    "hold %" PRIu64, m->bytes, bytes);
	if (m->late_rows != late)
		return err_set(why, whylen, 1,
		    "says %" PRIu64 " late rows, its "
		    "files of later revisions hold %" PRIu64, m->late_rows,
		    late);
	if (m->min_event_us != min || m->max_event_us != max)
		return err_set(why, whylen, 1, "says events from %s to %s, its "
		    "files from %s to %s", time_text(m->min_event_us, t[0]),
		    time_text(m->max_event_us, t[1]), time_text(min, t[2]),
		    time_text(max, t[3]));
	return 0;
}

/* Partition p of m: its rows are its files' and its offsets the union of
 * theirs.  u has room for every range in m. */
static int
mfcheck_partition(const struct manifest *m, const struct manifest_partition *p,
    struct sidecar_range *u, char *why, size_t whylen)
{
	const struct manifest_file *f;
	size_t i, nu = 0, np, nfiles = 0;
	uint64_t rows = 0;

	for (i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		if (!mfcheck_same_partition(f->topic, f->partition, p->topic,
		    p->partition))
			continue;
		nfiles++;
		rows = sum(rows, f->rows);
		if (f->offsets.n > 0)
			memcpy(u + nu, f->offsets.v, f->offsets.n * sizeof(*u));
		nu += f->offsets.n;
	}
	if (nfiles == 0)
		return err_set(why, whylen, 1,
		    "lists partition %s[%" PRId32 "], "
		    "of none of its files", p->topic, p->partition);
	if (p->rows != rows)
		return err_set(why, whylen, 1, "says %" PRIu64 " rows in %s[%"
		    PRId32 "], its files hold %" PRIu64, p->rows, p->topic,
		    p->partition, rows);
	nu = ranges_canon(u, nu);
	if (p->offsets.n > 0)
		memcpy(u + nu, p->offsets.v, p->offsets.n * sizeof(*u));
	np = ranges_canon(u + nu, p->offsets.n);
	if (!ranges_equal(u, nu, u + nu, np))
		return err_set(why, whylen, 1,
		    "the offsets of %s[%" PRId32 "] are "
		    "not the union of its files'", p->topic, p->partition);
	return 0;
}

/* m's partitions are its files', each once. */
static int
check_partitions(const struct manifest *m, char *why, size_t whylen)
{
	const struct manifest_partition *p;
	const struct manifest_file *f;
	struct sidecar_range *u;
	size_t i, k, total = 0;
	int r = 0;

	for (i = 0; i < m->nfiles; i++) {
		f = &m->files[i];
		total += f->offsets.n;
		for (k = 0; k < m->nparts && !mfcheck_same_partition(f->topic,
		    f->partition, m->parts[k].topic, m->parts[k].partition); k++)
			;
		if (k == m->nparts)
			return err_set(why, whylen, 1, "lists no partition %s[%"
			    PRId32 "] for %s", f->topic, f->partition, f->name);
	}
	for (i = 0; i < m->nparts; i++)
		total += m->parts[i].offsets.n;
	if ((u = malloc((total + 1) * sizeof(*u))) == NULL)
		return -ENOMEM;
	for (i = 0; i < m->nparts && r == 0; i++) {
		p = &m->parts[i];
		for (k = 0; k < i && r == 0; k++)
			if (mfcheck_same_partition(p->topic, p->partition,
			    m->parts[k].topic, m->parts[k].partition))
				r = err_set(why, whylen, 1,
				    "lists partition %s[%"
				    PRId32 "] twice", p->topic, p->partition);
		if (r == 0)
			r = mfcheck_partition(m, p, u, why, whylen);
	}
	free(u);
	return r;
}

int
mfcheck_hour(const struct manifest *m, const struct mfcheck_file *files,
    size_t n, char *why, size_t whylen)
{
	int r;

	if ((r = check_files(m, files, n, why, whylen)) != 0 ||
	    (r = check_totals(m, why, whylen)) != 0 ||
	    (r = check_fingerprint(m, files, n, why, whylen)) != 0)
		return r;
	return check_partitions(m, why, whylen);
}
