#include "lib/crash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

#ifdef KEDGE_NO_CRASH_POINTS

void
crash_init(void)
{
	const char *set = getenv("KEDGE_CRASH_AT") != NULL ? "KEDGE_CRASH_AT" :
	    getenv("KEDGE_STALL_AT") != NULL ? "KEDGE_STALL_AT" : NULL;

	if (set != NULL)
		log_warnx("%s is set, but crash points are not in this build "
		    "(a release build): ignored", set);
}

#else

/* A point named in the environment, and when it acts. */
struct crash_spec {
	char name[64];
	long at;
	long hits;
};

static struct crash_spec crash_abort = { "", 1, 0 };
static struct crash_spec crash_stall = { "", 1, 0 };

/* Reads "<point>[:<n>]" from the environment variable var into s; a count
 * that is not a number from 1 up is said and the variable ignored. */
static void
crash_parse(const char *var, struct crash_spec *s)
{
	const char *v = getenv(var);
	const char *colon;
	char *end;
	long at = 1;

	if (v == NULL || *v == '\0')
		return;
	colon = strchr(v, ':');
	if (colon != NULL) {
		errno = 0;
		at = strtol(colon + 1, &end, 10);
		if (errno != 0 || end == colon + 1 || *end != '\0' ||
		    colon[1] == '-' || colon[1] == '+' || colon[1] == ' ' ||
		    at < 1) {
			log_warnx("%s=%s: the count after ':' is not a number "
			    "from 1 up; ignored", var, v);
			return;
		}
	}
	snprintf(s->name, sizeof(s->name), "%.*s",
	    (int)(colon ? (size_t)(colon - v) : strlen(v)), v);
	s->at = at;
	s->hits = 0;
}

void
crash_init(void)
{
	crash_parse("KEDGE_CRASH_AT", &crash_abort);
	crash_parse("KEDGE_STALL_AT", &crash_stall);
}

/* Whether s names this point and its count is reached now. */
static int
crash_due(struct crash_spec *s, const char *name)
{
	return s->name[0] != '\0' && strcmp(s->name, name) == 0 &&
	    __atomic_add_fetch(&s->hits, 1, __ATOMIC_SEQ_CST) >= s->at;
}

void
crash_point(const char *name)
{
	static const char crash[] = "<2>KEDGE_CRASH_AT: crashing on purpose\n";
	static const char stall[] = "<4>KEDGE_STALL_AT: stalling on purpose\n";

	/* write(2), not stdio: nothing of this process may be flushed */
	if (crash_due(&crash_abort, name)) {
		if (write(2, crash, sizeof(crash) - 1) < 0)
			_exit(134);
		abort();
	}
	if (crash_due(&crash_stall, name)) {
		if (write(2, stall, sizeof(stall) - 1) < 0)
			_exit(134);
		for (;;)
			pause();
	}
}

#endif /* KEDGE_NO_CRASH_POINTS */
