/*
 * progress: one host's progress through one partition for one table, the
 * file _kedge/progress/<table>/<topic>+<partition>.json in the target
 * (complete.h says how the completer writes and reads them).  One JSON
 * object on one line:
 *
 *   {"host":"edge01","max_event_us":1785614399000000,"pending_us":null,
 *    "at_end":0,"last_record":1795000000,"written":1795000030}
 *
 * Every key is required and no other is allowed.  max_event_us and
 * pending_us are microseconds since the epoch or null, within
 * +-PROGRESS_US_MAX (so that the watermark's arithmetic cannot overflow);
 * at_end is 0 or 1; last_record and written are UNIX seconds, not negative.
 */
#ifndef KEDGE_PROGRESS_H
#define KEDGE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define PROGRESS_NO_MAX INT64_MIN      /* max_event_us null: no row yet */
#define PROGRESS_NO_PENDING INT64_MAX  /* pending_us null: none pending */
#define PROGRESS_US_MAX (INT64_C(1) << 62)

struct progress {
	char *host;
	int64_t max_event_us;     /* or PROGRESS_NO_MAX */
	int64_t pending_us;       /* or PROGRESS_NO_PENDING */
	int at_end;
	int64_t last_record;
	int64_t written;
};

/* Parses text[0..len) into *p.  Returns 0, or -EINVAL with the problem in
 * err (its line and column, or its key), or -ENOMEM; either way the caller
 * frees p with progress_clear(). */
int progress_parse(const char *text, size_t len, struct progress *p,
    char *err, size_t errlen);

/* Appends p as one line of JSON and a newline to out; event times beyond
 * PROGRESS_US_MAX are written as that bound.  Returns 0, -EILSEQ when the
 * host is not UTF-8, or -ENOMEM. */
int progress_format(const struct progress *p, struct buf *out);

/* Frees what p holds and zeroes it.  Accepts a zeroed one. */
void progress_clear(struct progress *p);

#endif /* KEDGE_PROGRESS_H */
