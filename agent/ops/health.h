/*
 * health: the checks behind /health and /ready (metrics_http.h) and the
 * exit status of `kedge status` (status.h), each a name, whether it passes
 * and a sentence, as a JSON object (jansson):
 *
 *   {"ok":false,"checks":{"alive":{"ok":true,"detail":"..."},
 *    "assigned":{"ok":false,"detail":"no partition is assigned"},...}}
 *
 * "alive" is whether the main loop turned lately; the others come from
 * the facts the loop last reported (struct health).
 *
 * The module never logs.
 */
#ifndef KEDGE_HEALTH_H
#define KEDGE_HEALTH_H

#include <jansson.h>
#include <stdint.h>
#include <time.h>

/* What the main loop knows of its own health. */
struct health {
	int started;               /* the brokers and the target answered once
	                            * (systemd was told READY=1) */
	char waiting[512];         /* until then, what does not answer */
	time_t brokers_down;       /* since when no broker answers; 0: one
	                            * does */
	uint64_t assigned;         /* partitions assigned to this kedge */
	char paused[256];          /* why consumption is held; "": it is not */
	char publishing[1024];     /* why the last publishing pass left files;
	                            * "": it left none */
	char stopping[256];        /* why kedge stops; "": it runs on */
};

/*
 * Adds "alive" to the object checks: the main loop turned age_s seconds
 * ago, at most stall_timeout; turned is 0 before its first turn, when
 * age_s counts from kedge's start instead.  Returns 1 when it passes, 0
 * when not, -1 short of memory.
 */
int health_check_alive(json_t *checks, double age_s, int turned,
    int stall_timeout);

/* Adds the checks of h to the object checks ("started", "brokers",
 * "assigned", "consuming", "publishing", "running"), at now.  Returns 1
 * when all pass, 0 when one does not, -1 short of memory. */
int health_check(json_t *checks, const struct health *h, time_t now);

/* Returns {"ok": ok, "checks": checks} as one line ending in a newline,
 * or NULL short of memory; takes checks (NULL: short of memory), and the
 * caller frees the text. */
char *health_body(json_t *checks, int ok);

#endif /* KEDGE_HEALTH_H */
