/* runinfo: the running agent's figures, handed to the metrics server
 * each second and logged as the run's summary at the end: see agent.h. */
#include "agent/agent.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "agent/complete/complete.h"
#include "agent/complete/oncomplete.h"
#include "agent/ops/health.h"
#include "agent/ops/metrics_http.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/source/source.h"
#include "agent/twopc.h"
#include "lib/hist.h"
#include "lib/log.h"
#include "security/krb.h"

static double
runinfo_seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	    (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

/* The fields of slow record s of table t, in f[0..5). */
static void
runinfo_slow_fields(struct table *t, const struct latency_slow *s,
    struct log_field *f)
{
	f[0] = (struct log_field)LOG_STR("table", table_name(t));
	f[1] = (struct log_field)LOG_STR("topic", s->topic);
	f[2] = (struct log_field)LOG_INT("partition", s->partition);
	f[3] = (struct log_field)LOG_INT("offset", s->offset);
	f[4] = (struct log_field)LOG_INT("ns", s->ns);
}

/* Logs a table's slowest records: each at debug level, slowest first,
 * then one line with the slowest and how many were kept. */
static void
runinfo_log_slowest(struct table *t)
{
	const struct latency *l = &table_get_stats(t)->parse;
	const struct latency_slow *top;
	struct log_field f[6];
	char line[512];

	if (l->nslow == 0)
		return;
	for (size_t j = l->nslow; j-- > 0;) {
		runinfo_slow_fields(t, &l->slow[j], f);
		latency_describe_slow(&l->slow[j], line, sizeof(line));
		log_fields(LOG_LEVEL_DEBUG, f, 5, "table %s: slow record %s",
		    table_name(t), line);
	}
	top = &l->slow[l->nslow - 1];
	runinfo_slow_fields(t, top, f);
	f[5] = (struct log_field)LOG_INT("slow_records", l->nslow);
	latency_describe_slow(top, line, sizeof(line));
	log_fields(LOG_LEVEL_INFO, f, 6, "table %s: slowest record %s "
	    "(%.3f ms), of %zu slow records kept; kedge status lists them",
	    table_name(t), line, (double)top->ns / 1e6, l->nslow);
}

/* Logs what the run did: per table records, rows, rejects, rate and the
 * UDTF's cost per record; then files published and peak memory. */
void
agent_summary(struct agent *a)
{
	double secs = a->records ? runinfo_seconds(&a->first, &a->last) : 0;
	const struct hist *ck = twopc_durations(a->twopc);
	struct publish_stats ps;
	struct rusage ru;

	for (size_t i = 0; i < a->ntables; i++) {
		const struct table_stats *s = table_get_stats(a->tables[i]);
		const struct log_field f[] = {
		    LOG_STR("table", table_name(a->tables[i])),
		    LOG_INT("records", s->records), LOG_INT("rows", s->rows),
		    LOG_INT("rejects", s->rejects) };
		struct writer_stats ws;
		char line[512];

		log_fields(LOG_LEVEL_NOTICE, f, sizeof(f) / sizeof(f[0]),
		    "table %s: %" PRIu64 " records, %" PRIu64 " rows, %" PRIu64
		    " rejects, %" PRIu64 " gave no row", table_name(a->tables[i]),
		    s->records, s->rows, s->rejects, s->empty);
		latency_describe(&s->parse, line, sizeof(line));
		log_notice("table %s: UDTF %s ns/record: %s",
		    table_name(a->tables[i]),
		    chain_name(table_chain(a->tables[i])), line);
		runinfo_log_slowest(a->tables[i]);
		writer_get_stats(table_writer(a->tables[i]), &ws);
		if (ws.files_converted > 0)
			log_notice("table %s: %" PRIu64 " Parquet file(s) "
			    "converted; the run loop spent %.3f s on them",
			    table_name(a->tables[i]), ws.files_converted,
			    (double)ws.convert_held_ns / 1e9);
	}
	log_notice("consumed %" PRIu64 " records in %.3f s: %.0f records/s; "
	    "fetcher woken %" PRIu64 " times", a->records, secs,
	    secs > 0 ? (double)a->records / secs : 0.0, a->wakeups);
	log_notice("checkpoints: %" PRIu64 " decided; seal + decide ms: "
	    "p50 %.1f p99 %.1f max %.1f", ck->count,
	    (double)hist_quantile(ck, 0.5) / 1e6,
	    (double)hist_quantile(ck, 0.99) / 1e6, (double)ck->max_ns / 1e6);
	publisher_get_stats(a->pub, &ps);
	getrusage(RUSAGE_SELF, &ru);
	log_notice("published %" PRIu64 " files, %" PRIu64 " bytes; %" PRIu64
	    " publish errors; peak RSS %ld KiB", ps.files, ps.bytes, ps.errors,
	    ru.ru_maxrss);
}

int
agent_spool_low(const struct agent *a)
{
	return a->spool.free_bytes < (uint64_t)a->live->spool.min_free_bytes;
}

struct metrics_topic *
agent_assigned(struct agent *a)
{
	const struct conf_strv *topics = &a->conf->kafka.topics;
	struct metrics_topic *mt;

	if (a->src == NULL ||
	    (mt = calloc(topics->n ? topics->n : 1, sizeof(*mt))) == NULL)
		return NULL;
	for (size_t i = 0; i < topics->n; i++)
		mt[i] = (struct metrics_topic){ topics->v[i],
		    source_assigned(a->src, topics->v[i]) };
	return mt;
}

void
agent_health(struct agent *a, struct health *h)
{
	const struct conf_strv *topics = &a->conf->kafka.topics;
	unsigned held = a->src != NULL ? source_held(a->src) : 0;
	struct publish_stats ps;

	memset(h, 0, sizeof(*h));
	h->started = a->ready;
	snprintf(h->waiting, sizeof(h->waiting), "%s", a->ready_why);
	if (a->src != NULL) {
		h->brokers_down = source_down_since(a->src);
		for (size_t i = 0; i < topics->n; i++)
			h->assigned += source_assigned(a->src, topics->v[i]);
	}
	if (held & SOURCE_HOLD_LOGIN)
		snprintf(h->paused, sizeof(h->paused), "the Kerberos ticket "
		    "expired; waiting for a login");
	else if (held && agent_spool_low(a))
		snprintf(h->paused, sizeof(h->paused), "the spool's file system "
		    "has %" PRIu64 " bytes free, under spool.min_free_bytes (%"
		    PRId64 "); free space on it", a->spool.free_bytes,
		    a->live->spool.min_free_bytes);
	else if (held)
		snprintf(h->paused, sizeof(h->paused), "the spool is full; "
		    "waiting for the publisher");
	if (a->pub != NULL) {
		publisher_get_stats(a->pub, &ps);
		snprintf(h->publishing, sizeof(h->publishing), "%s",
		    ps.last_error);
	}
	if (a->stopping != NULL)
		snprintf(h->stopping, sizeof(h->stopping), "%s", a->stopping);
}

/* Microseconds to whole seconds; INT64_MIN (not known) stays. */
static int64_t
runinfo_us_to_s(int64_t us)
{
	return us == INT64_MIN ? INT64_MIN : us / 1000000;
}

/* Hands the metrics server what the loop knows now (metrics.h). */
void
agent_metrics(struct agent *a, time_t now)
{
	struct metrics_snapshot m = { .version = KEDGE_VERSION, .now = now,
	    .started = a->started, .consumed = a->records,
	    .checkpoints = twopc_durations(a->twopc), .cert_end = a->cert_end,
	    .has_spool = 1, .spool_bytes = a->spool.bytes,
	    .spool_ready_files = a->spool.ready_files,
	    .spool_oldest_ready = a->spool.oldest_ready,
	    .spool_free_bytes = a->spool.free_bytes, .has_published = 1,
	    .paused_login = (source_held(a->src) & SOURCE_HOLD_LOGIN) != 0,
	    .paused_spool = (source_held(a->src) & SOURCE_HOLD_SPOOL) != 0 };
	struct metrics_on_complete *oc;
	struct metrics_topic *mt;
	struct oncomplete_stats os;
	struct complete_figures cf;
	struct metrics_table *t;
	struct health h;
	struct publish_stats ps;

	if (a->metrics == NULL ||
	    (t = calloc(a->ntables, sizeof(*t))) == NULL)
		return;
	oc = calloc(a->ntables ? a->ntables : 1, sizeof(*oc));
	for (size_t i = 0; i < a->ntables; i++) {
		const struct table_stats *s = table_get_stats(a->tables[i]);
		struct writer_stats ws;

		writer_get_stats(table_writer(a->tables[i]), &ws);
		publisher_get_figures(a->pub, i, &cf);
		t[i] = (struct metrics_table){ table_name(a->tables[i]),
		    s->records, s->rows, s->rejects, s->empty, ws.files_open,
		    ws.files_parked, ws.files_reopened, &s->parse,
		    runinfo_us_to_s(cf.watermark_us),
		    runinfo_us_to_s(cf.last_hour_us) };
		if (oc != NULL && publisher_get_oncomplete(a->pub, i, &os))
			oc[i] = (struct metrics_on_complete){ os.ok, os.failed,
			    os.timeout, os.pending };
		else if (oc != NULL) {
			free(oc);
			oc = NULL;
		}
	}
	if ((mt = agent_assigned(a)) != NULL) {
		m.topics = mt;
		m.ntopics = a->conf->kafka.topics.n;
	}
	m.on_complete = oc;
	m.tables = t;
	m.ntables = a->ntables;
	if (a->krb != NULL)
		m.ticket_end = krb_expires(a->krb);
	publisher_get_stats(a->pub, &ps);
	agent_health(a, &h);
	m.health = &h;
	m.published_files = ps.files;
	m.published_bytes = ps.bytes;
	m.publish_errors = ps.errors;
	source_lags(a->src, metrics_add_lag, &m);
	if (metrics_set(a->metrics, &m) < 0)
		log_warnx("metrics: out of memory; serving the figures before");
	metrics_snapshot_clear(&m);
	free(mt);
	free(oc);
	free(t);
}
