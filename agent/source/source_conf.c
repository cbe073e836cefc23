/* kedge's configuration as librdkafka's: its properties (see source.h),
 * and the conf with the source's callbacks (see source_int.h). */
#include "agent/source/source_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/err.h"
#include "lib/log.h"

/*
 * The defaults keep memory small for edge hosts: about 10,000 queued
 * records, and fetch answers of 256 KiB (compressed), about one record
 * batch of a busy partition: librdkafka holds every batch of an answer
 * decompressed, whatever its size on the wire, until its last record is
 * parsed, and answers of 2 MiB of compressed 4 MB batches brought several
 * at once.  librdkafka takes no fetch.max.bytes below message.max.bytes,
 * a producer's bound that a consumer only sends requests under.  Users
 * can override each through kafka.rdkafka.  queued.min.messages is also
 * the mark source.c's prefetching watches.
 */
static const struct {
	const char *key;
	const char *value;
} source_defaults[] = {
	{ "queued.min.messages", "10000" },
	{ "queued.max.messages.kbytes", "65536" },
	{ "fetch.max.bytes", "262144" },
	{ "message.max.bytes", "262144" },
	{ "fetch.wait.max.ms", "100" },
};

static int
source_set(rd_kafka_conf_t *kc, const char *key, const char *value, char *err,
    size_t errlen)
{
	char why[512];

	if (rd_kafka_conf_set(kc, key, value, why, sizeof(why)) ==
	    RD_KAFKA_CONF_OK)
		return 0;
	return err_set(err, errlen, -EINVAL, "librdkafka refuses %s: %s", key,
	    why);
}

/* SASL is GSSAPI with the tickets kedge's own login keeps in KRB5CCNAME:
 * librdkafka's kinit shell-out is off.  TLS takes the checked files. */
static int
source_security(rd_kafka_conf_t *kc, const struct conf *c, char *err,
    size_t errlen)
{
	const char *p = c->kafka.protocol;
	const struct { const char *key, *value; } tls[] = {
		{ "ssl.ca.location", c->kafka.ca_file },
		{ "ssl.certificate.location", c->kafka.cert_file },
		{ "ssl.key.location", c->kafka.key_file },
		{ "ssl.crl.location", c->kafka.crl_file },
		{ "ssl.endpoint.identification.algorithm", "https" },
	};

	if (strncmp(p, "SASL_", 5) == 0 &&
	    (source_set(kc, "sasl.mechanisms", "GSSAPI", err, errlen) < 0 ||
	    source_set(kc, "sasl.kerberos.service.name", c->kafka.service_name,
	    err, errlen) < 0 ||
	    (c->kerberos.principal != NULL && source_set(kc,
	    "sasl.kerberos.principal", c->kerberos.principal, err, errlen) < 0) ||
	    source_set(kc, "sasl.kerberos.min.time.before.relogin", "0", err,
	    errlen) < 0))
		return -EINVAL;
	if (strcmp(p, "SSL") != 0 && strcmp(p, "SASL_SSL") != 0)
		return 0;
	if (rd_kafka_conf_set_ssl_cert_verify_cb(kc, source_cert_verify) !=
	    RD_KAFKA_CONF_OK) {
		return err_set(err, errlen, -EINVAL,
		    "kafka.security.protocol %s: this librdkafka "
		    "is built without TLS", p);
	}
	for (size_t i = 0; i < sizeof(tls) / sizeof(tls[0]); i++)
		if (tls[i].value != NULL && source_set(kc, tls[i].key,
		    tls[i].value, err, errlen) < 0)
			return -EINVAL;
	return 0;
}

rd_kafka_conf_t *
source_properties(const struct conf *c, char *err, size_t errlen)
{
	rd_kafka_conf_t *kc = rd_kafka_conf_new();
	size_t i;

	for (i = 0; i < sizeof(source_defaults) / sizeof(source_defaults[0]); i++)
		if (source_set(kc, source_defaults[i].key, source_defaults[i].value,
		    err, errlen) < 0)
			goto fail;
	if (source_set(kc, "bootstrap.servers", c->kafka.brokers, err, errlen) < 0 ||
	    source_set(kc, "security.protocol", c->kafka.protocol, err, errlen) < 0 ||
	    source_set(kc, "enable.auto.commit", "false", err, errlen) < 0 ||
	    source_set(kc, "enable.auto.offset.store", "false", err, errlen) < 0 ||
	    source_set(kc, "enable.partition.eof", "true", err, errlen) < 0 ||
	    source_set(kc, "auto.offset.reset", c->kafka.start, err, errlen) < 0)
		goto fail;
	if (source_security(kc, c, err, errlen) < 0)
		goto fail;
	/* librdkafka's consumer refuses assign() without a group.id.  In
	 * static mode the group is never joined and nothing is committed to
	 * it: the name only satisfies that check. */
	if (source_set(kc, "group.id", c->kafka.group_id ? c->kafka.group_id :
	    SOURCE_STATIC_GROUP, err, errlen) < 0)
		goto fail;
	for (i = 0; i < c->kafka.n_rdkafka; i++) {
		const struct conf_kv *kv = &c->kafka.rdkafka[i];
		char why[256];
		if (rd_kafka_conf_set(kc, kv->key, kv->value, why, sizeof(why)) !=
		    RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "%s:%d: kafka.rdkafka: librdkafka "
			    "property %s: %s", kv->at.file, kv->at.line, kv->key,
			    why);
			goto fail;
		}
	}
	return kc;
fail:
	rd_kafka_conf_destroy(kc);
	return NULL;
}

/* What source_check_conf() hands its log callback. */
struct source_check {
	void (*warn)(void *arg, const char *sentence);
	void *arg;
};

/* librdkafka's warnings of a conf ("CONFWARN") go to the checker; the
 * rest of what a consumer that never starts logs is of no use to it. */
static void
source_check_log(const rd_kafka_t *rk, int level, const char *fac,
    const char *buf)
{
	struct source_check *sc = rd_kafka_opaque(rk);

	if (level > 4 || strcmp(fac, "CONFWARN") != 0 || sc->warn == NULL)
		return;
	/* "[thrd:app]: ": the thread that logged, of no use to the reader */
	if (strncmp(buf, "[thrd:", 6) == 0 && strstr(buf, "]: ") != NULL)
		buf = strstr(buf, "]: ") + 3;
	sc->warn(sc->arg, buf);
}

int
source_check_conf(const struct conf *c,
    void (*warn)(void *arg, const char *sentence), void *arg, char *err,
    size_t errlen)
{
	struct conf_loc at = conf_where(c, "kafka.rdkafka");
	struct source_check sc = { warn, arg };
	rd_kafka_conf_t *kc;
	rd_kafka_t *rk;
	char why[512];

	if ((kc = source_properties(c, err, errlen)) == NULL)
		return -EINVAL;
	if (at.line == 0)
		at = conf_where(c, "kafka.brokers");
	/* no broker: nothing connects, nothing is asked */
	if (rd_kafka_conf_set(kc, "bootstrap.servers", "", why,
	    sizeof(why)) != RD_KAFKA_CONF_OK) {
		rd_kafka_conf_destroy(kc);
		return err_set(err, errlen, -EINVAL, "%s:%d: kafka.rdkafka: %s",
		    at.file, at.line, why);
	}
	rd_kafka_conf_set_log_cb(kc, source_check_log);
	rd_kafka_conf_set_opaque(kc, &sc);
	/* rd_kafka_new() takes ownership of kc when it succeeds */
	if ((rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, why, sizeof(why))) ==
	    NULL) {
		rd_kafka_conf_destroy(kc);
		return err_set(err, errlen, -EINVAL, "%s:%d: kafka.rdkafka: "
		    "librdkafka refuses the configuration kedge makes of this "
		    "file: %s", at.file, at.line, why);
	}
	rd_kafka_destroy(rk);
	return 0;
}

int
source_insecure(const struct conf *c, char *why, size_t whylen)
{
	static const struct {
		const char *key, *off, *means;
	} checks[] = {
		{ "enable.ssl.certificate.verification", "false", "kedge "
		  "does not check the brokers' certificates at all, so anyone "
		  "on the way can pose as a broker and read or forge records" },
		{ "ssl.endpoint.identification.algorithm", "none", "kedge "
		  "does not check that a broker's certificate names that "
		  "broker, so any certificate the CA signed passes for any "
		  "broker" },
	};
	const char *p = c->kafka.protocol;
	rd_kafka_conf_t *kc;
	char err[512], v[64];
	int found = 0;

	if (strcmp(p, "SSL") != 0 && strcmp(p, "SASL_SSL") != 0)
		return 0;
	/* what librdkafka will use, whatever spelling the value had */
	if ((kc = source_properties(c, err, sizeof(err))) == NULL)
		return 0;
	for (size_t i = 0; !found && i < sizeof(checks) / sizeof(checks[0]);
	    i++) {
		size_t len = sizeof(v);
		const struct conf_kv *kv;

		if (rd_kafka_conf_get(kc, checks[i].key, v, &len) !=
		    RD_KAFKA_CONF_OK || strcmp(v, checks[i].off) != 0)
			continue;
		kv = conf_rdkafka_find(c, checks[i].key);
		snprintf(why, whylen, "%s:%d: kafka.rdkafka sets %s = %s: %s; "
		    "remove it, and name the brokers' CA in "
		    "kafka.security.ca_file", kv != NULL ? kv->at.file : c->path,
		    kv != NULL ? kv->at.line : 0, checks[i].key, v,
		    checks[i].means);
		found = 1;
	}
	rd_kafka_conf_destroy(kc);
	return found;
}

int
source_log_level(int level, const char *fac)
{
	return strcmp(fac, "FAIL") == 0 ? 7 : level;
}

static void
source_log_cb(const rd_kafka_t *rk, int level, const char *fac,
    const char *buf)
{
	(void)rk;
	level = source_log_level(level, fac);
	if (level <= 3)
		log_errx("kafka: %s: %s", fac, buf);
	else if (level == 4)
		log_warnx("kafka: %s: %s", fac, buf);
	else if (level <= 6)
		log_info("kafka: %s: %s", fac, buf);
	else
		log_debug("kafka: %s: %s", fac, buf);
}

rd_kafka_conf_t *
source_conf(struct source *s, const struct conf *c, char *err, size_t errlen)
{
	rd_kafka_conf_t *kc;

	if ((kc = source_properties(c, err, errlen)) == NULL)
		return NULL;
	rd_kafka_conf_set_log_cb(kc, source_log_cb);
	rd_kafka_conf_set_error_cb(kc, source_error_cb);
	rd_kafka_conf_set_opaque(kc, s);
	if (s->grouped)
		rd_kafka_conf_set_rebalance_cb(kc, source_rebalance);
	return kc;
}
