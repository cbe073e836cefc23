/*
 * confkeys: conf_keys[], the one table of every key of kedge.conf, with
 * the lookups the loader walks it by, the checks of single values and the
 * writer of docs/config.md.  What spans several keys is config.c's.
 */
#include "agent/config/confkeys.h"

#include <errno.h>
#include <libconfig.h>
#include <librdkafka/rdkafka.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/complete/oncomplete.h"
#include "agent/config/config.h"
#include "agent/ops/metrics_http.h"
#include "agent/udtf/registry.h"
#include "checkpoint/ckpt.h"
#include "lib/err.h"
#include "lib/escape.h"
#include "lib/nearest.h"

#define CONF_ZONEINFO "/usr/share/zoneinfo"

static int
conf_is_alnum(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9');
}

/* Returns 1 when s is non-empty and made of letters, digits and extra. */
static int
conf_is_word(const char *s, const char *extra)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!conf_is_alnum(*s) && strchr(extra, *s) == NULL)
			return 0;
	return 1;
}

static int
conf_check_broker(const char *s, size_t len, char *why, size_t whylen)
{
	const char *colon, *port;
	size_t hostlen, portlen;
	long n;

	while (len > 0 && *s == ' ')
		s++, len--;
	while (len > 0 && s[len - 1] == ' ')
		len--;
	if (len == 0)
		return err_set(why, whylen, -EINVAL,
		    "has an empty entry; write "
		    "host:port[,host:port...]");
	if ((colon = memrchr(s, ':', len)) == NULL)
		return err_set(why, whylen, -EINVAL,
		    "\"%.*s\" has no port; write "
		    "host:port", (int)len, s);
	hostlen = (size_t)(colon - s);
	port = colon + 1;
	portlen = len - hostlen - 1;
	if (hostlen == 0)
		return err_set(why, whylen, -EINVAL, "\"%.*s\" has no host",
		    (int)len, s);
	if (memchr(s, ':', hostlen) != NULL &&
	    !(s[0] == '[' && s[hostlen - 1] == ']'))
		return err_set(why, whylen, -EINVAL,
		    "\"%.*s\": write an IPv6 address "
		    "in brackets, as in [::1]:9092", (int)len, s);
	/* port[portlen] is ',', ' ' or the end: strtol() stops there. */
	if (portlen == 0 || portlen > 5 ||
	    strspn(port, "0123456789") != portlen ||
	    (n = strtol(port, NULL, 10)) < 1 || n > 65535)
		return err_set(why, whylen, -EINVAL,
		    "\"%.*s\" has no port number "
		    "1..65535", (int)len, s);
	return 0;
}

static int
conf_check_brokers(const char *v, char *why, size_t whylen)
{
	for (const char *p = v;; p++) {
		const char *end = p + strcspn(p, ",");

		if (conf_check_broker(p, (size_t)(end - p), why, whylen) != 0)
			return -EINVAL;
		if (*end == '\0')
			return 0;
		p = end;
	}
}

/* An argument of output.on_complete: every {name} in it is a known
 * placeholder, so that a misspelt one is caught before the first hour. */
static int
conf_check_on_complete(const char *v, char *why, size_t whylen)
{
	if (*v == '\0')
		return err_set(why, whylen, -EINVAL, "an argument is empty");
	for (const char *p = strchr(v, '{'); p != NULL; p = strchr(p + 1, '{')) {
		const char *end = p + 1;

		while (*end >= 'a' && *end <= 'z')
			end++;
		if (*end != '}' || end == p + 1)
			continue;
		if (!oncomplete_placeholder(p + 1, (size_t)(end - p - 1)))
			return err_set(why, whylen, -EINVAL,
			    "\"%.*s\" is not a placeholder; "
			    "the placeholders are " ONCOMPLETE_PLACEHOLDERS,
			    (int)(end - p + 1), p);
	}
	return 0;
}

static int
conf_check_topic(const char *v, char *why, size_t whylen)
{
	if (strlen(v) > 249)
		return err_set(why, whylen, -EINVAL,
		    "\"%.20s...\" is longer than the "
		    "249 characters of a Kafka topic name", v);
	if (!conf_is_word(v, "._-") || strcmp(v, ".") == 0 ||
	    strcmp(v, "..") == 0)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not a Kafka topic "
		    "name: letters, digits, '.', '_' and '-'", v);
	return 0;
}

static int
conf_check_table_name(const char *v, char *why, size_t whylen)
{
	if (strlen(v) > CONF_TABLE_NAME_MAX)
		return err_set(why, whylen, -EINVAL,
		    "\"%.20s...\" is %zu bytes long; "
		    "at most %d fit in file names and Hive", v, strlen(v),
		    CONF_TABLE_NAME_MAX);
	if (!conf_is_word(v, "_"))
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" may hold only letters, "
		    "digits and '_'", v);
	if (v[0] == '_')
		return err_set(why, whylen, -EINVAL,
		    "\"%s\": names starting with '_' "
		    "are kedge's own, such as _rejects", v);
	return 0;
}

/* The host goes in file names and in commit metadata, whose host kedge
 * checks the same way (ckpt_host_check()). */
static int
conf_check_host(const char *v, char *why, size_t whylen)
{
	char what[128], quoted[ESCAPE_BUF];

	if (ckpt_host_check(v, strlen(v), what, sizeof(what)) < 0)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" %s: it goes in file names",
		    escape_str(v, quoted, sizeof(quoted)), what);
	return 0;
}

/* The port of a URL's authority host[0..len) ("host:port", "[::1]:port"),
 * when it has one, is a number 1..65535. */
static int
conf_url_port_ok(const char *host, size_t len)
{
	const char *colon = host[0] == '[' ? memchr(host, ']', len) : host;
	const char *end = host + len;
	long port = 0;

	if (colon == NULL || (colon = memchr(colon, ':', (size_t)(end -
	    colon))) == NULL)
		return 1;
	if (end - colon - 1 < 1 || end - colon - 1 > 5)
		return 0;
	for (const char *p = colon + 1; p < end; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		port = port * 10 + (*p - '0');
	}
	return port >= 1 && port <= 65535;
}

static int
conf_check_url(const char *v, char *why, size_t whylen)
{
	const char *host = strstr(v, "://");

	if ((strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0) ||
	    host[3] == '\0' || host[3] == '/' || strchr(host + 3, '?') != NULL)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not an http:// or "
		    "https:// URL of a host: \"https://namenode:9871\"", v);
	if (!conf_url_port_ok(host + 3, strcspn(host + 3, "/")))
		return err_set(why, whylen, -EINVAL, "\"%s\": the port must be "
		    "a number 1..65535", v);
	return 0;
}

static int
conf_check_hdfs_dir(const char *v, char *why, size_t whylen)
{
	if (v[0] != '/' || strstr(v, "//") != NULL)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not an absolute HDFS "
		    "path such as \"/warehouse/ods\"", v);
	for (const char *p = v; *p != '\0';) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' &&
		    p[1] == '.'))
			return err_set(why, whylen, -EINVAL, "\"%s\" holds a "
			    "\"%.*s\" component: name the directory without "
			    "one, such as \"/warehouse/ods\"", v, (int)n, p);
		p += n;
	}
	return 0;
}

static int
conf_check_timezone(const char *v, char *why, size_t whylen)
{
	char path[sizeof(CONF_ZONEINFO) + CONF_NAME_MAX];
	struct stat st;

	if (v[0] == '/' || strstr(v, "..") != NULL)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not a zone name such "
		    "as \"Europe/Paris\" (a file under " CONF_ZONEINFO ")", v);
	if ((size_t)snprintf(path, sizeof(path), CONF_ZONEINFO "/%s", v) >=
	    sizeof(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not a time zone: there "
		    "is no file %s", v, path);
	return 0;
}

/* Cuts path (absolute, no trailing '/') to its parent. */
static void
conf_path_up(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash == path)
		path[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
}

int
conf_check_dir(const char *v, char *why, size_t whylen)
{
	char up[PATH_MAX];
	struct stat st;
	size_t len = strlen(v);
	int rc;

	if (v[0] != '/')
		return err_set(why, whylen, -EINVAL,
		    "\"%s\" is not an absolute path",
		    v);
	if (len >= sizeof(up))
		return err_set(why, whylen, -EINVAL, "the path is too long");
	if (stat(v, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return err_set(why, whylen, -EINVAL,
			    "%s is not a directory",
			    v);
		if (access(v, W_OK | X_OK) != 0)
			return err_set(why, whylen, -EINVAL,
			    "%s is not writable: %s",
			    v, strerror(errno));
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return err_set(why, whylen, -EINVAL, "%s cannot be used: %s", v,
		    strerror(errno));
	memcpy(up, v, len + 1);
	while (len > 1 && up[len - 1] == '/')
		up[--len] = '\0';
	do {
		conf_path_up(up);
	} while ((rc = stat(up, &st)) != 0 &&
	    (errno == ENOENT || errno == ENOTDIR));
	if (rc != 0)
		return err_set(why, whylen, -EINVAL,
		    "%s cannot be created: %s: %s", v,
		    up, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(why, whylen, -EINVAL,
		    "%s cannot be created: %s is not "
		    "a directory", v, up);
	if (access(up, W_OK | X_OK) != 0)
		return err_set(why, whylen, -EINVAL,
		    "%s cannot be created: %s is not "
		    "writable", v, up);
	return 0;
}

static int
conf_check_listen(const char *v, char *why, size_t whylen)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int port;

	if ((port = metrics_parse_listen(v, &addr, &addrlen, why,
	    whylen)) < 0)
		return port;
	if (port == 0)
		return err_set(why, whylen, -EINVAL,
		    "\"%s\": the port must be a "
		    "number 1..65535", v);
	return 0;
}

static int
conf_default_host(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		return -errno;
	buf[len - 1] = '\0';
	return 0;
}

static int
conf_parse_format(const char *name, void *out)
{
	return format_kind_parse(name, out);
}

static int
conf_parse_codec(const char *name, void *out)
{
	return codec_kind_parse(name, out);
}

/* The _rejects table is text: it holds records no UDTF could type. */
static int
conf_parse_text_format(const char *name, void *out)
{
	int r = format_kind_parse(name, out);

	return r == 0 && *(enum format_kind *)out == FORMAT_PARQUET ? -EINVAL :
	    r;
}

static int
conf_parse_text_codec(const char *name, void *out)
{
	int r = codec_kind_parse(name, out);

	return r == 0 && *(enum codec_kind *)out == CODEC_SNAPPY ? -EINVAL : r;
}

#define AT(m) offsetof(struct conf, m)
#define TAT(m) offsetof(struct conf_table, m)
#define TEXT_FORMATS "hive-text|jsonl"
#define FORMATS TEXT_FORMATS "|parquet"
#define TEXT_CODECS "none|gzip|zstd"
#define CODECS TEXT_CODECS "|snappy"

static const struct conf_key conf_keys[] = {
	{ .path = "kafka.brokers", .type = CONF_STRING,
	  .flags = CONF_REQUIRED, .offset = AT(kafka.brokers),
	  .check = conf_check_brokers,
	  .description = "Bootstrap brokers, host:port[,host:port...]." },
	{ .path = "kafka.group_id", .type = CONF_STRING,
	  .default_doc = "none", .offset = AT(kafka.group_id),
	  .description = "Consumer group; without one, kedge assigns itself "
	  "every partition of the topics." },
	{ .path = "kafka.topics", .type = CONF_STRING_LIST,
	  .default_doc = "the tables' topics", .offset = AT(kafka.topics),
	  .min = 1, .check = conf_check_topic,
	  .description = "Topics to consume; each must feed a table." },
	{ .path = "kafka.security.protocol", .type = CONF_ENUM,
	  .default_text = "\"PLAINTEXT\"", .offset = AT(kafka.protocol),
	  .values = "PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL",
	  .description = "How kedge talks to the brokers; SASL is GSSAPI "
	  "(Kerberos, see kerberos below)." },
	{ .path = "kafka.security.kerberos_service_name", .type = CONF_STRING,
	  .default_text = "\"kafka\"", .offset = AT(kafka.service_name),
	  .description = "The brokers' Kerberos service: kafka/<broker "
	  "host>@REALM." },
	{ .path = "kafka.security.ca_file", .type = CONF_STRING,
	  .default_doc = "the system's CAs", .offset = AT(kafka.ca_file),
	  .description = "PEM file of the CAs that sign the brokers' "
	  "certificates (SSL, SASL_SSL); the brokers' host names are "
	  "verified." },
	{ .path = "kafka.security.cert_file", .type = CONF_STRING,
	  .default_doc = "none", .offset = AT(kafka.cert_file),
	  .description = "PEM client certificate, when the brokers ask for "
	  "one; kedge warns 30 days before it expires." },
	{ .path = "kafka.security.key_file", .type = CONF_STRING,
	  .default_doc = "none", .offset = AT(kafka.key_file),
	  .description = "PEM private key of cert_file; an encrypted one "
	  "takes its password from kafka.rdkafka ssl_key_password." },
	{ .path = "kafka.security.crl_file", .type = CONF_STRING,
	  .default_doc = "none", .offset = AT(kafka.crl_file),
	  .description = "PEM certificate revocation list." },
	{ .path = "kafka.start", .type = CONF_ENUM,
	  .default_text = "\"earliest\"", .offset = AT(kafka.start),
	  .values = "earliest|latest",
	  .description = "Where a partition with no committed offset "
	  "starts." },
	{ .path = "kafka.rdkafka", .type = CONF_RDKAFKA, .default_doc = "none",
	  .offset = AT(kafka.rdkafka), .count_offset = AT(kafka.n_rdkafka),
	  .description = "librdkafka properties, passed as they are with '_' "
	  "for '.' in names: fetch_wait_max_ms = 100;" },
	{ .path = "tables", .type = CONF_TABLES, .flags = CONF_REQUIRED,
	  .offset = AT(tables), .count_offset = AT(n_tables),
	  .description = "One group per table, with the keys below: "
	  "tables = ( { name = ...; }, ... );" },
	{ .path = "tables.name", .type = CONF_STRING,
	  .flags = CONF_REQUIRED | CONF_IN_TABLE, .offset = TAT(name),
	  .check = conf_check_table_name,
	  .description = "Table name, unique: letters, digits and '_', not "
	  "starting with '_', at most 128 bytes." },
	{ .path = "tables.topics", .type = CONF_STRING_LIST,
	  .flags = CONF_REQUIRED | CONF_IN_TABLE, .offset = TAT(topics),
	  .min = 1, .check = conf_check_topic,
	  .description = "Topics whose records feed this table." },
	{ .path = "tables.udtf", .type = CONF_UDTF,
	  .flags = CONF_REQUIRED | CONF_IN_TABLE, .offset = TAT(udtf),
	  .count_offset = TAT(n_udtf),
	  .description = "The UDTF that turns a record into rows: a built-in's "
	  "name or \"plugin:/PATH.so\"; a list [ \"split\", \"nginx\" ] "
	  "is a chain, each UDTF parsing the first column of the one "
	  "before." },
	{ .path = "tables.udtf_config", .type = CONF_UDTF_CONFIG,
	  .flags = CONF_IN_TABLE | CONF_RELOADS,
	  .default_doc = "the UDTF's defaults",
	  .description = "The UDTF's own keys (see UDTF keys below); for a "
	  "chain, a list of groups, one per UDTF: ( { ... }, { ... } )." },
	{ .path = "tables.max_rows_per_record", .type = CONF_INT64,
	  .flags = CONF_IN_TABLE, .default_text = "10000",
	  .offset = TAT(max_rows), .min = 1, .max = 10000000,
	  .description = "A record that yields more rows goes to the rejects "
	  "table." },
	{ .path = "tables.max_bytes_per_record", .type = CONF_SIZE,
	  .flags = CONF_IN_TABLE, .default_text = "\"64MiB\"",
	  .offset = TAT(max_bytes), .min = 1024, .max = 4294967296LL,
	  .description = "A record whose rows hold more bytes of values goes "
	  "to the rejects table." },
	{ .path = "tables.event_time", .type = CONF_STRING,
	  .flags = CONF_IN_TABLE, .default_text = "\"kafka_timestamp\"",
	  .offset = TAT(event_time),
	  .description = "The UDTF column that puts a row in its hour, or "
	  "kafka_timestamp." },
	{ .path = "tables.format", .type = CONF_ENUM, .flags = CONF_IN_TABLE,
	  .default_text = "\"hive-text\"", .offset = TAT(format),
	  .values = FORMATS, .parse = conf_parse_format,
	  .description = "Part file format: Hive's text, JSON lines, or "
	  "Parquet (docs/output.md)." },
	{ .path = "tables.field_delimiter", .type = CONF_BYTE,
	  .flags = CONF_IN_TABLE, .default_text = "\"\\x01\"",
	  .offset = TAT(field_delimiter),
	  .description = "hive-text field delimiter: one byte, not a newline, "
	  "carriage return, backslash, n, r or N." },
	{ .path = "tables.codec", .type = CONF_ENUM, .flags = CONF_IN_TABLE,
	  .default_text = "\"gzip\"", .offset = TAT(codec), .values = CODECS,
	  .parse = conf_parse_codec, .description = "Part file compression; "
	  "for parquet, its pages' codec, snappy when not given (snappy is "
	  "for parquet only)." },
	{ .path = "tables.codec_level", .type = CONF_INT,
	  .flags = CONF_IN_TABLE, .default_text = "0",
	  .offset = TAT(codec_level), .min = 0, .max = 19,
	  .description = "0: the codec's default (gzip 6, zstd 1); gzip 1..9, zstd 1..19." },
	{ .path = "output.spool_dir", .type = CONF_DIR,
	  .default_text = "\"/var/lib/kedge/spool\"",
	  .offset = AT(output.spool_dir),
	  .description = "Where part files are written and checkpointed "
	  "until published; created if missing." },
	{ .path = "output.target", .type = CONF_ENUM,
	  .default_text = "\"local\"", .offset = AT(output.target),
	  .values = "local|webhdfs",
	  .description = "Where finished part files are published: "
	  "output.local_dir, or HDFS through output.webhdfs." },
	{ .path = "output.local_dir", .type = CONF_DIR,
	  .default_text = "\"/var/lib/kedge/warehouse\"",
	  .offset = AT(output.local_dir),
	  .description = "The directory the local target publishes into; "
	  "created if missing." },
	{ .path = "output.webhdfs.url", .type = CONF_STRING,
	  .default_doc = "none; required with target \"webhdfs\"",
	  .offset = AT(output.webhdfs.url), .check = conf_check_url,
	  .description = "The NameNode's WebHDFS, or an HttpFS server: "
	  "\"https://namenode.example.com:9871\", "
	  "\"http://httpfs.example.com:14000\"." },
	{ .path = "output.webhdfs.base_dir", .type = CONF_STRING,
	  .default_text = "\"/warehouse\"", .offset = AT(output.webhdfs.base_dir),
	  .check = conf_check_hdfs_dir,
	  .description = "The HDFS directory the tables land under "
	  "(<base_dir>/<table>/dt=../hr=..)." },
	{ .path = "output.webhdfs.auth", .type = CONF_ENUM,
	  .default_text = "\"kerberos\"", .offset = AT(output.webhdfs.auth),
	  .values = "kerberos|simple",
	  .description = "kerberos: SPNEGO with kedge's Kerberos login "
	  "(kerberos.principal); simple: Hadoop's user.name, for clusters "
	  "without security." },
	{ .path = "output.webhdfs.user", .type = CONF_STRING,
	  .default_text = "\"kedge\"", .offset = AT(output.webhdfs.user),
	  .description = "The user.name of simple authentication." },
	{ .path = "output.webhdfs.ca_file", .type = CONF_STRING,
	  .flags = CONF_RELOADS,
	  .default_doc = "the system's CAs", .offset = AT(output.webhdfs.ca_file),
	  .description = "PEM CAs that sign the HTTPS server's certificate." },
	{ .path = "output.webhdfs.connect_timeout", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"10s\"", .offset = AT(output.webhdfs.connect_timeout),
	  .min = 1, .max = 600,
	  .description = "Seconds to connect to HDFS." },
	{ .path = "output.webhdfs.timeout", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"5m\"", .offset = AT(output.webhdfs.timeout),
	  .min = 1, .max = 86400,
	  .description = "Seconds a request to HDFS may take in all, upload "
	  "included." },
	{ .path = "output.timezone", .type = CONF_STRING,
	  .default_text = "\"UTC\"", .offset = AT(output.timezone),
	  .check = conf_check_timezone,
	  .description = "Time zone of the dt=/hr= partitions, a name under "
	  CONF_ZONEINFO "." },
	{ .path = "output.host", .type = CONF_STRING,
	  .default_doc = "the host name", .default_fn = conf_default_host,
	  .offset = AT(output.host), .check = conf_check_host,
	  .description = "This host's name in part file names: up to 64 "
	  "letters, digits, '.' and '-', not starting with '.'." },
	{ .path = "output.roll.max_bytes", .type = CONF_SIZE,
	  .flags = CONF_RELOADS,
	  .default_text = "\"128MiB\"", .offset = AT(output.roll.max_bytes),
	  .min = 1024, .max = 1099511627776LL,
	  .description = "A part file is closed at this size, in bytes." },
	{ .path = "output.roll.max_age", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"15m\"", .offset = AT(output.roll.max_age),
	  .min = 1, .max = 86400,
	  .description = "A part file is closed this many seconds after it "
	  "was opened." },
	{ .path = "output.roll.inactive", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"5m\"", .offset = AT(output.roll.inactive),
	  .min = 1, .max = 86400,
	  .description = "A part file is closed after this many seconds "
	  "without a row." },
	{ .path = "output.roll.max_open_files", .type = CONF_INT,
	  .flags = CONF_RELOADS,
	  .default_text = "64", .offset = AT(output.roll.max_open_files),
	  .min = 1, .max = 65536,
	  .description = "Part files a table (and _rejects) keeps open at "
	  "once, each with its journal: two descriptors; past it the least "
	  "recently written is parked (closed, and opened again to append "
	  "its hour's next row)." },
	{ .path = "output.roll.max_parked_files", .type = CONF_INT,
	  .flags = CONF_RELOADS,
	  .default_text = "1024", .offset = AT(output.roll.max_parked_files),
	  .min = 0, .max = 1048576,
	  .description = "Part files a table (and _rejects) keeps parked, "
	  "closed and holding no descriptor, to append to again; past it the "
	  "least recently written rolls. 0: a file past max_open_files rolls "
	  "at once." },
	{ .path = "output.rejects.format", .type = CONF_ENUM,
	  .default_text = "\"hive-text\"", .offset = AT(output.rejects.format),
	  .values = TEXT_FORMATS, .parse = conf_parse_text_format,
	  .description = "Format of the _rejects table." },
	{ .path = "output.rejects.codec", .type = CONF_ENUM,
	  .default_text = "\"none\"", .offset = AT(output.rejects.codec),
	  .values = TEXT_CODECS, .parse = conf_parse_text_codec,
	  .description = "Compression of the _rejects table." },
	{ .path = "output.rejects.max_raw_bytes", .type = CONF_SIZE,
	  .default_text = "\"64KiB\"", .offset = AT(output.rejects.max_raw_bytes),
	  .min = 0, .max = 67108864,
	  .description = "A rejects row keeps this many bytes of its record at "
	  "most; raw_bytes gives the record's length, raw_truncated says it "
	  "was cut." },
	{ .path = "output.parquet.row_group_bytes", .type = CONF_SIZE,
	  .default_text = "\"64MiB\"",
	  .offset = AT(output.parquet.row_group_bytes),
	  .min = 65536, .max = 1073741824,
	  .description = "parquet: a row group is cut when its values reach "
	  "this many bytes, uncompressed; one row group is in memory while a "
	  "file is converted." },
	{ .path = "output.parquet.page_bytes", .type = CONF_SIZE,
	  .default_text = "\"1MiB\"", .offset = AT(output.parquet.page_bytes),
	  .min = 4096, .max = 67108864,
	  .description = "parquet: a data page is cut at this many bytes of "
	  "values." },
	{ .path = "output.parquet.dict_bytes", .type = CONF_SIZE,
	  .default_text = "\"1MiB\"", .offset = AT(output.parquet.dict_bytes),
	  .min = 1024, .max = 67108864,
	  .description = "parquet: a column chunk's dictionary grows to this "
	  "many bytes; past it the chunk's values are written PLAIN." },
	{ .path = "output.event_window.past", .type = CONF_DURATION,
	  .default_text = "\"8d\"", .offset = AT(output.event_window.past),
	  .min = 3600, .max = 315360000,
	  .description = "A row whose event time is more than this many "
	  "seconds before now is rejected (default 8 days)." },
	{ .path = "output.event_window.future", .type = CONF_DURATION,
	  .default_text = "\"1d\"", .offset = AT(output.event_window.future),
	  .min = 60, .max = 315360000,
	  .description = "A row whose event time is more than this many "
	  "seconds after now is rejected." },
	{ .path = "output.on_complete", .type = CONF_STRING_LIST,
	  .flags = CONF_REPEATS | CONF_RELOADS,
	  .default_doc = "none: no command",
	  .offset = AT(output.on_complete), .check = conf_check_on_complete,
	  .description = "A command run once an hour's _SUCCESS (or a new "
	  "revision) is in the target: its argument list, no shell, with "
	  ONCOMPLETE_PLACEHOLDERS " replaced "
	  "(docs/completion.md)." },
	{ .path = "output.on_complete_timeout", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"5m\"", .offset = AT(output.on_complete_timeout),
	  .min = 1, .max = 86400,
	  .description = "Seconds output.on_complete may run; then its process "
	  "group is killed and the command tried again later." },
	{ .path = "kerberos.principal", .type = CONF_STRING,
	  .default_doc = "none: no Kerberos", .offset = AT(kerberos.principal),
	  .description = "The principal kedge logs in as, from its keytab: "
	  "kedge/edge01.example.com@EXAMPLE.COM." },
	{ .path = "kerberos.keytab", .type = CONF_STRING,
	  .default_text = "\"/etc/kedge/kedge.keytab\"",
	  .offset = AT(kerberos.keytab),
	  .description = "The keytab holding the principal's key; owner-only "
	  "(chmod 600).  A relative path is under $CREDENTIALS_DIRECTORY "
	  "(systemd's LoadCredential=)." },
	{ .path = "kerberos.use_ticket_cache", .type = CONF_BOOL,
	  .default_text = "false", .offset = AT(kerberos.use_ticket_cache),
	  .description = "true: use the tickets already in the default "
	  "credential cache (KRB5CCNAME) instead of the keytab; kedge does "
	  "not renew them." },
	{ .path = "kerberos.renew_at", .type = CONF_FRACTION,
	  .default_text = "0.8", .offset = AT(kerberos.renew_at),
	  .min = 50, .max = 95,
	  .description = "When to log in again, as a fraction of the "
	  "ticket's lifetime." },
	{ .path = "spool.max_bytes", .type = CONF_SIZE,
	  .flags = CONF_RELOADS,
	  .default_text = "\"10GiB\"", .offset = AT(spool.max_bytes),
	  .min = 1048576, .max = 1125899906842624LL,
	  .description = "When the spool holds more than this (files not "
	  "yet published, and those being written), consumption pauses "
	  "until the publisher has shipped enough." },
	{ .path = "spool.min_free_bytes", .type = CONF_SIZE,
	  .flags = CONF_RELOADS,
	  .default_text = "\"1GiB\"", .offset = AT(spool.min_free_bytes),
	  .min = 0, .max = 1125899906842624LL,
	  .description = "Consumption pauses likewise while the spool's file "
	  "system has less free space than this." },
	{ .path = "checkpoint.interval", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"30s\"", .offset = AT(checkpoint.interval),
	  .min = 1, .max = 3600,
	  .description = "Seconds between checkpoints." },
	{ .path = "completion.enabled", .type = CONF_BOOL,
	  .flags = CONF_RELOADS,
	  .default_text = "true", .offset = AT(completion.enabled),
	  .description = "false: kedge writes no _MANIFEST.json, no _SUCCESS "
	  "and no progress files (docs/completion.md)." },
	{ .path = "completion.allowed_lateness", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"5m\"", .offset = AT(completion.allowed_lateness),
	  .min = 0, .max = 604800,
	  .description = "Seconds of event time an hour waits, after the "
	  "partitions have moved past it, before it is declared complete; "
	  "rows that come later are late rows in a new manifest revision." },
	{ .path = "completion.idle_timeout", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"10m\"", .offset = AT(completion.idle_timeout),
	  .min = 1, .max = 604800,
	  .description = "A partition without a record for this many seconds "
	  "no longer holds hours back (nor does one read to its end)." },
	{ .path = "completion.rescan", .type = CONF_DURATION,
	  .flags = CONF_RELOADS,
	  .default_text = "\"10m\"", .offset = AT(completion.rescan),
	  .min = 10, .max = 86400,
	  .description = "Seconds between full scans of the target for hours "
	  "that other hosts' files changed." },
	{ .path = "metrics.enabled", .type = CONF_BOOL,
	  .default_text = "true", .offset = AT(metrics.enabled),
	  .description = "Serve Prometheus metrics over HTTP at "
	  "http://LISTEN/metrics (docs/metrics.md)." },
	{ .path = "metrics.listen", .type = CONF_STRING,
	  .default_text = "\"127.0.0.1:9466\"", .offset = AT(metrics.listen),
	  .check = conf_check_listen,
	  .description = "The address and port the metrics are served on: an "
	  "IPv4 address, or an IPv6 one in brackets (\"[::1]:9466\"); "
	  "\"0.0.0.0:9466\" for every interface." },
	{ .path = "metrics.stall_timeout", .type = CONF_INT,
	  .default_text = "30", .offset = AT(metrics.stall_timeout),
	  .min = 1, .max = 3600,
	  .description = "Seconds without a turn of the main loop after which "
	  "/health and /ready answer 503 and kedge status says the loop is "
	  "stuck (docs/metrics.md); the unit's WatchdogSec= is 30 s too." },
	{ .path = "log.level", .type = CONF_ENUM, .default_text = "\"info\"",
	  .flags = CONF_RELOADS,
	  .offset = AT(log.level), .values = "err|warning|notice|info|debug",
	  .description = "The most verbose level logged." },
	{ .path = "log.format", .type = CONF_ENUM, .default_text = "\"text\"",
	  .flags = CONF_RELOADS,
	  .offset = AT(log.format), .values = "text|json",
	  .description = "How a line on stderr reads.  text: the time (RFC "
	  "3339, the local offset), the level and the message, or under "
	  "journald the message after its <N> priority; json: one object a "
	  "line, {\"time\", \"level\", \"message\"} and fields such as "
	  "table, topic, partition and offset where the event has them, for "
	  "Vector, Fluent Bit or Filebeat (docs/running.md, Logs)." },
};

#define CONF_NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

_Static_assert(CONF_NKEYS <= CONF_KEYS_MAX, "raise CONF_KEYS_MAX");

/* librdkafka properties kedge sets itself. */
static const struct {
	const char *name;
	const char *instead; /* the kedge key; NULL: kedge manages it */
} conf_rdkafka_reserved[] = {
	{ "bootstrap.servers", "kafka.brokers" },
	{ "metadata.broker.list", "kafka.brokers" },
	{ "group.id", "kafka.group_id" },
	{ "security.protocol", "kafka.security.protocol" },
	{ "sasl.mechanisms", "kafka.security.protocol" },
	{ "sasl.kerberos.service.name",
	  "kafka.security.kerberos_service_name" },
	{ "sasl.kerberos.principal", "kerberos.principal" },
	{ "sasl.kerberos.keytab", "kerberos.keytab" },
	{ "sasl.kerberos.kinit.cmd", "kerberos" },
	{ "sasl.kerberos.min.time.before.relogin", "kerberos.renew_at" },
	{ "ssl.ca.location", "kafka.security.ca_file" },
	{ "ssl.certificate.location", "kafka.security.cert_file" },
	{ "ssl.key.location", "kafka.security.key_file" },
	{ "ssl.crl.location", "kafka.security.crl_file" },
	{ "auto.offset.reset", "kafka.start" },
	{ "enable.auto.commit", NULL },
	{ "enable.auto.offset.store", NULL },
	{ "enable.partition.eof", NULL },
};

/* Refuses the librdkafka properties kedge sets itself. */
static int
conf_check_rdkafka_name(const char *name, char *why, size_t whylen)
{
	size_t n = sizeof(conf_rdkafka_reserved) /
	    sizeof(conf_rdkafka_reserved[0]);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(name, conf_rdkafka_reserved[i].name) != 0)
			continue;
		if (conf_rdkafka_reserved[i].instead != NULL)
			return err_set(why, whylen, -EINVAL,
			    "sets librdkafka's %s; use "
			    "%s instead", name, conf_rdkafka_reserved[i].instead);
		return err_set(why, whylen, -EINVAL,
		    "sets librdkafka's %s, which "
		    "kedge manages", name);
	}
	return 0;
}

/* Writes to best the librdkafka property nearest to name, as kafka.rdkafka
 * spells it ('_' for '.'), or "" when none is within a few edits: read
 * from librdkafka's own list of its properties. */
static void
conf_rdkafka_nearest(const char *name, char *best, size_t bestlen)
{
	size_t d = SIZE_MAX, len = 0;
	char *list = NULL, *line, *save = NULL;
	FILE *f = open_memstream(&list, &len);

	best[0] = '\0';
	if (f == NULL)
		return;
	rd_kafka_conf_properties_show(f);
	if (fclose(f) != 0 || list == NULL) {
		free(list);
		return;
	}
	/* a row of its tables: "name   | C/P | ..." */
	for (line = strtok_r(list, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		size_t n = strcspn(line, " |");

		if (line[0] < 'a' || line[0] > 'z' || line[n] == '\0')
			continue;
		if (nearest_closer(name, strlen(name), line, n, 2, &d)) {
			snprintf(best, bestlen, "%.*s", (int)n, line);
			for (char *p = best; *p != '\0'; p++)
				if (*p == '.')
					*p = '_';
		}
	}
	free(list);
}

int
conf_check_rdkafka(const char *member, const char *value, char *name,
    size_t namelen, char *why, size_t whylen)
{
	char err[512], best[CONF_NAME_MAX];
	rd_kafka_conf_res_t r;
	rd_kafka_conf_t *kc;

	snprintf(name, namelen, "%s", member);
	for (char *p = name; *p != '\0'; p++)
		if (*p == '_')
			*p = '.';
	if (conf_check_rdkafka_name(name, why, whylen) != 0)
		return -EINVAL;
	/* a conf of its own: librdkafka checks each value as it is set */
	if ((kc = rd_kafka_conf_new()) == NULL)
		return err_set(why, whylen, -ENOMEM, "out of memory");
	r = rd_kafka_conf_set(kc, name, value, err, sizeof(err));
	rd_kafka_conf_destroy(kc);
	if (r == RD_KAFKA_CONF_OK)
		return 0;
	if (r != RD_KAFKA_CONF_UNKNOWN)
		return err_set(why, whylen, -EINVAL, "librdkafka refuses %s = "
		    "\"%s\": %s", name, value, err);
	conf_rdkafka_nearest(name, best, sizeof(best));
	if (best[0] != '\0')
		return err_set(why, whylen, -EINVAL, "librdkafka has no property "
		    "%s; did you mean \"%s\"?", name, best);
	return err_set(why, whylen, -EINVAL, "librdkafka has no property %s "
	    "(CONFIGURATION.md of librdkafka %s lists them; write each with "
	    "'_' for '.')", name, rd_kafka_version_str());
}

size_t
conf_key_count(void)
{
	return CONF_NKEYS;
}

const char *
conf_key_path(size_t i)
{
	return i < CONF_NKEYS ? conf_keys[i].path : NULL;
}

int
conf_key_reloads(const char *path)
{
	size_t i = conf_key_find(path);

	return i < CONF_NKEYS && (conf_keys[i].flags & CONF_RELOADS) != 0;
}

const struct conf_key *
conf_key_at(size_t i)
{
	return i < CONF_NKEYS ? &conf_keys[i] : NULL;
}

size_t
conf_key_find(const char *path)
{
	size_t i = 0;

	while (i < CONF_NKEYS && strcmp(conf_keys[i].path, path) != 0)
		i++;
	return i;
}

/* Copies to buf the component of key k's path that follows prefix; returns
 * 0, or -1 when k is not under prefix. */
static int
conf_key_component(const struct conf_key *k, const char *prefix, char *buf,
    size_t len)
{
	size_t plen = strlen(prefix);

	if (strncmp(k->path, prefix, plen) != 0 || k->path[plen] == '\0')
		return -1;
	snprintf(buf, len, "%.*s", (int)strcspn(k->path + plen, "."),
	    k->path + plen);
	return 0;
}

int
conf_is_group_path(const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (strncmp(conf_keys[i].path, path, len) == 0 &&
		    conf_keys[i].path[len] == '.')
			return 1;
	return 0;
}

const char *
conf_type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	}
	return "nothing";
}

/* Returns 1 when a key before key i has the same component under prefix. */
static int
conf_component_repeats(size_t i, const char *prefix, const char *comp)
{
	char other[CONF_NAME_MAX];

	for (size_t j = 0; j < i; j++)
		if (conf_key_component(&conf_keys[j], prefix, other,
		    sizeof(other)) == 0 && strcmp(other, comp) == 0)
			return 1;
	return 0;
}

void
conf_key_suggest(const char *prefix, const char *name, char *best,
    size_t bestlen, char *known, size_t knownlen)
{
	char comp[CONF_NAME_MAX];
	size_t best_d = SIZE_MAX, used = 0;

	best[0] = '\0';
	known[0] = '\0';
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		if (conf_key_component(&conf_keys[i], prefix, comp,
		    sizeof(comp)) != 0 ||
		    conf_component_repeats(i, prefix, comp))
			continue;
		if (nearest_closer(name, strlen(name), comp, strlen(comp), 2,
		    &best_d))
			snprintf(best, bestlen, "%s", comp);
		if (used < knownlen)
			used += (size_t)snprintf(known + used, knownlen - used,
			    "%s%s", used > 0 ? ", " : "", comp);
	}
}

void
conf_list_values(const char *values, char *buf, size_t len)
{
	size_t i = 0;

	for (; *values != '\0' && i + 3 < len; values++) {
		if (*values == '|') {
			buf[i++] = ',';
			buf[i++] = ' ';
		} else
			buf[i++] = *values;
	}
	buf[i] = '\0';
}

int
conf_enum_has(const char *values, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = values; *p != '\0'; p += strcspn(p, "|")) {
		if (*p == '|')
			p++;
		if (strncmp(p, v, len) == 0 &&
		    (p[len] == '|' || p[len] == '\0'))
			return 1;
	}
	return 0;
}

/* Writes one Markdown table cell, escaping '|'. */
static void
conf_md_cell(FILE *out, const char *s)
{
	fputc(' ', out);
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputs(" |", out);
}

static void
conf_type_doc(const struct conf_key *k, char *buf, size_t len)
{
	static const char *const names[] = {
		[CONF_STRING] = "string",
		[CONF_DIR] = "directory",
		[CONF_INT] = "integer",
		[CONF_INT64] = "integer",
		[CONF_SIZE] = "size",
		[CONF_DURATION] = "duration",
		[CONF_ENUM] = "one of:",
		[CONF_BYTE] = "one-byte string",
		[CONF_STRING_LIST] = "list of strings",
		[CONF_UDTF] = "UDTF or list of UDTFs",
		[CONF_BOOL] = "boolean",
		[CONF_FRACTION] = "number",
		[CONF_RDKAFKA] = "group",
		[CONF_UDTF_CONFIG] = "group or list of groups",
		[CONF_TABLES] = "list of groups",
	};
	char values[CONF_NAME_MAX], lo[32], hi[32];

	if (k->type == CONF_INT || k->type == CONF_INT64 ||
	    k->type == CONF_SIZE || k->type == CONF_DURATION) {
		conf_int_text(k->type, k->min, lo, sizeof(lo));
		conf_int_text(k->type, k->max, hi, sizeof(hi));
		snprintf(buf, len, "%s %s..%s%s", names[k->type], lo, hi,
		    k->type == CONF_SIZE ? ": bytes, or a string such as "
		    "\"512MiB\"" : k->type == CONF_DURATION ? ": seconds, or a "
		    "string such as \"1h30m\"" : "");
	} else if (k->type == CONF_FRACTION)
		snprintf(buf, len, "%s %.2f..%.2f", names[k->type],
		    (double)k->min / 100, (double)k->max / 100);
	else if (k->type == CONF_ENUM) {
		conf_list_values(k->values, values, sizeof(values));
		snprintf(buf, len, "%s %s", names[k->type], values);
	} else
		snprintf(buf, len, "%s", names[k->type]);
}

/* A UDTF key's default as `code`, control bytes as C escapes ("\n"). */
static void
conf_quote_default(char *buf, size_t len, const char *value)
{
	size_t o = 0;

	if (value[0] == '\0') {
		snprintf(buf, len, "empty");
		return;
	}
	buf[o++] = '`';
	for (const char *p = value; *p != '\0' && o + 6 < len; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n' || c == '\t' || c == '\r')
			o += (size_t)snprintf(buf + o, len - o, "\\%c",
			    c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '`';
	buf[o] = '\0';
}

static void
conf_write_udtfs(FILE *out)
{
	char dflt[CONF_TEXT_MAX];

	fputs("## UDTF keys\n\n"
	    "Set in a table's `udtf_config` group.\n", out);
	for (size_t i = 0; udtf_builtins[i] != NULL; i++) {
		const struct udtf_plugin *p = udtf_builtins[i];

		fprintf(out, "\n### %s\n\n%s\n\n", p->name, p->description);
		if (p->keys == NULL || p->keys[0].name == NULL) {
			fputs("No keys.\n", out);
			continue;
		}
		fputs("| key | default | description |\n|---|---|---|\n", out);
		for (const struct udtf_key *k = p->keys; k->name != NULL; k++) {
			if (k->default_value != NULL)
				conf_quote_default(dflt, sizeof(dflt),
				    k->default_value);
			else
				snprintf(dflt, sizeof(dflt), "required");
			fprintf(out, "| `%s` |", k->name);
			conf_md_cell(out, dflt);
			conf_md_cell(out, k->description);
			fputc('\n', out);
		}
	}
}

void
conf_write_reference(FILE *out)
{
	char section[CONF_NAME_MAX] = "", comp[CONF_NAME_MAX];
	char key[CONF_NAME_MAX + 16], type[CONF_TEXT_MAX];
	char dflt[CONF_TEXT_MAX];

	fputs("# kedge configuration reference\n\n"
	    "kedge reads `" CONF_DEFAULT_PATH "` in libconfig syntax "
	    "(`key = value;`, groups `{ }`, lists `( )`, arrays `[ ]`, "
	    "`#` comments); unknown keys are errors.\n"
	    "This page is generated from the key table in "
	    "`agent/config/confkeys.c`.\n"
	    "The column on SIGHUP says whether `systemctl reload kedge` "
	    "applies a change of the key at once, or whether the change "
	    "needs a restart: a file that changes such a key is not applied "
	    "at all (docs/running.md).\n\n"
	    "A size is a number of bytes (`10737418240`; no `L` suffix is "
	    "needed past 32 bits), or a whole number with K, M, G, T or P "
	    "after it, powers of 1024 all, also written KiB, MiB, GiB, TiB, "
	    "PiB (`10G`, `512MiB`, or as strings, `\"10G\"`).  A duration is "
	    "a number of seconds, or whole numbers each with s, m, h or d "
	    "after it (`30s`, `5m`, `1h30m`, or `\"30s\"`).\n\n"
	    "A string may also be written in nginx's single quotes, in one "
	    "piece or several, so that a `log_format` pasted from nginx.conf "
	    "works as it is: `log_format = '$remote_addr - \"$request\" ' "
	    "'$status';`.  `@include \"FILE\"` reads FILE there, a relative "
	    "FILE from the directory of the file that includes it.  "
	    "`kedge check-config` reports every error, each as "
	    "`FILE:LINE: key: what is wrong`.\n", out);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		conf_key_component(k, "", comp, sizeof(comp));
		if (strcmp(comp, section) != 0) {
			memcpy(section, comp, sizeof(section));
			fprintf(out, "\n## %s\n\n| key | type | default | "
			    "on SIGHUP | description |\n|---|---|---|---|---|\n",
			    section);
		}
		if (k->flags & CONF_IN_TABLE)
			snprintf(key, sizeof(key), "`tables[].%s`",
			    k->path + strlen(CONF_TABLE_PREFIX));
		else
			snprintf(key, sizeof(key), "`%s`", k->path);
		conf_type_doc(k, type, sizeof(type));
		if (k->default_text != NULL)
			snprintf(dflt, sizeof(dflt), "`%s`", k->default_text);
		else
			snprintf(dflt, sizeof(dflt), "%s",
			    k->flags & CONF_REQUIRED ? "required" :
			    k->default_doc);
		fputc('|', out);
		conf_md_cell(out, key);
		conf_md_cell(out, type);
		conf_md_cell(out, dflt);
		conf_md_cell(out, k->flags & CONF_RELOADS ? "applied" :
		    "needs a restart");
		conf_md_cell(out, k->description);
		fputc('\n', out);
	}
	fputc('\n', out);
	conf_write_udtfs(out);
}
