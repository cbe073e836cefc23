/*
 * oncomplete: output.on_complete, the command kedge runs once an hour's
 * _MANIFEST.json and _SUCCESS (or a new revision of them) are in the
 * target (docs/completion.md).
 *
 * The completer notes each revision it writes, or finds in the target,
 * with oncomplete_note(); a thread of its own runs the command for each
 * revision not yet done, one at a time, with the placeholders of its
 * arguments replaced and the same values in KEDGE_* variables, stdin
 * /dev/null, in a process group of its own that is killed at
 * output.on_complete_timeout.  A command that fails or times out is tried
 * again with a capped exponential backoff.
 *
 * At least once per revision: every table has a record in the spool,
 *
 *   <spool_dir>/on_complete/<table>
 *   done 20261201 20 2 4031
 *   pending 20261201 21 1 3988 /srv/warehouse/access/dt=20261201/hr=21
 *
 * ("done DT HR REVISION ROWS": the highest revision of the hour whose
 * command exited 0; "pending DT HR REVISION ROWS PATH": one noted and not
 * done yet), replaced crash-safe when a revision is noted and when its
 * command exits 0.  A restart runs the pending ones again, and never one
 * that is done.
 */
#ifndef KEDGE_ONCOMPLETE_H
#define KEDGE_ONCOMPLETE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/config/config.h"

struct oncomplete;

/* The placeholders of output.on_complete's arguments, for sentences. */
#define ONCOMPLETE_PLACEHOLDERS "{table} {dt} {hr} {revision} {path} {rows}"

/* Whether name[0..len) (without its braces) is one of them. */
int oncomplete_placeholder(const char *name, size_t len);

/* What the command did for one table, since the start. */
struct oncomplete_stats {
	uint64_t ok;              /* exited 0 */
	uint64_t failed;          /* exited otherwise, or killed by a signal */
	uint64_t timeout;         /* killed at output.on_complete_timeout */
	uint64_t pending;         /* revisions waiting, now */
};

/* Starts the thread for c's output.on_complete (which must not be
 * empty), with nothing to run until oncomplete_load() or
 * oncomplete_handover(); c must outlive it.  Returns it, or NULL with the
 * sentence in err. */
struct oncomplete *oncomplete_start(const struct conf *c, char *err,
    size_t errlen);

/* Reads the tables' records into oc (a record that cannot be read, and a
 * line that is not a record, are logged and left out: their hours may be
 * announced again), and runs what they left pending.  Returns 0 or
 * -ENOMEM. */
int oncomplete_load(struct oncomplete *oc);

/* For a reload: stops from's thread (as oncomplete_stop() does) and hands
 * to, which has read no record, what from holds: the revisions done and
 * pending, which run with to's command from now on, and the figures.
 * from and to serve the same tables, in the same order.  Frees from. */
void oncomplete_handover(struct oncomplete *to, struct oncomplete *from);

/* Notes that revision revision of hour dt/hr of table, with rows rows,
 * is complete at path (the hour's directory in the target).  A revision
 * done or noted already is ignored.  Thread-safe; a record that cannot be
 * written is logged, and the revision is still run. */
void oncomplete_note(struct oncomplete *oc, const char *table,
    const char *dt, const char *hr, uint64_t revision, uint64_t rows,
    const char *path);

/* Asks the thread to run whatever is pending before it stops, each
 * revision tried ONCOMPLETE_SETTLE_TRIES times at most in this run
 * (kedge run --exit-at-end). */
#define ONCOMPLETE_SETTLE_TRIES 5
void oncomplete_settle(struct oncomplete *oc);

/* Stops the thread, and frees oc.  Unless oncomplete_settle() was called,
 * a command still running is killed and its revision stays pending.
 * Accepts NULL. */
void oncomplete_stop(struct oncomplete *oc);

/* Copies table i's figures (i indexes c->tables) into out. */
void oncomplete_get_stats(struct oncomplete *oc, size_t i,
    struct oncomplete_stats *out);

#endif /* KEDGE_ONCOMPLETE_H */
