#include "agent/ops/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define NS_PER_S UINT64_C(1000000000)

/* Histogram boundaries, in ns; every histogram adds +Inf. */
static const uint64_t metrics_udtf_le[] = {
	250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
	500000, 1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
	100000000, 250000000, 500000000, 1000000000,
};
static const uint64_t metrics_ckpt_le[] = {
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000, 30000000000,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

void
metrics_add_lag(const char *topic, int32_t partition, int64_t next,
    int64_t high, void *arg)
{
	struct metrics_snapshot *m = arg;
	struct metrics_lag *l;

	if (grow_array((void **)&m->lags, &m->lags_cap, m->nlags + 1,
	    sizeof(*m->lags)) < 0)
		return;
	l = &m->lags[m->nlags++];
	snprintf(l->topic, sizeof(l->topic), "%s", topic);
	l->partition = partition;
	l->lag = high > next ? high - next : 0;
}

void
metrics_snapshot_clear(struct metrics_snapshot *m)
{
	free(m->lags);
	m->lags = NULL;
	m->nlags = m->lags_cap = 0;
}

/* A label of a sample: its name and its value, which is escaped. */
struct metrics_label {
	const char *name;
	const char *value;
};

/* Room for a number as text: seconds of metrics_secs, or an integer. */
#define METRICS_NUM 32

/* ns as seconds, exact and without trailing zeros ("0.00025"), in buf. */
static const char *
metrics_secs(char buf[METRICS_NUM], uint64_t ns)
{
	int n = snprintf(buf, METRICS_NUM, "%" PRIu64 ".%09" PRIu64,
	    ns / NS_PER_S, ns % NS_PER_S);

	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

/* Writes a label value, escaped as the format wants. */
static void
metrics_escape(FILE *out, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\')
			fputs("\\\\", out);
		else if (*v == '"')
			fputs("\\\"", out);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

/* The help texts are ours: they hold no backslash nor newline. */
static void
metrics_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample: name and suffix, the n labels (name{a="x",b="y"}), then
 * value. */
static void
metrics_sample(FILE *out, const char *name, const char *suffix,
    const struct metrics_label *l, size_t n, const char *value)
{
	fprintf(out, "%s%s", name, suffix);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%c%s=\"", i == 0 ? '{' : ',', l[i].name);
		metrics_escape(out, l[i].value);
		fputc('"', out);
	}
	fprintf(out, "%s%s\n", n > 0 ? "} " : " ", value);
}

/* name{label="value"} v, or name v without a label. */
static void
metrics_u64(FILE *out, const char *name, const char *label,
    const char *value, uint64_t v)
{
	struct metrics_label l = { label, value };
	char num[METRICS_NUM];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	metrics_sample(out, name, "", &l, label != NULL, num);
}

/* name{label="value"} ns in seconds. */
static void
metrics_seconds(FILE *out, const char *name, const char *label,
    const char *value, uint64_t ns)
{
	struct metrics_label l = { label, value };
	char num[METRICS_NUM];

	metrics_sample(out, name, "", &l, label != NULL, metrics_secs(num, ns));
}

/* A gauge or counter with one sample, no label. */
static void
metrics_one(FILE *out, const char *name, const char *type, const char *help,
    int64_t v)
{
	char num[METRICS_NUM];

	metrics_head(out, name, type, help);
	snprintf(num, sizeof(num), "%" PRId64, v);
	metrics_sample(out, name, "", NULL, 0, num);
}

/*
 * One histogram's samples from h (ns) in seconds.  h's buckets are about
 * 3 % wide and do not line up with le: an observation counts under the
 * first boundary at or above the upper end of its bucket, so a count at
 * a boundary never holds a value above it.
 */
static void
metrics_hist(FILE *out, const char *name, const char *label,
    const char *value, const struct hist *h, const uint64_t *le, size_t nle)
{
	/* the histogram's own label if any, then le */
	struct metrics_label l[2] = { { label, value } };
	size_t k = label != NULL;
	char num[METRICS_NUM], secs[METRICS_NUM];
	uint64_t below = 0;
	unsigned b = 0;

	for (size_t i = 0; i <= nle; i++) {
		if (i < nle)
			for (unsigned end = hist_bucket(le[i] + 1); b < end; b++)
				below += h->buckets[b];
		l[k] = (struct metrics_label){ "le", i < nle ?
		    metrics_secs(secs, le[i]) : "+Inf" };
		snprintf(num, sizeof(num), "%" PRIu64, i < nle ? below :
		    h->count);
		metrics_sample(out, name, "_bucket", l, k + 1, num);
	}
	metrics_sample(out, name, "_sum", l, k, metrics_secs(secs, h->sum_ns));
	snprintf(num, sizeof(num), "%" PRIu64, h->count);
	metrics_sample(out, name, "_count", l, k, num);
}

/* The longest a table's UDTF chain took, which the histogram's top
 * bucket hides. */
static void
metrics_udtf_max(FILE *out, const struct metrics_snapshot *m)
{
	metrics_head(out, "kedge_udtf_duration_max_seconds", "gauge",
	    "The longest a table's UDTF chain took for one record, since kedge "
	    "started.");
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].udtf != NULL)
			metrics_seconds(out, "kedge_udtf_duration_max_seconds",
			    "table", m->tables[i].name,
			    m->tables[i].udtf->hist.max_ns);
}

/* A per-table timestamp, for the tables that know it; the family is left
 * out when none does. */
static void
metrics_table_time(FILE *out, const struct metrics_snapshot *m,
    const char *name, const char *help, size_t offset)
{
	int head = 0;

	for (size_t i = 0; i < m->ntables; i++) {
		int64_t t = *(const int64_t *)(const void *)
		    ((const char *)&m->tables[i] + offset);

		if (t == INT64_MIN)
			continue;
		if (!head++)
			metrics_head(out, name, "gauge", help);
		metrics_u64(out, name, "table", m->tables[i].name,
		    t > 0 ? (uint64_t)t : 0);
	}
}

/* The per-table families. */
static void
metrics_tables(FILE *out, const struct metrics_snapshot *m)
{
	static const struct {
		const char *name;
		const char *type;
		const char *help;
		size_t offset;
	} families[] = {
		{ "kedge_records_total", "counter", "Records a table's UDTF "
		  "chain was given.", offsetof(struct metrics_table, records) },
		{ "kedge_rows_total", "counter", "Rows a table's UDTF chain "
		  "made.", offsetof(struct metrics_table, rows) },
		{ "kedge_rejects_total", "counter", "Records of a table sent to "
		  "the rejects table.", offsetof(struct metrics_table, rejects) },
		{ "kedge_records_without_rows_total", "counter", "Records of a "
		  "table that gave no row and no reject.",
		  offsetof(struct metrics_table, empty) },
		{ "kedge_part_files_open", "gauge", "Part files of a table "
		  "holding a descriptor.",
		  offsetof(struct metrics_table, files_open) },
		{ "kedge_part_files_parked", "gauge", "Part files of a table "
		  "closed between rows past output.roll.max_open_files, kept to "
		  "append to.", offsetof(struct metrics_table, files_parked) },
		{ "kedge_part_files_reopened_total", "counter", "Parked part "
		  "files of a table opened again for a row.",
		  offsetof(struct metrics_table, files_reopened) },
	};

	for (size_t c = 0; c < NELEM(families); c++) {
		metrics_head(out, families[c].name, families[c].type,
		    families[c].help);
		for (size_t i = 0; i < m->ntables; i++)
			metrics_u64(out, families[c].name, "table",
			    m->tables[i].name, *(const uint64_t *)(const void *)
			    ((const char *)&m->tables[i] + families[c].offset));
	}
	metrics_head(out, "kedge_udtf_duration_seconds", "histogram",
	    "Time a table's UDTF chain took per record.");
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].udtf != NULL)
			metrics_hist(out, "kedge_udtf_duration_seconds", "table",
			    m->tables[i].name, &m->tables[i].udtf->hist,
			    metrics_udtf_le, NELEM(metrics_udtf_le));
	metrics_udtf_max(out, m);
	metrics_table_time(out, m, "kedge_watermark_timestamp_seconds",
	    "A table's watermark, UNIX seconds: hours that end before it are "
	    "complete; only on the host that completes the table's hours.",
	    offsetof(struct metrics_table, watermark));
	metrics_table_time(out, m,
	    "kedge_last_complete_hour_timestamp_seconds", "When a table's "
	    "latest complete hour (one with a manifest) starts, UNIX seconds; "
	    "only on the host that completes the table's hours.",
	    offsetof(struct metrics_table, last_complete_hour));
}

/* output.on_complete's runs per table and result, and its backlog. */
static void
metrics_on_complete(FILE *out, const struct metrics_snapshot *m)
{
	char num[METRICS_NUM];

	if (m->on_complete == NULL)
		return;
	metrics_head(out, "kedge_on_complete_runs_total", "counter", "Runs "
	    "of output.on_complete, by result: ok, failed (an exit status "
	    "other than 0, or a signal) or timeout.");
	for (size_t i = 0; i < m->ntables; i++) {
		const struct metrics_on_complete *oc = &m->on_complete[i];
		const struct { const char *result; uint64_t n; } r[] = {
			{ "ok", oc->ok }, { "failed", oc->failed },
			{ "timeout", oc->timeout } };

		for (size_t k = 0; k < NELEM(r); k++) {
			struct metrics_label l[] = { { "table", m->tables[i].name },
				{ "result", r[k].result } };

			snprintf(num, sizeof(num), "%" PRIu64, r[k].n);
			metrics_sample(out, "kedge_on_complete_runs_total", "", l,
			    2, num);
		}
	}
	metrics_head(out, "kedge_on_complete_pending", "gauge", "Revisions "
	    "of complete hours whose output.on_complete has not succeeded "
	    "yet.");
	for (size_t i = 0; i < m->ntables; i++)
		metrics_u64(out, "kedge_on_complete_pending", "table",
		    m->tables[i].name, m->on_complete[i].pending);
}

static void
metrics_lags(FILE *out, const struct metrics_snapshot *m)
{
	metrics_head(out, "kedge_assigned_partitions", "gauge", "Partitions "
	    "of a topic assigned to this kedge.");
	for (size_t i = 0; i < m->ntopics; i++)
		metrics_u64(out, "kedge_assigned_partitions", "topic",
		    m->topics[i].name, m->topics[i].assigned);
	metrics_head(out, "kedge_consumer_lag", "gauge", "Records of an "
	    "assigned partition not yet read, from its assignment on: its "
	    "high watermark minus the next offset kedge needs.");
	for (size_t i = 0; i < m->nlags; i++) {
		char part[METRICS_NUM], lag[METRICS_NUM];
		struct metrics_label l[] = { { "topic", m->lags[i].topic },
			{ "partition", part } };

		snprintf(part, sizeof(part), "%" PRId32, m->lags[i].partition);
		snprintf(lag, sizeof(lag), "%" PRId64, m->lags[i].lag);
		metrics_sample(out, "kedge_consumer_lag", "", l, 2, lag);
	}
}

static void
metrics_spool(FILE *out, const struct metrics_snapshot *m)
{
	metrics_one(out, "kedge_spool_bytes", "gauge", "Bytes of the part "
	    "files in the spool, being written or waiting to be published.",
	    (int64_t)m->spool_bytes);
	metrics_one(out, "kedge_spool_ready_files", "gauge", "Part files "
	    "in the spool waiting to be published.",
	    (int64_t)m->spool_ready_files);
	metrics_one(out, "kedge_spool_oldest_ready_age_seconds", "gauge",
	    "Age of the oldest part file waiting to be published; 0 when "
	    "none waits.", m->spool_oldest_ready != 0 ?
	    (int64_t)(m->now - m->spool_oldest_ready) : 0);
	metrics_one(out, "kedge_spool_free_bytes", "gauge", "Bytes free "
	    "for kedge on the spool's file system.",
	    (int64_t)m->spool_free_bytes);
}

static void
metrics_published(FILE *out, const struct metrics_snapshot *m)
{
	metrics_one(out, "kedge_published_files_total", "counter", "Part "
	    "files published to the target.", (int64_t)m->published_files);
	metrics_one(out, "kedge_published_bytes_total", "counter", "Bytes "
	    "of the part files published to the target.",
	    (int64_t)m->published_bytes);
	metrics_one(out, "kedge_publish_errors_total", "counter", "Failed "
	    "attempts to publish a part file (each is retried).",
	    (int64_t)m->publish_errors);
}

int
metrics_render(FILE *out, const struct metrics_snapshot *m)
{
	metrics_one(out, "kedge_up", "gauge", "1 while kedge runs.", 1);
	metrics_head(out, "kedge_build_info", "gauge", "kedge's version, "
	    "in a label; always 1.");
	metrics_u64(out, "kedge_build_info", "version", m->version, 1);
	metrics_one(out, "kedge_start_time_seconds", "gauge", "When kedge "
	    "started, in seconds since the epoch.", (int64_t)m->started);
	metrics_one(out, "kedge_consumed_records_total", "counter", "Records "
	    "read from Kafka.", (int64_t)m->consumed);
	metrics_tables(out, m);
	metrics_on_complete(out, m);
	metrics_lags(out, m);
	if (m->checkpoints != NULL) {
		metrics_head(out, "kedge_checkpoint_duration_seconds",
		    "histogram", "Time a decided checkpoint took to seal and "
		    "decide.");
		metrics_hist(out, "kedge_checkpoint_duration_seconds", NULL,
		    NULL, m->checkpoints, metrics_ckpt_le,
		    NELEM(metrics_ckpt_le));
	}
	if (m->ticket_end != 0)
		metrics_one(out, "kedge_kerberos_ticket_remaining_seconds",
		    "gauge", "Seconds until the Kerberos ticket expires; "
		    "negative once it has.", (int64_t)(m->ticket_end - m->now));
	if (m->cert_end != 0)
		metrics_one(out, "kedge_certificate_remaining_seconds", "gauge",
		    "Seconds until the client certificate expires; negative "
		    "once it has.", (int64_t)(m->cert_end - m->now));
	if (m->has_spool)
		metrics_spool(out, m);
	if (m->has_published)
		metrics_published(out, m);
	metrics_head(out, "kedge_consumption_paused", "gauge", "1 while "
	    "consumption is held for the reason in the label.");
	metrics_u64(out, "kedge_consumption_paused", "reason",
	    "kerberos_ticket_expired", m->paused_login != 0);
	metrics_u64(out, "kedge_consumption_paused", "reason", "spool_full",
	    m->paused_spool != 0);
	return ferror(out) ? -EIO : 0;
}
