/*
 * complete: which hours of a table are complete, and their manifests
 * (docs/completion.md).  It runs in the publisher's thread, after a pass
 * that left nothing unpublished, against the target.
 *
 * Each host writes, for every partition it consumes and every table that
 * reads it, a progress file into the shared target:
 *
 *   _kedge/progress/<table>/<topic>+<partition>.json
 *   {"host":"edge01","max_event_us":1785614399000000,"pending_us":null,
 *    "at_end":0,"last_record":1795000000,"written":1795000030}
 *
 * max_event_us is the latest event time of the partition's rows that are
 * published (from the sidecars of the files this host published, and the
 * file's earlier value); pending_us the earliest of its rows still in
 * this host's spool (their hours cannot be complete yet); at_end says the
 * partition was read to its end; last_record is when its last record was
 * read (UNIX seconds); progress.h reads and writes them.  A host that is
 * assigned a partition writes pending_us 0 at once, which holds every hour
 * back until it has published what it reads.
 *
 * One host per table, the one that consumes partition 0 of the table's
 * first topic, completes its hours: the watermark is the minimum over every
 * partition of the table's topics of max_event_us, where a partition read
 * to its end or idle for completion.idle_timeout counts as the present
 * instead, or as its pending_us when that is earlier, minus
 * completion.allowed_lateness; a partition with no progress file holds
 * every hour back.  An hour whose end is at or before the
 * watermark gets _MANIFEST.json (manifest.h) and then _SUCCESS; when files
 * land in it later, a new revision of both.
 *
 * Names: complete_ for the module's functions and types; struct completer
 * is the publisher's object.
 */
#ifndef KEDGE_COMPLETE_H
#define KEDGE_COMPLETE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/config/config.h"
#include "agent/target/target.h"
#include "agent/write/sidecar.h"

struct completer;

/* A partition this host consumes, as the run loop saw it. */
struct complete_part {
	char *topic;
	int32_t partition;
	int at_end;
	time_t last_record;       /* 0: none read yet */
	int64_t *pending_us;      /* per table: the earliest event time of its
	                           * rows still in the spool, or INT64_MAX */
};

/* A topic's partition count, from the brokers' metadata. */
struct complete_topic {
	char *topic;
	int32_t partitions;
};

/* What the run loop hands over after a decided checkpoint. */
struct complete_view {
	struct complete_part *parts;
	size_t nparts, parts_cap;
	struct complete_topic *topics;
	size_t ntopics;
};

/* Returns a completer, or NULL with the sentence in err. */
struct completer *complete_new(const struct conf *c, char *err,
    size_t errlen);
void complete_free(struct completer *cp); /* accepts NULL */

/* Notes a part file published at rel with its sidecar: its hour is to be
 * looked at again, and its event times count for its partition. */
void complete_published(struct completer *cp, const char *rel,
    const struct sidecar *sc);

/* Makes the completer note every revision it writes, or finds in the
 * target, to oc (oncomplete.h; not owned; NULL: none). */
struct oncomplete;
void complete_set_oncomplete(struct completer *cp, struct oncomplete *oc);

/* Makes complete_run() end, between two hours, once *stop is non-zero
 * (another thread may set it; it must outlive cp): an hour it began is
 * written whole unless the target fails it. */
void complete_set_stop(struct completer *cp, const atomic_int *stop);

/* Replaces the view (taking what v holds; v is left empty). */
void complete_set_view(struct completer *cp, struct complete_view *v);
void complete_view_clear(struct complete_view *v);

/* For a partition just assigned to this host: writes its progress with
 * pending_us 0 for every table that reads topic, so that no hour completes
 * on another host's word before this one has published what it reads.
 * Returns 0 or a negative errno with the sentence in err. */
int complete_hold(struct target *t, const struct conf *c, const char *topic,
    int32_t partition, char *err, size_t errlen);

/* Reads and parses the sidecar of part file name in directory dir of the
 * target.  Returns 0, -ENOENT when there is none, or another negative
 * errno; the sentence is in err, and the caller frees sc. */
int complete_read_sidecar(struct target *t, const char *dir,
    const char *name, struct sidecar *sc, char *err, size_t errlen);

/* Reads and parses directory dir's manifest.  Returns 1, 0 when there is
 * none (m zeroed), or a negative errno with the sentence in err; the
 * caller frees m. */
struct manifest;
int complete_read_manifest(struct target *t, const char *dir,
    struct manifest *m, char *err, size_t errlen);

/* What this host knows of a table's completion: on the host that
 * completes the table's hours (a complete_run() found it owns them), its
 * watermark and the start of its latest complete hour (one with a
 * manifest); INT64_MIN where not known. */
struct complete_figures {
	int64_t watermark_us;     /* INT64_MIN also while a partition of the
	                           * table's topics has no progress */
	int64_t last_hour_us;
};

/* Copies table i's figures into out. */
void complete_get_figures(const struct completer *cp, size_t i,
    struct complete_figures *out);

/* Writes this host's progress files and completes what hours it can, at
 * now.  Returns the number of manifests written, or a negative errno with
 * the sentence in err (the next run tries again). */
int complete_run(struct completer *cp, struct target *t, time_t now,
    char *err, size_t errlen);

#endif /* KEDGE_COMPLETE_H */
