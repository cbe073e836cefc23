/*
 * Which hours are complete: the completer's state, the progress files, the
 * watermark, the scan of the target (complete.h); hour.c writes an hour's
 * manifest and _SUCCESS.
 */
#include "agent/complete/complete.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/complete/complete_int.h"
#include "agent/complete/manifest.h"
#include "agent/complete/progress.h"
#include "agent/parse/rejects.h"
#include "agent/write/tz.h"
#include "lib/buf.h"
#include "lib/grow.h"

#define PROGRESS_DIR "_kedge/progress"
#define US_PER_S INT64_C(1000000)

/* The latest published event time of one partition for one table. */
struct complete_max {
	char *table, *topic;
	int32_t partition;
	int64_t max_event_us;     /* MANIFEST_NO_TIME: none yet */
	int seeded;               /* the progress file's value is in */
};

static void
complete_parts_free(struct complete_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].topic);
		free(p[i].pending_us);
	}
	free(p);
}

void
complete_view_clear(struct complete_view *v)
{
	complete_parts_free(v->parts, v->nparts);
	for (size_t i = 0; i < v->ntopics; i++)
		free(v->topics[i].topic);
	free(v->topics);
	memset(v, 0, sizeof(*v));
}

struct completer *
complete_new(const struct conf *c, char *err, size_t errlen)
{
	struct completer *cp;
	char why[256];

	if ((cp = calloc(1, sizeof(*cp))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cp->c = c;
	if ((cp->scanned = calloc(c->n_tables, sizeof(*cp->scanned))) == NULL ||
	    (cp->figures = calloc(c->n_tables, sizeof(*cp->figures))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < c->n_tables; i++)
		cp->figures[i] = (struct complete_figures){ INT64_MIN,
		    INT64_MIN };
	if ((cp->tz = tz_open(c->output.timezone, why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "%s", why);
		goto fail;
	}
	return cp;
fail:
	free(cp->figures);
	free(cp->scanned);
	free(cp);
	return NULL;
}

void
complete_get_figures(const struct completer *cp, size_t i,
    struct complete_figures *out)
{
	*out = cp->figures[i];
}

void
complete_free(struct completer *cp)
{
	if (cp == NULL)
		return;
	for (size_t i = 0; i < cp->nmaxes; i++) {
		free(cp->maxes[i].table);
		free(cp->maxes[i].topic);
	}
	free(cp->maxes);
	for (size_t i = 0; i < cp->nhours; i++)
		free(cp->hours[i].table);
	free(cp->hours);
	complete_view_clear(&cp->view);
	tz_close(cp->tz);
	free(cp->figures);
	free(cp->scanned);
	free(cp);
}

void
complete_set_oncomplete(struct completer *cp, struct oncomplete *oc)
{
	cp->oc = oc;
}

void
complete_set_stop(struct completer *cp, const atomic_int *stop)
{
	cp->stop = stop;
}

/* Whether complete_set_stop()'s flag asks complete_run() to end. */
static int
complete_stopping(const struct completer *cp)
{
	return cp->stop != NULL && atomic_load(cp->stop);
}

void
complete_set_view(struct completer *cp, struct complete_view *v)
{
	complete_view_clear(&cp->view);
	cp->view = *v;
	cp->have_view = 1;
	memset(v, 0, sizeof(*v));
}

/* The hour (table, dt, hr), added when new; NULL when short of memory. */
static struct complete_hour *
complete_hour(struct completer *cp, const char *table, const char *dt,
    const char *hr)
{
	struct complete_hour *h;

	for (size_t i = 0; i < cp->nhours; i++) {
		h = &cp->hours[i];
		if (strcmp(h->dt, dt) == 0 && strcmp(h->hr, hr) == 0 &&
		    strcmp(h->table, table) == 0)
			return h;
	}
	if (grow_array((void **)&cp->hours, &cp->hours_cap, cp->nhours + 1,
	    sizeof(*cp->hours)) < 0)
		return NULL;
	h = &cp->hours[cp->nhours];
	memset(h, 0, sizeof(*h));
	if ((h->table = strdup(table)) == NULL)
		return NULL;
	snprintf(h->dt, sizeof(h->dt), "%s", dt);
	snprintf(h->hr, sizeof(h->hr), "%s", hr);
	cp->nhours++;
	return h;
}

/* The running maximum of (table, topic, partition); NULL when short of
 * memory. */
static struct complete_max *
complete_max(struct completer *cp, const char *table, const char *topic,
    int32_t partition)
{
	struct complete_max *m;

	for (size_t i = 0; i < cp->nmaxes; i++) {
		m = &cp->maxes[i];
		if (m->partition == partition && strcmp(m->topic, topic) == 0 &&
		    strcmp(m->table, table) == 0)
			return m;
	}
	if (grow_array((void **)&cp->maxes, &cp->maxes_cap, cp->nmaxes + 1,
	    sizeof(*cp->maxes)) < 0)
		return NULL;
	m = &cp->maxes[cp->nmaxes];
	memset(m, 0, sizeof(*m));
	m->max_event_us = MANIFEST_NO_TIME;
	if ((m->table = strdup(table)) == NULL ||
	    (m->topic = strdup(topic)) == NULL) {
		free(m->table);
		return NULL;
	}
	m->partition = partition;
	cp->nmaxes++;
	return m;
}

/* Splits "<table>/dt=YYYYMMDD/hr=HH/<name>"; 0 or -EINVAL. */
static int
complete_split(const char *rel, char *table, size_t tlen, char *dt, char *hr)
{
	const char *p = strchr(rel, '/');

	if (p == NULL || (size_t)(p - rel) >= tlen ||
	    strncmp(p, "/dt=", 4) != 0 || strlen(p) < 4 + 8 + 4 + 2 ||
	    strncmp(p + 12, "/hr=", 4) != 0)
		return -EINVAL;
	snprintf(table, tlen, "%.*s", (int)(p - rel), rel);
	snprintf(dt, 9, "%.8s", p + 4);
	snprintf(hr, 3, "%.2s", p + 16);
	return 0;
}

void
complete_published(struct completer *cp, const char *rel,
    const struct sidecar *sc)
{
	char table[256], dt[9], hr[3];
	struct complete_hour *h;
	struct complete_max *m;

	if (complete_split(rel, table, sizeof(table), dt, hr) < 0 ||
	    strcmp(table, REJECTS_TABLE) == 0)
		return;
	if ((h = complete_hour(cp, table, dt, hr)) != NULL)
		h->dirty = 1;
	if (sc->has_event_range && (m = complete_max(cp, table, sc->topic,
	    (int32_t)sc->partition)) != NULL && sc->max_event_us >
	    m->max_event_us)
		m->max_event_us = sc->max_event_us;
}

/* The UTC instant (us) at which local hour dt/hr ends: the first instant
 * after it whose local hour is a later one (a repeated hour at the end of
 * summer time ends with its second pass); the one at which it starts in
 * *start_us. */
static int64_t
complete_hour_end(struct completer *cp, const char *dt, const char *hr,
    int64_t *start_us)
{
	struct tm tm = { 0 };
	struct tz_hour h;
	int64_t key, guess, start;

	*start_us = INT64_MAX;
	if (sscanf(dt, "%4d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3 ||
	    sscanf(hr, "%2d", &tm.tm_hour) != 1)
		return INT64_MAX;
	key = (int64_t)tm.tm_year * 1000000 + tm.tm_mon * 10000 +
	    tm.tm_mday * 100 + tm.tm_hour;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	guess = (int64_t)timegm(&tm);
	start = guess;
	for (int i = 0; i < 2; i++)
		if (tz_hour_of(cp->tz, start * US_PER_S, &h) == 0)
			start = guess - h.utc_offset_s;
	*start_us = start * US_PER_S;
	for (int64_t end = start + 3600;; end += 3600)
		if (tz_hour_of(cp->tz, end * US_PER_S, &h) < 0 || h.key > key ||
		    end > start + 3 * 3600)
			return end * US_PER_S;
}

/* --- progress files --- */

_Static_assert(PROGRESS_NO_MAX == MANIFEST_NO_TIME,
    "a progress file's null max_event_us is a manifest's no time");

/* The progress file of (table, topic, partition), in rel[1024]. */
static void
progress_rel(char *rel, const char *table, const char *topic,
    int32_t partition)
{
	snprintf(rel, 1024, PROGRESS_DIR "/%s/%s+%" PRId32 ".json", table,
	    topic, partition);
}

/* Reads the progress of (table, topic, partition).  Returns 1, 0 when
 * there is none, or a negative errno with the sentence in err; the caller
 * frees p either way. */
static int
progress_read(struct target *t, const char *table, const char *topic,
    int32_t partition, struct progress *p, char *err, size_t errlen)
{
	char rel[1024], why[512], *text;
	size_t len;
	int r;

	memset(p, 0, sizeof(*p));
	progress_rel(rel, table, topic, partition);
	if ((r = target_read(t, rel, 4096, &text, &len, err, errlen)) <= 0)
		return r;
	r = progress_parse(text, len, p, why, sizeof(why));
	free(text);
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen, "unreadable progress in %s/%s: %s",
			    target_where(t), rel, why);
		return r;
	}
	return 1;
}

static int
complete_reads(const struct conf_table *ct, const char *topic)
{
	for (size_t i = 0; i < ct->topics.n; i++)
		if (strcmp(ct->topics.v[i], topic) == 0)
			return 1;
	return 0;
}

/* Writes the progress of (table, topic, partition). */
static int
progress_write(struct target *t, const struct conf *c, const char *table,
    const char *topic, int32_t partition, int64_t max_event_us,
    int64_t pending_us, int at_end, time_t last_record, char *err,
    size_t errlen)
{
	struct progress p = { c->output.host, max_event_us,
	    pending_us, at_end, (int64_t)last_record, (int64_t)time(NULL) };
	struct buf text = { 0 };
	char rel[1024];
	int r;

	progress_rel(rel, table, topic, partition);
	if ((r = progress_format(&p, &text)) == 0)
		r = target_write(t, rel, text.data, text.len, err, errlen);
	else
		snprintf(err, errlen, "%s: %s", rel, r == -EILSEQ ?
		    "output.host is not UTF-8" : "out of memory");
	buf_clear(&text);
	return r;
}

int
complete_hold(struct target *t, const struct conf *c, const char *topic,
    int32_t partition, char *err, size_t errlen)
{
	int r;

	if (!c->completion.enabled)
		return 0;
	for (size_t i = 0; i < c->n_tables; i++)
		if (complete_reads(&c->tables[i], topic) &&
		    (r = progress_write(t, c, c->tables[i].name, topic, partition,
		    MANIFEST_NO_TIME, 0, 0, 0, err, errlen)) < 0)
			return r;
	return 0;
}

/* Writes this host's progress for every partition it consumes, per table
 * that reads the partition's topic. */
static int
progress_write_all(struct completer *cp, struct target *t, char *err,
    size_t errlen)
{
	const struct conf *c = cp->c;

	for (size_t i = 0; i < c->n_tables; i++) {
		const struct conf_table *ct = &c->tables[i];

		for (size_t k = 0; k < cp->view.nparts; k++) {
			const struct complete_part *part = &cp->view.parts[k];
			struct progress old;
			struct complete_max *m;
			int r;

			if (!complete_reads(ct, part->topic))
				continue;
			if ((m = complete_max(cp, ct->name, part->topic,
			    part->partition)) == NULL)
				return -ENOMEM;
			if (!m->seeded) {
				/* a host before this one may have got further */
				r = progress_read(t, ct->name, part->topic,
				    part->partition, &old, err, errlen);
				if (r == 1 && old.max_event_us > m->max_event_us)
					m->max_event_us = old.max_event_us;
				progress_clear(&old);
				if (r < 0)
					return r;
				m->seeded = 1;
			}
			if ((r = progress_write(t, c, ct->name, part->topic,
			    part->partition, m->max_event_us,
			    part->pending_us[i], part->at_end,
			    part->last_record, err, errlen)) < 0)
				return r;
		}
	}
	return 0;
}

/* --- the watermark --- */

static int32_t
complete_partitions(const struct completer *cp, const char *topic)
{
	for (size_t i = 0; i < cp->view.ntopics; i++)
		if (strcmp(cp->view.topics[i].topic, topic) == 0)
			return cp->view.topics[i].partitions;
	return -1;
}

/* Whether this host completes table ct: it consumes partition 0 of the
 * table's first topic. */
static int
complete_owner(const struct completer *cp, const struct conf_table *ct)
{
	for (size_t i = 0; i < cp->view.nparts; i++)
		if (cp->view.parts[i].partition == 0 &&
		    strcmp(cp->view.parts[i].topic, ct->topics.v[0]) == 0)
			return 1;
	return 0;
}

/* The watermark of table ct (us), or INT64_MIN while a partition has no
 * progress. */
static int
complete_watermark(struct completer *cp, struct target *t,
    const struct conf_table *ct, time_t now, int64_t *wm, char *err,
    size_t errlen)
{
	const int64_t present = (int64_t)now * US_PER_S;
	int64_t low = INT64_MAX;

	for (size_t i = 0; i < ct->topics.n; i++) {
		int32_t n = complete_partitions(cp, ct->topics.v[i]);

		if (n <= 0) {
			*wm = INT64_MIN;
			return 0;
		}
		for (int32_t p = 0; p < n; p++) {
			struct progress pr;
			int64_t at;
			int r;

			r = progress_read(t, ct->name, ct->topics.v[i], p, &pr,
			    err, errlen);
			at = pr.at_end || (pr.last_record > 0 && now -
			    pr.last_record >= cp->c->completion.idle_timeout) ?
			    present : pr.max_event_us;
			if (pr.pending_us < at)
				at = pr.pending_us;
			progress_clear(&pr);
			if (r < 0)
				return r;
			if (r == 0) {
				*wm = INT64_MIN;
				return 0;
			}
			if (at < low)
				low = at;
		}
	}
	*wm = low == MANIFEST_NO_TIME ? INT64_MIN : low -
	    (int64_t)cp->c->completion.allowed_lateness * US_PER_S;
	return 0;
}

/* --- scanning the target --- */

struct complete_scan {
	struct completer *cp;
	struct target *t;
	const char *table;
	char dt[9];
	char *err;
	size_t errlen;
};

static int
complete_scan_hr(const char *name, int is_dir, int64_t len, void *arg)
{
	struct complete_scan *s = arg;

	(void)len;
	if (!is_dir || strncmp(name, "hr=", 3) != 0 || strlen(name) != 5)
		return 0;
	return complete_hour(s->cp, s->table, s->dt, name + 3) != NULL ? 0 :
	    -ENOMEM;
}

static int
complete_scan_dt(const char *name, int is_dir, int64_t len, void *arg)
{
	struct complete_scan *s = arg;
	char rel[1024];

	(void)len;
	if (!is_dir || strncmp(name, "dt=", 3) != 0 || strlen(name) != 11)
		return 0;
	snprintf(s->dt, sizeof(s->dt), "%s", name + 3);
	snprintf(rel, sizeof(rel), "%s/%s", s->table, name);
	return target_list(s->t, rel, complete_scan_hr, s, s->err, s->errlen);
}

/* Learns every hour of table ct that is in the target. */
static int
complete_scan(struct completer *cp, struct target *t, const char *table,
    char *err, size_t errlen)
{
	struct complete_scan s = { cp, t, table, "", err, errlen };

	return target_list(t, table, complete_scan_dt, &s, err, errlen);
}

/* Completes what hours of table i it can; lists the whole table first when
 * completion.rescan has passed since it last did (or never did). */
static int
complete_table(struct completer *cp, struct target *t, size_t i, time_t now,
    char *err, size_t errlen)
{
	const struct conf_table *ct = &cp->c->tables[i];
	struct complete_figures *fig = &cp->figures[i];
	int rescan = cp->scanned[i] == 0 ||
	    now - cp->scanned[i] >= cp->c->completion.rescan;
	int64_t wm;
	int r, n = 0;

	if ((r = complete_watermark(cp, t, ct, now, &wm, err, errlen)) < 0)
		return r;
	fig->watermark_us = wm;
	if (wm == INT64_MIN)
		return 0;
	if (rescan) {
		if ((r = complete_scan(cp, t, ct->name, err, errlen)) < 0)
			return r;
		cp->scanned[i] = now;
	}
	for (size_t k = 0; k < cp->nhours && !complete_stopping(cp); k++) {
		struct complete_hour *h = &cp->hours[k];
		int64_t start;

		if (strcmp(h->table, ct->name) != 0 ||
		    complete_hour_end(cp, h->dt, h->hr, &start) > wm)
			continue;
		if (!h->done || h->dirty || rescan) {
			if ((r = complete_hour_write(cp, t, h, wm, err,
			    errlen)) < 0)
				return r;
			h->done = 1;
			h->dirty = 0;
			n += r;
		}
		if (start > fig->last_hour_us)
			fig->last_hour_us = start;
	}
	return n;
}

int
complete_run(struct completer *cp, struct target *t, time_t now, char *err,
    size_t errlen)
{
	const struct conf *c = cp->c;
	int r, n = 0;

	if (!cp->have_view || !c->completion.enabled)
		return 0;
	if ((r = progress_write_all(cp, t, err, errlen)) < 0)
		return r;
	for (size_t i = 0; i < c->n_tables && !complete_stopping(cp); i++) {
		if (!complete_owner(cp, &c->tables[i])) {
			cp->figures[i] = (struct complete_figures){ INT64_MIN,
			    INT64_MIN };
			continue;
		}
		if ((r = complete_table(cp, t, i, now, err, errlen)) < 0)
			return r;
		n += r;
	}
	return n;
}
