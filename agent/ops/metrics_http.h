/*
 * metrics_http: the HTTP server of /metrics and of the probes /health and
 * /ready (docs/metrics.md), on libmicrohttpd.
 *
 * The run loop fills a plain snapshot once a second and hands it to
 * metrics_set(), which renders it to text in the loop's thread; the
 * server's one thread only ever sees that text, copied under a lock, so a
 * slow or broken scrape never touches, nor waits on, the loop.  The
 * server multiplexes its connections, bounds how many there are (in all
 * and per client address), drops one that stays idle and any one past a
 * bound on its whole life, and makes room for a new one by dropping the
 * oldest, so idle or slow clients cannot delay or keep out a scrape.
 *
 * The module never logs; errors are sentences in err.
 */
#ifndef KEDGE_METRICS_HTTP_H
#define KEDGE_METRICS_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "agent/ops/metrics.h"

/* Parses "ADDRESS:PORT" (an IPv4 address, or an IPv6 one in brackets:
 * "[::1]:9466") into addr and *addrlen; port 0 is accepted.  Returns the
 * port, or -EINVAL with what is wrong in why. */
int metrics_parse_listen(const char *spec, struct sockaddr_storage *addr,
    socklen_t *addrlen, char *why, size_t whylen);

struct metrics_server;

/* Listens on spec (as metrics_parse_listen(); port 0 picks a free one)
 * and starts the server thread, which blocks the run loop's signals
 * (thread.h) and answers /metrics with 503 until the first metrics_set().
 * /health passes while metrics_set() was called at most stall_timeout
 * seconds ago (or, before the first call, the server started that
 * recently); /ready while it does and every check of the health the last
 * call handed over passes (health.h).  Returns the server, or NULL with
 * the sentence in err (the port is taken, the address is not this host's,
 * ...). */
struct metrics_server *metrics_start(const char *spec, int stall_timeout,
    char *err, size_t errlen);

/* The port the server listens on. */
int metrics_port(const struct metrics_server *s);

/* Renders m and hands the text and m's health to the server: the main
 * loop's turn, for /health.  Returns 0 or -ENOMEM (the server keeps
 * serving the text and health before). */
int metrics_set(struct metrics_server *s, const struct metrics_snapshot *m);

/* Stops and joins the thread, closes the socket and frees s.  Accepts
 * NULL. */
void metrics_stop(struct metrics_server *s);

#endif /* KEDGE_METRICS_HTTP_H */
