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
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "agent/config/config.h"
#include "checkpoint/ckpt.h"

struct source;

typedef void (source_parts_fn)(void *opaque,
    const rd_kafka_topic_partition_list_t *parts);

/* What the caller is told from inside source_poll() during a rebalance. */
struct source_hooks {
	/* partitions are about to be assigned (before the first read) */
	source_parts_fn *assigned;
	/* partitions are taken away, before they go: make their rows durable
	 * and decide them */
	source_parts_fn *revoked;
	/* partitions were lost (this member was evicted): their commits are
	 * fenced, so what is not decided must be given up */
	source_parts_fn *lost;
	void *opaque;
};

/* The librdkafka properties c maps to (kedge's defaults, the security
 * settings, then kafka.rdkafka's), without callbacks.  Returns a conf the
 * caller destroys, or NULL with the sentence in err. */
rd_kafka_conf_t *source_properties(const struct conf *c, char *err,
    size_t errlen);

/* check-config's check of the conf run builds, source_properties() of c:
 * librdkafka's own final checks, rd_kafka_new()'s, on a consumer that is
 * never started and connects nowhere (its brokers left out).  warn, when
 * not NULL, is called with each warning librdkafka gives of the conf (a
 * producer's property, a deprecated one), on the caller's thread.
 * Returns 0, or -EINVAL with "FILE:LINE: kafka.rdkafka: what" in err. */
int source_check_conf(const struct conf *c,
    void (*warn)(void *arg, const char *sentence), void *arg, char *err,
    size_t errlen);

/* The syslog level kedge logs a line of librdkafka's (its level and
 * facility) at: librdkafka's own, but debug for "FAIL", a connection
 * that failed or was lost: librdkafka hands each of those to the error
 * callback too, which logs it once, at the level kedge decides (a lost
 * connection is a warning, a refused authentication an error). */
int source_log_level(int level, const char *fac);

/* Returns a consumer configured from c, or NULL with a sentence in err. */

struct source *source_new(const struct conf *c, const struct source_hooks *h,
    char *err, size_t errlen);

/* Where a partition starts in static mode: an offset, or -1 for kafka.start. */
typedef int64_t (source_start_fn)(const char *topic, int32_t partition,
    void *arg);

/* Subscribes (group) or assigns every partition (static, each from
 * start_at(), which may be NULL), and starts the thread that asks the
 * brokers for the watermarks (source_lags()).  Returns 0 or a negative
 * value with a sentence in err. */
int source_start(struct source *s, source_start_fn *start_at, void *arg,
    char *err, size_t errlen);

/* The group's committed offset of a partition and its metadata. */
struct source_committed {
	int64_t offset;          /* -1: none */
	char metadata[256];      /* NUL-terminated; empty when none */
	/* the metadata's bytes as committed, NULs included: past
	 * sizeof(metadata) - 1, metadata holds only their start */
	size_t metadata_size;
};

/* Asks the group coordinator for the committed offset of each partition of
 * parts (their offsets are ignored); out[i] answers parts->elems[i].
 * Returns 0 or a negative value with a sentence in err. */
int source_committed(struct source *s,
    const rd_kafka_topic_partition_list_t *parts,
    struct source_committed *out, char *err, size_t errlen);

/* Copies each assigned partition's next offset (what the caller has
 * processed) into the callback; partitions with none are skipped. */
void source_positions(const struct source *s,
    void (*fn)(const char *topic, int32_t partition, int64_t next, void *arg),
    void *arg);

/* Waits up to timeout_ms for records and puts up to max of them in msgs;
 * the caller destroys each with rd_kafka_message_destroy() once
 * source_done() has seen it or a later record of its partition.  Partition
 * ends and errors are handled here and not
 * returned.  Returns the number of records. */
size_t source_poll(struct source *s, rd_kafka_message_t **msgs, size_t max,
    int timeout_ms);

/* Records that msg, and the records before it in its partition, have been
 * processed: its offset + 1 is committed at the next source_commit(). */
void source_done(struct source *s, const rd_kafka_message_t *msg);

/* Commits the given offsets with metadata (a checkpoint's, see ckpt.h) on
 * every partition and waits for the answer, at most 5 s (first for that of
 * an earlier commit still unanswered): a coordinator that is away fails
 * the commit instead of stopping the caller, who commits the same offsets
 * again later.  Without a group there is nothing to commit to and it
 * returns 0.  Returns 0 or a negative value with a sentence in err. */
int source_commit(struct source *s, const struct ckpt_record *rec,
    const char *metadata, char *err, size_t errlen);

/* Returns 1 in a consumer group, 0 on a static assignment. */
int source_grouped(const struct source *s);

/* Returns how often the fetcher was found parked on a full queue and woken
 * (source.c explains why). */
uint64_t source_wakeups(const struct source *s);

/* Why consumption is held: bits of source_hold()'s reason. */
#define SOURCE_HOLD_LOGIN 1u   /* the Kerberos ticket expired */
#define SOURCE_HOLD_SPOOL 2u   /* the spool is full */

/* Sets (on 1) or clears (on 0) a reason to hold consumption.  While any is
 * set every assigned partition is paused, and any assigned later; once
 * none is, they all resume from the next offset each needs.  Records
 * already fetched may still arrive while held. */
void source_hold(struct source *s, unsigned reason, int on);
/* The reasons set, 0 when consuming. */
unsigned source_held(const struct source *s);

/* Calls fn for every partition this consumer has: whether it was read to
 * its end, and when its last record was read (0: none yet). */
typedef void (source_part_fn)(const char *topic, int32_t partition,
    int at_end, time_t last_record, void *arg);
void source_each_part(const struct source *s, source_part_fn *fn, void *arg);

/* Calls fn for every assigned partition with the next offset kedge needs
 * and the partition's high watermark: the later of what librdkafka's
 * fetches saw and what the brokers answered a thread that asks them every
 * few seconds, so that a partition held or not read yet has one too.
 * Before its first record, a partition's next offset is the group's
 * committed one, or where kafka.start puts it (its low or high watermark);
 * one read to its end needs the high watermark.  A partition whose next
 * offset or high watermark is not known yet is skipped. */
typedef void (source_lag_fn)(const char *topic, int32_t partition,
    int64_t next, int64_t high, void *arg);
/* Returns how many assigned partitions were skipped. */
size_t source_lags(const struct source *s, source_lag_fn *fn, void *arg);

/* Returns how many partitions of topic are assigned to this consumer. */
size_t source_assigned(const struct source *s, const char *topic);

/* Asks the brokers how many partitions topic has, within timeout_ms.
 * Returns the count, or -1 when they do not say. */
int32_t source_partition_count(struct source *s, const char *topic,
    int timeout_ms);

/* Returns 1 when partitions are assigned and every one is at its end. */
int source_at_end(const struct source *s);

/* Asks the brokers for their metadata and checks that every configured
 * topic is there, and that their ACLs let kedge read it and use its group
 * (a fetch at each topic's end, the group's committed offsets), each
 * within timeout_ms.  Writes "N brokers; topic (P partitions), ..." to
 * info.  Returns 0, or a negative errno with the sentence in err, which
 * quotes librdkafka's last error when there was one: from the first call
 * on, s logs librdkafka's errors at debug level only, as this answer
 * tells them. */
int source_probe(struct source *s, int timeout_ms, char *info,
    size_t infolen, char *err, size_t errlen);

/* Whether kafka.rdkafka switches off a check of the brokers' TLS
 * certificates (enable.ssl.certificate.verification = false,
 * ssl.endpoint.identification.algorithm = none) where kafka.security.
 * protocol uses TLS.  Returns 1 with the sentence, which names the line,
 * in why; else 0. */
int source_insecure(const struct conf *c, char *why, size_t whylen);

/* Since when no broker answers (librdkafka said all brokers are down,
 * and no commit, nor record or partition end fetched after that, has come
 * since), or 0. */
time_t source_down_since(const struct source *s);

/* Called for every run of records of one partition with consecutive
 * offsets, msg its first and last its last record's offset, in the order
 * source_poll() returns them: the offsets before msg's in its partition
 * that the consumer skipped since the previous record or its committed
 * start (a read-committed consumer skips transaction markers and aborted
 * records), the first in *from; returns how many, 0 if none or not known.
 * *unread tells (and the log says how many) when the broker no longer has
 * the first of them: they were deleted before kedge read them, and
 * librdkafka went on from kafka.start. */
int64_t source_skipped(struct source *s, const rd_kafka_message_t *msg,
    int64_t last, int64_t *from, int *unread);

/* Why consumption cannot go on (a fatal error, brokers that refuse the
 * authentication, a record batch larger than librdkafka may receive), or
 * NULL. */
const char *source_failure(const struct source *s);

/* Leaves the group (revoking, which calls the revoked hook) and frees
 * everything.  Accepts NULL. */
void source_close(struct source *s);

#endif /* KEDGE_SOURCE_H */
