/*
 * source_int: what source.c (the consumer loop) shares with source_conf.c
 * (the librdkafka properties kedge's configuration maps to, and the
 * callbacks), source_failure.c (librdkafka's error callback and the
 * sentences that say why consumption cannot go on, with the fix),
 * source_probe.c (check-config's look at the brokers) and source_marks.c
 * (the watermarks, asked of the brokers on a thread).  Private to
 * source*.c: the rest of kedge sees only source.h.
 */
#ifndef KEDGE_SOURCE_INT_H
#define KEDGE_SOURCE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "agent/source/source.h"

/* One assigned partition. */
struct source_part {
	char *topic;
	int32_t partition;
	int64_t next;        /* offset to commit; -1 before the first record */
	int64_t seen;        /* offset the consumer reads next, as far as
			      * known (the committed one, then after the
			      * last record); -1: not known */
	int at_end;
	int fed;             /* a record came since it was last sought */
	time_t last_at;      /* when its last record was read; 0: none */
};

struct source {
	rd_kafka_t *rk;
	rd_kafka_queue_t *queue;
	const struct conf *conf;
	int grouped;
	struct source_hooks hooks;
	struct source_part *parts;
	size_t nparts, parts_cap;
	size_t last;         /* index of the partition of the previous record */
	size_t park_mark;    /* queue length at which the fetcher parks */
	size_t park_bytes;   /* ... or queued bytes (the kbytes bound) */
	size_t record_bytes; /* a record's payload, on average of late */
	int parked;          /* the fetcher has probably parked */
	uint64_t wake_at;    /* CLOCK_MONOTONIC ms at which to wake a fetcher
	                      * no partition's seek could; 0: none to wake */
	uint64_t wakeups;    /* times it was woken by a seek */
	unsigned held;       /* SOURCE_HOLD_ reasons; see source_hold() */
	char failure[1024];  /* why librdkafka cannot go on; "" while it can */
	int quiet;           /* source_probe(): errors are kept, and logged
	                      * at debug level */
	char said[512];      /* quiet: librdkafka's last error; "": none */
	time_t down_since;   /* when every broker went down; 0: one answers */
	int down_drained;    /* the queue ran empty since: what comes now was
	                      * fetched after the brokers went down */
	rd_kafka_queue_t *commits;  /* where offset commits are answered */
	int commit_pending;  /* a commit's answer has not come yet */
	struct source_marks *marks; /* the watermarks' thread; NULL before
	                      * source_start() */
	pthread_mutex_t tls_lock;  /* librdkafka's threads verify certificates */
	int tls_error;       /* OpenSSL's X509_V_ERR_ of the first refused one */
	char tls_broker[256];
};

#define SOURCE_STATIC_GROUP "kedge-static-assignment"

/*
 * The assigned partitions' watermarks, asked of the brokers by a thread
 * of their own every few seconds and after each assignment
 * (source_marks.c): librdkafka knows a partition's watermarks only from
 * its fetches, and none are made while it is held.
 */
struct source_marks;

/* Starts the thread, which asks through rk until source_marks_stop().
 * Returns NULL with the sentence in err. */
struct source_marks *source_marks_start(rd_kafka_t *rk, char *err,
    size_t errlen);
/* Asks for a round now (partitions were assigned).  Accepts NULL. */
void source_marks_kick(struct source_marks *m);
/* The low and high watermark of a partition as the brokers last said.
 * Returns 0, or -1 when they have not (or m is NULL). */
int source_marks_get(struct source_marks *m, const char *topic,
    int32_t partition, int64_t *low, int64_t *high);
/* Stops and joins the thread (at most one round's wait) and frees m;
 * before the consumer is closed.  Accepts NULL. */
void source_marks_stop(struct source_marks *m);

/* librdkafka's rebalance callback in a group (source.c): tracks the
 * partitions assigned and revoked and tells the hooks; opaque is the
 * source. */
void source_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
    rd_kafka_topic_partition_list_t *parts, void *opaque);

/* Returns e, or when it is no error the first error of a partition of list
 * (NULL: none): a request can succeed as a whole and fail for one
 * partition (source.c). */
rd_kafka_resp_err_t source_parts_error(rd_kafka_resp_err_t e,
    const rd_kafka_topic_partition_list_t *list);

/* The librdkafka conf for s (source_conf.c): source_properties() of c,
 * with librdkafka's log going to kedge's, source_error_cb(), and in a
 * group source_rebalance(), s their opaque.  Returns a conf the caller
 * destroys or hands to rd_kafka_new(), or NULL with the sentence in err. */
rd_kafka_conf_t *source_conf(struct source *s, const struct conf *c,
    char *err, size_t errlen);

/*
 * The failure sentences (source_failure.c).  Each but source_acl_sentence()
 * and source_cert_verify() writes its sentence to s->failure, which
 * source_failure() returns.
 */

/* librdkafka's error callback; opaque is the source.  Every broker down
 * starts an outage (s->down_since), which kedge waits out; a fatal error,
 * a refused authentication, a certificate that fails verification or a
 * batch too large to receive stops kedge with its sentence; any other
 * error is logged (while s->quiet at debug level, and kept in s->said). */
void source_error_cb(rd_kafka_t *rk, int err, const char *reason,
    void *opaque);

/* Why kedge cannot authenticate to the brokers, with the fix where the
 * reason tells it: a service principal the KDC does not know is a wrong
 * kerberos_service_name, or brokers named by another host name than their
 * principals'. */
void source_auth_failure(struct source *s, const char *reason);

/* The sentence for brokers whose ACLs refuse kedge READ on a topic (err
 * TOPIC_AUTHORIZATION_FAILED: m's, when m is not NULL and names one, else
 * the first configured) or its group (GROUP_AUTHORIZATION_FAILED): which
 * ACL to add, for the user the brokers know kedge by (under their default
 * principal.to.local rules, the Kerberos principal's first component).
 * Returns 1 with it in out, or 0 when err is another error. */
int source_acl_sentence(const struct source *s, rd_kafka_resp_err_t err,
    const rd_kafka_message_t *m, char *out, size_t outlen);

/* An error of a consumed message that no retry mends: the brokers' ACLs.
 * Stops kedge (see source_failure()); 0 if err is another error. */
int source_acl_failure(struct source *s, const rd_kafka_message_t *m);

/* Called by librdkafka's threads for each certificate of a broker's chain
 * after OpenSSL checked it (host name included): keeps OpenSSL's reason
 * for the first one refused, which librdkafka's own error does not say. */
int source_cert_verify(rd_kafka_t *rk, const char *broker, int32_t id,
    int *x509_error, int depth, const char *der, size_t size, char *errstr,
    size_t errlen, void *opaque);

/* A broker whose certificate kedge cannot verify will not change by
 * itself: says why, with the fix OpenSSL's reason points at. */
void source_tls_failure(struct source *s, const char *reason);

/* A record batch over receive.message.max.bytes makes the broker's whole
 * fetch answer unreadable: librdkafka drops the connection and fetches the
 * same batch again, for ever, and the partition stalls. */
void source_size_failure(struct source *s, const char *reason);

#endif /* KEDGE_SOURCE_INT_H */
