/*
 * table: one configured table's pipeline: its UDTF chain, the event-time
 * column, its writer, and what every record cost.  table_process() runs
 * records through the chain, measures every record's parse, and either
 * writes the rows to their hourly part files or sends the record to the
 * rejects table with the reason: a record is never dropped silently.
 */
#ifndef KEDGE_TABLE_H
#define KEDGE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/config/config.h"
#include "agent/parse/chain.h"
#include "agent/parse/latency.h"
#include "agent/parse/rejects.h"
#include "agent/udtf/udtf.h"
#include "agent/write/tz.h"
#include "agent/write/writer.h"

/* A table's event_time that names the record's Kafka timestamp rather
 * than a column. */
#define TABLE_KAFKA_TIMESTAMP "kafka_timestamp"

struct table;

struct table_stats {
	uint64_t records;
	uint64_t rows;
	uint64_t rejects;
	uint64_t empty;           /* records that gave no row */
	struct latency parse;     /* the chain's time, every record */
};

/* Builds table number `index` of config c: finds and initialises its UDTF
 * (compiling e.g. the nginx log_format), checks the event-time column and
 * opens its writer.  Returns NULL with "FILE:LINE: key: what is wrong" in
 * err. */
struct table *table_new(const struct conf *c, size_t index, struct tz *tz,
    char *err, size_t errlen);
void table_free(struct table *t); /* accepts NULL */

const char *table_name(const struct table *t);
/* Returns 1 when the table reads topic, else 0. */
int table_reads_topic(const struct table *t, const char *topic);
struct writer *table_writer(struct table *t);
struct chain *table_chain(struct table *t);
/* A new UDTF chain for t from the table of the same name in c, for a
 * reload: NULL with the reason in err when c has no such table or its
 * chain would emit other columns than t's.  t is left as it is. */
struct chain *table_reload_chain(const struct table *t, const struct conf *c,
    char *err, size_t errlen);
/* Replaces t's chain with ch (from table_reload_chain(t, c), taking it)
 * and its settings with c's table of its name; c must outlive t. */
void table_reload(struct table *t, const struct conf *c, struct chain *ch);
const struct table_stats *table_get_stats(const struct table *t);

/* Notes offsets [from, to] of topic's partition, which the consumer
 * skipped (transaction markers, aborted records), in a file of the
 * partition as records that gave no row, or with unread as offsets the
 * broker deleted before kedge read them, so that the landed files still
 * account for every offset.  Returns 0, or a negative errno with a
 * sentence in err. */
int table_note_skipped(struct table *t, const char *topic, int32_t partition,
    int64_t from, int64_t to, int unread, char *err, size_t errlen);

/* Turns recs[0..n), in order, into rows of this table (or one rejects row
 * each): the chain parses a batch of them back to back, every record
 * timed, then their rows are written.  Returns 0, or a negative errno with
 * a sentence in err when rows could not be written: recs[*done] is the
 * first record not landed, and the caller must stop before committing its
 * offset. */
int table_process(struct table *t, const struct udtf_record *recs, size_t n,
    struct rejects *rj, size_t *done, char *err, size_t errlen);

/* What a record would become, without writing it: its rows and the hour
 * each lands in, or why it would go to the rejects table. */
struct table_landing {
	const struct udtf_value *rows;  /* nrows rows of the chain's columns */
	size_t nrows;                   /* 0: the record gives no row */
	const struct tz_hour *hours;    /* one per row */
	const char *reason;             /* not NULL: rejected, this is why */
};

typedef void (table_preview_fn)(void *arg, size_t i,
    const struct table_landing *l);

/* What table_process() would make of recs[0..n), landing nothing: the
 * same chain, event times, window and hours.  For each record in order,
 * calls fn with its index and what it would become, valid during the
 * call.  Returns 0, or
 * -ENOMEM with a sentence in err. */
int table_preview(struct table *t, const struct udtf_record *recs, size_t n,
    table_preview_fn *fn, void *arg, char *err, size_t errlen);

#endif /* KEDGE_TABLE_H */
