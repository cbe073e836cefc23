#include "crash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char crash_name[64];
static long crash_at = 1;
static long crash_hits;

void
crash_init(void)
{
	const char *v = getenv("KEDGE_CRASH_AT");
	const char *colon;

	if (v == NULL || *v == '\0')
		return;
	colon = strchr(v, ':');
	snprintf(crash_name, sizeof(crash_name), "%.*s",
	    (int)(colon ? (size_t)(colon - v) : strlen(v)), v);
	if (colon != NULL && (crash_at = strtol(colon + 1, NULL, 10)) < 1)
		crash_at = 1;
}

void
crash_point(const char *name)
{
	static const char msg[] = "<2>KEDGE_CRASH_AT: crashing on purpose\n";

	if (crash_name[0] == '\0' || strcmp(crash_name, name) != 0)
		return;
	if (__atomic_add_fetch(&crash_hits, 1, __ATOMIC_SEQ_CST) < crash_at)
		return;
	/* write(2), not stdio: nothing of this process may be flushed */
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(134);
	abort();
}
