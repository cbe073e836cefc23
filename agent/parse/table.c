#include "agent/parse/table.h"
#include "lib/err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct table {
	const struct conf_table *conf;
	struct chain *chain;
	const struct udtf_column *cols;
	size_t ncols;
	int event_col;              /* -1: the Kafka timestamp */
	struct tz *tz;
	struct writer *writer;
	int past, future;           /* output.event_window, seconds */
	int64_t now_us;             /* of the batch being landed */
	struct table_stats stats;
};

/* Writes the chain's timestamp columns and kafka_timestamp into buf:
 * "time_local", "msec" or "kafka_timestamp". */
static void
table_time_columns(const struct table *t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->ncols && used < len; i++)
		if (t->cols[i].type == UDTF_TIMESTAMP)
			used += (size_t)snprintf(buf + used, len - used,
			    "%s\"%s\"", used > 0 ? ", " : "", t->cols[i].name);
	if (used < len)
		snprintf(buf + used, len - used, "%s\"%s\"", used > 0 ? " or " :
		    "", TABLE_KAFKA_TIMESTAMP);
}

static int
table_find_event_col(struct table *t, const struct conf *c, size_t index,
    char *err, size_t errlen)
{
	const char *name = t->conf->event_time;
	char key[64], candidates[512];
	struct conf_loc at;

	if (strcmp(name, TABLE_KAFKA_TIMESTAMP) == 0) {
		t->event_col = -1;
		return 0;
	}
	snprintf(key, sizeof(key), "tables[%zu].event_time", index);
	at = conf_where(c, key);
	table_time_columns(t, candidates, sizeof(candidates));
	for (size_t i = 0; i < t->ncols; i++) {
		if (strcmp(t->cols[i].name, name) != 0)
			continue;
		if (t->cols[i].type != UDTF_TIMESTAMP) {
			return err_set(err, errlen, -EINVAL,
			    "%s:%d: %s: column \"%s\" of UDTF %s is not a "
			    "timestamp; use %s", at.file, at.line, key, name,
			    chain_name(t->chain), candidates);
		}
		t->event_col = (int)i;
		return 0;
	}
	return err_set(err, errlen, -EINVAL,
	    "%s:%d: %s: UDTF %s emits no column \"%s\"; use %s", at.file,
	    at.line, key, chain_name(t->chain), name, candidates);
}

struct table *
table_new(const struct conf *c, size_t index, struct tz *tz, char *err,
    size_t errlen)
{
	const struct conf_table *tc = &c->tables[index];
	struct writer_opts o = {
		.table = tc->name,
		.spool_dir = c->output.spool_dir,
		.host = c->output.host,
		.format = { tc->format, tc->field_delimiter, tz },
		.codec = tc->codec,
		.codec_level = tc->codec_level,
		.roll = roll_policy_of(c),
		.parquet = {
			.row_group_bytes = (size_t)c->output.parquet.row_group_bytes,
			.page_bytes = (size_t)c->output.parquet.page_bytes,
			.dict_bytes = (size_t)c->output.parquet.dict_bytes,
		},
	};
	struct table *t;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->conf = tc;
	t->tz = tz;
	t->past = c->output.event_window.past;
	t->future = c->output.event_window.future;
	if ((t->chain = chain_new(c, index, err, errlen)) == NULL)
		goto fail;
	chain_columns(t->chain, &t->cols, &t->ncols);
	if (table_find_event_col(t, c, index, err, errlen) < 0)
		goto fail;
	t->writer = writer_new(&o, t->cols, t->ncols, err, errlen);
	if (t->writer == NULL)
		goto fail;
	return t;
fail:
	table_free(t);
	return NULL;
}

void
table_free(struct table *t)
{
	if (t == NULL)
		return;
	writer_free(t->writer);
	chain_free(t->chain);
	free(t);
}

const char *
table_name(const struct table *t)
{
	return t->conf->name;
}

int
table_reads_topic(const struct table *t, const char *topic)
{
	for (size_t i = 0; i < t->conf->topics.n; i++)
		if (strcmp(t->conf->topics.v[i], topic) == 0)
			return 1;
	return 0;
}

struct writer *
table_writer(struct table *t)
{
	return t->writer;
}

const struct table_stats *
table_get_stats(const struct table *t)
{
	return &t->stats;
}

struct chain *
table_reload_chain(const struct table *t, const struct conf *c, char *err,
    size_t errlen)
{
	size_t index = conf_table_find(c, t->conf->name), ncols;
	const struct udtf_column *cols;
	struct chain *ch;

	if (index == c->n_tables) {
		snprintf(err, errlen, "%s has no table %s", c->path,
		    t->conf->name);
		return NULL;
	}
	if ((ch = chain_new(c, index, err, errlen)) == NULL)
		return NULL;
	chain_columns(ch, &cols, &ncols);
	for (size_t i = 0; i < ncols && ncols == t->ncols; i++) {
		if (strcmp(cols[i].name, t->cols[i].name) != 0 ||
		    cols[i].type != t->cols[i].type)
			ncols = SIZE_MAX;
	}
	if (ncols != t->ncols) {
		snprintf(err, errlen, "its columns would change, which files "
		    "being written cannot follow");
		chain_free(ch);
		return NULL;
	}
	return ch;
}

void
table_reload(struct table *t, const struct conf *c, struct chain *ch)
{
	const struct udtf_column *cols;
	size_t ncols;

	chain_columns(ch, &cols, &ncols);
	/* the writer takes the new chain's columns, the same ones */
	writer_set_columns(t->writer, cols);
	chain_free(t->chain);
	t->chain = ch;
	t->cols = cols;
	t->conf = &c->tables[conf_table_find(c, t->conf->name)];
}

struct chain *
table_chain(struct table *t)
{
	return t->chain;
}

/* Where a row goes: the hour of its event time. */
struct table_when {
	int64_t event_us;
	struct tz_hour hour;
};

/* Writes the reason a row's event time ts_us is outside the window, or
 * returns 0 when it is inside. */
static int
table_outside(const struct table *t, int64_t ts_us, char *reason,
    size_t reasonlen)
{
	const char *col = t->event_col < 0 ? TABLE_KAFKA_TIMESTAMP :
	    t->cols[t->event_col].name;
	int64_t lo = t->now_us - (int64_t)t->past * 1000000;
	int64_t hi = t->now_us + (int64_t)t->future * 1000000;
	time_t secs = (time_t)(ts_us / 1000000 - (ts_us % 1000000 < 0));
	char when[64];
	struct tm tm;

	if (ts_us >= lo && ts_us <= hi)
		return 0;
	if (gmtime_r(&secs, &tm) == NULL || strftime(when, sizeof(when),
	    "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, sizeof(when), "%" PRId64 " us", ts_us);
	if (ts_us < lo)
		snprintf(reason, reasonlen, "event time %s %s is more than %d s "
		    "in the past (output.event_window.past)", col, when,
		    t->past);
	else
		snprintf(reason, reasonlen, "event time %s %s is more than %d s "
		    "in the future (output.event_window.future)", col, when,
		    t->future);
	return 1;
}

/* Finds the event time and hour of each of the nrows rows, before any row
 * is written, so that a record is either written whole or rejected whole.
 * Returns 0, or -EINVAL with the reason. */
static int
table_route(struct table *t, const struct udtf_record *rec,
    const struct udtf_value *rows, size_t nrows, struct table_when *when,
    char *reason, size_t reasonlen)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct udtf_value *v;
		int64_t ts_us;

		/* the Kafka timestamp is the record's: every row has the
		 * first's time and hour, checked once */
		if (t->event_col < 0 && i > 0) {
			when[i] = when[0];
			continue;
		}
		if (t->event_col < 0) {
			if (rec->timestamp_ms < 0) {
				snprintf(reason, reasonlen,
				    "record has no Kafka timestamp");
				return -EINVAL;
			}
			/* out of the window, and of int64 us */
			ts_us = rec->timestamp_ms > INT64_MAX / 1000 ? INT64_MAX :
			    rec->timestamp_ms * 1000;
		} else {
			v = &rows[i * t->ncols + (size_t)t->event_col];
			if (v->type != UDTF_TIMESTAMP) {
				return err_set(reason, reasonlen, -EINVAL,
				    "event time %s is NULL",
				    t->cols[t->event_col].name);
			}
			ts_us = v->u.ts_us;
		}
		if (table_outside(t, ts_us, reason, reasonlen))
			return -EINVAL;
		when[i].event_us = ts_us;
		if (tz_hour_of(t->tz, ts_us, &when[i].hour) < 0) {
			return err_set(reason, reasonlen, -EINVAL,
			    "event time %s is out of range",
			    t->event_col < 0 ? TABLE_KAFKA_TIMESTAMP :
			    t->cols[t->event_col].name);
		}
	}
	return 0;
}

static int
table_reject(struct table *t, struct rejects *rj, const struct udtf_record *rec,
    const char *reason, char *err, size_t errlen)
{
	t->stats.rejects++;
	return rejects_add(rj, t->conf->name, rec, reason, err, errlen);
}

int
table_note_skipped(struct table *t, const char *topic, int32_t partition,
    int64_t from, int64_t to, int unread, char *err, size_t errlen)
{
	struct tz_hour hour;

	if (tz_hour_of(t->tz, (int64_t)time(NULL) * 1000000, &hour) < 0) {
		return err_set(err, errlen, -ERANGE,
		    "the clock is out of range");
	}
	return writer_note_skipped(t->writer, &hour, topic, partition, from, to,
	    unread, err, errlen);
}

/* A record that gave no row is noted in a file of its partition, so that
 * the landed files still account for every offset; when the partition has
 * no file, in a new one (with no row) in the hour of its arrival, as the
 * rejects are. */
static int
table_note_empty(struct table *t, const struct udtf_record *rec, char *err,
    size_t errlen)
{
	t->stats.empty++;
	return table_note_skipped(t, rec->topic, rec->partition, rec->offset,
	    rec->offset, 0, err, errlen);
}

/* What becomes of one parsed record (span), as table_land() and
 * table_preview() both see it.  Returns 1 when its rows land: *rows and
 * *nrows, their hours in *when (one, or a new array the caller frees when
 * it is not one); 0 when it gave no row; -EINVAL when it goes to the
 * rejects table, *why saying why (in reason, or the chain's); -ENOMEM. */
static int
table_decide(struct table *t, const struct udtf_record *rec,
    const struct chain_span *span, const struct udtf_value **rows,
    size_t *nrows, struct table_when *one, struct table_when **when,
    char *reason, size_t reasonlen, const char **why)
{
	*when = one;
	*why = reason;
	if (span->result < 0) {
		*why = chain_reason(t->chain, span);
		return -EINVAL;
	}
	if (span->nrows == 0)
		return 0;
	*rows = chain_rows(t->chain, nrows) + span->first * t->ncols;
	*nrows = span->nrows;
	if (*nrows > 1 && (*when = malloc(*nrows * sizeof(**when))) == NULL) {
		*when = one;
		return -ENOMEM;
	}
	if (table_route(t, rec, *rows, *nrows, *when, reason, reasonlen) < 0)
		return -EINVAL;
	return 1;
}

/* Writes the rows of one parsed record to their hours' part files, or
 * sends it to the rejects table. */
static int
table_land(struct table *t, const struct udtf_record *rec,
    const struct chain_span *span, struct rejects *rj, char *err,
    size_t errlen)
{
	char reason[512];
	struct table_when one, *when;
	const struct udtf_value *rows = NULL;
	const char *why;
	size_t nrows = 0;
	int r;

	r = table_decide(t, rec, span, &rows, &nrows, &one, &when, reason,
	    sizeof(reason), &why);
	if (r == -ENOMEM)
		r = err_set(err, errlen, -ENOMEM, "out of memory");
	else if (r == -EINVAL)
		r = table_reject(t, rj, rec, why, err, errlen);
	else if (r == 0)
		r = table_note_empty(t, rec, err, errlen);
	for (size_t i = 0; r == 1 && i < nrows; i++) {
		struct writer_origin o = { rec->topic, rec->partition,
		    rec->offset, i == 0, NULL, when[i].event_us };
		if ((r = writer_write(t->writer, &when[i].hour, &o,
		    rows + i * t->ncols, err, errlen)) == 0) {
			t->stats.rows++;
			r = 1;
		}
	}
	if (when != &one)
		free(when);
	return r < 0 ? r : 0;
}

int
table_preview(struct table *t, const struct udtf_record *recs, size_t n,
    table_preview_fn *fn, void *arg, char *err, size_t errlen)
{
	struct chain_span spans[CHAIN_BATCH_MAX];
	size_t done = 0;

	t->now_us = (int64_t)time(NULL) * 1000000;
	while (done < n) {
		size_t got = chain_parse_batch(t->chain, recs + done, n - done,
		    spans, NULL);

		for (size_t i = 0; i < got; i++, done++) {
			struct table_landing l = { NULL, 0, NULL, NULL };
			struct table_when one, *when;
			struct tz_hour *hours = NULL;
			char reason[512];
			int r;

			r = table_decide(t, &recs[done], &spans[i], &l.rows,
			    &l.nrows, &one, &when, reason, sizeof(reason),
			    &l.reason);
			if (r == 1 && (hours = calloc(l.nrows,
			    sizeof(*hours))) == NULL)
				r = -ENOMEM;
			if (r == -ENOMEM) {
				if (when != &one)
					free(when);
				return err_set(err, errlen, -ENOMEM,
				    "out of memory");
			}
			if (r != -EINVAL)
				l.reason = NULL;
			if (r != 1)
				l.nrows = 0;
			for (size_t j = 0; j < l.nrows; j++)
				hours[j] = when[j].hour;
			l.hours = hours;
			fn(arg, done, &l);
			free(hours);
			if (when != &one)
				free(when);
		}
	}
	return 0;
}

int
table_process(struct table *t, const struct udtf_record *recs, size_t n,
    struct rejects *rj, size_t *done, char *err, size_t errlen)
{
	struct chain_span spans[CHAIN_BATCH_MAX];
	int r;

	*done = 0;
	t->now_us = (int64_t)time(NULL) * 1000000;
	while (*done < n) {
		size_t got = chain_parse_batch(t->chain, recs + *done,
		    n - *done, spans, &t->stats.parse);

		t->stats.records += got;
		for (size_t i = 0; i < got; i++, ++*done)
			if ((r = table_land(t, &recs[*done], &spans[i], rj,
			    err, errlen)) < 0)
				return r;
	}
	return 0;
}
