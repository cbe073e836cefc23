/*
 * publish: a thread that ships rolled, committed part files from
 * <spool>/ready/ to the target, keeping their relative path
 * (<table>/dt=../hr=../<name>).  Target "local": a directory; the file is
 * renamed into place, or across file systems copied under a hidden
 * temporary name (".<name>.tmp", which Hive ignores), fsynced and renamed,
 * so a reader of the target never sees half a file.  A file already in
 * place with the same length counts as published.  A failed file stays in
 * the spool and is retried with backoff; nothing is deleted from the spool
 * before it is in the target.  Target "webhdfs": through webhdfs.h, which
 * likewise writes under a temporary name and renames into place.
 */
#ifndef KEDGE_PUBLISH_H
#define KEDGE_PUBLISH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/config/config.h"

struct publisher;

struct publish_stats {
	uint64_t files;
	uint64_t bytes;
	uint64_t errors;
	char last_error[1024];     /* of a pass that left files; "" after one
	                            * that left none */
	char last_failure[1024];   /* the latest failure's sentence, kept */
	time_t last_failure_at;    /* when it happened; 0: none yet */
};

/* Starts the thread; it publishes what an earlier run left in the spool
 * too.  Returns NULL with a sentence in err. */
struct publisher *publisher_start(const struct conf *c, char *err,
    size_t errlen);

/* For a reload: builds a publisher of c to replace running, with all that
 * can fail (its target, its completer, its output.on_complete thread) and
 * its thread, which waits for publisher_replace(); running goes on
 * meanwhile.  c and running's configuration list the same tables in the
 * same order.  Returns NULL with a sentence in err, running untouched. */
struct publisher *publisher_prepare(const struct conf *c,
    const struct publisher *running, char *err, size_t errlen);

/* Stops running (as publisher_stop()), hands p what it counted, the view
 * it had not taken yet and its output.on_complete records, frees it, and
 * lets p's thread go.  Cannot fail. */
void publisher_replace(struct publisher *p, struct publisher *running);
/* Hands over what the run loop knows after a decided checkpoint (taking
 * what v holds); once everything released by then is published, the
 * thread writes the progress files and completes hours (complete.h). */
struct complete_view;
void publisher_set_view(struct publisher *p, struct complete_view *v);
/* For a partition just assigned to this host: its next pass, before it
 * publishes anything, holds the partition's hours (complete_hold()), so
 * that none completes on an earlier owner's word, and the run loop waits
 * for no HDFS meanwhile.  A failure is logged. */
void publisher_hold(struct publisher *p, const char *topic,
    int32_t partition);
/* Tells the thread that new files are ready. */
void publisher_kick(struct publisher *p);
/* Waits until a pass that started after this call leaves the ready spool
 * empty and has completed the hours it could, or timeout_s passes.
 * Returns 0 when everything is published, else the number of files left
 * (at least 1). */
size_t publisher_drain(struct publisher *p, int timeout_s);
/* Stops and joins the thread, and frees p, in about 6 s at most: the pass
 * stops after the file or the hour in hand, or, when HDFS is slower than
 * that, its request in flight is abandoned after 5 s (its file is
 * published again, as after a lost answer, and an hour's manifest left
 * without its _SUCCESS gets it at the next look); a running
 * output.on_complete command is killed (its revision stays pending),
 * unless publisher_settle() asked for the pending ones to run first.
 * Accepts NULL. */
void publisher_stop(struct publisher *p);
void publisher_get_stats(struct publisher *p, struct publish_stats *out);

/* Makes publisher_stop() run the pending output.on_complete commands
 * first (oncomplete_settle()): kedge run --exit-at-end. */
void publisher_settle(struct publisher *p);

/* Copies table i's output.on_complete figures into out.  Returns 1, or 0
 * when there is no output.on_complete. */
struct oncomplete_stats;
int publisher_get_oncomplete(struct publisher *p, size_t i,
    struct oncomplete_stats *out);

/* Copies what the completer last knew of table i's completion into out
 * (complete.h). */
struct complete_figures;
void publisher_get_figures(struct publisher *p, size_t i,
    struct complete_figures *out);

#endif /* KEDGE_PUBLISH_H */
