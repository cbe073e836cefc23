/* librdkafka's error callback, which tells what stops consumption, and
 * the sentences for it: see source_int.h. */
#include "agent/source/source_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/x509_vfy.h>

#include "lib/log.h"

/* A fatal error, brokers that refuse kedge's authentication, a TLS
 * handshake that fails on a certificate or a batch too large to receive
 * (which librdkafka would retry for ever) stop kedge: see
 * source_failure().  Quiet (source_probe()), each is a debug line and the
 * last cause is kept for the probe's answer. */
void
source_error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	struct source *s = opaque;
	int tls = strstr(reason, "certificate verify failed") != NULL;
	int big = strstr(reason, "increase receive.message.max.bytes") != NULL;
	int stop = err == RD_KAFKA_RESP_ERR__FATAL ||
	    err == RD_KAFKA_RESP_ERR__AUTHENTICATION || tls || big;
	enum log_level warning = s->quiet ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING;
	enum log_level error = s->quiet ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERR;

	(void)rk;
	if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN && s->down_since == 0) {
		s->down_since = time(NULL);
		s->down_drained = 0;
		log_fields(warning, NULL, 0, "kafka: no broker answers (%s); "
		    "waiting for them, kedge resumes by itself", reason);
		return;
	}
	/* "N/N brokers are down" sums up what the causes said */
	if (s->quiet && err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
		snprintf(s->said, sizeof(s->said), "%s", reason);
	log_fields(stop ? error : warning, NULL, 0, "kafka: %s", reason);
	if (!stop || s->failure[0] != '\0')
		return;
	if (tls)
		source_tls_failure(s, reason);
	else if (big)
		source_size_failure(s, reason);
	else if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION)
		source_auth_failure(s, reason);
	else
		snprintf(s->failure, sizeof(s->failure), "%s", reason);
}

void
source_auth_failure(struct source *s, const char *reason)
{
	const char *p = strstr(reason, "Server "), *q;

	if (p != NULL && (q = strstr(p, " not found in Kerberos database")) !=
	    NULL) {
		p += strlen("Server ");
		snprintf(s->failure, sizeof(s->failure), "the KDC knows no "
		    "service %.*s, so kedge cannot get a ticket for the brokers: "
		    "set kafka.security.kerberos_service_name (now \"%s\") to "
		    "the brokers' service (the first part of their principals, "
		    "usually \"kafka\") and name the brokers in kafka.brokers "
		    "by the host names in their principals", (int)(q - p), p,
		    s->conf->kafka.service_name);
	} else {
		snprintf(s->failure, sizeof(s->failure), "the brokers refused "
		    "kedge's authentication: %s", reason);
	}
}

int
source_acl_sentence(const struct source *s, rd_kafka_resp_err_t err,
    const rd_kafka_message_t *m, char *out, size_t outlen)
{
	const struct conf *c = s->conf;
	const char *p = c->kerberos.principal, *name;
	int topic = err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED;

	if (topic)
		name = m != NULL && m->rkt != NULL ? rd_kafka_topic_name(m->rkt) :
		    c->kafka.topics.v[0];
	else if (err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED)
		name = c->kafka.group_id != NULL ? c->kafka.group_id :
		    SOURCE_STATIC_GROUP;
	else
		return 0;
	snprintf(out, outlen, "the brokers' ACLs do not let %s read %s %s "
	    "(%s): allow it READ on %s %s (kafka-acls --add "
	    "--allow-principal User:%.*s --operation Read --%s %s)",
	    p != NULL ? p : "kedge's user", topic ? "topic" : "consumer group",
	    name, topic ? "TOPIC_AUTHORIZATION_FAILED" :
	    "GROUP_AUTHORIZATION_FAILED", topic ? "topic" : "group", name,
	    p != NULL ? (int)strcspn(p, "/@") : 6, p != NULL ? p : "<USER>",
	    topic ? "topic" : "group", name);
	return 1;
}

int
source_acl_failure(struct source *s, const rd_kafka_message_t *m)
{
	char why[sizeof(s->failure)];

	if (!source_acl_sentence(s, m->err, m, why, sizeof(why)))
		return 0;
	if (s->failure[0] == '\0')
		memcpy(s->failure, why, sizeof(why));
	return 1;
}

int
source_cert_verify(rd_kafka_t *rk, const char *broker, int32_t id,
    int *x509_error, int depth, const char *der, size_t size, char *errstr,
    size_t errlen, void *opaque)
{
	struct source *s = opaque;

	(void)rk, (void)id, (void)depth, (void)der, (void)size;
	if (*x509_error == 0)
		return 1;
	snprintf(errstr, errlen, "%s", X509_verify_cert_error_string(
	    *x509_error));
	pthread_mutex_lock(&s->tls_lock);
	if (s->tls_error == 0) {
		s->tls_error = *x509_error;
		snprintf(s->tls_broker, sizeof(s->tls_broker), "%s", broker);
	}
	pthread_mutex_unlock(&s->tls_lock);
	return 0;
}

void
source_tls_failure(struct source *s, const char *reason)
{
	const char *ca = s->conf->kafka.ca_file ? s->conf->kafka.ca_file :
	    "unset: the system's CAs";
	char broker[256];
	int e;

	pthread_mutex_lock(&s->tls_lock);
	e = s->tls_error;
	snprintf(broker, sizeof(broker), "%s", s->tls_broker);
	pthread_mutex_unlock(&s->tls_lock);
	switch (e) {
	case X509_V_ERR_HOSTNAME_MISMATCH:
		snprintf(s->failure, sizeof(s->failure), "the TLS handshake with "
		    "a broker failed: the certificate of %s does not name that "
		    "host (hostname mismatch): name the brokers in kafka.brokers "
		    "as their certificates do", broker);
		break;
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CERT_NOT_YET_VALID:
		snprintf(s->failure, sizeof(s->failure), "the TLS handshake with "
		    "a broker failed: the certificate of %s %s: renew it, or set "
		    "this host's clock right", broker,
		    e == X509_V_ERR_CERT_HAS_EXPIRED ? "has expired" :
		    "is not valid yet");
		break;
	case 0:
		snprintf(s->failure, sizeof(s->failure), "the TLS handshake with "
		    "a broker failed: %s; check kafka.security.ca_file (%s)",
		    reason, ca);
		break;
	default:
		snprintf(s->failure, sizeof(s->failure), "the TLS handshake with "
		    "a broker failed: the certificate of %s is refused (%s): "
		    "kafka.security.ca_file (%s) must hold the CA that signed "
		    "the brokers' certificates", broker,
		    X509_verify_cert_error_string(e), ca);
	}
}

void
source_size_failure(struct source *s, const char *reason)
{
	snprintf(s->failure, sizeof(s->failure), "a broker's answer is larger "
	    "than librdkafka may receive (%s): a record batch that large "
	    "stalls its partition for good; raise kafka.rdkafka receive_message_max_bytes "
	    "(librdkafka's receive.message.max.bytes) above the largest "
	    "batch of the topics, with fetch_max_bytes and "
	    "max_partition_fetch_bytes if they are set", reason);
}
