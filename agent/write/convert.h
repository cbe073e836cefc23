/*
 * convert: a thread of a Parquet writer's own that finalizes its released
 * files (spool_finalize(): the log cut back to its last mark, converted
 * to a Parquet file and fsynced, the sidecar written, both moved to
 * ready/, the log and its journal removed), one at a time and in the
 * order they were handed over, so that the writer's thread goes on with
 * the next records meanwhile.
 *
 * A file is handed over once a decided checkpoint sealed it: nothing else
 * reads or writes its log or its journal any more.  Should the process
 * crash, the thread fail or stop before a file is in ready/, its log and
 * journal are still in open/, and recovery finalizes them at the next
 * start, to the same bytes.
 *
 * Memory: the one conversion in progress (rowlog.h: a row group of the
 * Parquet writer, its dictionary and pages, a megabyte of log) and a name
 * for each file waiting; the files waiting are on disk, in the spool that
 * spool.max_bytes bounds.
 */
#ifndef KEDGE_CONVERT_H
#define KEDGE_CONVERT_H

#include <stddef.h>

struct convert;

/* Returns a converter of files under <spool_dir>/open, its thread started,
 * or NULL with the reason in err. */
struct convert *convert_new(const char *spool_dir, char *err, size_t errlen);

/* Stops the thread once the file it converts, if any, is done; the files
 * still waiting stay in open/ for recovery.  Accepts NULL. */
void convert_free(struct convert *cv);

/* Hands over <spool_dir>/open/<rel> (rel is copied); owner comes back to
 * convert_reap()'s done() once the file is finalized.  Returns 0 or
 * -ENOMEM. */
int convert_put(struct convert *cv, const char *rel, void *owner);

/* A file handed over is finalized: ready says whether it went to ready/
 * (0: it held nothing decided and was removed). */
typedef void convert_done_fn(void *arg, void *owner, int ready);

/* Calls done() on the caller's thread for each file finalized since the
 * last call, in the order they were handed over; with wait set, first
 * waits until every file handed over is.  Returns the number of files
 * moved to ready/, or the first failure with its sentence in err: after
 * a failure the thread finalizes nothing more, done() is called for none
 * of the files from the one that failed on, and every call returns it. */
int convert_reap(struct convert *cv, int wait, convert_done_fn *done,
    void *arg, char *err, size_t errlen);

#endif /* KEDGE_CONVERT_H */
