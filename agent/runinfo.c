/* runinfo: the running agent's figures, handed to the metrics server
 * each second and logged as the run's summary at the end: see agent.h. */
#include "agent/agent.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "agent/complete/oncomplete.h"
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

/* Logs a table's slowest records, slowest first. */
static void
runinfo_log_slowest(struct table *t)
{
	const struct latency *l = &table_get_stats(t)->parse;
	char line[512];

	for (size_t j = l->nslow; j-- > 0;) {
		latency_describe_slow(&l->slow[j], line, sizeof(line));
		log_info("table %s: slow record %s", table_name(t), line);
	}
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
		struct writer_stats ws;
		char line[512];

		log_notice("table %s: %" PRIu64 " records, %" PRIu64 " rows, %"
		    PRIu64 " rejects, %" PRIu64 " gave no row",
		    table_name(a->tables[i]), s->records, s->rows, s->rejects,
		    s->empty);
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
	struct oncomplete_stats os;
	struct metrics_table *t;
	struct publish_stats ps;

	if (a->metrics == NULL ||
	    (t = calloc(a->ntables, sizeof(*t))) == NULL)
		return;
	oc = calloc(a->ntables ? a->ntables : 1, sizeof(*oc));
	for (size_t i = 0; i < a->ntables; i++) {
		const struct table_stats *s = table_get_stats(a->tables[i]);
		struct writer_stats ws;

		writer_get_stats(table_writer(a->tables[i]), &ws);
		t[i] = (struct metrics_table){ table_name(a->tables[i]),
		    s->records, s->rows, s->rejects, s->empty, ws.files_open,
		    ws.files_parked, ws.files_reopened, &s->parse };
		if (oc != NULL && publisher_get_oncomplete(a->pub, i, &os))
			oc[i] = (struct metrics_on_complete){ os.ok, os.failed,
			    os.timeout, os.pending };
		else if (oc != NULL) {
			free(oc);
			oc = NULL;
		}
	}
	m.on_complete = oc;
	m.tables = t;
	m.ntables = a->ntables;
	if (a->krb != NULL)
		m.ticket_end = krb_expires(a->krb);
	publisher_get_stats(a->pub, &ps);
	m.published_files = ps.files;
	m.published_bytes = ps.bytes;
	m.publish_errors = ps.errors;
	source_lags(a->src, metrics_add_lag, &m);
	if (metrics_set(a->metrics, &m) < 0)
		log_warnx("metrics: out of memory; serving the figures before");
	metrics_snapshot_clear(&m);
	free(oc);
	free(t);
}
