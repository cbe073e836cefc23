#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S UINT64_C(1000000000)
#define METRICS_REQUEST_MAX 4096  /* bytes of a request's head */
#define METRICS_IO_MS 2000        /* to read a request, and to answer it */

/* Histogram boundaries, in ns; every histogram adds +Inf. */
static const uint64_t metrics_udtf_le[] = {
	250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
	500000, 1000000, 10000000, 100000000, 1000000000,
};
static const uint64_t metrics_ckpt_le[] = {
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000, 30000000000,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct metrics_server {
	int fd;                    /* listening, non-blocking */
	int wake[2];               /* a byte in wake[1] stops the thread */
	int port;
	pthread_t thread;
	pthread_mutex_t lock;
	char *text;                /* the latest rendering, under lock */
	size_t len;
};

void
metrics_add_lag(const char *topic, int32_t partition, int64_t next,
    int64_t high, void *arg)
{
	struct metrics_snapshot *m = arg;
	struct metrics_lag *l;

	if ((l = realloc(m->lags, (m->nlags + 1) * sizeof(*l))) == NULL)
		return;
	m->lags = l;
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
	m->nlags = 0;
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

/* What the fixed boundaries blur: the quantiles and the maximum from the
 * 3 % buckets, and the slowest records with where they came from. */
static void
metrics_udtf_detail(FILE *out, const struct metrics_snapshot *m)
{
	char secs[METRICS_NUM], part[METRICS_NUM], off[METRICS_NUM];

	metrics_head(out, "kedge_udtf_duration_quantile_seconds", "gauge",
	    "A quantile of the time a table's UDTF chain took per record, "
	    "since kedge started (upper end of a 3 % bucket).");
	for (size_t i = 0; i < m->ntables; i++)
		for (size_t q = 0; m->tables[i].udtf != NULL &&
		    q < LATENCY_NQUANTILES; q++) {
			struct metrics_label l[] = {
				{ "table", m->tables[i].name },
				{ "quantile", latency_quantiles[q].label } };

			metrics_sample(out, "kedge_udtf_duration_quantile_seconds",
			    "", l, 2, metrics_secs(secs, hist_quantile(
			    &m->tables[i].udtf->hist, latency_quantiles[q].q)));
		}
	metrics_head(out, "kedge_udtf_duration_max_seconds", "gauge",
	    "The longest a table's UDTF chain took for one record, since kedge "
	    "started.");
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].udtf != NULL)
			metrics_seconds(out, "kedge_udtf_duration_max_seconds",
			    "table", m->tables[i].name,
			    m->tables[i].udtf->hist.max_ns);
	metrics_head(out, "kedge_udtf_slow_record_seconds", "gauge",
	    "One of the slowest records of a table since kedge started: its "
	    "UDTF chain's time, with where to fetch the record.");
	for (size_t i = 0; i < m->ntables; i++) {
		const struct latency *lat = m->tables[i].udtf;

		for (size_t j = lat != NULL ? lat->nslow : 0; j-- > 0;) {
			const struct latency_slow *sl = &lat->slow[j];
			struct metrics_label l[] = {
				{ "table", m->tables[i].name },
				{ "topic", sl->topic }, { "partition", part },
				{ "offset", off } };

			snprintf(part, sizeof(part), "%" PRId32, sl->partition);
			snprintf(off, sizeof(off), "%" PRId64, sl->offset);
			metrics_sample(out, "kedge_udtf_slow_record_seconds", "",
			    l, 4, metrics_secs(secs, sl->ns));
		}
	}
}

/* The per-table families. */
static void
metrics_tables(FILE *out, const struct metrics_snapshot *m)
{
	static const struct {
		const char *name;
		const char *help;
		size_t offset;
	} counters[] = {
		{ "kedge_records_total", "Records a table's UDTF chain was "
		  "given.", offsetof(struct metrics_table, records) },
		{ "kedge_rows_total", "Rows a table's UDTF chain made.",
		  offsetof(struct metrics_table, rows) },
		{ "kedge_rejects_total", "Records of a table sent to the "
		  "rejects table.", offsetof(struct metrics_table, rejects) },
		{ "kedge_records_without_rows_total", "Records of a table that "
		  "gave no row and no reject.",
		  offsetof(struct metrics_table, empty) },
	};

	for (size_t c = 0; c < NELEM(counters); c++) {
		metrics_head(out, counters[c].name, "counter", counters[c].help);
		for (size_t i = 0; i < m->ntables; i++)
			metrics_u64(out, counters[c].name, "table",
			    m->tables[i].name, *(const uint64_t *)(const void *)
			    ((const char *)&m->tables[i] + counters[c].offset));
	}
	metrics_head(out, "kedge_udtf_duration_seconds", "histogram",
	    "Time a table's UDTF chain took per record.");
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].udtf != NULL)
			metrics_hist(out, "kedge_udtf_duration_seconds", "table",
			    m->tables[i].name, &m->tables[i].udtf->hist,
			    metrics_udtf_le, NELEM(metrics_udtf_le));
	metrics_udtf_detail(out, m);
}

static void
metrics_lags(FILE *out, const struct metrics_snapshot *m)
{
	metrics_head(out, "kedge_consumer_lag", "gauge", "Records of an "
	    "assigned partition not yet read: its high watermark, as "
	    "librdkafka last saw it, minus the next offset kedge needs.");
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

static int
metrics_why(char *why, size_t whylen, const char *spec)
{
	snprintf(why, whylen, "\"%s\" is not ADDRESS:PORT with an IPv4 "
	    "address or an IPv6 one in brackets, such as \"127.0.0.1:9466\" "
	    "or \"[::1]:9466\"", spec);
	return -EINVAL;
}

int
metrics_parse_listen(const char *spec, struct sockaddr_storage *addr,
    socklen_t *addrlen, char *why, size_t whylen)
{
	const char *colon = strrchr(spec, ':'), *host = spec;
	char buf[INET6_ADDRSTRLEN];
	size_t hostlen;
	char *end;
	long port;

	if (colon == NULL)
		return metrics_why(why, whylen, spec);
	hostlen = (size_t)(colon - spec);
	if (spec[0] == '[') {
		if (hostlen < 2 || colon[-1] != ']')
			return metrics_why(why, whylen, spec);
		host++;
		hostlen -= 2;
	}
	if (hostlen == 0 || hostlen >= sizeof(buf))
		return metrics_why(why, whylen, spec);
	memcpy(buf, host, hostlen);
	buf[hostlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 ||
	    port > 65535) {
		snprintf(why, whylen, "\"%s\": the port must be a number "
		    "1..65535", spec);
		return -EINVAL;
	}
	memset(addr, 0, sizeof(*addr));
	if (host != spec) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;

		if (inet_pton(AF_INET6, buf, &in6->sin6_addr) != 1)
			return metrics_why(why, whylen, spec);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*addrlen = sizeof(*in6);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)addr;

		if (inet_pton(AF_INET, buf, &in->sin_addr) != 1)
			return metrics_why(why, whylen, spec);
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*addrlen = sizeof(*in);
	}
	return (int)port;
}

/* Waits until fd is ready for events or the deadline (CLOCK_MONOTONIC,
 * ms) passes, or the server is told to stop.  Returns 1 when ready, else
 * 0. */
static int
metrics_wait(struct metrics_server *s, int fd, short events, int64_t deadline)
{
	struct pollfd p[2] = { { fd, events, 0 }, { s->wake[0], POLLIN, 0 } };
	struct timespec ts;
	int64_t left;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		left = deadline - ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec /
		    1000000);
		if (left <= 0)
			return 0;
		if (poll(p, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (p[1].revents != 0)
			return 0;
		if (p[0].revents != 0)
			return 1;
	}
}

static int64_t
metrics_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + METRICS_IO_MS;
}

/* Reads a request's head (up to its empty line) into buf.  Returns its
 * length, or -1 when the client is too slow, too long or gone. */
static ssize_t
metrics_read(struct metrics_server *s, int fd, char *buf, size_t size)
{
	int64_t deadline = metrics_deadline();
	size_t len = 0;
	ssize_t n;

	while (len < size - 1) {
		if (!metrics_wait(s, fd, POLLIN, deadline))
			return -1;
		if ((n = read(fd, buf + len, size - 1 - len)) < 0 &&
		    (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL || strstr(buf, "\n\n") != NULL)
			return (ssize_t)len;
	}
	return -1;
}

static void
metrics_write(struct metrics_server *s, int fd, const char *p, size_t len)
{
	int64_t deadline = metrics_deadline();
	ssize_t n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) < 0) {
			if ((errno != EAGAIN && errno != EINTR) ||
			    !metrics_wait(s, fd, POLLOUT, deadline))
				return;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Sends a response with body (len bytes; not sent on a HEAD). */
static void
metrics_respond(struct metrics_server *s, int fd, const char *status,
    const char *type, const char *body, size_t len, int head)
{
	char hdr[256];
	int n;

	n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, type,
	    len);
	metrics_write(s, fd, hdr, (size_t)n);
	if (!head)
		metrics_write(s, fd, body, len);
}

/* Answers one connection: GET or HEAD /metrics, else an error. */
static void
metrics_serve(struct metrics_server *s, int fd, char **copy, size_t *cap)
{
	static const char bad[] = "bad request\n", method[] = "use GET\n",
	    missing[] = "not found; the metrics are at /metrics\n",
	    early[] = "no metrics yet; kedge is starting\n";
	char req[METRICS_REQUEST_MAX], *target, *version;
	size_t len, tlen;
	int head;

	if (metrics_read(s, fd, req, sizeof(req)) < 0)
		return;
	if ((target = strchr(req, ' ')) == NULL ||
	    (version = strchr(target + 1, ' ')) == NULL ||
	    strncmp(version + 1, "HTTP/1.", 7) != 0) {
		metrics_respond(s, fd, "400 Bad Request", "text/plain", bad,
		    sizeof(bad) - 1, 0);
		return;
	}
	target++;
	head = strncmp(req, "HEAD ", 5) == 0;
	if (!head && strncmp(req, "GET ", 4) != 0) {
		/* a 405 must say what is allowed: one more header line */
		metrics_respond(s, fd, "405 Method Not Allowed\r\nAllow: GET, "
		    "HEAD", "text/plain", method, sizeof(method) - 1, 0);
		return;
	}
	tlen = strcspn(target, "? ");
	if (tlen != 8 || strncmp(target, "/metrics", 8) != 0) {
		metrics_respond(s, fd, "404 Not Found", "text/plain", missing,
		    sizeof(missing) - 1, head);
		return;
	}
	/* a copy, so that a slow client never holds the lock */
	pthread_mutex_lock(&s->lock);
	len = s->len;
	if (s->text != NULL && len > *cap) {
		char *p = realloc(*copy, len);
		if (p != NULL) {
			*copy = p;
			*cap = len;
		}
	}
	if (s->text != NULL && len <= *cap)
		memcpy(*copy, s->text, len);
	else
		len = 0;
	pthread_mutex_unlock(&s->lock);
	if (len == 0)
		metrics_respond(s, fd, "503 Service Unavailable", "text/plain",
		    early, sizeof(early) - 1, head);
	else
		metrics_respond(s, fd, "200 OK", "text/plain; version=0.0.4; "
		    "charset=utf-8", *copy, len, head);
}

static void *
metrics_main(void *arg)
{
	struct metrics_server *s = arg;
	char *copy = NULL;
	size_t cap = 0;

	for (;;) {
		struct pollfd p[2] = { { s->fd, POLLIN, 0 },
		    { s->wake[0], POLLIN, 0 } };
		int fd;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents != 0)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		if ((fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC)) < 0)
			continue;
		metrics_serve(s, fd, &copy, &cap);
		close(fd);
	}
	free(copy);
	return NULL;
}

/* Opens, binds and listens.  Returns the socket, or -errno with the
 * sentence in err. */
static int
metrics_listen(const char *spec, int *port, char *err, size_t errlen)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char why[256];
	int fd, r, one = 1;

	if ((r = metrics_parse_listen(spec, &addr, &addrlen, why,
	    sizeof(why))) < 0) {
		snprintf(err, errlen, "%s", why);
		return r;
	}
	if ((fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot open a socket for %s: %s", spec,
		    strerror(errno));
		return r;
	}
	/* a restart must not wait for the old connections' TIME_WAIT */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, addrlen) < 0 ||
	    listen(fd, 16) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot listen on %s: %s%s", spec,
		    strerror(errno), r == -EADDRINUSE ? " (another process, "
		    "perhaps another kedge, listens there)" : r ==
		    -EADDRNOTAVAIL ? " (no interface of this host has that "
		    "address)" : r == -EACCES ? " (ports below 1024 need "
		    "privileges)" : "");
		close(fd);
		return r;
	}
	addrlen = sizeof(addr);
	getsockname(fd, (struct sockaddr *)&addr, &addrlen);
	*port = ntohs(addr.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&addr)->sin6_port :
	    ((struct sockaddr_in *)&addr)->sin_port);
	return fd;
}

struct metrics_server *
metrics_start(const char *spec, char *err, size_t errlen)
{
	struct metrics_server *s;
	sigset_t all, old;
	int r;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->wake[0] = s->wake[1] = -1;
	if ((s->fd = metrics_listen(spec, &s->port, err, errlen)) < 0)
		goto fail;
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "metrics: pipe: %s", strerror(errno));
		goto fail;
	}
	pthread_mutex_init(&s->lock, NULL);
	/* signals are the run loop's: the thread blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&s->thread, NULL, metrics_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		snprintf(err, errlen, "metrics: cannot start a thread: %s",
		    strerror(r));
		pthread_mutex_destroy(&s->lock);
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	free(s);
	return NULL;
}

int
metrics_port(const struct metrics_server *s)
{
	return s->port;
}

int
metrics_set(struct metrics_server *s, const struct metrics_snapshot *m)
{
	char *text = NULL, *old;
	size_t len = 0;
	FILE *f;
	int r;

	if ((f = open_memstream(&text, &len)) == NULL)
		return -ENOMEM;
	r = metrics_render(f, m);
	if (fclose(f) != 0 || r < 0) {
		free(text);
		return -ENOMEM;
	}
	pthread_mutex_lock(&s->lock);
	old = s->text;
	s->text = text;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

void
metrics_stop(struct metrics_server *s)
{
	if (s == NULL)
		return;
	/* the pipe is empty and non-blocking: the byte goes in */
	(void)!write(s->wake[1], "x", 1);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	close(s->fd);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s->text);
	free(s);
}
