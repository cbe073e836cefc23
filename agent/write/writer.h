/*
 * writer: rows of one table -> rolling part files in the spool.
 *
 * Each part file holds the rows of one Kafka partition for one local hour,
 * and is named so that names never collide across hosts and restarts:
 *
 *   <spool>/open/<table>/dt=YYYYMMDD/hr=HH/<topic>+<partition>+<first offset>+<host>.<ext>
 *
 * ('+' appears in neither Kafka topic names nor host names.)  Beside each
 * file its journal (journal.h) says which records it holds and the range of
 * its rows' event times.  A file grows across checkpoints; writer_seal()
 * ends the current compression member or frame, fsyncs, and marks the
 * journal with the checkpoint, so the file can be cut back to any
 * checkpoint.  A Parquet file is written as a log of its rows,
 * <name>.parquet.rows (rowlog.h), converted when it is released, on a
 * thread of the writer's own (convert.h).  A file rolls when it reaches
 * roll.max_bytes, roll.max_age seconds or roll.inactive seconds without a
 * row.  When a file of another
 * hour or partition must open while roll.max_open files are open, the
 * least recently written is parked: its rows are written out and its
 * descriptors closed, and a later row of its hour opens it again to
 * append.  Past roll.max_parked parked files, the least recently written
 * of them rolls (a later row of its hour opens a new file); with
 * max_parked 0 the open file rolls at once.  An open file holds at most two
 * descriptors, its own and its journal's; a parked or rolled one none.  A
 * rolled file is closed, and writer_release() hands it, with its sidecar,
 * to <spool>/ready/ once a checkpoint that sealed it is decided.
 */
#ifndef KEDGE_WRITER_H
#define KEDGE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/parquet/parquet.h"
#include "agent/udtf/udtf.h"
#include "agent/write/format.h"
#include "agent/write/tz.h"
#include "lib/codec.h"

struct writer;

struct roll_policy {
	uint64_t max_bytes;
	int max_age;    /* seconds */
	int inactive;   /* seconds */
	unsigned max_open; /* files open at once; 0: no bound */
	unsigned max_parked; /* files closed between rows, kept to append to */
};

enum roll_reason { ROLL_NONE = 0, ROLL_SIZE, ROLL_AGE, ROLL_INACTIVE, ROLL_FORCED };

struct writer_opts {
	const char *table;
	const char *spool_dir;
	const char *host;
	struct format format;
	enum codec_kind codec;
	int codec_level;
	struct roll_policy roll;
	struct pq_opts parquet;   /* format parquet: all but codec and level */
};

struct writer_stats {
	uint64_t rows;
	uint64_t files_rolled;
	uint64_t bytes_flushed;   /* bytes written to part files */
	unsigned files_open;      /* holding a descriptor */
	unsigned files_parked;
	uint64_t files_reopened;  /* parked files opened again for a row */
	uint64_t files_converted; /* Parquet files converted from their logs */
	uint64_t convert_held_ns; /* the caller's time spent converting them */
};

/* Decides whether a file opened at `opened`, last written at `last_write`
 * and holding `bytes` bytes rolls at `now`. */
enum roll_reason writer_roll_check(const struct roll_policy *p,
    uint64_t bytes, time_t opened, time_t last_write, time_t now);

/* Returns a writer for rows of the given columns (copied by reference: cols
 * must outlive the writer), or NULL with a sentence in err.  Creates the
 * spool directories it needs. */
/* Writes into buf the name of the part file of topic's partition whose
 * first record is first_offset, written by host in format and codec:
 * "<topic>+<partition>+<first_offset>+<host>.<ext>", with ".rows" after
 * it for the log of an open Parquet file when open is 1 (spool.h).
 * Returns what snprintf() returns. */
int writer_part_name(char *buf, size_t len, const char *topic,
    int32_t partition, int64_t first_offset, const char *host,
    enum format_kind format, enum codec_kind codec, int open);

/* The length of the longest file name kedge makes from a part file of
 * topic written by host in format and codec, with the largest partition
 * and offset there can be: its journal's (".<name>.journal"), which holds
 * the part file's own.  A file system takes at most NAME_MAX. */
size_t writer_name_longest(const char *topic, const char *host,
    enum format_kind format, enum codec_kind codec);

struct writer *writer_new(const struct writer_opts *o,
    const struct udtf_column *cols, size_t ncols, char *err, size_t errlen);
/* Writes nothing: call writer_seal() first when the data matters.  A
 * Parquet file released and not yet converted is left in the spool's
 * open/ for recovery (writer_settle() waits for them). */
void writer_free(struct writer *w); /* accepts NULL */

/* Which record a row comes from. */
struct writer_origin {
	const char *topic;
	int32_t partition;
	int64_t offset;
	int first;                /* the record's first row */
	const char *rejected_for; /* rejects only: the table it was meant for;
	                           * must outlive the writer */
	int64_t event_us;         /* the time that chose the row's hour (for
	                           * rejects, the arrival), microseconds since
	                           * the epoch */
};

/* Appends one row to the part file of (hour, topic, partition), opening a
 * file whose first offset is o->offset when there is none.  Returns 0 or a
 * negative errno with a sentence in err. */
int writer_write(struct writer *w, const struct tz_hour *hour,
    const struct writer_origin *o, const struct udtf_value *vals, char *err,
    size_t errlen);

/* Notes that a record gave no row, in the partition's most recently
 * written file, or in a new file of the partition in hour when it has none
 * open or unreleased: a file may hold no row at all.  Returns 0, or a
 * negative errno with a sentence in err. */
int writer_note_empty(struct writer *w, const struct tz_hour *hour,
    const char *topic, int32_t partition, int64_t offset, char *err,
    size_t errlen);

/* writer_note_empty() for offsets [offset, last] that the consumer skipped
 * (a read-committed consumer skips transaction markers and aborted
 * records): they gave no row either; with unread, offsets the broker
 * deleted before kedge read them (the sidecar's "unread"). */
int writer_note_skipped(struct writer *w, const struct tz_hour *hour,
    const char *topic, int32_t partition, int64_t offset, int64_t last,
    int unread, char *err, size_t errlen);

/* Rolls the files the roll policy says are done at `now`.  Returns the
 * number rolled, or a negative errno with a sentence in err (a Parquet
 * file's conversion that failed since the last call too). */
int writer_tick(struct writer *w, time_t now, char *err, size_t errlen);

/* Rolls every open file of `partition` of `topic`, or every file when topic
 * is NULL.  Returns the number rolled or a negative errno. */
int writer_roll(struct writer *w, const char *topic, int32_t partition,
    char *err, size_t errlen);

/* Seals checkpoint id: makes every written row durable (ends the
 * compression member of each open file, writes and fsyncs it) and marks
 * every changed file's journal with id.  Returns 0 or a negative errno with
 * a sentence in err. */
int writer_seal(struct writer *w, uint64_t id, char *err, size_t errlen);

/* Hands every rolled file that a checkpoint sealed to <spool>/ready/, with
 * its sidecar.  Call once that checkpoint is decided.  A Parquet file's
 * log goes to the writer's converter (convert.h), which moves the Parquet
 * file to ready/ on its own thread; until then its rows count in
 * writer_pending_min().  Returns the number moved, counting the Parquet
 * files converted since the last call, or a negative errno with a
 * sentence in err (a conversion's failure too). */
int writer_release(struct writer *w, char *err, size_t errlen);

/* Waits until every Parquet file writer_release() handed over is in
 * <spool>/ready/: at shutdown.  Returns the number moved since the last
 * call or a negative errno with a sentence in err. */
int writer_settle(struct writer *w, char *err, size_t errlen);

/* For a partition that is gone without its last checkpoint decided: closes
 * its files, cuts them back to checkpoint upto and hands what is left to
 * ready/.  Returns 0 or a negative errno with a sentence in err. */
int writer_discard(struct writer *w, const char *topic, int32_t partition,
    uint64_t upto, char *err, size_t errlen);

/* Returns 1 when a row, a roll or a release waits for a checkpoint. */
int writer_changed(const struct writer *w);

/* The earliest event time (us) of the rows of partition that are still in
 * this writer's files, open or rolled and not released; INT64_MAX when
 * there are none.  Those rows hold their hours back from completion. */
int64_t writer_pending_min(const struct writer *w, const char *topic,
    int32_t partition);

/* A new roll policy, for files open now and later. */
void writer_set_roll(struct writer *w, const struct roll_policy *p);
/* The same columns (names and types) from a new chain: cols must outlive
 * the writer. */
void writer_set_columns(struct writer *w, const struct udtf_column *cols);

void writer_get_stats(const struct writer *w, struct writer_stats *out);

#endif /* KEDGE_WRITER_H */
