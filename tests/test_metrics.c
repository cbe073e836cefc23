/*
 * The metrics: a snapshot renders to the exact Prometheus text (counters,
 * gauges with labels escaped, a histogram turned from ns buckets into
 * cumulative seconds), and the HTTP server answers GET and HEAD /metrics,
 * 404 elsewhere, 405 to other methods, 431 to a huge head, nothing to
 * what is not HTTP, 503 before the first figures; a silent client neither blocks metrics_set() nor keeps the
 * server from answering the next one; a taken port is a clear error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent/ops/metrics_http.h"

/* One rendering of a small snapshot; the caller frees it. */
static char *
render(const struct metrics_snapshot *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(metrics_render(f, m), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The lines of family name, from its # HELP up to the next family's;
 * NULL when text has none.  The caller frees it. */
static char *
family(const char *text, const char *name)
{
	char head[256];
	const char *from, *to;

	snprintf(head, sizeof(head), "# HELP %s ", name);
	if ((from = strstr(text, head)) == NULL)
		return NULL;
	if ((to = strstr(from + 1, "# HELP ")) == NULL)
		to = from + strlen(from);
	return strndup(from, (size_t)(to - from));
}

static void
expect_family(const char *text, const char *name, const char *want)
{
	char *got = family(text, name);

	if (got == NULL)
		fail_msg("no family %s in:\n%s", name, text);
	if (strcmp(got, want) != 0)
		fail_msg("%s: got\n%s\nwant\n%s", name, got, want);
	free(got);
}

static struct latency udtf_lat;
static struct hist ckpt_hist;
static struct metrics_table tables[2];
static struct metrics_topic topics[2];

static void
fill(struct metrics_snapshot *m)
{
	static const uint64_t ns[] = { 100, 300, 1000, 3000, 2000000000 };
	struct udtf_record rec = { .topic = "t\"1" };

	memset(&udtf_lat, 0, sizeof(udtf_lat));
	/* buckets [100,101], [296,303], [992,1007], [2944,3007], and 2 s */
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		rec.partition = (int32_t)i;
		rec.offset = (int64_t)(1000 + i);
		latency_record(&udtf_lat, ns[i], &rec);
	}
	memset(&ckpt_hist, 0, sizeof(ckpt_hist));
	hist_record(&ckpt_hist, 4000000);     /* 4 ms */
	hist_record(&ckpt_hist, 40000000);    /* 40 ms */
	tables[0] = (struct metrics_table){ "access", 30, 28, 1, 1, 64, 3,
	    1234, &udtf_lat, 1785614100, 1785607200 };
	tables[1] = (struct metrics_table){ "we\"ird\\name\nx", 7, 70, 0, 0,
	    1, 0, 0, NULL, INT64_MIN, INT64_MIN };
	topics[0] = (struct metrics_topic){ "t.1", 2 };
	topics[1] = (struct metrics_topic){ "idle", 0 };
	memset(m, 0, sizeof(*m));
	m->version = "1.2.3";
	m->now = 1000;
	m->started = 900;
	m->consumed = 37;
	m->tables = tables;
	m->ntables = 2;
	m->topics = topics;
	m->ntopics = 2;
	m->checkpoints = &ckpt_hist;
	m->ticket_end = 1600;
	m->cert_end = 900;
	m->has_spool = 1;
	m->spool_bytes = 4096;
	m->spool_ready_files = 2;
	m->spool_oldest_ready = 990;
	m->spool_free_bytes = 1 << 20;
	m->has_published = 1;
	m->published_files = 5;
	m->published_bytes = 12345;
	m->publish_errors = 1;
	m->paused_spool = 1;
	metrics_add_lag("t.1", 3, 10, 25, m);
	metrics_add_lag("t.1", 4, 30, 25, m);  /* a stale watermark: 0 */
}

static void
test_render_counters_and_labels(void **state)
{
	struct metrics_snapshot m;
	char *text;

	(void)state;
	fill(&m);
	text = render(&m);
	expect_family(text, "kedge_up", "# HELP kedge_up 1 while kedge "
	    "runs.\n# TYPE kedge_up gauge\nkedge_up 1\n");
	assert_int_equal(strncmp(text, "# HELP kedge_up ", 16), 0);
	expect_family(text, "kedge_build_info",
	    "# HELP kedge_build_info kedge's version, in a label; always 1.\n"
	    "# TYPE kedge_build_info gauge\n"
	    "kedge_build_info{version=\"1.2.3\"} 1\n");
	expect_family(text, "kedge_rows_total",
	    "# HELP kedge_rows_total Rows a table's UDTF chain made.\n"
	    "# TYPE kedge_rows_total counter\n"
	    "kedge_rows_total{table=\"access\"} 28\n"
	    "kedge_rows_total{table=\"we\\\"ird\\\\name\\nx\"} 70\n");
	expect_family(text, "kedge_part_files_parked",
	    "# HELP kedge_part_files_parked Part files of a table closed "
	    "between rows past output.roll.max_open_files, kept to append "
	    "to.\n"
	    "# TYPE kedge_part_files_parked gauge\n"
	    "kedge_part_files_parked{table=\"access\"} 3\n"
	    "kedge_part_files_parked{table=\"we\\\"ird\\\\name\\nx\"} 0\n");
	expect_family(text, "kedge_part_files_reopened_total",
	    "# HELP kedge_part_files_reopened_total Parked part files of a "
	    "table opened again for a row.\n"
	    "# TYPE kedge_part_files_reopened_total counter\n"
	    "kedge_part_files_reopened_total{table=\"access\"} 1234\n"
	    "kedge_part_files_reopened_total{table=\"we\\\"ird\\\\name\\nx\"} 0\n");
	expect_family(text, "kedge_assigned_partitions",
	    "# HELP kedge_assigned_partitions Partitions of a topic assigned "
	    "to this kedge.\n"
	    "# TYPE kedge_assigned_partitions gauge\n"
	    "kedge_assigned_partitions{topic=\"t.1\"} 2\n"
	    "kedge_assigned_partitions{topic=\"idle\"} 0\n");
	expect_family(text, "kedge_watermark_timestamp_seconds",
	    "# HELP kedge_watermark_timestamp_seconds A table's watermark, "
	    "UNIX seconds: hours that end before it are complete; only on the "
	    "host that completes the table's hours.\n"
	    "# TYPE kedge_watermark_timestamp_seconds gauge\n"
	    "kedge_watermark_timestamp_seconds{table=\"access\"} 1785614100\n");
	expect_family(text, "kedge_last_complete_hour_timestamp_seconds",
	    "# HELP kedge_last_complete_hour_timestamp_seconds When a table's "
	    "latest complete hour (one with a manifest) starts, UNIX seconds; "
	    "only on the host that completes the table's hours.\n"
	    "# TYPE kedge_last_complete_hour_timestamp_seconds gauge\n"
	    "kedge_last_complete_hour_timestamp_seconds{table=\"access\"} "
	    "1785607200\n");
	expect_family(text, "kedge_consumer_lag",
	    "# HELP kedge_consumer_lag Records of an assigned partition not "
	    "yet read, from its assignment on: its high watermark minus the "
	    "next offset kedge needs.\n"
	    "# TYPE kedge_consumer_lag gauge\n"
	    "kedge_consumer_lag{topic=\"t.1\",partition=\"3\"} 15\n"
	    "kedge_consumer_lag{topic=\"t.1\",partition=\"4\"} 0\n");
	expect_family(text, "kedge_kerberos_ticket_remaining_seconds",
	    "# HELP kedge_kerberos_ticket_remaining_seconds Seconds until the "
	    "Kerberos ticket expires; negative once it has.\n"
	    "# TYPE kedge_kerberos_ticket_remaining_seconds gauge\n"
	    "kedge_kerberos_ticket_remaining_seconds 600\n");
	expect_family(text, "kedge_certificate_remaining_seconds",
	    "# HELP kedge_certificate_remaining_seconds Seconds until the "
	    "client certificate expires; negative once it has.\n"
	    "# TYPE kedge_certificate_remaining_seconds gauge\n"
	    "kedge_certificate_remaining_seconds -100\n");
	expect_family(text, "kedge_spool_oldest_ready_age_seconds",
	    "# HELP kedge_spool_oldest_ready_age_seconds Age of the oldest "
	    "part file waiting to be published; 0 when none waits.\n"
	    "# TYPE kedge_spool_oldest_ready_age_seconds gauge\n"
	    "kedge_spool_oldest_ready_age_seconds 10\n");
	expect_family(text, "kedge_published_bytes_total",
	    "# HELP kedge_published_bytes_total Bytes of the part files "
	    "published to the target.\n"
	    "# TYPE kedge_published_bytes_total counter\n"
	    "kedge_published_bytes_total 12345\n");
	expect_family(text, "kedge_consumption_paused",
	    "# HELP kedge_consumption_paused 1 while consumption is held for "
	    "the reason in the label.\n"
	    "# TYPE kedge_consumption_paused gauge\n"
	    "kedge_consumption_paused{reason=\"kerberos_ticket_expired\"} 0\n"
	    "kedge_consumption_paused{reason=\"spool_full\"} 1\n");
	free(text);
	metrics_snapshot_clear(&m);
	assert_null(m.lags);
}

static void
test_render_histograms(void **state)
{
	struct metrics_snapshot m;
	char *text;

	(void)state;
	fill(&m);
	text = render(&m);
	/* 1000 ns lies in [992,1007]: counted from 2.5 us on, not at 1 us */
	expect_family(text, "kedge_udtf_duration_seconds",
	    "# HELP kedge_udtf_duration_seconds Time a table's UDTF chain took "
	    "per record.\n"
	    "# TYPE kedge_udtf_duration_seconds histogram\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.00000025\"} 1\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.0000005\"} 2\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.000001\"} 2\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.0000025\"} 3\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.000005\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.00001\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.000025\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.00005\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.0001\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.00025\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.0005\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.001\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.0025\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.005\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.01\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.025\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.05\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.1\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.25\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"0.5\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"1\"} 4\n"
	    "kedge_udtf_duration_seconds_bucket{table=\"access\",le=\"+Inf\"} 5\n"
	    "kedge_udtf_duration_seconds_sum{table=\"access\"} 2.0000044\n"
	    "kedge_udtf_duration_seconds_count{table=\"access\"} 5\n");
	/* p50 is the upper end of 1000's bucket; the rest are held to the
	 * maximum; the slowest come slowest first, labels escaped */
	expect_family(text, "kedge_udtf_duration_max_seconds",
	    "# HELP kedge_udtf_duration_max_seconds The longest a table's UDTF "
	    "chain took for one record, since kedge started.\n"
	    "# TYPE kedge_udtf_duration_max_seconds gauge\n"
	    "kedge_udtf_duration_max_seconds{table=\"access\"} 2\n");
	/* no label whose values grow without bound: no record's offset */
	assert_null(strstr(text, "offset="));
	assert_null(strstr(text, "quantile="));
	expect_family(text, "kedge_checkpoint_duration_seconds",
	    "# HELP kedge_checkpoint_duration_seconds Time a decided "
	    "checkpoint took to seal and decide.\n"
	    "# TYPE kedge_checkpoint_duration_seconds histogram\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.001\"} 0\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.0025\"} 0\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.005\"} 1\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.01\"} 1\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.025\"} 1\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.05\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.1\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.25\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"0.5\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"1\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"2.5\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"5\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"10\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"30\"} 2\n"
	    "kedge_checkpoint_duration_seconds_bucket{le=\"+Inf\"} 2\n"
	    "kedge_checkpoint_duration_seconds_sum 0.044\n"
	    "kedge_checkpoint_duration_seconds_count 2\n");
	free(text);
	metrics_snapshot_clear(&m);
}

/* Without Kerberos, a certificate, a spool or a publisher, their families
 * are left out; the paused gauge is always there. */
static void
test_render_leaves_out_what_is_not_configured(void **state)
{
	struct metrics_snapshot m;
	char *text;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.version = "1.2.3";
	text = render(&m);
	assert_null(strstr(text, "kedge_kerberos"));
	assert_null(strstr(text, "kedge_certificate"));
	assert_null(strstr(text, "spool_bytes"));
	assert_null(strstr(text, "published"));
	assert_null(strstr(text, "checkpoint"));
	assert_null(strstr(text, "kedge_watermark"));
	assert_null(strstr(text, "kedge_last_complete_hour"));
	assert_non_null(strstr(text, "kedge_consumption_paused{reason="
	    "\"spool_full\"} 0\n"));
	/* families of no table or partition still say what they are */
	assert_non_null(strstr(text, "# TYPE kedge_records_total counter\n"
	    "# HELP "));
	free(text);
}

static void
test_parse_listen(void **state)
{
	struct sockaddr_storage a;
	socklen_t len;
	char why[256];

	(void)state;
	assert_int_equal(metrics_parse_listen("127.0.0.1:9466", &a, &len, why,
	    sizeof(why)), 9466);
	assert_int_equal(a.ss_family, AF_INET);
	assert_int_equal(metrics_parse_listen("[::1]:0", &a, &len, why,
	    sizeof(why)), 0);
	assert_int_equal(a.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(metrics_parse_listen("[::1:9466", &a, &len, why,
	    sizeof(why)), -EINVAL);
	assert_int_equal(metrics_parse_listen("127.0.0.1:x", &a, &len, why,
	    sizeof(why)), -EINVAL);
	assert_string_equal(why, "\"127.0.0.1:x\": the port must be a number "
	    "1..65535");
	assert_int_equal(metrics_parse_listen(":9466", &a, &len, why,
	    sizeof(why)), -EINVAL);
}

static void
test_render_on_complete(void **state)
{
	static const struct metrics_on_complete oc[2] = { { 5, 2, 1, 3 },
		{ 0, 0, 0, 0 } };
	struct metrics_snapshot m;
	char *text;

	(void)state;
	fill(&m);
	text = render(&m);
	assert_null(strstr(text, "kedge_on_complete"));
	free(text);
	m.on_complete = oc;
	text = render(&m);
	expect_family(text, "kedge_on_complete_runs_total",
	    "# HELP kedge_on_complete_runs_total Runs of output.on_complete, "
	    "by result: ok, failed (an exit status other than 0, or a signal) "
	    "or timeout.\n# TYPE kedge_on_complete_runs_total counter\n"
	    "kedge_on_complete_runs_total{table=\"access\",result=\"ok\"} 5\n"
	    "kedge_on_complete_runs_total{table=\"access\",result=\"failed\"} 2\n"
	    "kedge_on_complete_runs_total{table=\"access\",result=\"timeout\"} 1\n"
	    "kedge_on_complete_runs_total{table=\"we\\\"ird\\\\name\\nx\","
	    "result=\"ok\"} 0\n"
	    "kedge_on_complete_runs_total{table=\"we\\\"ird\\\\name\\nx\","
	    "result=\"failed\"} 0\n"
	    "kedge_on_complete_runs_total{table=\"we\\\"ird\\\\name\\nx\","
	    "result=\"timeout\"} 0\n");
	assert_non_null(strstr(text, "kedge_on_complete_pending{table="
	    "\"access\"} 3\n"));
	free(text);
	metrics_snapshot_clear(&m);
}

static int
connect_to(int port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Sends request and returns the whole response (until the server closes,
 * within 5 s); the caller frees it. */
static char *
ask(int port, const char *request)
{
	char *resp = calloc(1, 1 << 16);
	size_t len = 0;
	ssize_t n;
	int fd = connect_to(port);

	assert_int_equal(write(fd, request, strlen(request)),
	    (ssize_t)strlen(request));
	while ((n = read(fd, resp + len, (1 << 16) - 1 - len)) > 0)
		len += (size_t)n;
	assert_true(n == 0);
	close(fd);
	return resp;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
expect_status(int port, const char *request, const char *status)
{
	char *resp = ask(port, request);

	if (strncmp(resp, status, strlen(status)) != 0)
		fail_msg("%s: got \"%.60s\", want \"%s\"", request, resp,
		    status);
	free(resp);
}

static void
test_server(void **state)
{
	struct metrics_server *s, *again;
	struct metrics_snapshot m;
	char err[512], listen_at[64], *resp, *text, *body, *huge;
	int port, n;

	(void)state;
	assert_non_null(s = metrics_start("127.0.0.1:0", 30, err, sizeof(err)));
	port = metrics_port(s);
	assert_true(port > 0);
	expect_status(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
	    "HTTP/1.1 503 ");

	fill(&m);
	assert_int_equal(metrics_set(s, &m), 0);
	text = render(&m);
	resp = ask(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
	    "Accept: */*\r\n\r\n");
	assert_non_null(strstr(resp, "HTTP/1.1 200 OK\r\n"));
	assert_non_null(strstr(resp, "\r\nContent-Type: text/plain; "
	    "version=0.0.4; charset=utf-8\r\n"));
	assert_non_null(body = strstr(resp, "\r\n\r\n"));
	assert_string_equal(body + 4, text);
	free(resp);

	/* HTTP/1.0, a query string, bare newlines */
	resp = ask(port, "GET /metrics?x=1 HTTP/1.0\n\n");
	assert_non_null(strstr(resp, "200 OK"));
	assert_non_null(strstr(resp, "kedge_up 1\n"));
	free(resp);
	resp = ask(port, "HEAD /metrics HTTP/1.1\r\n\r\n");
	assert_non_null(strstr(resp, "200 OK"));
	assert_non_null(body = strstr(resp, "\r\n\r\n"));
	assert_string_equal(body + 4, "");
	free(resp);
	expect_status(port, "GET /other HTTP/1.1\r\n\r\n", "HTTP/1.1 404 ");
	expect_status(port, "GET /metricsx HTTP/1.1\r\n\r\n", "HTTP/1.1 404 ");
	expect_status(port, "POST /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 ");
	/* what is not HTTP is dropped unanswered, a head past the memory
	 * limit refused; neither stops the server */
	resp = ask(port, "hello\r\n\r\n");
	assert_null(strstr(resp, "200 OK"));
	free(resp);
	huge = malloc(65536 + 64);
	assert_non_null(huge);
	n = snprintf(huge, 64, "GET /metrics HTTP/1.1\r\nX-Big: ");
	memset(huge + n, 'x', 65536);
	strcpy(huge + n + 65536, "\r\n\r\n");
	expect_status(port, huge, "HTTP/1.1 431 ");
	free(huge);
	expect_status(port, "GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ");

	/* the same port again: refused, saying why */
	snprintf(listen_at, sizeof(listen_at), "127.0.0.1:%d", port);
	again = metrics_start(listen_at, 30, err, sizeof(err));
	assert_null(again);
	assert_non_null(strstr(err, "cannot listen on 127.0.0.1:"));
	assert_non_null(strstr(err, "Address already in use (another "
	    "process, perhaps another kedge, listens there)"));

	free(text);
	metrics_snapshot_clear(&m);
	metrics_stop(s);
}

/* A client that connects and says nothing costs the loop nothing, the
 * server drops it within its time limit, and stopping does not wait. */
static void
test_silent_client(void **state)
{
	struct metrics_server *s;
	struct metrics_snapshot m;
	char err[512], *resp;
	double t0;
	int port, silent;

	(void)state;
	assert_non_null(s = metrics_start("127.0.0.1:0", 30, err, sizeof(err)));
	port = metrics_port(s);
	fill(&m);
	assert_int_equal(metrics_set(s, &m), 0);
	silent = connect_to(port);
	usleep(100000);   /* the server now waits on it */
	t0 = now_s();
	for (int i = 0; i < 10; i++)
		assert_int_equal(metrics_set(s, &m), 0);
	assert_true(now_s() - t0 < 0.5);
	t0 = now_s();
	resp = ask(port, "GET /metrics HTTP/1.1\r\n\r\n");
	assert_non_null(strstr(resp, "200 OK"));
	assert_true(now_s() - t0 < 4.0);
	free(resp);
	close(silent);

	silent = connect_to(port);
	usleep(100000);
	t0 = now_s();
	metrics_stop(s);
	assert_true(now_s() - t0 < 0.5);
	close(silent);
	metrics_snapshot_clear(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_counters_and_labels),
		cmocka_unit_test(test_render_histograms),
		cmocka_unit_test(test_render_leaves_out_what_is_not_configured),
		cmocka_unit_test(test_render_on_complete),
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_silent_client),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
