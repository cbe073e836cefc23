/*
 * complete_int: what complete.c (which hours are complete: the completer's
 * state, the progress files, the watermark) shares with hour.c (an hour's
 * manifest and _SUCCESS, built from the part files and sidecars in the
 * target).  Private to complete.c and hour.c: the rest of kedge sees only
 * complete.h.
 */
#ifndef KEDGE_COMPLETE_INT_H
#define KEDGE_COMPLETE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/complete/complete.h"

struct complete_max;          /* complete.c: a partition's latest event */
struct tz;

/* An hour of a table this host has seen in the target. */
struct complete_hour {
	char *table;
	char dt[9], hr[3];
	int dirty;                /* files landed since it was looked at */
	int done;                 /* its manifest lists what is there */
};

struct completer {
	const struct conf *c;
	struct tz *tz;
	struct complete_max *maxes;
	size_t nmaxes, maxes_cap;
	struct complete_hour *hours;
	size_t nhours, hours_cap;
	time_t *scanned;          /* per table, its last full scan */
	struct complete_figures *figures; /* per table */
	struct complete_view view;
	int have_view;
	struct oncomplete *oc;    /* NULL: no output.on_complete */
	const atomic_int *stop;   /* set: complete_run() ends; NULL: never */
};

/* Writes the manifest of hour h and _SUCCESS, unless its manifest lists
 * what is there already.  Returns 1 when written, 0 when not, or a
 * negative errno. */
int complete_hour_write(struct completer *cp, struct target *t,
    struct complete_hour *h, int64_t wm, char *err, size_t errlen);

#endif /* KEDGE_COMPLETE_INT_H */
