/*
 * source_conf: what kedge's configuration becomes in librdkafka's
 * properties: its own defaults, the security settings (GSSAPI from
 * kedge's login with librdkafka's kinit refresh off, TLS files and host
 * name verification), and kafka.rdkafka on top.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/config/config.h"
#include "agent/source/source.h"

#define TABLE \
	"tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"

/* The properties of the configuration text. */
static rd_kafka_conf_t *
props(const char *text)
{
	char path[] = "/tmp/kedge-test-XXXXXX", err[1024] = "";
	rd_kafka_conf_t *kc;
	struct conf *c;
	int fd;

	if ((fd = mkstemp(path)) < 0)
		fail_msg("mkstemp: %s", strerror(errno));
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	c = conf_load(path, err, sizeof(err));
	unlink(path);
	if (c == NULL)
		fail_msg("conf_load: %s", err);
	if ((kc = source_properties(c, err, sizeof(err))) == NULL)
		fail_msg("source_properties: %s", err);
	conf_free(c);
	return kc;
}

static void
assert_prop(rd_kafka_conf_t *kc, const char *name, const char *want)
{
	char value[512];
	size_t len = sizeof(value);

	if (rd_kafka_conf_get(kc, name, value, &len) != RD_KAFKA_CONF_OK)
		fail_msg("%s: unknown property", name);
	if (strcmp(value, want) != 0)
		fail_msg("%s = \"%s\", want \"%s\"", name, value, want);
}

static void
test_plaintext_defaults(void **state)
{
	rd_kafka_conf_t *kc = props("kafka = { brokers = \"k1:9092,k2:9092\"; };\n"
	    TABLE);

	(void)state;
	assert_prop(kc, "bootstrap.servers", "k1:9092,k2:9092");
	assert_prop(kc, "security.protocol", "plaintext");
	assert_prop(kc, "enable.auto.commit", "false");
	assert_prop(kc, "enable.auto.offset.store", "false");
	assert_prop(kc, "enable.partition.eof", "true");
	assert_prop(kc, "auto.offset.reset", "smallest"); /* librdkafka's name */
	assert_prop(kc, "fetch.wait.max.ms", "100");
	/* about one record batch a fetch answer: its peak memory */
	assert_prop(kc, "fetch.max.bytes", "262144");
	assert_prop(kc, "message.max.bytes", "262144");
	/* no group: a name only to satisfy librdkafka's assign() */
	assert_prop(kc, "group.id", "kedge-static-assignment");
	/* librdkafka's own kinit refresh is left alone without SASL */
	assert_prop(kc, "sasl.kerberos.min.time.before.relogin", "60000");
	rd_kafka_conf_destroy(kc);
}

static void
test_sasl_plaintext(void **state)
{
	rd_kafka_conf_t *kc = props("kafka = { brokers = \"k1:9092\";\n"
	    "  group_id = \"g\";\n"
	    "  security = { protocol = \"SASL_PLAINTEXT\";\n"
	    "               kerberos_service_name = \"kfk\"; }; };\n" TABLE
	    "kerberos = { principal = \"kedge/h.example.com@EXAMPLE.COM\"; };\n");

	(void)state;
	assert_prop(kc, "security.protocol", "sasl_plaintext");
	assert_prop(kc, "group.id", "g");
	assert_prop(kc, "sasl.mechanisms", "GSSAPI");
	assert_prop(kc, "sasl.kerberos.service.name", "kfk");
	assert_prop(kc, "sasl.kerberos.principal",
	    "kedge/h.example.com@EXAMPLE.COM");
	/* kedge renews the tickets itself: never fork kinit */
	assert_prop(kc, "sasl.kerberos.min.time.before.relogin", "0");
	rd_kafka_conf_destroy(kc);
}

static void
test_sasl_ssl_files(void **state)
{
	rd_kafka_conf_t *kc = props("kafka = { brokers = \"k1:9093\";\n"
	    "  security = { protocol = \"SASL_SSL\"; ca_file = \"/e/ca.pem\";\n"
	    "    cert_file = \"/e/c.pem\"; key_file = \"/e/c.key\";\n"
	    "    crl_file = \"/e/crl.pem\"; }; };\n" TABLE
	    "kerberos = { principal = \"kedge/h@R\"; };\n");

	(void)state;
	assert_prop(kc, "security.protocol", "sasl_ssl");
	assert_prop(kc, "sasl.kerberos.service.name", "kafka");
	assert_prop(kc, "ssl.ca.location", "/e/ca.pem");
	assert_prop(kc, "ssl.certificate.location", "/e/c.pem");
	assert_prop(kc, "ssl.key.location", "/e/c.key");
	assert_prop(kc, "ssl.crl.location", "/e/crl.pem");
	assert_prop(kc, "ssl.endpoint.identification.algorithm", "https");
	rd_kafka_conf_destroy(kc);
}

static void
test_rdkafka_overrides(void **state)
{
	rd_kafka_conf_t *kc = props("kafka = { brokers = \"k1:9092\";\n"
	    "  start = \"latest\";\n"
	    "  rdkafka = { fetch_wait_max_ms = \"500\";\n"
	    "              session_timeout_ms = \"7000\"; }; };\n" TABLE);

	(void)state;
	assert_prop(kc, "auto.offset.reset", "largest");
	assert_prop(kc, "fetch.wait.max.ms", "500");
	assert_prop(kc, "session.timeout.ms", "7000");
	rd_kafka_conf_destroy(kc);
}

/* A failed or lost connection ("FAIL"), which the error callback logs,
 * is a debug line; every other line keeps librdkafka's level. */
static void
test_log_level(void **state)
{
	(void)state;
	assert_int_equal(source_log_level(3, "FAIL"), 7);
	assert_int_equal(source_log_level(6, "FAIL"), 7);
	assert_int_equal(source_log_level(3, "ERROR"), 3);
	assert_int_equal(source_log_level(4, "CONFWARN"), 4);
	assert_int_equal(source_log_level(7, "BROKER"), 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plaintext_defaults),
		cmocka_unit_test(test_sasl_plaintext),
		cmocka_unit_test(test_sasl_ssl_files),
		cmocka_unit_test(test_rdkafka_overrides),
		cmocka_unit_test(test_log_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
