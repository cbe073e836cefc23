#include "agent/ops/health.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds {"ok": ok, "detail": the sentence} as checks' name.  Returns ok,
 * or -1 short of memory. */
__attribute__((format(printf, 4, 5)))
static int
health_add(json_t *checks, const char *name, int ok, const char *fmt, ...)
{
	char detail[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (json_object_set_new(checks, name, json_pack("{s:b,s:s}", "ok", ok,
	    "detail", detail)) < 0)
		return -1;
	return ok;
}

int
health_check_alive(json_t *checks, double age_s, int turned,
    int stall_timeout)
{
	int ok = age_s <= stall_timeout;

	if (!turned)
		return health_add(checks, "alive", ok, "kedge is starting: "
		    "the main loop has not turned yet, %.0f s after kedge "
		    "started%s", age_s, ok ? "" : " (metrics.stall_timeout)");
	if (ok)
		return health_add(checks, "alive", 1, "the main loop turned "
		    "%.0f s ago", age_s);
	return health_add(checks, "alive", 0, "the main loop has not turned "
	    "for %.0f s, over metrics.stall_timeout (%d s): it is stuck",
	    age_s, stall_timeout);
}

int
health_check(json_t *checks, const struct health *h, time_t now)
{
	int r[6];

	r[0] = h->started ?
	    health_add(checks, "started", 1, "the brokers and the target "
	    "answered") :
	    health_add(checks, "started", 0, "%s", h->waiting[0] ?
	    h->waiting : "kedge is starting");
	r[1] = h->brokers_down == 0 ?
	    health_add(checks, "brokers", 1, "the brokers answer") :
	    health_add(checks, "brokers", 0, "no broker has answered for "
	    "%ld s", (long)(now - h->brokers_down));
	r[2] = h->assigned > 0 ?
	    health_add(checks, "assigned", 1, "%" PRIu64 " partition%s "
	    "assigned", h->assigned, h->assigned == 1 ? "" : "s") :
	    health_add(checks, "assigned", 0, "no partition is assigned");
	r[3] = h->paused[0] == '\0' ?
	    health_add(checks, "consuming", 1, "consuming") :
	    health_add(checks, "consuming", 0, "paused: %s", h->paused);
	r[4] = h->publishing[0] == '\0' ?
	    health_add(checks, "publishing", 1, "the last publishing pass "
	    "left no file behind") :
	    health_add(checks, "publishing", 0, "failing: %s", h->publishing);
	r[5] = h->stopping[0] == '\0' ?
	    health_add(checks, "running", 1, "running") :
	    health_add(checks, "running", 0, "stopping: %s", h->stopping);
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i] < 0)
			return -1;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i] == 0)
			return 0;
	return 1;
}

char *
health_body(json_t *checks, int ok)
{
	json_t *o;
	char *text;

	if (checks == NULL || (o = json_pack("{s:b,s:o}", "ok", ok, "checks",
	    checks)) == NULL)
		return NULL;
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (text != NULL) {
		size_t n = strlen(text);
		char *line = realloc(text, n + 2);

		if (line == NULL) {
			free(text);
			return NULL;
		}
		memcpy(line + n, "\n", 2);
		text = line;
	}
	return text;
}
