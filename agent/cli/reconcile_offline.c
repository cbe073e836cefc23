/*
 * reconcile_offline: the offline side of `kedge reconcile --offline`
 * (reconcile_int.h): the partitions of --offline-layout under the
 * directory or URL whose load hours meet [from - lookback, to + lateness],
 * their files (plain, .gz, .zst) read line by line: raw lines through the
 * table's own UDTF chain, as kedge parses a record, typed lines as they
 * are; each row counted in the hour of its event time.
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli/textin.h"
#include "lib/err.h"
#include "lib/escape.h"
#include "lib/grow.h"

/* The date and hour a partition's path gives; -1: not given. */
struct rc_when {
	int f[4];                  /* year, month, day, hour */
};

/* The entries of a directory, sorted by name. */
struct rc_entries {
	char **names;
	int *is_dir;
	size_t n, cap, dcap;
};

static int
rc_entry_add(const char *name, int is_dir, int64_t len, void *arg)
{
	struct rc_entries *e = arg;

	(void)len;
	if (grow_array((void **)&e->names, &e->cap, e->n + 1,
	    sizeof(*e->names)) < 0 || grow_array((void **)&e->is_dir,
	    &e->dcap, e->n + 1, sizeof(*e->is_dir)) < 0 ||
	    (e->names[e->n] = strdup(name)) == NULL)
		return -ENOMEM;
	e->is_dir[e->n++] = is_dir;
	return 0;
}

static void
rc_entries_clear(struct rc_entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->names[i]);
	free(e->names);
	free(e->is_dir);
	memset(e, 0, sizeof(*e));
}

/* Lists rel, sorted by name (insertion: directories are small). */
static int
rc_entries_list(struct rc *rc, const char *rel, struct rc_entries *e)
{
	int r = target_list(rc->offline_t, rel, rc_entry_add, e, rc->err,
	    rc->errlen);

	if (r == -ENOMEM)
		return err_set(rc->err, rc->errlen, r, "out of memory");
	for (size_t i = 1; r == 0 && i < e->n; i++)
		for (size_t k = i; k > 0 && strcmp(e->names[k - 1],
		    e->names[k]) > 0; k--) {
			char *n = e->names[k];
			int d = e->is_dir[k];
			e->names[k] = e->names[k - 1];
			e->is_dir[k] = e->is_dir[k - 1];
			e->names[k - 1] = n;
			e->is_dir[k - 1] = d;
		}
	return r;
}

/* Matches name against the layout's segment seg[0..len): %Y four digits,
 * %m %d %H two, %% a '%', anything else itself.  Returns 0 with the
 * fields in w, or -EINVAL. */
static int
rc_segment_match(const char *seg, size_t len, const char *name,
    struct rc_when *w)
{
	static const char conv[] = "YmdH";
	size_t i = 0;
	const char *p = name;

	while (i < len) {
		const char *c;
		int digits, v = 0;

		if (seg[i] != '%' || (i + 1 < len && seg[i + 1] == '%')) {
			if (*p++ != seg[i])
				return -EINVAL;
			i += seg[i] == '%' ? 2 : 1;
			continue;
		}
		if (i + 1 == len || (c = strchr(conv, seg[i + 1])) == NULL ||
		    seg[i + 1] == '\0')
			return -EINVAL;
		digits = *c == 'Y' ? 4 : 2;
		for (int k = 0; k < digits; k++, p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = v * 10 + (*p - '0');
		}
		w->f[c - conv] = v;
		i += 2;
	}
	return *p == '\0' ? 0 : -EINVAL;
}

/* The first and last load hour (YYYYMMDDHH) a partition of w holds. */
static void
rc_when_span(const struct rc_when *w, int64_t *lo, int64_t *hi)
{
	static const int low[4] = { 0, 1, 1, 0 }, high[4] = { 9999, 12, 31,
	    23 };
	int64_t a = 0, b = 0;
	static const int64_t scale[4] = { 1000000, 10000, 100, 1 };

	for (int k = 0; k < 4; k++) {
		a += (w->f[k] >= 0 ? w->f[k] : low[k]) * scale[k];
		b += (w->f[k] >= 0 ? w->f[k] : high[k]) * scale[k];
	}
	*lo = a;
	*hi = b;
}

/* The layout's segment number level into *seg and *len; returns 0, or -1
 * past the last. */
static int
rc_segment(const char *layout, size_t level, const char **seg, size_t *len)
{
	const char *s = layout, *slash;

	for (size_t i = 0; i < level; i++) {
		if ((slash = strchr(s, '/')) == NULL)
			return -1;
		s = slash + 1;
	}
	*seg = s;
	*len = (slash = strchr(s, '/')) != NULL ? (size_t)(slash - s) :
	    strlen(s);
	return 0;
}

/* A raw file's lines, parsed a batch at a time by the table's chain. */
struct rc_batch {
	struct buf data;
	size_t *off;
	uint64_t *lineno;
	struct udtf_record *recs;
	struct chain_span *spans;
	size_t n, cap, cap2, cap3, cap4;
};

static void
rc_batch_clear(struct rc_batch *b)
{
	buf_clear(&b->data);
	free(b->off);
	free(b->lineno);
	free(b->recs);
	free(b->spans);
	memset(b, 0, sizeof(*b));
}

/* The rows of record i of the batch just parsed, each in the hour of its
 * event time; a record whose rows lack one is rejected whole, as kedge
 * rejects it. */
static int
rc_raw_record(struct rc *rc, struct rc_batch *b, size_t i, long file,
    int count_rejects)
{
	const struct chain_span *sp = &b->spans[i];
	const struct udtf_value *rows;
	size_t nrows;
	int r;

	rows = chain_rows(rc->chain, &nrows);
	for (size_t k = 0; sp->result == 0 && k < sp->nrows; k++) {
		const struct udtf_value *v = &rows[(sp->first + k) * rc->ncols +
		    (size_t)rc->event_col];
		if (v->type != UDTF_TIMESTAMP || rc_hour_key(rc, v->u.ts_us) < 0)
			goto reject;
	}
	if (sp->result != 0)
		goto reject;
	for (size_t k = 0; k < sp->nrows; k++) {
		const struct udtf_value *vals = &rows[(sp->first + k) *
		    rc->ncols];
		long h = rc_hour_find(rc, rc_hour_key(rc,
		    vals[rc->event_col].u.ts_us));

		if (h >= 0 && (r = rc_row(rc, RC_OFFLINE, (size_t)h, vals, file,
		    b->lineno[i], (uint32_t)k)) < 0)
			return r;
	}
	return 0;
reject:
	if (count_rejects && rc->pass == RC_COUNT)
		rc->rejects[RC_OFFLINE]++;
	return 0;
}

/* Parses the batch's lines as records and takes their rows. */
static int
rc_raw_batch(struct rc *rc, struct rc_batch *b, long file, int count_rejects)
{
	size_t done = 0, took;
	int r;

	for (size_t i = 0; i < b->n; i++) {
		size_t end = i + 1 < b->n ? b->off[i + 1] : b->data.len;

		b->recs[i] = (struct udtf_record){ b->data.data + b->off[i],
		    end - b->off[i], "", 0, (int64_t)b->lineno[i], -1 };
	}
	while (done < b->n) {
		took = chain_parse_batch(rc->chain, b->recs + done, b->n - done,
		    b->spans + done, NULL);
		for (size_t i = done; i < done + took; i++)
			if ((r = rc_raw_record(rc, b, i, file,
			    count_rejects)) < 0)
				return r;
		done += took;
	}
	b->n = 0;
	buf_reset(&b->data);
	return 0;
}

static int
rc_raw_line(struct rc *rc, struct rc_batch *b, const char *line, size_t len,
    uint64_t lineno)
{
	if (grow_array((void **)&b->off, &b->cap, b->n + 1,
	    sizeof(*b->off)) < 0 || grow_array((void **)&b->lineno, &b->cap2,
	    b->n + 1, sizeof(*b->lineno)) < 0 || grow_array((void **)&b->recs,
	    &b->cap3, b->n + 1, sizeof(*b->recs)) < 0 ||
	    grow_array((void **)&b->spans, &b->cap4, b->n + 1,
	    sizeof(*b->spans)) < 0 || buf_append(&b->data, line, len) < 0)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	b->off[b->n] = b->data.len - len;
	b->lineno[b->n++] = lineno;
	return 0;
}

/* A typed row of the offline table, in the hour of its event time. */
static int
rc_typed_row(struct rc *rc, const struct udtf_value *vals, long file,
    uint64_t lineno, int count_rejects)
{
	const struct udtf_value *t = &vals[rc->offline_time_col];
	int64_t key;
	long h;

	if (t->type != UDTF_TIMESTAMP || (key = rc_hour_key(rc,
	    t->u.ts_us)) < 0) {
		if (count_rejects && rc->pass == RC_COUNT)
			rc->rejects[RC_OFFLINE]++;
		return 0;
	}
	if ((h = rc_hour_find(rc, key)) < 0)
		return 0;
	return rc_row(rc, RC_OFFLINE, (size_t)h, vals, file, lineno, 0);
}

static enum codec_kind
rc_codec_of(const char *name)
{
	size_t n = strlen(name);

	if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
		return CODEC_GZIP;
	if ((n > 4 && strcmp(name + n - 4, ".zst") == 0) ||
	    (n > 5 && strcmp(name + n - 5, ".zstd") == 0))
		return CODEC_ZSTD;
	return CODEC_NONE;
}

/* Reads the file rel of a partition; count_rejects when its load hours
 * meet [from, to]. */
static int
rc_offline_file(struct rc *rc, const char *rel, int count_rejects)
{
	static const char delims[] = { [RC_HIVE_TEXT] = '\001',
	    [RC_TSV] = '\t', [RC_CSV] = ',', [RC_JSONL] = '\0' };
	struct rc_rowparse p = { 0 };
	struct rc_batch b = { 0 };
	struct udtf_value *vals = NULL;
	struct textin *in = NULL;
	struct buf rec = { 0 };
	char where[PATH_MAX + 512], why[512];
	const char *line, *base = strrchr(rel, '/');
	size_t len;
	uint64_t lineno = 0, first = 0;
	long id;
	int fd, r;

	snprintf(where, sizeof(where), "%s/%s", target_where(rc->offline_t),
	    rel);
	if ((id = rc_file_id(rc, RC_OFFLINE, where)) < 0)
		return (int)id;
	if (rc->pass == RC_FETCH && !rc->files[id].wanted)
		return 0;
	if ((fd = target_open_file(rc->offline_t, rel, rc->err,
	    rc->errlen)) < 0)
		return fd;
	if ((in = textin_open(fd, rc_codec_of(base ? base + 1 : rel),
	    where)) == NULL ||
	    (vals = calloc(rc->ncols + 1, sizeof(*vals))) == NULL) {
		r = err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	while ((r = textin_line(in, &line, &len, rc->err, rc->errlen)) == 1) {
		lineno = textin_lineno(in);
		if (rc->format == RC_RAW) {
			if ((r = rc_raw_line(rc, &b, line, len, lineno)) < 0 ||
			    (b.n >= CHAIN_BATCH_MAX && (r = rc_raw_batch(rc,
			    &b, id, count_rejects)) < 0))
				goto out;
			continue;
		}
		if (lineno == 1 && rc_is_header(rc, rc->format,
		    delims[rc->format], rc->offline_names, line, len))
			continue;
		/* a csv record may go on over several lines */
		if (rec.len > 0 && (buf_append(&rec, "\n", 1) < 0 ||
		    buf_append(&rec, line, len) < 0)) {
			r = err_set(rc->err, rc->errlen, -ENOMEM,
			    "out of memory");
			goto out;
		}
		if (rec.len == 0)
			first = lineno;
		r = rc_parse_line(rc, &p, rc->format, delims[rc->format],
		    rc->offline_names, rec.len ? rec.data : line,
		    rec.len ? rec.len : len, vals, why, sizeof(why));
		if (r == -EAGAIN) {
			if (rec.len == 0 && buf_append(&rec, line, len) < 0) {
				r = err_set(rc->err, rc->errlen, -ENOMEM,
				    "out of memory");
				goto out;
			}
			continue;
		}
		buf_reset(&rec);
		if (r < 0) {
			r = err_set(rc->err, rc->errlen, r, "%s:%" PRIu64 ": %s "
			    "(--offline-format %s)", where, first, r == -ENOMEM ?
			    "out of memory" : why, rc->o->offline_format ?
			    rc->o->offline_format : "raw");
			goto out;
		}
		if ((r = rc_typed_row(rc, vals, id, first, count_rejects)) < 0)
			goto out;
	}
	if (r == 0 && rec.len > 0)
		r = err_set(rc->err, rc->errlen, -EINVAL, "%s:%" PRIu64 ": a "
		    "quoted field that does not end", where, first);
	if (r == 0 && b.n > 0)
		r = rc_raw_batch(rc, &b, id, count_rejects);
out:
	textin_close(in);
	free(vals);
	buf_clear(&rec);
	rc_batch_clear(&b);
	rc_rowparse_clear(&p);
	return r;
}

/* Walks directory rel, at level of the layout, with the fields its path
 * gave so far in w. */
static int
rc_offline_dir(struct rc *rc, const char *rel, size_t level,
    struct rc_when w)
{
	struct rc_entries e = { 0 };
	char child[PATH_MAX], shown[ESCAPE_BUF];
	const char *seg = "", *where = target_where(rc->offline_t);
	size_t seglen = 0;
	int64_t lo, hi;
	int r, leaf = rc_segment(rc->layout, level, &seg, &seglen) < 0;

	if ((r = rc_entries_list(rc, rel, &e)) < 0)
		goto out;
	/* the load hours of this partition, when it is one */
	rc_when_span(&w, &lo, &hi);
	for (size_t i = 0; i < e.n && r == 0; i++) {
		struct rc_when cw = w;
		const char *name = e.names[i];
		int64_t clo, chi;

		if (name[0] == '.' || name[0] == '_')
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s%s%s", rel,
		    rel[0] ? "/" : "", name) >= sizeof(child)) {
			r = err_set(rc->err, rc->errlen, -ENAMETOOLONG,
			    "%s/%s: path too long", where, rel);
			break;
		}
		escape_str(child, shown, sizeof(shown));
		if (leaf && !e.is_dir[i]) {
			r = rc_offline_file(rc, child, lo <= rc->to_key &&
			    hi >= rc->from_key);
		} else if (leaf) {
			r = err_set(rc->err, rc->errlen, -EINVAL, "%s/%s: a "
			    "directory in a partition of --offline-layout %s, "
			    "which holds files", where, shown, rc->layout);
		} else if (!e.is_dir[i] || rc_segment_match(seg, seglen, name,
		    &cw) < 0) {
			r = err_set(rc->err, rc->errlen, -EINVAL, "%s/%s: not a "
			    "partition of --offline-layout %s (a directory %.*s "
			    "expected here)", where, shown, rc->layout,
			    (int)seglen, seg);
		} else {
			rc_when_span(&cw, &clo, &chi);
			if (clo <= rc->load_hi && chi >= rc->load_lo)
				r = rc_offline_dir(rc, child, level + 1, cw);
		}
	}
out:
	rc_entries_clear(&e);
	return r;
}

int
rc_offline_read(struct rc *rc)
{
	struct rc_when w = { { -1, -1, -1, -1 } };

	if (rc->pass == RC_COUNT)
		rc->offline_rejects_known = 1;
	return rc_offline_dir(rc, "", 0, w);
}
