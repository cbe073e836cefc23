/*
 * config: a full file lands every value where the agent reads it, left-out
 * keys get their defaults, and every kind of mistake gives one sentence
 * "FILE:LINE: key: ..." naming the right file, line and key.  Also checks
 * that examples/kedge.conf loads and shows every key of the table.  Run
 * from the repository root, as root (the default directories are under
 * /var/lib and /srv).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "agent/config/config.h"
#include "agent/udtf/registry.h"

#define EXAMPLE "examples/kedge.conf"

/* Two lines that make a valid file: line 1 and line 2.  Tests append from
 * line 3 on. */
#define KAFKA "kafka = { brokers = \"k1:9092\"; };\n"
#define TABLE \
	"tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"

static char conf_path[64];

/* Writes text to a new temporary file, named in conf_path. */
static void
write_conf(const char *text)
{
	int fd;

	snprintf(conf_path, sizeof(conf_path), "/tmp/kedge-test-XXXXXX");
	if ((fd = mkstemp(conf_path)) < 0)
		fail_msg("mkstemp: %s", strerror(errno));
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static struct conf *
load_ok(const char *text)
{
	char err[1024] = "";
	struct conf *c;

	write_conf(text);
	c = conf_load(conf_path, err, sizeof(err));
	unlink(conf_path);
	if (c == NULL)
		fail_msg("conf_load: %s", err);
	return c;
}

/* Loads text and expects the error "FILE:line: rest...". */
static void
expect_err(const char *text, int line, const char *rest)
{
	char err[1024] = "", want[1024];
	struct conf *c;

	write_conf(text);
	c = conf_load(conf_path, err, sizeof(err));
	unlink(conf_path);
	conf_free(c);
	assert_null(c);
	snprintf(want, sizeof(want), "%s:%d: %s", conf_path, line, rest);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("got  \"%s\"\nwant \"%s...\"", err, want);
}

static const char *
kv_get(const struct conf_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

static void
test_full_config_lands_every_value(void **state)
{
	char dir[] = "/tmp/kedge-test-dir-XXXXXX", text[4096], path[128];
	struct conf *c;
	struct conf_table *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text),
	    "kafka = {\n"
	    "  brokers = \"k1:9092, [::1]:9093\";\n"
	    "  group_id = \"g1\";\n"
	    "  topics = [ \"web\", \"app\" ];\n"
	    "  security = { protocol = \"SASL_SSL\"; };\n"
	    "  start = \"latest\";\n"
	    "  rdkafka = { fetch_wait_max_ms = 100; client_id = \"edge\";\n"
	    "    check_crcs = true; client_rack = 5000000000L;\n"
	    "    linger_ms = 0.5; };\n"
	    "};\n"
	    "tables = (\n"
	    "  { name = \"web_log\"; topics = [ \"web\" ]; udtf = [ \"nginx\" ];\n"
	    "    udtf_config = { log_format = \"$remote_addr [$time_local]\"; };\n"
	    "    event_time = \"time_local\"; format = \"jsonl\";\n"
	    "    field_delimiter = \"\\t\"; codec = \"zstd\"; codec_level = 19; },\n"
	    "  { name = \"app\"; topics = ( \"app\" ); udtf = \"raw\";\n"
	    "    codec = \"none\"; }\n"
	    ");\n"
	    "output = {\n"
	    "  spool_dir = \"%s/spool\";\n"
	    "  target = \"local\";\n"
	    "  local_dir = \"%s/published/\";\n"
	    "  timezone = \"Asia/Shanghai\";\n"
	    "  host = \"edge-01.example\";\n"
	    "  roll = { max_bytes = 2097152; max_age = 60; inactive = 10; };\n"
	    "  rejects = { format = \"jsonl\"; codec = \"gzip\"; };\n"
	    "};\n"
	    "checkpoint = { interval = 5; };\n"
	    "log = { level = \"debug\"; };\n", dir, dir);
	c = load_ok(text);

	assert_string_equal(c->path, conf_path);
	assert_string_equal(c->kafka.brokers, "k1:9092, [::1]:9093");
	assert_string_equal(c->kafka.group_id, "g1");
	assert_int_equal(c->kafka.topics.n, 2);
	assert_string_equal(c->kafka.topics.v[0], "web");
	assert_string_equal(c->kafka.topics.v[1], "app");
	assert_string_equal(c->kafka.protocol, "SASL_SSL");
	assert_string_equal(c->kafka.start, "latest");
	assert_int_equal(c->kafka.n_rdkafka, 5);
	assert_string_equal(c->kafka.rdkafka[0].key, "fetch.wait.max.ms");
	assert_string_equal(c->kafka.rdkafka[0].value, "100");
	assert_int_equal(c->kafka.rdkafka[0].at.line, 7);
	assert_string_equal(kv_get(c->kafka.rdkafka, 5, "client.id"), "edge");
	assert_string_equal(kv_get(c->kafka.rdkafka, 5, "check.crcs"), "true");
	assert_string_equal(kv_get(c->kafka.rdkafka, 5, "client.rack"),
	    "5000000000");
	assert_string_equal(kv_get(c->kafka.rdkafka, 5, "linger.ms"), "0.5");
	assert_int_equal(c->kafka.rdkafka[3].at.line, 8);

	assert_int_equal(c->n_tables, 2);
	t = &c->tables[0];
	assert_string_equal(t->name, "web_log");
	assert_int_equal(t->at.line, 12);
	assert_int_equal(t->topics.n, 1);
	assert_string_equal(t->topics.v[0], "web");
	assert_int_equal(t->n_udtf, 1);
	assert_string_equal(t->udtf[0].spec, "nginx");
	assert_ptr_equal(t->udtf[0].udtf, udtf_builtin_find("nginx"));
	assert_string_equal(kv_get(t->udtf[0].params, t->udtf[0].n_params,
	    "log_format"), "$remote_addr [$time_local]");
	assert_int_equal(t->udtf[0].params[0].at.line, 13);
	assert_string_equal(t->event_time, "time_local");
	assert_int_equal(t->format, FORMAT_JSONL);
	assert_int_equal(t->field_delimiter, '\t');
	assert_int_equal(t->codec, CODEC_ZSTD);
	assert_int_equal(t->codec_level, 19);
	t = &c->tables[1];
	assert_string_equal(t->name, "app");
	assert_int_equal(t->at.line, 16);
	assert_string_equal(t->topics.v[0], "app");
	assert_string_equal(t->udtf[0].spec, "raw");
	assert_int_equal(t->codec, CODEC_NONE);

	snprintf(path, sizeof(path), "%s/spool", dir);
	assert_string_equal(c->output.spool_dir, path);
	assert_string_equal(c->output.target, "local");
	snprintf(path, sizeof(path), "%s/published/", dir);
	assert_string_equal(c->output.local_dir, path);
	assert_string_equal(c->output.timezone, "Asia/Shanghai");
	assert_string_equal(c->output.host, "edge-01.example");
	assert_int_equal(c->output.roll.max_bytes, 2097152);
	assert_int_equal(c->output.roll.max_age, 60);
	assert_int_equal(c->output.roll.inactive, 10);
	assert_int_equal(c->output.rejects.format, FORMAT_JSONL);
	assert_int_equal(c->output.rejects.codec, CODEC_GZIP);
	assert_int_equal(c->checkpoint.interval, 5);
	assert_string_equal(c->log.level, "debug");
	conf_free(c);
	rmdir(dir);
}

/* A chain: one group of udtf_config per UDTF, in order, defaults filled
 * in per UDTF. */
static void
test_chain(void **state)
{
	struct conf *c;
	struct conf_table *t;

	(void)state;
	c = load_ok(KAFKA "tables = ( { name = \"n\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\", \"nginx\" ];\n"
	    "  udtf_config = ( { },\n { log_format = \"$status\"; } ); } );\n");
	t = &c->tables[0];
	assert_int_equal(t->n_udtf, 2);
	assert_string_equal(t->udtf[0].spec, "raw");
	assert_int_equal(t->udtf[0].n_params, 0);
	assert_string_equal(t->udtf[1].spec, "nginx");
	assert_int_equal(t->udtf[1].at.line, 3);
	assert_int_equal(t->udtf[1].config_at.line, 5);
	assert_string_equal(kv_get(t->udtf[1].params, t->udtf[1].n_params,
	    "log_format"), "$status");
	assert_string_equal(kv_get(t->udtf[1].params, t->udtf[1].n_params,
	    "escape"), "default");
	conf_free(c);
	/* without udtf_config, every UDTF of the chain takes its defaults */
	c = load_ok(KAFKA "tables = ( { name = \"n\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\", \"nginx\" ]; } );\n");
	assert_non_null(kv_get(c->tables[0].udtf[1].params,
	    c->tables[0].udtf[1].n_params, "log_format"));
	conf_free(c);
}

static void
test_defaults(void **state)
{
	const struct udtf_plugin *nginx = udtf_builtin_find("nginx");
	char host[256] = "";
	struct conf *c;
	struct conf_table *t;
	size_t nkeys = 0;

	(void)state;
	assert_non_null(nginx);
	c = load_ok(KAFKA "tables = ( { name = \"n\"; topics = [ \"a\" ]; "
	    "udtf = \"nginx\"; } );\n");
	assert_null(c->kafka.group_id);
	assert_string_equal(c->kafka.protocol, "PLAINTEXT");
	assert_string_equal(c->kafka.start, "earliest");
	assert_int_equal(c->kafka.n_rdkafka, 0);
	t = &c->tables[0];
	assert_int_equal(t->at.line, 2);
	assert_string_equal(t->event_time, "kafka_timestamp");
	assert_int_equal(t->format, FORMAT_HIVE_TEXT);
	assert_int_equal(t->field_delimiter, '\001');
	assert_int_equal(t->codec, CODEC_GZIP);
	assert_int_equal(t->codec_level, 0);
	/* Every key the UDTF declares, its default, the table's line. */
	for (const struct udtf_key *k = nginx->keys; k->name != NULL; k++) {
		assert_non_null(k->default_value);
		assert_string_equal(kv_get(t->udtf[0].params,
		    t->udtf[0].n_params, k->name), k->default_value);
		nkeys++;
	}
	assert_int_equal(t->udtf[0].n_params, nkeys);
	assert_int_equal(t->udtf[0].params[0].at.line, 2);
	assert_int_equal(t->max_rows, 10000);
	assert_int_equal(t->max_bytes, 67108864);
	assert_string_equal(c->output.spool_dir, "/var/lib/kedge/spool");
	assert_string_equal(c->output.target, "local");
	assert_string_equal(c->output.local_dir, "/var/lib/kedge/warehouse");
	assert_string_equal(c->output.timezone, "UTC");
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	assert_string_equal(c->output.host, host);
	assert_int_equal(c->output.roll.max_bytes, 134217728);
	assert_int_equal(c->output.roll.max_age, 900);
	assert_int_equal(c->output.roll.inactive, 300);
	assert_int_equal(c->output.rejects.format, FORMAT_HIVE_TEXT);
	assert_int_equal(c->output.rejects.codec, CODEC_NONE);
	assert_int_equal(c->checkpoint.interval, 30);
	assert_string_equal(c->log.level, "info");
	conf_free(c);
}

static void
test_topics_default_to_union(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA "tables = (\n"
	    "  { name = \"x\"; topics = [ \"a\", \"b\" ]; udtf = \"raw\"; },\n"
	    "  { name = \"y\"; topics = [ \"b\", \"c\" ]; udtf = \"raw\"; });\n");
	assert_int_equal(c->kafka.topics.n, 3);
	assert_string_equal(c->kafka.topics.v[0], "a");
	assert_string_equal(c->kafka.topics.v[1], "b");
	assert_string_equal(c->kafka.topics.v[2], "c");
	conf_free(c);
}

static void
test_syntax_and_read_errors(void **state)
{
	char err[512];

	(void)state;
	expect_err("kafka = {\n  brokers = \"k:1\";\n  group_id = = \"g\";\n};\n",
	    3, "syntax error: ");
	expect_err(KAFKA "log = { level = \"info\"; };\nlog = { };\n", 3,
	    "syntax error: ");
	assert_null(conf_load("/nonexistent/kedge.conf", err, sizeof(err)));
	assert_string_equal(err, "/nonexistent/kedge.conf: cannot read: "
	    "No such file or directory");
	assert_null(conf_load("/tmp", err, sizeof(err)));
	assert_string_equal(err, "/tmp: cannot read: Is a directory");
}

static void
test_unknown_keys(void **state)
{
	(void)state;
	expect_err(KAFKA TABLE "\nsecurity = { keytab = \"/k\"; };\n", 4,
	    "security: unknown key; the keys here are kafka, tables, output, "
	    "kerberos, spool, checkpoint, completion, metrics, log");
	expect_err(KAFKA TABLE "kerberos = {\n renew_at = 1.5; };\n", 4,
	    "kerberos.renew_at: 1.5 is out of range 0.50..0.95");
	expect_err(KAFKA TABLE "kerberos = {\n use_ticket_cache = 1; };\n", 4,
	    "kerberos.use_ticket_cache: expected true or false, got an "
	    "integer");
	expect_err(KAFKA TABLE "output = {\n roll = {\n  max_size = 1; }; };\n",
	    5, "output.roll.max_size: unknown key");
	expect_err(KAFKA "tables = (\n { name = \"t\"; topics = [ \"a\" ];\n"
	    "   udtf = \"raw\"; colour = \"red\"; } );\n", 4,
	    "tables[0].colour: unknown key");
	expect_err(KAFKA "tables = (\n { name = \"t\"; topics = [ \"a\" ];\n"
	    "   udtf = \"nginx\";\n   udtf_config = {\n    bogus = 1; }; } );\n",
	    6, "tables[0].udtf_config.bogus: UDTF nginx has no such key; its "
	    "keys: log_format");
	expect_err(KAFKA "tables = (\n { name = \"t\"; topics = [ \"a\" ];\n"
	    "   udtf = \"raw\";\n   udtf_config = { x = 1; }; } );\n", 5,
	    "tables[0].udtf_config.x: UDTF raw takes no keys");
	expect_err(KAFKA TABLE "output = {\n security = { }; };\n", 4,
	    "output.security: unknown key; the keys here are spool_dir, "
	    "target, local_dir, webhdfs, timezone, host, roll, rejects");
}

static void
test_unknown_key_suggestions(void **state)
{
	(void)state;
	expect_err(KAFKA TABLE "output = {\n  local_dri = \"/tmp/x\"; };\n", 4,
	    "output.local_dri: unknown key; did you mean \"local_dir\"?");
	expect_err("kafak = { brokers = \"k:1\"; };\n" TABLE, 1,
	    "kafak: unknown key; did you mean \"kafka\"?");
	expect_err(KAFKA "tables = ( { nmae = \"t\"; } );\n", 2,
	    "tables[0].nmae: unknown key; did you mean \"name\"?");
	expect_err("kafka = { brokers = \"k:1\";\n  groupid = \"g\"; };\n" TABLE,
	    2, "kafka.groupid: unknown key; did you mean \"group_id\"?");
}

static void
test_wrong_types(void **state)
{
	(void)state;
	expect_err("kafka = { brokers = 9092; };\n" TABLE, 1,
	    "kafka.brokers: expected a string, got an integer");
	expect_err(KAFKA TABLE "checkpoint = { interval = 1.5; };\n", 3,
	    "checkpoint.interval: expected a duration (seconds, or a string "
	    "such as \"5m\"), got a float");
	expect_err(KAFKA TABLE "log = \"debug\";\n", 3,
	    "log: expected a group { ... }, got a string");
	expect_err(KAFKA "tables = { name = \"t\"; };\n", 2,
	    "tables: expected a list of groups");
	expect_err(KAFKA "tables = ( \"t\" );\n", 2,
	    "tables[0]: expected a group");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = \"a\";\n"
	    " udtf = \"raw\"; } );\n", 2,
	    "tables[0].topics: expected a list of strings");
	expect_err(KAFKA "tables = ( { name = \"t\";\n topics = ( \"a\",\n 7 );"
	    " udtf = \"raw\"; } );\n", 4,
	    "tables[0].topics[1]: expected a string, got an integer");
	expect_err(KAFKA TABLE "output = { roll = { max_bytes = \"1 GB\"; }; };\n",
	    3, "output.roll.max_bytes: \"1 GB\" is not a size: write bytes, "
	    "or a number with K, M, G, T or P after it");
	expect_err(KAFKA TABLE "output = { roll = { max_bytes = true; }; };\n",
	    3, "output.roll.max_bytes: expected a size (bytes, or a string "
	    "such as \"512MiB\"), got a boolean");
	expect_err(KAFKA TABLE "output = { host = true; };\n", 3,
	    "output.host: expected a string, got a boolean");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n  x = { }; }; };\n"
	    TABLE, 3, "kafka.rdkafka.x: expected a string, number or boolean, "
	    "got a group");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = [ 1 ]; };\n" TABLE,
	    2, "kafka.rdkafka: expected a group");
}

static void
test_ints_take_either_width(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE "output = { roll = { max_bytes = 4096;"
	    " max_age = 120L; }; };\n");
	assert_int_equal(c->output.roll.max_bytes, 4096);
	assert_int_equal(c->output.roll.max_age, 120);
	conf_free(c);
}

static void
test_missing_required_keys(void **state)
{
	(void)state;
	expect_err(TABLE, 1, "kafka.brokers: required key is missing");
	expect_err("log = { level = \"info\"; };\n\nkafka = {\n"
	    "  group_id = \"g\";\n};\n" TABLE, 3,
	    "kafka.brokers: required key is missing");
	expect_err(KAFKA, 1, "tables: required key is missing");
	expect_err(KAFKA "tables = (\n  { topics = [ \"a\" ];\n"
	    "    udtf = \"raw\"; } );\n", 3,
	    "tables[0].name: required key is missing");
	expect_err(KAFKA "tables = ( { name = \"t\"; udtf = \"raw\"; },\n"
	    "  { name = \"u\"; topics = [ \"a\" ]; } );\n", 2,
	    "tables[0].topics: required key is missing");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; },\n  { name = \"u\"; topics = [ \"a\" ]; } );\n",
	    4, "tables[1].udtf: required key is missing");
	expect_err(KAFKA "tables = ( );\n", 2,
	    "tables: must hold at least one table");
}

static void
test_values_out_of_range(void **state)
{
	(void)state;
	expect_err(KAFKA TABLE "checkpoint = { interval = 0; };\n", 3,
	    "checkpoint.interval: 0 is out of range 1..3600");
	expect_err(KAFKA TABLE "output = { roll = {\n max_bytes = 1023; }; };\n",
	    4, "output.roll.max_bytes: 1023 is out of range "
	    "1024..1099511627776");
	expect_err(KAFKA TABLE "output = { roll = { max_age = 86401; }; };\n",
	    3, "output.roll.max_age: 86401 is out of range 1..86400");
	expect_err(KAFKA TABLE "log = { level = \"verbose\"; };\n", 3,
	    "log.level: \"verbose\" is not one of: err, warning, notice, info, "
	    "debug");
	expect_err("kafka = { brokers = \"k:1\";\n security = {\n"
	    "  protocol = \"sasl_ssl\"; }; };\n" TABLE, 3,
	    "kafka.security.protocol: \"sasl_ssl\" is not one of: PLAINTEXT, "
	    "SSL, SASL_PLAINTEXT, SASL_SSL");
	expect_err(KAFKA TABLE "output = { target = \"s3\"; };\n", 3,
	    "output.target: \"s3\" is not one of: local, webhdfs");
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\"; };\n", 3,
	    "output.target: \"webhdfs\" needs output.webhdfs.url");
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\";\n"
	    "  webhdfs = { url = \"http://nn:9870\"; }; };\n", 4,
	    "output.webhdfs.auth: \"kerberos\" (the default) needs "
	    "kerberos.principal");
	expect_err(KAFKA TABLE "output = { webhdfs = { url = \"nn:9870\"; }; };\n",
	    3, "output.webhdfs.url: \"nn:9870\" is not an http:// or https:// URL");
	expect_err(KAFKA TABLE "output = { rejects = { codec = \"lz4\"; }; };\n",
	    3, "output.rejects.codec: \"lz4\" is not one of: none, gzip, zstd");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; format = \"csv\"; } );\n", 3,
	    "tables[0].format: \"csv\" is not one of: hive-text, jsonl");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\";\n  codec_level = 12; } );\n", 4,
	    "tables[0].codec_level: 12 is out of range for gzip: 0 (its "
	    "default) or 1..9");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; codec = \"none\";\n  codec_level = 3; } );\n", 4,
	    "tables[0].codec_level: must be 0 with codec none");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; codec_level = -1; } );\n", 3,
	    "tables[0].codec_level: -1 is out of range 0..19");
}

static void
test_impossible_strings(void **state)
{
	(void)state;
	expect_err("kafka = { brokers = \"k1:9092,k2\"; };\n" TABLE, 1,
	    "kafka.brokers: \"k2\" has no port");
	expect_err("kafka = { brokers = \"k1:0\"; };\n" TABLE, 1,
	    "kafka.brokers: \"k1:0\" has no port number 1..65535");
	expect_err("kafka = { brokers = \"k1:9092,\"; };\n" TABLE, 1,
	    "kafka.brokers: has an empty entry");
	expect_err("kafka = { brokers = \"::1:9092\"; };\n" TABLE, 1,
	    "kafka.brokers: \"::1:9092\": write an IPv6 address in brackets");
	expect_err("kafka = { brokers = \"\"; };\n" TABLE, 1,
	    "kafka.brokers: must not be empty");
	expect_err(KAFKA "tables = ( { name = \"_rejects\"; topics = [ \"a\" ];"
	    " udtf = \"raw\"; } );\n", 2, "tables[0].name: \"_rejects\": names "
	    "starting with '_' are kedge's own");
	expect_err(KAFKA "tables = ( { name = \"web-log\"; topics = [ \"a\" ];"
	    " udtf = \"raw\"; } );\n", 2, "tables[0].name: \"web-log\" may hold "
	    "only letters, digits and '_'");
	expect_err(KAFKA "tables = ( { name = \"t\";\n topics = [ \"a b\" ];"
	    " udtf = \"raw\"; } );\n", 3, "tables[0].topics[0]: \"a b\" is not a "
	    "Kafka topic name");
	expect_err(KAFKA "tables = ( { name = \"t\";\n topics = [ \"a\", \"a\" ];"
	    " udtf = \"raw\"; } );\n", 3, "tables[0].topics[1]: \"a\" is listed "
	    "twice");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ ];"
	    " udtf = \"raw\"; } );\n", 2, "tables[0].topics: must not be empty");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"nosuch\"; } );\n", 3, "tables[0].udtf: \"nosuch\" is not "
	    "a built-in UDTF (nginx, json, kv, csv, tsv, regex, split, raw");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\",\n \"nosuch\" ]; } );\n", 4,
	    "tables[0].udtf[1]: \"nosuch\" is not a built-in UDTF");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = [ ]; } );\n", 3, "tables[0].udtf: must name a UDTF");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"plugin:lib.so\"; } );\n", 3, "tables[0].udtf: plugin "
	    "path \"lib.so\" is not absolute");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"plugin:/nonexistent/lib.so\"; } );\n", 3,
	    "tables[0].udtf: cannot open UDTF plugin /nonexistent/lib.so: "
	    "No such file or directory");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\", \"nginx\" ];\n"
	    "  udtf_config = { log_format = \"$status\"; }; } );\n", 4,
	    "tables[0].udtf_config: with a chain of 2 UDTFs, expected a list of "
	    "2 groups");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\", \"nginx\" ];\n"
	    "  udtf_config = ( { },\n { format = \"$status\"; } ); } );\n", 5,
	    "tables[0].udtf_config[1].format: UDTF nginx has no such key; its "
	    "keys: log_format, escape");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = [ \"raw\", \"nginx\" ];\n"
	    "  udtf_config = ( { },\n 3 ); } );\n", 5,
	    "tables[0].udtf_config[1]: expected a group { key = value; } for "
	    "UDTF nginx");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; max_rows_per_record = 0; } );\n", 3,
	    "tables[0].max_rows_per_record: 0 is out of range");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; field_delimiter = \",;\"; } );\n", 3,
	    "tables[0].field_delimiter: must be exactly one byte");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; field_delimiter = \"\\n\"; } );\n", 3,
	    "tables[0].field_delimiter: cannot be a newline");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; field_delimiter = \"N\"; } );\n", 3,
	    "tables[0].field_delimiter: cannot be a newline");
	expect_err(KAFKA TABLE "output = { timezone = \"Mars/Olympus\"; };\n", 3,
	    "output.timezone: \"Mars/Olympus\" is not a time zone");
	expect_err(KAFKA TABLE "output = { timezone = \"../../etc/passwd\"; };\n",
	    3, "output.timezone: \"../../etc/passwd\" is not a zone name");
	expect_err(KAFKA TABLE "output = { host = \"edge_01\"; };\n", 3,
	    "output.host: \"edge_01\" may hold only letters, digits, '.' and '-'");
	/* the host names a directory of the target: never "." or ".." */
	expect_err(KAFKA TABLE "output = { host = \"..\"; };\n", 3,
	    "output.host: \"..\" may not start with '.'");
	expect_err(KAFKA TABLE "output = { host = \".\"; };\n", 3,
	    "output.host: \".\" may not start with '.'");
	expect_err(KAFKA TABLE "output = { host = \"h2345678901234567890123456789"
	    "012345678901234567890123456789012345\"; };\n", 3,
	    "output.host: \"h2345678901234567890123456789"
	    "012345678901234567890123456789012345\" is longer than the 64 bytes");
}

/* A table name goes into directory, file and journal names: check-config
 * bounds it, so that no name fails first at the first row. */
static void
test_table_name_bound(void **state)
{
	char text[1024], name[301], want[256];
	struct conf *c;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[CONF_TABLE_NAME_MAX] = '\0';
	snprintf(text, sizeof(text), KAFKA "tables = ( { name = \"%s\"; "
	    "topics = [ \"a\" ]; udtf = \"raw\"; } );\n", name);
	c = load_ok(text);
	assert_int_equal(strlen(c->tables[0].name), CONF_TABLE_NAME_MAX);
	conf_free(c);
	for (size_t len = CONF_TABLE_NAME_MAX + 1; len <= 300; len += 299 -
	    CONF_TABLE_NAME_MAX) {
		memset(name, 'a', sizeof(name) - 1);
		name[len] = '\0';
		snprintf(text, sizeof(text), KAFKA "tables = ( { name = \"%s\"; "
		    "topics = [ \"a\" ]; udtf = \"raw\"; } );\n", name);
		snprintf(want, sizeof(want), "tables[0].name: \"%.20s...\" is "
		    "%zu bytes long; at most %d", name, len, CONF_TABLE_NAME_MAX);
		expect_err(text, 2, want);
	}
}

/* The bounds on open and parked files, and the event-time window. */
static void
test_open_files_and_window(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE);
	assert_int_equal(c->output.roll.max_open_files, 64);
	assert_int_equal(c->output.roll.max_parked_files, 1024);
	assert_int_equal(c->output.event_window.past, 8 * 86400);
	assert_int_equal(c->output.event_window.future, 86400);
	conf_free(c);
	c = load_ok(KAFKA TABLE "output = { roll = { max_open_files = 8;\n"
	    "  max_parked_files = 0; };\n"
	    "  event_window = { past = 3600; future = 60; }; };\n");
	assert_int_equal(c->output.roll.max_open_files, 8);
	assert_int_equal(c->output.roll.max_parked_files, 0);
	assert_int_equal(c->output.event_window.past, 3600);
	assert_int_equal(c->output.event_window.future, 60);
	conf_free(c);
	expect_err(KAFKA TABLE "output = { roll = {\n max_open_files = 0; };"
	    " };\n", 4, "output.roll.max_open_files: 0 is out of range "
	    "1..65536");
	expect_err(KAFKA TABLE "output = { roll = {\n max_parked_files = -1; };"
	    " };\n", 4, "output.roll.max_parked_files: -1 is out of range "
	    "0..1048576");
	expect_err(KAFKA TABLE "output = {\n event_window = { past = 60; }; };\n",
	    4, "output.event_window.past: 60 is out of range 3600..315360000");
}

/* output.on_complete: an argv (repeats allowed), its placeholders
 * checked; and its timeout. */
static void
test_on_complete(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE);
	assert_int_equal(c->output.on_complete.n, 0);
	assert_int_equal(c->output.on_complete_timeout, 300);
	conf_free(c);
	c = load_ok(KAFKA TABLE "output = { on_complete = [ \"/bin/echo\", "
	    "\"-e\", \"{table} {dt}{hr}\", \"-e\", \"{x\", \"{}\", "
	    "\"{rows}/{revision}/{path}\" ];\n  on_complete_timeout = 5; };\n");
	assert_int_equal(c->output.on_complete.n, 7);
	assert_string_equal(c->output.on_complete.v[3], "-e");
	assert_string_equal(c->output.on_complete.v[2], "{table} {dt}{hr}");
	assert_int_equal(c->output.on_complete_timeout, 5);
	conf_free(c);
	expect_err(KAFKA TABLE "output = {\n on_complete = [ \"x\", "
	    "\"{hour}\" ]; };\n", 4, "output.on_complete[1]: \"{hour}\" is not "
	    "a placeholder; the placeholders are {table} {dt} {hr} {revision} "
	    "{path} {rows}");
	expect_err(KAFKA TABLE "output = {\n on_complete_timeout = 0; };\n", 4,
	    "output.on_complete_timeout: 0 is out of range 1..86400");
}

/* Parquet's codec is snappy unless one is given; snappy is Parquet's
 * only; the _rejects table stays text. */
static void
test_parquet_codec(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA "tables = (\n"
	    "  { name = \"a\"; topics = [ \"a\" ]; udtf = \"raw\";\n"
	    "    format = \"parquet\"; },\n"
	    "  { name = \"b\"; topics = [ \"a\" ]; udtf = \"raw\";\n"
	    "    format = \"parquet\"; codec = \"zstd\"; codec_level = 9; },\n"
	    "  { name = \"c\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"
	    "output = { parquet = { row_group_bytes = 65536; }; };\n");
	assert_int_equal(c->tables[0].format, FORMAT_PARQUET);
	assert_int_equal(c->tables[0].codec, CODEC_SNAPPY);
	assert_int_equal(c->tables[1].codec, CODEC_ZSTD);
	assert_int_equal(c->tables[2].codec, CODEC_GZIP);
	assert_int_equal(c->output.parquet.row_group_bytes, 65536);
	assert_int_equal(c->output.parquet.page_bytes, 1048576);
	assert_int_equal(c->output.parquet.dict_bytes, 1048576);
	conf_free(c);
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\";\n  codec = \"snappy\"; } );\n", 4,
	    "tables[0].codec: snappy is for format parquet only; format "
	    "hive-text takes none, gzip or zstd");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; format = \"parquet\";\n  codec_level = 3; } );\n",
	    4, "tables[0].codec_level: must be 0 with codec snappy");
	expect_err(KAFKA TABLE "output = { rejects = { format = \"parquet\"; }; };\n",
	    3, "output.rejects.format: \"parquet\" is not one of: hive-text, "
	    "jsonl");
	expect_err(KAFKA TABLE "output = { rejects = { codec = \"snappy\"; }; };\n",
	    3, "output.rejects.codec: \"snappy\" is not one of: none, gzip, "
	    "zstd");
}

static void
test_duplicate_table_name(void **state)
{
	(void)state;
	expect_err(KAFKA "tables = (\n"
	    "  { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; },\n"
	    "  { topics = [ \"a\" ]; udtf = \"raw\";\n"
	    "    name = \"t\"; } );\n", 5,
	    "tables[1].name: \"t\" is already the name of tables[0] (line 3)");
}

static void
test_kafka_topics_match_tables(void **state)
{
	(void)state;
	expect_err("kafka = { brokers = \"k:1\";\n  topics = [ \"b\" ]; };\n"
	    TABLE, 2, "kafka.topics: does not list \"a\", a topic of table \"t\"");
	expect_err("kafka = { brokers = \"k:1\";\n  topics = [ \"a\",\n"
	    "    \"z\" ]; };\n" TABLE, 3, "kafka.topics[1]: \"z\" feeds no table: "
	    "its records would be consumed and dropped");
}

static void
test_reserved_rdkafka_keys(void **state)
{
	(void)state;
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  group_id = \"g\"; }; };\n" TABLE, 3, "kafka.rdkafka.group_id: sets "
	    "librdkafka's group.id; use kafka.group_id instead");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  bootstrap_servers = \"k:1\"; }; };\n" TABLE, 3,
	    "kafka.rdkafka.bootstrap_servers: sets librdkafka's "
	    "bootstrap.servers; use kafka.brokers instead");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  enable_auto_commit = true; }; };\n" TABLE, 3,
	    "kafka.rdkafka.enable_auto_commit: sets librdkafka's "
	    "enable.auto.commit, which kedge manages");
}

/* Each librdkafka property, through librdkafka's own rd_kafka_conf_set(). */
static void
test_rdkafka_properties_checked(void **state)
{
	(void)state;
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  sesion_timeout_ms = 6000; }; };\n" TABLE, 3,
	    "kafka.rdkafka.sesion_timeout_ms: librdkafka has no property "
	    "sesion.timeout.ms; did you mean \"session_timeout_ms\"?");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  fetch_wait_max_ms = \"soon\"; }; };\n" TABLE, 3,
	    "kafka.rdkafka.fetch_wait_max_ms: librdkafka refuses "
	    "fetch.wait.max.ms = \"soon\": Invalid value");
	expect_err("kafka = { brokers = \"k:1\";\n rdkafka = {\n"
	    "  zzzz_yyyy = 1; }; };\n" TABLE, 3,
	    "kafka.rdkafka.zzzz_yyyy: librdkafka has no property zzzz.yyyy "
	    "(CONFIGURATION.md of librdkafka");
}

/* Integers past 32 bits need no L: libconfig 1.5 would cut them. */
static void
test_ints_past_32_bits(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE "spool = { max_bytes = 10737418240;\n"
	    "  min_free_bytes = 4294967296; };\n");
	assert_int_equal(c->spool.max_bytes, 10737418240LL);
	assert_int_equal(c->spool.min_free_bytes, 4294967296LL);
	conf_free(c);
	expect_err(KAFKA TABLE "spool = { min_free_bytes = -3000000000; };\n",
	    3, "spool.min_free_bytes: -3000000000 is out of range 0..");
	expect_err(KAFKA TABLE "spool = { max_bytes = 99999999999999999999; };\n",
	    3, "syntax error: 99999999999999999999 is past the largest integer");
}

static void
test_sizes_and_durations(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE "spool = { max_bytes = \"10G\";\n"
	    "  min_free_bytes = \"512MiB\"; };\n"
	    "output = { roll = { max_bytes = \"64k\"; max_age = \"1h30m\";\n"
	    "  inactive = \"90s\"; }; event_window = { past = \"8d\"; }; };\n"
	    "checkpoint = { interval = \"5m\"; };\n"
	    "completion = { idle_timeout = \"600\"; };\n");
	assert_int_equal(c->spool.max_bytes, 10LL << 30);
	assert_int_equal(c->spool.min_free_bytes, 512LL << 20);
	assert_int_equal(c->output.roll.max_bytes, 64 << 10);
	assert_int_equal(c->output.roll.max_age, 5400);
	assert_int_equal(c->output.roll.inactive, 90);
	assert_int_equal(c->output.event_window.past, 8 * 86400);
	assert_int_equal(c->checkpoint.interval, 300);
	assert_int_equal(c->completion.idle_timeout, 600);
	conf_free(c);
	expect_err(KAFKA TABLE "spool = { max_bytes = \"10GB\"; };\n", 3,
	    "spool.max_bytes: \"10GB\" is not a size");
	expect_err(KAFKA TABLE "spool = { max_bytes = \"9999999P\"; };\n", 3,
	    "spool.max_bytes: \"9999999P\" is past the largest size there is");
	expect_err(KAFKA TABLE "spool = { max_bytes = \"2P\"; };\n", 3,
	    "spool.max_bytes: \"2P\" (2251799813685248) is out of range "
	    "1048576..1125899906842624 (1MiB..1PiB)");
	expect_err(KAFKA TABLE "checkpoint = { interval = \"5 m\"; };\n", 3,
	    "checkpoint.interval: \"5 m\" is not a duration");
	expect_err(KAFKA TABLE "checkpoint = { interval = \"500ms\"; };\n", 3,
	    "checkpoint.interval: \"500ms\" is not a duration");
	expect_err(KAFKA TABLE "checkpoint = { interval = \"1m30\"; };\n", 3,
	    "checkpoint.interval: \"1m30\" is not a duration");
	/* without the quotes, as a person writes them */
	c = load_ok(KAFKA TABLE "spool = { max_bytes = 10G;\n"
	    "  min_free_bytes = 512MiB; };\n"
	    "output = { roll = { max_age = 1h30m; inactive = 90s; }; };\n");
	assert_int_equal(c->spool.max_bytes, 10LL << 30);
	assert_int_equal(c->spool.min_free_bytes, 512LL << 20);
	assert_int_equal(c->output.roll.max_age, 5400);
	assert_int_equal(c->output.roll.inactive, 90);
	conf_free(c);
	expect_err(KAFKA TABLE "spool = {\n  max_bytes = 1.5G; };\n", 4,
	    "syntax error: 1.5G: a size or duration has a whole number "
	    "before its unit, as 10G, 512MiB, 30s or 1h30m");
}

/* A log_format pasted from nginx.conf, in nginx's single quotes and in
 * pieces, holds the bytes nginx would read. */
static void
test_nginx_quotes(void **state)
{
	struct conf *c;
	const char *v;

	(void)state;
	c = load_ok(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"nginx\"; udtf_config = { log_format =\n"
	    "    '$remote_addr \"$request\" '\n"
	    "    '\\'$status\\' \\\\ \\d\\t$msec'; }; } );\n"
	    "log = { level = 'debug'; };\n");
	v = kv_get(c->tables[0].udtf[0].params, c->tables[0].udtf[0].n_params,
	    "log_format");
	assert_string_equal(v, "$remote_addr \"$request\" '$status' \\ \\d\t$msec");
	assert_string_equal(c->log.level, "debug");
	assert_int_equal(conf_where(c, "log.level").line, 6);
	conf_free(c);
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ 'a' ];\n"
	    "  udtf = \"raw\"; } );\nlog = { level = 'info; };\n", 4,
	    "syntax error: this '...' string is never closed");
}

/* A syntax error is told at the line where it is, not at the end. */
static void
test_syntax_error_lines(void **state)
{
	(void)state;
	expect_err(KAFKA TABLE "log = {\n  level = \"info; };\ncheckpoint = {\n"
	    "  interval = 5; };\n", 4, "syntax error: this string is never "
	    "closed; a \" inside a string is written \\\"");
	expect_err(KAFKA TABLE "log = {\n  level = \"info; };\ncheckpoint = {"
	    " x = \"5\"; };\n", 4, "syntax error: this string runs on past its "
	    "line, and then line 5: this string is never closed: is a quote "
	    "missing here (a \" inside a string is written \\\")?");
	/* the first string that ran on is blamed, not a later one whose
	 * quotes only paired wrong because of it */
	expect_err(KAFKA TABLE "log = { level = \"info; };\n"
	    "kerberos = { principal = \"k/h@R\"; keytab = \"/k\"; };\n"
	    "checkpoint = { interval = \"30s\"; };\n", 3, "syntax error: this "
	    "string runs on past its line, and then line 5: this string is "
	    "never closed: is a quote missing here");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\";\n\nlog = { level = \"info\"; };\n", 2,
	    "syntax error: this { is never closed by }");
	expect_err(KAFKA "tables = ( { name = \"t\"; topics = [ \"a\" ];\n"
	    "  udtf = \"raw\"; ) );\n", 3,
	    "syntax error: this ) does not close the { of line 2");
	expect_err(KAFKA TABLE "}\n", 3, "syntax error: this } closes nothing");
	expect_err(KAFKA TABLE "/* a comment\n\n", 3,
	    "syntax error: this /* comment is never closed by */");
	/* an empty file is read, whole, as nothing */
	expect_err("", 1, "kafka.brokers: required key is missing");
}

/* Writes text into dir/name. */
static void
write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* @include: relative to the directory of the file that names it, whatever
 * the working directory; each key's line is in its own file. */
static void
test_include_relative(void **state)
{
	char dir[] = "/tmp/kedge-test-inc-XXXXXX", path[512], sub[64];
	char err[1024], cwd[1024];
	struct conf_loc at;
	struct conf *c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file(dir, "main.conf", KAFKA "@include \"conf.d/tables.conf\"\n"
	    "log = { level = \"debug\"; };\n");
	write_file(sub, "tables.conf", "# the tables\n" TABLE
	    "@include \"more.conf\"\n");
	write_file(sub, "more.conf", "checkpoint = {\n  interval = 7; };\n");
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	c = conf_load(path, err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_int_equal(c->checkpoint.interval, 7);
	at = conf_where(c, "checkpoint.interval");
	snprintf(path, sizeof(path), "%s/more.conf", sub);
	assert_string_equal(at.file, path);
	assert_int_equal(at.line, 2);
	snprintf(path, sizeof(path), "%s/tables.conf", sub);
	assert_string_equal(c->tables[0].at.file, path);
	assert_int_equal(c->tables[0].at.line, 2);
	at = conf_where(c, "log.level");
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	assert_string_equal(at.file, path);
	assert_int_equal(at.line, 3);
	conf_free(c);
	/* an error in the included file, and an @include not found */
	write_file(sub, "more.conf", "checkpoint = {\n  interval = 0; };\n");
	assert_null(conf_load(path, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/more.conf:2: checkpoint.interval: 0 "
	    "is out of range", sub);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	write_file(sub, "tables.conf", TABLE "@include \"none.conf\"\n");
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	assert_null(conf_load(path, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/tables.conf:2: @include: cannot read "
	    "%s/none.conf: No such file or directory", sub, sub);
	assert_string_equal(err, path);
	write_file(sub, "tables.conf", TABLE "@include \"tables.conf\"\n");
	snprintf(path, sizeof(path), "%s/main.conf", dir);
	assert_null(conf_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "it includes itself"));
	assert_int_equal(chdir(cwd), 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* Every error of a file, not the first alone, each where it is; the
 * config comes back for the checks of what loaded. */
static void
test_every_error(void **state)
{
	struct conf_report rep = { 0 };
	char text[1024];
	struct conf *c;
	json_t *doc, *e;
	json_error_t je;
	char *js;

	(void)state;
	write_conf("kafka = { brokers = \"k:1\";\n  group = \"g\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"nope\"; },\n"
	    "  { name = \"u\"; topics = [ \"b\" ]; udtf = \"raw\"; } );\n"
	    "checkpoint = { interval = 0; };\nlog = { level = \"loud\"; };\n");
	c = conf_load_all(conf_path, &rep);
	unlink(conf_path);
	assert_non_null(c);
	assert_int_equal(rep.nerrors, 4);
	assert_string_equal(rep.errors[0].key, "kafka.group");
	assert_int_equal(rep.errors[0].line, 2);
	assert_string_equal(rep.errors[1].key, "tables[0].udtf");
	assert_int_equal(rep.errors[1].line, 3);
	assert_string_equal(rep.errors[2].key, "checkpoint.interval");
	assert_int_equal(rep.errors[2].line, 5);
	assert_string_equal(rep.errors[3].key, "log.level");
	assert_int_equal(rep.errors[3].line, 6);
	assert_true(conf_report_blames(&rep, "tables[0]"));
	assert_false(conf_report_blames(&rep, "tables[1]"));
	assert_true(conf_report_blames(&rep, "kafka"));
	assert_false(conf_report_blames(&rep, "kafka.brokers"));
	assert_false(conf_report_blames(&rep, "checkpoint.i"));
	/* what loaded is there; what was refused has no value */
	assert_string_equal(c->tables[1].name, "u");
	assert_null(c->log.level);
	conf_diag_text(&rep.errors[2], text, sizeof(text));
	snprintf(text + 512, 512, "%s:5: checkpoint.interval: 0 is out of "
	    "range 1..3600 (1s..1h)", conf_path);
	assert_string_equal(text, text + 512);
	assert_non_null(js = conf_report_json(&rep));
	assert_non_null(doc = json_loads(js, 0, &je));
	assert_true(json_is_false(json_object_get(doc, "ok")));
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 4);
	e = json_array_get(json_object_get(doc, "errors"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "file")),
	    conf_path);
	assert_int_equal(json_integer_value(json_object_get(e, "line")), 3);
	assert_string_equal(json_string_value(json_object_get(e, "key")),
	    "tables[0].udtf");
	assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 0);
	json_decref(doc);
	free(js);
	conf_free(c);
	conf_report_clear(&rep);
	/* another module's sentence, split where it names a file of c */
	c = load_ok(KAFKA TABLE);
	snprintf(text, sizeof(text), "%s:2: tables[0].event_time: no such "
	    "column: use \"a\"", conf_path);
	conf_report_sentence(&rep, 1, c, text);
	conf_report_sentence(&rep, 0, c, "keytab: none");
	assert_int_equal(rep.nwarnings, 1);
	assert_int_equal(rep.warnings[0].line, 2);
	assert_string_equal(rep.warnings[0].key, "tables[0].event_time");
	assert_string_equal(rep.warnings[0].message, "no such column: use \"a\"");
	assert_string_equal(rep.errors[0].file, conf_path);
	assert_int_equal(rep.errors[0].line, 0);
	assert_string_equal(rep.errors[0].key, "");
	assert_string_equal(rep.errors[0].message, "keytab: none");
	conf_free(c);
	conf_report_clear(&rep);
}

/* Names that become file names, and HDFS's address (issue 35, 10). */
static void
test_names_fit_file_names(void **state)
{
	char text[2048], topic[250];

	(void)state;
	memset(topic, 't', 240);
	topic[240] = '\0';
	snprintf(text, sizeof(text), KAFKA "tables = ( { name = \"t\";\n"
	    "  topics = [ \"%s\" ]; udtf = \"raw\"; format = \"parquet\"; } );\n"
	    "output = { host = \"h1\"; };\n", topic);
	expect_err(text, 3, "tables[0].topics[0]: the table's files for this "
	    "topic would have names of up to 296 bytes (\".<topic>+<partition>+"
	    "<offset>+<host>.parquet.rows.journal\"), over the 255 a file name "
	    "may have: no output.host leaves room: kedge can land topics of up "
	    "to 200 bytes");
	topic[200] = '\0';
	snprintf(text, sizeof(text), KAFKA "tables = ( { name = \"t\";\n"
	    "  topics = [ \"%s\" ]; udtf = \"raw\"; codec = \"zstd\"; } );\n"
	    "output = { host = \"edge-0123456789\"; };\n", topic);
	expect_err(text, 3, "tables[0].topics[0]: the table's files for this "
	    "topic would have names of up to 264 bytes (\".<topic>+<partition>+"
	    "<offset>+<host>.txt.zst.journal\"), over the 255 a file name may "
	    "have: shorten output.host (\"edge-0123456789\") to 6 bytes or "
	    "fewer");
	/* the same topic fits with a shorter host */
	snprintf(text, sizeof(text), KAFKA "tables = ( { name = \"t\";\n"
	    "  topics = [ \"%s\" ]; udtf = \"raw\"; codec = \"zstd\"; } );\n"
	    "output = { host = \"edge01\"; };\n", topic);
	conf_free(load_ok(text));
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\";\n webhdfs = {"
	    " url = \"http://nn:65536\"; auth = \"simple\"; }; };\n", 4,
	    "output.webhdfs.url: \"http://nn:65536\": the port must be a number "
	    "1..65535");
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\";\n webhdfs = {"
	    " url = \"https://[::1]:0/\"; auth = \"simple\"; }; };\n", 4,
	    "output.webhdfs.url: \"https://[::1]:0/\": the port must be");
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\"; webhdfs = {\n"
	    " url = \"https://[::1]:9871\"; auth = \"simple\";\n"
	    " base_dir = \"/a/b/..\"; }; };\n", 5, "output.webhdfs.base_dir: "
	    "\"/a/b/..\" holds a \"..\" component");
	expect_err(KAFKA TABLE "output = { target = \"webhdfs\"; webhdfs = {\n"
	    " url = \"https://nn\"; auth = \"simple\";\n"
	    " base_dir = \"/a/./b\"; }; };\n", 5, "output.webhdfs.base_dir: "
	    "\"/a/./b\" holds a \".\" component");
}

static void
test_unusable_dirs(void **state)
{
	char file[] = "/tmp/kedge-test-file-XXXXXX", text[512], want[512];
	int fd;

	(void)state;
	if ((fd = mkstemp(file)) < 0)
		fail_msg("mkstemp: %s", strerror(errno));
	close(fd);
	snprintf(text, sizeof(text), KAFKA TABLE
	    "output = {\n  spool_dir = \"%s/spool/x\"; };\n", file);
	snprintf(want, sizeof(want), "output.spool_dir: %s/spool/x cannot be "
	    "created: %s is not a directory", file, file);
	expect_err(text, 4, want);
	snprintf(text, sizeof(text), KAFKA TABLE
	    "output = { local_dir = \"%s\"; };\n", file);
	snprintf(want, sizeof(want), "output.local_dir: %s is not a directory",
	    file);
	expect_err(text, 3, want);
	unlink(file);
	expect_err(KAFKA TABLE "output = { spool_dir = \"spool\"; };\n", 3,
	    "output.spool_dir: \"spool\" is not an absolute path");
	expect_err(KAFKA TABLE "output = { spool_dir = \"/var/tmp/k\";\n"
	    "  local_dir = \"/var//tmp/k/\"; };\n", 4,
	    "output.local_dir: /var//tmp/k/ is output.spool_dir too");
	expect_err(KAFKA TABLE "output = {\n spool_dir = \"/tmp\";\n"
	    "  local_dir = \"/tmp/.\"; };\n", 5,
	    "output.local_dir: /tmp/. is output.spool_dir too");
}

/* metrics.listen: an IPv4 address or a bracketed IPv6 one, and a port. */
static void
test_metrics_listen(void **state)
{
	struct conf *c;

	(void)state;
	c = load_ok(KAFKA TABLE);
	assert_int_equal(c->metrics.enabled, 1);
	assert_string_equal(c->metrics.listen, "127.0.0.1:9466");
	conf_free(c);
	c = load_ok(KAFKA TABLE "metrics = { enabled = false;\n"
	    "  listen = \"[::1]:19466\"; };\n");
	assert_int_equal(c->metrics.enabled, 0);
	assert_string_equal(c->metrics.listen, "[::1]:19466");
	conf_free(c);
	expect_err(KAFKA TABLE "metrics = {\n listen = \"localhost:9466\"; };\n",
	    4, "metrics.listen: \"localhost:9466\" is not ADDRESS:PORT with an "
	    "IPv4 address or an IPv6 one in brackets");
	expect_err(KAFKA TABLE "metrics = {\n listen = \"::1:9466\"; };\n",
	    4, "metrics.listen: \"::1:9466\" is not ADDRESS:PORT");
	expect_err(KAFKA TABLE "metrics = {\n listen = \"127.0.0.1\"; };\n",
	    4, "metrics.listen: \"127.0.0.1\" is not ADDRESS:PORT");
	expect_err(KAFKA TABLE "metrics = {\n listen = \"127.0.0.1:0\"; };\n",
	    4, "metrics.listen: \"127.0.0.1:0\": the port must be a number "
	    "1..65535");
	expect_err(KAFKA TABLE "metrics = {\n listen = \"127.0.0.1:65536\"; };\n",
	    4, "metrics.listen: \"127.0.0.1:65536\": the port must be a number "
	    "1..65535");
	expect_err(KAFKA TABLE "metrics = {\n enabled = 1; };\n", 4,
	    "metrics.enabled: expected true or false, got an integer");
}

/* The error of a default names the enclosing group's line, or line 1. */
static void
test_default_errors_point_at_enclosing_group(void **state)
{
	(void)state;
	expect_err(KAFKA TABLE "output = {\n  spool_dir = \"/var/lib/kedge/warehouse\"; };\n",
	    3, "output.local_dir: /var/lib/kedge/warehouse is output.spool_dir too");
	expect_err(KAFKA TABLE "\n\noutput = {\n  local_dir = "
	    "\"/var/lib/kedge/spool\"; };\n", 6,
	    "output.local_dir: /var/lib/kedge/spool is output.spool_dir too");
}

static void
test_example_loads(void **state)
{
	char err[1024] = "";
	struct conf *c;

	(void)state;
	c = conf_load(EXAMPLE, err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_string_equal(c->tables[0].udtf[0].spec, "nginx");
	assert_string_equal(c->tables[0].event_time, "time_local");
	assert_non_null(kv_get(c->tables[0].udtf[0].params,
	    c->tables[0].udtf[0].n_params, "log_format"));
	conf_free(c);
}

/* Returns 1 when some line of text, past its indentation, is "name =",
 * or "# name =": an optional key the example shows but leaves off. */
static int
text_sets(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; p != NULL && *p != '\0';) {
		p += strspn(p, " \t");
		if (strncmp(p, "# ", 2) == 0)
			p += 2;
		if (strncmp(p, name, len) == 0 &&
		    strncmp(p + len, " =", 2) == 0)
			return 1;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return 0;
}

static void
test_example_shows_every_key(void **state)
{
	char text[16384];
	size_t n;
	FILE *f;

	(void)state;
	assert_non_null(f = fopen(EXAMPLE, "r"));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_true(conf_key_count() > 20);
	assert_null(conf_key_path(conf_key_count()));
	for (size_t i = 0; i < conf_key_count(); i++) {
		const char *path = conf_key_path(i);
		const char *last = strrchr(path, '.');

		last = last != NULL ? last + 1 : path;
		if (!text_sets(text, last))
			fail_msg("%s does not show %s", EXAMPLE, path);
	}
}

static void
test_reference_names_every_key(void **state)
{
	char *doc = NULL, want[128];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(f = open_memstream(&doc, &len));
	conf_write_reference(f);
	fclose(f);
	assert_non_null(strstr(doc, "# kedge configuration reference\n"));
	for (size_t i = 0; i < conf_key_count(); i++) {
		const char *path = conf_key_path(i);

		if (strncmp(path, "tables.", 7) == 0)
			snprintf(want, sizeof(want), "| `tables[].%s` |",
			    path + 7);
		else
			snprintf(want, sizeof(want), "| `%s` |", path);
		if (strstr(doc, want) == NULL)
			fail_msg("the reference lacks %s", want);
	}
	for (size_t i = 0; udtf_builtins[i] != NULL; i++) {
		snprintf(want, sizeof(want), "\n### %s\n",
		    udtf_builtins[i]->name);
		assert_non_null(strstr(doc, want));
	}
	free(doc);
}

/* The keys SIGHUP applied when run.c kept its own list of prefixes: the
 * key table's CONF_RELOADS must give the same answer for every key, and
 * the reference must say it in each key's row. */
static void
test_reload_flags_match_old_prefixes(void **state)
{
	static const char *const now[] = { "log.", "output.roll.",
	    "checkpoint.interval", "spool.", "tables.udtf_config",
	    "completion.", "output.on_complete", "output.webhdfs.connect_timeout",
	    "output.webhdfs.timeout", "output.webhdfs.ca_file" };
	char *doc = NULL, want[128];
	size_t len = 0, nreloads = 0;
	FILE *f;

	(void)state;
	assert_non_null(f = open_memstream(&doc, &len));
	conf_write_reference(f);
	fclose(f);
	for (size_t i = 0; i < conf_key_count(); i++) {
		const char *path = conf_key_path(i), *row, *cell;
		int expect = 0;

		for (size_t j = 0; j < sizeof(now) / sizeof(now[0]); j++)
			if (strncmp(path, now[j], strlen(now[j])) == 0)
				expect = 1;
		if (conf_key_reloads(path) != expect)
			fail_msg("%s: SIGHUP %s it, the key table says %s",
			    path, expect ? "applied" : "did not apply",
			    expect ? "restart" : "reload");
		nreloads += (size_t)expect;
		if (strncmp(path, "tables.", 7) == 0)
			snprintf(want, sizeof(want), "| `tables[].%s` |",
			    path + 7);
		else
			snprintf(want, sizeof(want), "| `%s` |", path);
		assert_non_null(row = strstr(doc, want));
		cell = strstr(row, expect ? "| applied |" : "| needs a restart |");
		if (cell == NULL || memchr(row, '\n', (size_t)(cell - row)))
			fail_msg("the reference's row of %s does not say %s", path,
			    expect ? "applied" : "needs a restart");
	}
	assert_int_equal(nreloads, 20);
	assert_int_equal(conf_key_reloads("no.such.key"), 0);
	free(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_config_lands_every_value),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_topics_default_to_union),
		cmocka_unit_test(test_syntax_and_read_errors),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_unknown_key_suggestions),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_ints_take_either_width),
		cmocka_unit_test(test_missing_required_keys),
		cmocka_unit_test(test_values_out_of_range),
		cmocka_unit_test(test_impossible_strings),
		cmocka_unit_test(test_parquet_codec),
		cmocka_unit_test(test_duplicate_table_name),
		cmocka_unit_test(test_table_name_bound),
		cmocka_unit_test(test_open_files_and_window),
		cmocka_unit_test(test_on_complete),
		cmocka_unit_test(test_kafka_topics_match_tables),
		cmocka_unit_test(test_reserved_rdkafka_keys),
		cmocka_unit_test(test_rdkafka_properties_checked),
		cmocka_unit_test(test_ints_past_32_bits),
		cmocka_unit_test(test_sizes_and_durations),
		cmocka_unit_test(test_nginx_quotes),
		cmocka_unit_test(test_syntax_error_lines),
		cmocka_unit_test(test_include_relative),
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_names_fit_file_names),
		cmocka_unit_test(test_unusable_dirs),
		cmocka_unit_test(test_default_errors_point_at_enclosing_group),
		cmocka_unit_test(test_metrics_listen),
		cmocka_unit_test(test_example_loads),
		cmocka_unit_test(test_example_shows_every_key),
		cmocka_unit_test(test_reference_names_every_key),
		cmocka_unit_test(test_reload_flags_match_old_prefixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
