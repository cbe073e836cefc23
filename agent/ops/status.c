#include "agent/ops/status.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/parse/chain.h"
#include "lib/buf.h"
#include "lib/fsutil.h"
#include "lib/jsondoc.h"

static void
status_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
status_table(FILE *f, struct table *t)
{
	const struct table_stats *s = table_get_stats(t);
	const char *name = table_name(t);
	char line[512];

	fprintf(f, "table %s: UDTF %s: %" PRIu64 " records, %" PRIu64
	    " rows, %" PRIu64 " rejects, %" PRIu64 " gave no row\n", name,
	    chain_name(table_chain(t)), s->records, s->rows, s->rejects,
	    s->empty);
	latency_describe(&s->parse, line, sizeof(line));
	fprintf(f, "table %s: ns/record: %s\n", name, line);
	for (size_t j = s->parse.nslow; j-- > 0;) {
		latency_describe_slow(&s->parse.slow[j], line, sizeof(line));
		fprintf(f, "table %s: slow record %s\n", name, line);
	}
}

/* The partitions assigned, per topic, and their lag: none without
 * partitions. */
static void
status_assigned(FILE *f, const struct status *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->ntopics; i++)
		n += s->topics[i].assigned;
	if (s->topics != NULL && n == 0) {
		fprintf(f, "assigned: no partition; reading nothing\n");
		return;
	}
	if (s->topics != NULL) {
		fprintf(f, "assigned: %" PRIu64 " partition%s (", n,
		    n == 1 ? "" : "s");
		for (size_t i = 0; i < s->ntopics; i++)
			fprintf(f, "%s%s: %" PRIu64, i > 0 ? ", " : "",
			    s->topics[i].name, s->topics[i].assigned);
		fprintf(f, ")\n");
	}
	fprintf(f, "consumer lag: %" PRId64 " records", s->lag);
	if (s->lag_unknown > 0)
		fprintf(f, ", and not known yet for %zu partition(s): the "
		    "brokers have not told their watermarks", s->lag_unknown);
	fputc('\n', f);
}

/* A latency as {"mean":..,"p50":..,...,"max":..} in ns, and its slowest
 * records. */
static json_t *
status_json_latency(const struct latency *l)
{
	json_t *o = json_pack("{s:I}", "mean", (json_int_t)(l->hist.count ?
	    l->hist.sum_ns / l->hist.count : 0));
	json_t *slow = json_array();

	for (size_t q = 0; o != NULL && q < LATENCY_NQUANTILES; q++)
		json_object_set_new(o, latency_quantiles[q].name, json_integer(
		    (json_int_t)hist_quantile(&l->hist, latency_quantiles[q].q)));
	if (o != NULL)
		json_object_set_new(o, "max", json_integer((json_int_t)
		    l->hist.max_ns));
	for (size_t j = l->nslow; slow != NULL && j-- > 0;)
		json_array_append_new(slow, json_pack("{s:s,s:i,s:I,s:I}",
		    "topic", l->slow[j].topic, "partition", l->slow[j].partition,
		    "offset", (json_int_t)l->slow[j].offset, "ns",
		    (json_int_t)l->slow[j].ns));
	if (o != NULL)
		json_object_set_new(o, "slowest", slow);
	else
		json_decref(slow);
	return o;
}

static json_t *
status_json_table(struct table *t)
{
	const struct table_stats *s = table_get_stats(t);

	return json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:o}", "name", table_name(t),
	    "udtf", chain_name(table_chain(t)), "records", (json_int_t)s->records,
	    "rows", (json_int_t)s->rows, "rejects", (json_int_t)s->rejects,
	    "gave_no_row", (json_int_t)s->empty, "ns_per_record",
	    status_json_latency(&s->parse));
}

/* An instant as "YYYY-MM-DDTHH:MM:SSZ", or null for 0. */
static json_t *
status_json_time(time_t t)
{
	char buf[32];

	if (t == 0)
		return json_null();
	status_time(buf, sizeof(buf), t);
	return json_string(buf);
}

/* A string, or null for NULL or "". */
static json_t *
status_json_str(const char *v)
{
	return v != NULL && v[0] != '\0' ? json_string(v) : json_null();
}

/* What s says, as status.json holds it (docs/running.md). */
static json_t *
status_json(const struct status *s, time_t now)
{
	json_t *o, *tables = json_array(), *assigned = NULL, *checks = NULL;

	if (s->topics != NULL && (assigned = json_object()) != NULL)
		for (size_t i = 0; i < s->ntopics; i++)
			json_object_set_new(assigned, s->topics[i].name,
			    json_integer((json_int_t)s->topics[i].assigned));
	if (s->health != NULL && (checks = json_object()) != NULL &&
	    health_check(checks, s->health, now) < 0) {
		json_decref(checks);
		checks = NULL;
	}
	for (size_t i = 0; tables != NULL && i < s->ntables; i++)
		json_array_append_new(tables, status_json_table(s->tables[i]));
	o = json_pack("{s:s,s:I,s:o,s:o,s:b,s:I,s:f,s:o,s:I,s:I,s:o,s:o,s:o,"
	    "s:o,s:o}",
	    "version", KEDGE_VERSION, "pid", (json_int_t)getpid(),
	    "started", status_json_time(s->started),
	    "written", status_json_time(now), "at_exit", s->stopping,
	    "consumed", (json_int_t)s->records,
	    "records_per_s", s->records_per_s,
	    "assigned", assigned != NULL ? assigned : json_null(),
	    "lag", (json_int_t)s->lag, "lag_unknown", (json_int_t)s->lag_unknown,
	    "brokers_down_since", status_json_time(s->brokers_down),
	    "paused", status_json_str(s->paused),
	    "tables", tables != NULL ? tables : json_null(),
	    "checkpoints", json_pack("{s:I,s:f,s:f,s:f}", "decided",
	    (json_int_t)s->checkpoints->count, "p50_ms",
	    (double)hist_quantile(s->checkpoints, 0.5) / 1e6, "p99_ms",
	    (double)hist_quantile(s->checkpoints, 0.99) / 1e6, "max_ms",
	    (double)s->checkpoints->max_ns / 1e6),
	    "checks", checks != NULL ? checks : json_null());
	if (o == NULL)
		return NULL;
	if (s->spool != NULL)
		json_object_set_new(o, "spool", json_pack("{s:I,s:I,s:o,s:I}",
		    "bytes", (json_int_t)s->spool->bytes, "ready_files",
		    (json_int_t)s->spool->ready_files, "oldest_ready",
		    status_json_time(s->spool->oldest_ready), "free_bytes",
		    (json_int_t)s->spool->free_bytes));
	if (s->published != NULL)
		json_object_set_new(o, "published", json_pack("{s:I,s:I,s:I,s:o,"
		    "s:o,s:o}", "files", (json_int_t)s->published->files, "bytes",
		    (json_int_t)s->published->bytes, "errors",
		    (json_int_t)s->published->errors, "failing",
		    status_json_str(s->published->last_error), "last_failure",
		    status_json_str(s->published->last_failure),
		    "last_failure_at",
		    status_json_time(s->published->last_failure_at)));
	if (s->principal != NULL)
		json_object_set_new(o, "kerberos", json_pack("{s:s,s:o}",
		    "principal", s->principal, "ticket_end",
		    status_json_time(s->ticket_end)));
	if (s->cert_end != 0)
		json_object_set_new(o, "certificate_end",
		    status_json_time(s->cert_end));
	return o;
}

/* Replaces <spool_dir>/status.json with s.  Returns 0 or -errno. */
static int
status_write_json(const struct conf *c, const struct status *s, time_t now)
{
	char path[4096], *text;
	json_t *o;
	int r;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir,
	    STATUS_JSON_FILE);
	if ((o = status_json(s, now)) == NULL)
		return -ENOMEM;
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (text == NULL)
		return -ENOMEM;
	r = fs_write_atomic(path, text, strlen(text));
	free(text);
	return r;
}

int
status_write(const struct conf *c, const struct status *s)
{
	char path[4096], started[32], now[32];
	char *text = NULL;
	size_t len = 0;
	time_t t = time(NULL);
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir, STATUS_FILE);
	if ((f = open_memstream(&text, &len)) == NULL)
		return -errno;
	status_time(started, sizeof(started), s->started);
	status_time(now, sizeof(now), t);
	fprintf(f, "kedge %s pid %ld started %s written %s%s\n", KEDGE_VERSION,
	    (long)getpid(), started, now, s->stopping ? " (at exit)" : "");
	fprintf(f, "consumed %" PRIu64 " records, %.0f records/s lately\n",
	    s->records, s->records_per_s);
	status_assigned(f, s);
	if (s->brokers_down != 0) {
		char since[32];
		status_time(since, sizeof(since), s->brokers_down);
		fprintf(f, "kafka: no broker answers since %s (%ld s); waiting "
		    "for them\n", since, (long)(time(NULL) - s->brokers_down));
	}
	if (s->paused != NULL)
		fprintf(f, "consumption paused: %s\n", s->paused);
	if (s->spool != NULL)
		fprintf(f, "spool: %" PRIu64 " bytes, %" PRIu64 " files to "
		    "publish, the oldest %ld s old; %" PRIu64 " bytes free\n",
		    s->spool->bytes, s->spool->ready_files,
		    s->spool->oldest_ready ? (long)(time(NULL) -
		    s->spool->oldest_ready) : 0L, s->spool->free_bytes);
	if (s->published != NULL)
		fprintf(f, "published %" PRIu64 " files, %" PRIu64 " bytes; %"
		    PRIu64 " publish errors\n", s->published->files,
		    s->published->bytes, s->published->errors);
	if (s->published != NULL && s->published->last_error[0] != '\0')
		fprintf(f, "publishing failing: %s\n", s->published->last_error);
	else if (s->published != NULL && s->published->last_failure_at != 0) {
		char at[32];
		status_time(at, sizeof(at), s->published->last_failure_at);
		fprintf(f, "last publish error at %s (%ld s ago): %s\n", at,
		    (long)(time(NULL) - s->published->last_failure_at),
		    s->published->last_failure);
	}
	if (s->principal != NULL) {
		char end[32];
		status_time(end, sizeof(end), s->ticket_end);
		fprintf(f, "kerberos: %s, ticket valid until %s (%ld s left)\n",
		    s->principal, end, (long)(s->ticket_end - time(NULL)));
	}
	if (s->cert_end != 0) {
		char end[32];
		status_time(end, sizeof(end), s->cert_end);
		fprintf(f, "certificate: valid until %s (%ld days left)\n", end,
		    (long)((s->cert_end - time(NULL)) / 86400));
	}
	for (size_t i = 0; i < s->ntables; i++)
		status_table(f, s->tables[i]);
	fprintf(f, "checkpoints: %" PRIu64 " decided; seal + decide ms: p50 "
	    "%.1f p99 %.1f max %.1f\n", s->checkpoints->count,
	    (double)hist_quantile(s->checkpoints, 0.5) / 1e6,
	    (double)hist_quantile(s->checkpoints, 0.99) / 1e6,
	    (double)s->checkpoints->max_ns / 1e6);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	r = fs_write_atomic(path, text, len);
	free(text);
	/* the JSON last: `kedge status` tells a stuck loop by its age */
	return r < 0 ? r : status_write_json(c, s, t);
}

/* Reads status.json of c's spool into *doc, and its age from the file's
 * time.  Returns 0, or -1 with the reason on stderr. */
static int
status_read(const struct conf *c, json_t **doc, long *age)
{
	char path[4096];
	struct buf text = { 0 };
	json_error_t jerr;
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir,
	    STATUS_JSON_FILE);
	/* a FIFO or a link in its place is refused, not waited on or read */
	r = stat(path, &st) < 0 ? -errno : fs_read_all(path, &text);
	if (r < 0) {
		fprintf(stderr, "kedge status: %s: %s; has kedge run with %s?\n",
		    path, fs_strerror(-r), c->path);
		buf_clear(&text);
		return -1;
	}
	*doc = jsondoc_load(text.data, text.len, JSON_REJECT_DUPLICATES,
	    JSONDOC_MEM_MAX, &jerr);
	buf_clear(&text);
	if (*doc == NULL) {
		fprintf(stderr, "kedge status: %s: line %d: %s\n", path,
		    jerr.line, jerr.text);
		return -1;
	}
	if (!json_is_object(*doc)) {
		fprintf(stderr, "kedge status: %s: not a JSON object\n", path);
		json_decref(*doc);
		return -1;
	}
	*age = (long)(time(NULL) - st.st_mtime);
	return 0;
}

/* Whether the daemon that wrote doc still runs, with its pid in *pid. */
static int
status_running(json_t *doc, long *pid)
{
	json_t *p = json_object_get(doc, "pid");

	*pid = json_is_integer(p) ? (long)json_integer_value(p) : 0;
	/* a pid_t is an int: a larger number would be cut to another pid,
	 * or to 0, which kill() takes for the whole process group; a
	 * process of another user (EPERM) runs too */
	return *pid > 0 && *pid <= INT_MAX && (kill((pid_t)*pid, 0) == 0 ||
	    errno == EPERM) && !json_is_true(json_object_get(doc, "at_exit"));
}

/* Prints c's text status file to out. */
static void
status_print_text(const struct conf *c, FILE *out)
{
	char path[4096], line[4096];
	int fd;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir, STATUS_FILE);
	/* a FIFO or a link in its place is refused, not waited on or shown */
	if ((fd = fs_open_file(path, O_RDONLY)) < 0 ||
	    (f = fdopen(fd, "r")) == NULL) {
		fprintf(out, "(%s: %s)\n", path, fs_strerror(fd < 0 ? -fd :
		    errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, out);
	fclose(f);
}

int
status_show(const struct conf *c, int as_json, FILE *out)
{
	json_t *doc, *checks, *check, *old;
	const char *name;
	int running, healthy = 1;
	long pid, age;

	if (status_read(c, &doc, &age) < 0)
		return STATUS_NOT_RUNNING;
	running = status_running(doc, &pid);
	/* "alive" first, then the daemon's own; the daemon rewrites the
	 * file every STATUS_INTERVAL_S while its main loop turns */
	old = json_object_get(doc, "checks");
	if ((checks = json_object()) == NULL || (running &&
	    health_check_alive(checks, (double)age, 1,
	    c->metrics.stall_timeout + STATUS_INTERVAL_S) < 0) ||
	    (json_is_object(old) && json_object_update(checks, old) < 0)) {
		json_decref(checks);
		json_decref(doc);
		fprintf(stderr, "kedge status: out of memory\n");
		return STATUS_NOT_RUNNING;
	}
	json_object_set_new(doc, "checks", checks);
	json_object_foreach(checks, name, check)
		if (!json_is_true(json_object_get(check, "ok")))
			healthy = 0;
	healthy = healthy && running;
	if (as_json) {
		json_object_set_new(doc, "running", json_boolean(running));
		json_object_set_new(doc, "healthy", json_boolean(healthy));
		json_object_set_new(doc, "metrics", running && c->metrics.enabled ?
		    json_sprintf("http://%s/metrics", c->metrics.listen) :
		    json_null());
		json_dumpf(doc, out, JSON_INDENT(2));
		fputc('\n', out);
	} else if (running) {
		fprintf(out, "running (pid %ld); status %ld s old\n", pid, age);
		if (healthy)
			fprintf(out, "healthy: every check passes\n");
		json_object_foreach(checks, name, check)
			if (!json_is_true(json_object_get(check, "ok")))
				fprintf(out, "not healthy: %s: %s\n", name,
				    json_string_value(json_object_get(check,
				    "detail")));
		status_print_text(c, out);
		if (c->metrics.enabled)
			fprintf(out, "metrics: http://%s/metrics\n",
			    c->metrics.listen);
	} else {
		fprintf(out, "not running; its last status:\n");
		status_print_text(c, out);
	}
	json_decref(doc);
	return !running ? STATUS_NOT_RUNNING : healthy ? 0 : 1;
}
