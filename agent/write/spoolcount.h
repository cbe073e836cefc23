/*
 * spoolcount: what the spool holds (struct spool_usage), kept as counters
 * while files come and go, so that the run loop's look at it each second
 * costs as much for a spool of a million files as for one of ten.
 *
 * spoolcount_start() walks the spool once (spool_usage()), after recovery,
 * to learn what an earlier run left.  From then on whatever adds or
 * removes bytes or files under <spool>/open and <spool>/ready says so: the
 * writer as it appends to a part file or its journal, spool_finalize() as
 * it cuts a file back, converts a log, writes a sidecar, moves both to
 * ready/ and removes what is left in open/, the publisher as it removes a
 * published file.  The counts mean what the walk measures: the bytes of
 * every file under open/ and ready/ (journals, sidecars and logs too), the
 * part files in ready/ (not the hidden sidecars) and the mtime of the
 * oldest of them.
 *
 * One spool is counted, the one started; calls about another (a test's own,
 * or any before the start) change nothing.  The publisher calls from its
 * own thread: the counts are atomic, the ready files' mtimes are kept
 * under a lock.  spoolcount_start() must come before the threads that call.
 */
#ifndef KEDGE_SPOOLCOUNT_H
#define KEDGE_SPOOLCOUNT_H

#include <stdint.h>
#include <time.h>

#include "agent/write/spool.h"

/* Walks spool_dir (spool_usage()) and counts from what it found, forgetting
 * any spool counted before.  Returns 0 or -errno. */
int spoolcount_start(const char *spool_dir);

/* The counts into out, and the free bytes of the spool's file system as
 * statvfs() says them now.  Returns 0, -ENOENT when spool_dir is not the
 * spool counted, or -errno of statvfs(). */
int spoolcount_get(const char *spool_dir, struct spool_usage *out);

/* bytes more under <spool_dir>/open or <spool_dir>/ready, or fewer when
 * negative. */
void spoolcount_grow(const char *spool_dir, int64_t bytes);

/* A part file of the given mtime came into ready/ (n = 1), or left it
 * (n = -1).  Its bytes are spoolcount_grow()'s. */
void spoolcount_ready(const char *spool_dir, time_t mtime, int n);

#endif /* KEDGE_SPOOLCOUNT_H */
