/*
 * source: the Kafka side.  A librdkafka consumer, in a consumer group
 * (subscribe) or on a static assignment of every partition of the topics,
 * read in batches.  It tracks, per assigned partition, the next offset to
 * commit (what the caller has processed) and whether the partition is at its
 * end, and commits those offsets when told to.  Offsets are never committed
 * automatically: a record counts as done only after its rows are durable.
 */
#ifndef KEDGE_SOURCE_H
#define KEDGE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "config.h"

struct source;

/* Called from inside source_poll() when partitions are taken away, before
 * they go: the caller makes their rows durable and calls source_commit(). */
typedef void (source_revoke_fn)(void *opaque,
    const rd_kafka_topic_partition_list_t *parts);

/* Returns a consumer configured from c, or NULL with a sentence in err. */
struct source *source_new(const struct conf *c, source_revoke_fn *revoke,
    void *opaque, char *err, size_t errlen);

/* Subscribes (group) or assigns every partition (static).  Returns 0 or a
 * negative value with a sentence in err. */
int source_start(struct source *s, char *err, size_t errlen);

/* Waits up to timeout_ms for records and puts up to max of them in msgs;
 * the caller destroys each with rd_kafka_message_destroy() after
 * source_done().  Partition ends and errors are handled here and not
 * returned.  Returns the number of records. */
size_t source_poll(struct source *s, rd_kafka_message_t **msgs, size_t max,
    int timeout_ms);

/* Records that msg has been processed: its offset + 1 is committed at the
 * next source_commit(). */
void source_done(struct source *s, const rd_kafka_message_t *msg);

/* Commits the processed offsets of every assigned partition, synchronously.
 * Without a group there is nothing to commit to and it returns 0.  Returns
 * 0 or a negative value with a sentence in err. */
int source_commit(struct source *s, char *err, size_t errlen);

/* Returns how often the fetcher was found parked on a full queue and woken
 * (source.c explains why). */
uint64_t source_wakeups(const struct source *s);

/* Returns 1 when partitions are assigned and every one is at its end. */
int source_at_end(const struct source *s);

/* Leaves the group (revoking, which calls the revoke function) and frees
 * everything.  Accepts NULL. */
void source_close(struct source *s);

#endif /* KEDGE_SOURCE_H */
