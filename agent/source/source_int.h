/*
 * source_int: what source.c shares with source_conf.c (the librdkafka
 * properties kedge's configuration maps to) and source_failure.c (the
 * sentences that say why consumption cannot go on, with the fix).  Private
 * to source*.c: the rest of kedge sees only source.h.
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
	int parked;          /* the fetcher has probably parked */
	uint64_t wakeups;    /* times it was woken by a seek */
	unsigned held;       /* SOURCE_HOLD_ reasons; see source_hold() */
	char failure[1024];  /* why librdkafka cannot go on; "" while it can */
	time_t down_since;   /* when every broker went down; 0: one answers */
	int down_drained;    /* the queue ran empty since: what comes now was
	                      * fetched after the brokers went down */
	rd_kafka_queue_t *commits;  /* where offset commits are answered */
	int commit_pending;  /* a commit's answer has not come yet */
	pthread_mutex_t tls_lock;  /* librdkafka's threads verify certificates */
	int tls_error;       /* OpenSSL's X509_V_ERR_ of the first refused one */
	char tls_broker[256];
};

#define SOURCE_STATIC_GROUP "kedge-static-assignment"

/*
 * The failure sentences (source_failure.c).  Each but source_acl_sentence()
 * and source_cert_verify() writes its sentence to s->failure, which
 * source_failure() returns.
 */

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
