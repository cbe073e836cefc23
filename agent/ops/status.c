#include "agent/ops/status.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/parse/chain.h"
#include "lib/fsutil.h"

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

int
status_write(const struct conf *c, const struct status *s)
{
	char path[4096], started[32], now[32];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir, STATUS_FILE);
	if ((f = open_memstream(&text, &len)) == NULL)
		return -errno;
	status_time(started, sizeof(started), s->started);
	status_time(now, sizeof(now), time(NULL));
	fprintf(f, "kedge %s pid %ld started %s written %s%s\n", KEDGE_VERSION,
	    (long)getpid(), started, now, s->stopping ? " (at exit)" : "");
	fprintf(f, "consumed %" PRIu64 " records, %.0f records/s lately\n",
	    s->records, s->records_per_s);
	fprintf(f, "consumer lag: %" PRId64 " records", s->lag);
	if (s->lag_unknown > 0)
		fprintf(f, ", and not known yet for %zu partition(s): no fetch "
		    "from them has answered", s->lag_unknown);
	fputc('\n', f);
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
	return r;
}

int
status_show(const struct conf *c, FILE *out)
{
	char path[4096], line[4096];
	long pid = 0;
	int fd, running;
	struct stat st;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "%s/%s", c->output.spool_dir, STATUS_FILE);
	/* a FIFO or a link in its place is refused, not waited on or shown */
	if ((fd = fs_open_file(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0 ||
	    (f = fdopen(fd, "r")) == NULL) {
		fprintf(stderr, "kedge status: %s: %s; has kedge run with %s?\n",
		    path, fs_strerror(fd < 0 ? -fd : errno), c->path);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (fgets(line, sizeof(line), f) != NULL)
		sscanf(line, "kedge %*s pid %ld", &pid);
	/* a pid_t is an int: a larger number would be cut to another pid,
	 * or to 0, which kill() takes for the whole process group */
	running = pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) == 0 &&
	    strstr(line, "(at exit)") == NULL;
	if (running)
		fprintf(out, "running (pid %ld); status %ld s old\n", pid,
		    (long)(time(NULL) - st.st_mtime));
	else
		fprintf(out, "not running; its last status:\n");
	fputs(line, out);
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, out);
	fclose(f);
	if (running && c->metrics.enabled)
		fprintf(out, "metrics: http://%s/metrics\n", c->metrics.listen);
	return 0;
}
