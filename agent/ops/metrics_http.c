#include "agent/ops/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/ops/health.h"
#include "lib/err.h"
#include "lib/thread.h"
#include "lib/tick.h"

/*
 * Bounds on what clients may hold.  A scrape takes one connection for a
 * few milliseconds; the limits are far above what Prometheus (or two)
 * and a person with curl need, and keep a flood of idle connections from
 * costing more than a few descriptors and their buffers.
 *
 * libmicrohttpd closes a connection idle for METRICS_IDLE_S, but one that
 * sends a byte now and then is never idle: the server bounds a
 * connection's whole life itself (METRICS_LIFE_S, counted from its
 * accept), and once METRICS_CONNECTIONS are open it closes the oldest for
 * each new one, so that clients who hold every slot cannot keep a new
 * scrape out.  libmicrohttpd admits one connection more than that, the
 * new one; a scrape never lives long enough to be the oldest.
 */
#define METRICS_CONNECTIONS 64     /* at a time, in all */
#define METRICS_PER_ADDRESS 16     /* at a time, from one client address */
#define METRICS_IDLE_S 5           /* an idle connection is closed */
#define METRICS_LIFE_S 10          /* any connection is closed */
#define METRICS_MEMORY (16 * 1024) /* a request's head and buffers */

/* An open connection, as libmicrohttpd told of it. */
struct metrics_conn {
	struct MHD_Connection *c;  /* NULL: a free slot */
	int fd;
	uint64_t since;            /* tick_now() when accepted */
	int shut;                  /* shut down; libmicrohttpd closes it */
};

struct metrics_server {
	struct MHD_Daemon *d;
	int fd;                    /* listening; the daemon's once it runs */
	int port;
	int stall_timeout;         /* metrics.stall_timeout */
	pthread_mutex_t lock;
	char *text;                /* the latest rendering, under lock */
	size_t len;
	struct health health;      /* the loop's, as of text, under lock */
	uint64_t turned;           /* tick_now() of the last metrics_set(),
	                            * or of the start before it, under lock */
	/* under lock: every open connection, and the reaper's stop */
	struct metrics_conn conns[METRICS_CONNECTIONS + 1];
	pthread_cond_t wake;
	int stop;
	pthread_t reaper;
	int reaping;               /* the reaper runs */
};

static int
metrics_why(char *why, size_t whylen, const char *spec)
{
	return err_set(why, whylen, -EINVAL,
	    "\"%s\" is not ADDRESS:PORT with an IPv4 "
	    "address or an IPv6 one in brackets, such as \"127.0.0.1:9466\" "
	    "or \"[::1]:9466\"", spec);
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
		return err_set(why, whylen, -EINVAL,
		    "\"%s\": the port must be a number "
		    "1..65535", spec);
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
		return err_set(err, errlen, r, "%s", why);
	}
	if ((fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) < 0) {
		r = -errno;
		return err_set(err, errlen, r,
		    "cannot open a socket for %s: %s", spec,
		    strerror(errno));
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

/* Queues a text/plain answer; body is static. */
static enum MHD_Result
metrics_answer(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if ((r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_PERSISTENT)) == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The metrics: a copy of the latest text, so that the loop's next
 * metrics_set() never waits on a slow client. */
static enum MHD_Result
metrics_answer_text(struct metrics_server *s, struct MHD_Connection *c)
{
	struct MHD_Response *r = NULL;
	enum MHD_Result ret;

	pthread_mutex_lock(&s->lock);
	if (s->text != NULL)
		r = MHD_create_response_from_buffer(s->len, s->text,
		    MHD_RESPMEM_MUST_COPY);
	pthread_mutex_unlock(&s->lock);
	if (r == NULL)
		return metrics_answer(c, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "no metrics yet; kedge is starting\n");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "text/plain; version=0.0.4; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* /health (ready 0) or /ready (ready 1): 200 or 503, with the checks as
 * JSON (health.h). */
static enum MHD_Result
metrics_answer_health(struct metrics_server *s, struct MHD_Connection *c,
    int ready)
{
	json_t *checks = json_object();
	struct MHD_Response *r = NULL;
	int turned, alive, rest;
	struct health h;
	enum MHD_Result ret;
	char *body = NULL;
	double age;

	pthread_mutex_lock(&s->lock);
	age = (double)tick_ns(tick_now() - s->turned) / 1e9;
	turned = s->text != NULL;
	h = s->health;
	pthread_mutex_unlock(&s->lock);
	alive = checks != NULL ? health_check_alive(checks, age, turned,
	    s->stall_timeout) : -1;
	rest = ready && alive >= 0 ? health_check(checks, &h, time(NULL)) : 1;
	if (alive >= 0 && rest >= 0)
		body = health_body(checks, alive && rest);  /* takes checks */
	else
		json_decref(checks);
	if (body != NULL && (r = MHD_create_response_from_buffer(strlen(body),
	    body, MHD_RESPMEM_MUST_FREE)) == NULL)
		free(body);
	if (r == NULL)
		return metrics_answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "out of memory\n");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, alive && rest ? MHD_HTTP_OK :
	    MHD_HTTP_SERVICE_UNAVAILABLE, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd has parsed the request's head (and answers what it
 * cannot parse with 400, a head too long with 431): GET and HEAD
 * /metrics, /health and /ready are answered, a query string ignored,
 * anything else refused.  The answer is queued at the first call, before
 * any body is read. */
static enum MHD_Result
metrics_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **req_cls)
{
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return metrics_answer(c, MHD_HTTP_METHOD_NOT_ALLOWED,
		    "use GET\n");
	if (strcmp(url, "/health") == 0 || strcmp(url, "/ready") == 0)
		return metrics_answer_health(cls, c, url[1] == 'r');
	if (strcmp(url, "/metrics") != 0)
		return metrics_answer(c, MHD_HTTP_NOT_FOUND, "not found; the "
		    "metrics are at /metrics, the probes at /health and "
		    "/ready\n");
	return metrics_answer_text(cls, c);
}

/*
 * Ends connection k: shutdown() makes libmicrohttpd's next read of it
 * return end of file, and libmicrohttpd closes it.  The descriptor is
 * still open: libmicrohttpd tells of a connection's close (under lock,
 * metrics_notify()) before it closes the descriptor.  Under lock.
 */
static void
metrics_shut(struct metrics_server *s, size_t k)
{
	shutdown(s->conns[k].fd, SHUT_RDWR);
	s->conns[k].shut = 1;
}

/* libmicrohttpd's thread: a connection accepted or closed. */
static void
metrics_notify(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode code)
{
	struct metrics_server *s = cls;
	const union MHD_ConnectionInfo *fd;
	size_t k, free_k = 0, oldest = 0, open = 0;

	pthread_mutex_lock(&s->lock);
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*socket_context != NULL)
			((struct metrics_conn *)*socket_context)->c = NULL;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	for (k = 0; k <= METRICS_CONNECTIONS; k++) {
		struct metrics_conn *mc = &s->conns[k];

		if (mc->c == NULL) {
			free_k = k;
			continue;
		}
		if (mc->shut)
			continue;
		if (open++ == 0 || mc->since < s->conns[oldest].since)
			oldest = k;
	}
	if (open >= METRICS_CONNECTIONS)
		metrics_shut(s, oldest);
	/* libmicrohttpd admits at most METRICS_CONNECTIONS + 1: a slot is
	 * free */
	if ((fd = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_CONNECTION_FD)) != NULL) {
		s->conns[free_k] = (struct metrics_conn){ .c = c,
		    .fd = fd->connect_fd, .since = tick_now() };
		*socket_context = &s->conns[free_k];
	}
	pthread_mutex_unlock(&s->lock);
}

/* The reaper's thread: once a second, ends the connections open for
 * METRICS_LIFE_S. */
static void *
metrics_reap(void *arg)
{
	struct metrics_server *s = arg;
	struct timespec until;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		uint64_t now = tick_now();

		for (size_t k = 0; k <= METRICS_CONNECTIONS; k++)
			if (s->conns[k].c != NULL && !s->conns[k].shut &&
			    tick_ns(now - s->conns[k].since) >=
			    METRICS_LIFE_S * UINT64_C(1000000000))
				metrics_shut(s, k);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec++;
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Stops and joins the reaper, if it runs. */
static void
metrics_stop_reaper(struct metrics_server *s)
{
	if (!s->reaping)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->reaper, NULL);
	s->reaping = 0;
}

struct metrics_server *
metrics_start(const char *spec, int stall_timeout, char *err, size_t errlen)
{
	struct metrics_server *s;
	sigset_t old;
	int r;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	tick_init();
	s->stall_timeout = stall_timeout;
	s->turned = tick_now();
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	if ((s->fd = metrics_listen(spec, &s->port, err, errlen)) < 0)
		goto fail;
	if ((r = thread_start(&s->reaper, metrics_reap, s)) != 0) {
		snprintf(err, errlen, "metrics: cannot start a thread: %s",
		    strerror(r));
		close(s->fd);
		goto fail;
	}
	s->reaping = 1;
	/* the daemon's thread inherits this thread's mask (thread.h) */
	thread_block_signals(&old);
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL,
	    0, NULL, NULL, metrics_request, s,
	    MHD_OPTION_LISTEN_SOCKET, s->fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CONNECTIONS + 1,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_PER_ADDRESS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_MEMORY,
	    MHD_OPTION_NOTIFY_CONNECTION, metrics_notify, s,
	    MHD_OPTION_END);
	thread_unblock_signals(&old);
	if (s->d == NULL) {
		/* whether it closed the socket is not said: left open */
		snprintf(err, errlen, "metrics: libmicrohttpd cannot serve %s",
		    spec);
		goto fail;
	}
	return s;
fail:
	metrics_stop_reaper(s);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
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
	if (m->health != NULL)
		s->health = *m->health;
	s->turned = tick_now();
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

void
metrics_stop(struct metrics_server *s)
{
	if (s == NULL)
		return;
	metrics_stop_reaper(s);
	/* closes every connection and the listening socket, and joins
	 * the thread */
	MHD_stop_daemon(s->d);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s);
}
