/*
 * config: kedge.conf, read with libconfig and walked against conf_keys[],
 * the one table of every key: its path, type, default, where it lands and
 * what it means.  Loading goes in three passes and stops at the first
 * error: the file's settings in file order, then the keys it left out
 * (defaults, or an error for a required key), then the checks that span
 * several keys.  The same table prints docs/config.md.
 */
#include "config.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "udtf/registry.h"

#define CONF_NAME_MAX 256 /* a key as shown, "tables[3].udtf_config.x" */
#define CONF_TEXT_MAX 512 /* a scalar as text, a list of names */
#define CONF_ZONEINFO "/usr/share/zoneinfo"
#define CONF_TABLE_PREFIX "tables."

enum conf_type {
	CONF_STRING,
	CONF_DIR,         /* a string naming a directory kedge may write in */
	CONF_INT,
	CONF_INT64,
	CONF_ENUM,        /* a string among the key's values */
	CONF_BYTE,        /* a string of exactly one byte */
	CONF_STRING_LIST,
	CONF_UDTF,        /* a string or a list of strings: built-in UDTFs */
	CONF_RDKAFKA,     /* a group passed to librdkafka */
	CONF_UDTF_CONFIG, /* a group checked against the UDTF's keys */
	CONF_TABLES       /* a list of groups taking the CONF_IN_TABLE keys */
};

#define CONF_REQUIRED 0x1u
#define CONF_IN_TABLE 0x2u /* a key of each group of the tables list */

/* Returns 0 when value is acceptable, or -EINVAL with what is wrong in
 * why (the end of an error sentence). */
typedef int (conf_check_fn)(const char *value, char *why, size_t whylen);

struct conf_key {
	const char *path;
	enum conf_type type;
	unsigned flags;
	const char *default_text;  /* libconfig syntax; NULL: none */
	const char *default_doc;   /* the reference's words when no text */
	int (*default_fn)(char *buf, size_t len); /* a computed default */
	size_t offset;             /* in struct conf, or struct conf_table */
	size_t count_offset;       /* lists of groups: where the count lands */
	const char *values;        /* CONF_ENUM: "a|b|c" */
	int (*parse)(const char *name, void *out); /* CONF_ENUM to an enum */
	long long min, max;        /* integers: range; lists: least length */
	conf_check_fn *check;
	const char *description;
};

/* Where an error points: "FILE:LINE: key: ...". */
struct conf_at {
	const char *file;
	int line;
	const char *key;
};

struct conf_loader {
	config_t cfg;
	struct conf *c;
	char *err;
	size_t errlen;
};

static int conf_why(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
conf_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

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
		return conf_why(why, whylen, "has an empty entry; write "
		    "host:port[,host:port...]");
	if ((colon = memrchr(s, ':', len)) == NULL)
		return conf_why(why, whylen, "\"%.*s\" has no port; write "
		    "host:port", (int)len, s);
	hostlen = (size_t)(colon - s);
	port = colon + 1;
	portlen = len - hostlen - 1;
	if (hostlen == 0)
		return conf_why(why, whylen, "\"%.*s\" has no host",
		    (int)len, s);
	if (memchr(s, ':', hostlen) != NULL &&
	    !(s[0] == '[' && s[hostlen - 1] == ']'))
		return conf_why(why, whylen, "\"%.*s\": write an IPv6 address "
		    "in brackets, as in [::1]:9092", (int)len, s);
	/* port[portlen] is ',', ' ' or the end: strtol() stops there. */
	if (portlen == 0 || portlen > 5 ||
	    strspn(port, "0123456789") != portlen ||
	    (n = strtol(port, NULL, 10)) < 1 || n > 65535)
		return conf_why(why, whylen, "\"%.*s\" has no port number "
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

static int
conf_check_topic(const char *v, char *why, size_t whylen)
{
	if (strlen(v) > 249)
		return conf_why(why, whylen, "\"%.20s...\" is longer than the "
		    "249 characters of a Kafka topic name", v);
	if (!conf_is_word(v, "._-") || strcmp(v, ".") == 0 ||
	    strcmp(v, "..") == 0)
		return conf_why(why, whylen, "\"%s\" is not a Kafka topic "
		    "name: letters, digits, '.', '_' and '-'", v);
	return 0;
}

static int
conf_check_table_name(const char *v, char *why, size_t whylen)
{
	if (!conf_is_word(v, "_"))
		return conf_why(why, whylen, "\"%s\" may hold only letters, "
		    "digits and '_'", v);
	if (v[0] == '_')
		return conf_why(why, whylen, "\"%s\": names starting with '_' "
		    "are kedge's own, such as _rejects", v);
	return 0;
}

static int
conf_check_host(const char *v, char *why, size_t whylen)
{
	if (!conf_is_word(v, ".-"))
		return conf_why(why, whylen, "\"%s\" may hold only letters, "
		    "digits, '.' and '-': it goes in file names", v);
	return 0;
}

static int
conf_check_timezone(const char *v, char *why, size_t whylen)
{
	char path[sizeof(CONF_ZONEINFO) + CONF_NAME_MAX];
	struct stat st;

	if (v[0] == '/' || strstr(v, "..") != NULL)
		return conf_why(why, whylen, "\"%s\" is not a zone name such "
		    "as \"Europe/Paris\" (a file under " CONF_ZONEINFO ")", v);
	if ((size_t)snprintf(path, sizeof(path), CONF_ZONEINFO "/%s", v) >=
	    sizeof(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return conf_why(why, whylen, "\"%s\" is not a time zone: there "
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

/* An existing directory must be writable; a missing one must be creatable:
 * its nearest existing ancestor a writable directory. */
static int
conf_check_dir(const char *v, char *why, size_t whylen)
{
	char up[PATH_MAX];
	struct stat st;
	size_t len = strlen(v);
	int rc;

	if (v[0] != '/')
		return conf_why(why, whylen, "\"%s\" is not an absolute path",
		    v);
	if (len >= sizeof(up))
		return conf_why(why, whylen, "the path is too long");
	if (stat(v, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return conf_why(why, whylen, "%s is not a directory",
			    v);
		if (access(v, W_OK | X_OK) != 0)
			return conf_why(why, whylen, "%s is not writable: %s",
			    v, strerror(errno));
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return conf_why(why, whylen, "%s cannot be used: %s", v,
		    strerror(errno));
	memcpy(up, v, len + 1);
	while (len > 1 && up[len - 1] == '/')
		up[--len] = '\0';
	do {
		conf_path_up(up);
	} while ((rc = stat(up, &st)) != 0 &&
	    (errno == ENOENT || errno == ENOTDIR));
	if (rc != 0)
		return conf_why(why, whylen, "%s cannot be created: %s: %s", v,
		    up, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return conf_why(why, whylen, "%s cannot be created: %s is not "
		    "a directory", v, up);
	if (access(up, W_OK | X_OK) != 0)
		return conf_why(why, whylen, "%s cannot be created: %s is not "
		    "writable", v, up);
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

#define AT(m) offsetof(struct conf, m)
#define TAT(m) offsetof(struct conf_table, m)
#define FORMATS "hive-text|jsonl"
#define CODECS "none|gzip|zstd"

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
	  .description = "How kedge talks to the brokers." },
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
	  "starting with '_'." },
	{ .path = "tables.topics", .type = CONF_STRING_LIST,
	  .flags = CONF_REQUIRED | CONF_IN_TABLE, .offset = TAT(topics),
	  .min = 1, .check = conf_check_topic,
	  .description = "Topics whose records feed this table." },
	{ .path = "tables.udtf", .type = CONF_UDTF,
	  .flags = CONF_REQUIRED | CONF_IN_TABLE, .offset = TAT(udtf),
	  .description = "The built-in UDTF that turns a record into rows." },
	{ .path = "tables.udtf_config", .type = CONF_UDTF_CONFIG,
	  .flags = CONF_IN_TABLE, .default_doc = "the UDTF's defaults",
	  .offset = TAT(udtf_config), .count_offset = TAT(n_udtf_config),
	  .description = "The UDTF's own keys (see UDTF keys below)." },
	{ .path = "tables.event_time", .type = CONF_STRING,
	  .flags = CONF_IN_TABLE, .default_text = "\"kafka_timestamp\"",
	  .offset = TAT(event_time),
	  .description = "The UDTF column that puts a row in its hour, or "
	  "kafka_timestamp." },
	{ .path = "tables.format", .type = CONF_ENUM, .flags = CONF_IN_TABLE,
	  .default_text = "\"hive-text\"", .offset = TAT(format),
	  .values = FORMATS, .parse = conf_parse_format,
	  .description = "Part file format." },
	{ .path = "tables.field_delimiter", .type = CONF_BYTE,
	  .flags = CONF_IN_TABLE, .default_text = "\"\\x01\"",
	  .offset = TAT(field_delimiter),
	  .description = "hive-text field delimiter: one byte, not a newline, "
	  "carriage return, backslash, n, r or N." },
	{ .path = "tables.codec", .type = CONF_ENUM, .flags = CONF_IN_TABLE,
	  .default_text = "\"gzip\"", .offset = TAT(codec), .values = CODECS,
	  .parse = conf_parse_codec, .description = "Part file compression." },
	{ .path = "tables.codec_level", .type = CONF_INT,
	  .flags = CONF_IN_TABLE, .default_text = "0",
	  .offset = TAT(codec_level), .min = 0, .max = 19,
	  .description = "0: the codec's default; gzip 1..9, zstd 1..19." },
	{ .path = "output.spool_dir", .type = CONF_DIR,
	  .default_text = "\"/var/lib/kedge/spool\"",
	  .offset = AT(output.spool_dir),
	  .description = "Where part files are written and checkpointed "
	  "until published; created if missing." },
	{ .path = "output.target", .type = CONF_ENUM,
	  .default_text = "\"local\"", .offset = AT(output.target),
	  .values = "local",
	  .description = "Where finished part files are published." },
	{ .path = "output.local_dir", .type = CONF_DIR,
	  .default_text = "\"/srv/kedge\"", .offset = AT(output.local_dir),
	  .description = "The directory the local target publishes into; "
	  "created if missing." },
	{ .path = "output.timezone", .type = CONF_STRING,
	  .default_text = "\"UTC\"", .offset = AT(output.timezone),
	  .check = conf_check_timezone,
	  .description = "Time zone of the dt=/hr= partitions, a name under "
	  CONF_ZONEINFO "." },
	{ .path = "output.host", .type = CONF_STRING,
	  .default_doc = "the host name", .default_fn = conf_default_host,
	  .offset = AT(output.host), .check = conf_check_host,
	  .description = "This host's name in part file names." },
	{ .path = "output.roll.max_bytes", .type = CONF_INT64,
	  .default_text = "134217728", .offset = AT(output.roll.max_bytes),
	  .min = 1024, .max = 1099511627776LL,
	  .description = "A part file is closed at this size, in bytes." },
	{ .path = "output.roll.max_age", .type = CONF_INT,
	  .default_text = "900", .offset = AT(output.roll.max_age),
	  .min = 1, .max = 86400,
	  .description = "A part file is closed this many seconds after it "
	  "was opened." },
	{ .path = "output.roll.inactive", .type = CONF_INT,
	  .default_text = "300", .offset = AT(output.roll.inactive),
	  .min = 1, .max = 86400,
	  .description = "A part file is closed after this many seconds "
	  "without a row." },
	{ .path = "output.rejects.format", .type = CONF_ENUM,
	  .default_text = "\"hive-text\"", .offset = AT(output.rejects.format),
	  .values = FORMATS, .parse = conf_parse_format,
	  .description = "Format of the _rejects table." },
	{ .path = "output.rejects.codec", .type = CONF_ENUM,
	  .default_text = "\"none\"", .offset = AT(output.rejects.codec),
	  .values = CODECS, .parse = conf_parse_codec,
	  .description = "Compression of the _rejects table." },
	{ .path = "checkpoint.interval", .type = CONF_INT,
	  .default_text = "30", .offset = AT(checkpoint.interval),
	  .min = 1, .max = 3600,
	  .description = "Seconds between checkpoints." },
	{ .path = "log.level", .type = CONF_ENUM, .default_text = "\"info\"",
	  .offset = AT(log.level), .values = "err|warning|notice|info|debug",
	  .description = "The most verbose level logged." },
};

#define CONF_NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

/* librdkafka properties kedge sets itself. */
static const struct {
	const char *name;
	const char *instead; /* the kedge key; NULL: kedge manages it */
} conf_rdkafka_reserved[] = {
	{ "bootstrap.servers", "kafka.brokers" },
	{ "metadata.broker.list", "kafka.brokers" },
	{ "group.id", "kafka.group_id" },
	{ "security.protocol", "kafka.security.protocol" },
	{ "auto.offset.reset", "kafka.start" },
	{ "enable.auto.commit", NULL },
	{ "enable.auto.offset.store", NULL },
	{ "enable.partition.eof", NULL },
};

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

static const struct conf_key *
conf_key_find(const char *path)
{
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (strcmp(conf_keys[i].path, path) == 0)
			return &conf_keys[i];
	return NULL;
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

/* Returns 1 when some key lies under path + ".". */
static int
conf_is_group_path(const char *path)
{
	size_t len = strlen(path);

	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (strncmp(conf_keys[i].path, path, len) == 0 &&
		    conf_keys[i].path[len] == '.')
			return 1;
	return 0;
}

static const char *
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

static int conf_fail(struct conf_loader *ld, const struct conf_at *at,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes "FILE:LINE: key: " and the rest; returns -EINVAL. */
static int
conf_fail(struct conf_loader *ld, const struct conf_at *at, const char *fmt,
    ...)
{
	va_list ap;
	int n;

	n = snprintf(ld->err, ld->errlen, "%s:%d: %s: ",
	    at->file != NULL ? at->file : ld->c->path, at->line, at->key);
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int
conf_oom(struct conf_loader *ld)
{
	snprintf(ld->err, ld->errlen, "%s: out of memory", ld->c->path);
	return -ENOMEM;
}

/* A setting's line; 1 for the root, which has none. */
static int
conf_line(const config_setting_t *s)
{
	return config_setting_source_line(s) > 0 ?
	    (int)config_setting_source_line(s) : 1;
}

static struct conf_at
conf_at_setting(const config_setting_t *s, const char *key)
{
	return (struct conf_at){ config_setting_source_file(s), conf_line(s),
	    key };
}

/* The line of rel under g, or of its nearest enclosing group that is
 * there, or of g itself (1 for the file's root). */
static int
conf_line_of(config_setting_t *g, const char *rel)
{
	char p[CONF_NAME_MAX];
	config_setting_t *s;
	char *dot;

	snprintf(p, sizeof(p), "%s", rel);
	for (;;) {
		if ((s = config_setting_lookup(g, p)) != NULL)
			return conf_line(s);
		if ((dot = strrchr(p, '.')) == NULL)
			break;
		*dot = '\0';
	}
	return conf_line(g);
}

static int
conf_expect(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, int type, const char *what)
{
	if (config_setting_type(s) == type)
		return 0;
	return conf_fail(ld, at, "expected %s, got %s", what,
	    conf_type_name(config_setting_type(s)));
}

/* Returns a scalar's value as text (a string's own, or written to buf), or
 * NULL when s is not a scalar. */
static const char *
conf_scalar_text(const config_setting_t *s, char *buf, size_t len)
{
	double d;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		return config_setting_get_string(s);
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(buf, len, "%lld", config_setting_get_int64(s));
		return buf;
	case CONFIG_TYPE_BOOL:
		return config_setting_get_bool(s) ? "true" : "false";
	case CONFIG_TYPE_FLOAT:
		/* The shortest text that reads back as the same double. */
		d = config_setting_get_float(s);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
		return buf;
	}
	return NULL;
}

static int
conf_strv_has(const struct conf_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return 1;
	return 0;
}

static int
conf_strv_add(struct conf_strv *v, const char *s)
{
	char **grown = realloc(v->v, (v->n + 1) * sizeof(*grown));

	if (grown == NULL)
		return -ENOMEM;
	v->v = grown;
	if ((v->v[v->n] = strdup(s)) == NULL)
		return -ENOMEM;
	v->n++;
	return 0;
}

static void
conf_strv_clear(struct conf_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

static void
conf_kvs_free(struct conf_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

/* Writes the values "a|b|c" as "a, b, c" to buf. */
static void
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

static int
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

static int
conf_get_string(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, const char **out)
{
	int rc;

	if ((rc = conf_expect(ld, s, at, CONFIG_TYPE_STRING, "a string")) != 0)
		return rc;
	*out = config_setting_get_string(s);
	return 0;
}

static int
conf_set_string(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, char **dst)
{
	conf_check_fn *check = k->type == CONF_DIR ? conf_check_dir : k->check;
	char why[CONF_TEXT_MAX];
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (*v == '\0')
		return conf_fail(ld, at, "must not be empty");
	if (check != NULL && check(v, why, sizeof(why)) != 0)
		return conf_fail(ld, at, "%s", why);
	if ((*dst = strdup(v)) == NULL)
		return conf_oom(ld);
	return 0;
}

static int
conf_set_int(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, void *dst)
{
	long long v;

	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return conf_fail(ld, at, "expected an integer, got %s",
		    conf_type_name(config_setting_type(s)));
	v = config_setting_get_int64(s);
	if (v < k->min || v > k->max)
		return conf_fail(ld, at, "%lld is out of range %lld..%lld", v,
		    k->min, k->max);
	if (k->type == CONF_INT64)
		*(int64_t *)dst = v;
	else
		*(int *)dst = (int)v;
	return 0;
}

/* A string among k->values, kept as a string, or as an enum by k->parse. */
static int
conf_set_enum(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, void *dst)
{
	char values[CONF_TEXT_MAX];
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (!conf_enum_has(k->values, v) ||
	    (k->parse != NULL && k->parse(v, dst) != 0)) {
		conf_list_values(k->values, values, sizeof(values));
		return conf_fail(ld, at, "\"%s\" is not one of: %s", v, values);
	}
	if (k->parse == NULL && (*(char **)dst = strdup(v)) == NULL)
		return conf_oom(ld);
	return 0;
}

static int
conf_set_byte(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, char *dst)
{
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (strlen(v) != 1)
		return conf_fail(ld, at, "must be exactly one byte, such as "
		    "\"\\t\" or \"\\x01\"");
	/* An escaped n, r or N would read back as newline, CR or NULL. */
	if (strchr("\n\r\\nrN", *v) != NULL)
		return conf_fail(ld, at, "cannot be a newline, carriage return, "
		    "backslash, n, r or N: Hive text escapes with those");
	*dst = *v;
	return 0;
}

static int
conf_set_list(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at,
    struct conf_strv *dst)
{
	char name[CONF_NAME_MAX + 16], why[CONF_TEXT_MAX];
	int n = config_setting_length(s);
	struct conf_at eat;
	const char *v;
	int rc;

	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return conf_fail(ld, at, "expected a list of strings "
		    "[ \"a\", \"b\" ], got %s",
		    conf_type_name(config_setting_type(s)));
	if (n < k->min)
		return conf_fail(ld, at, "must not be empty");
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s,
		    (unsigned)i);

		snprintf(name, sizeof(name), "%s[%d]", at->key, i);
		eat = conf_at_setting(e, name);
		if ((rc = conf_get_string(ld, e, &eat, &v)) != 0)
			return rc;
		if (k->check != NULL && k->check(v, why, sizeof(why)) != 0)
			return conf_fail(ld, &eat, "%s", why);
		if (conf_strv_has(dst, v))
			return conf_fail(ld, &eat, "\"%s\" is listed twice", v);
		if (conf_strv_add(dst, v) != 0)
			return conf_oom(ld);
	}
	return 0;
}

/* Writes "a, b, c" for the built-in UDTFs' names to buf. */
static void
conf_udtf_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; udtf_builtins[i] != NULL && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    i > 0 ? ", " : "", udtf_builtins[i]->name);
}

/* A UDTF name, or a list of them (a chain; one name for now). */
static int
conf_set_udtf(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, struct conf_strv *dst)
{
	char name[CONF_NAME_MAX + 16], names[CONF_TEXT_MAX];
	const config_setting_t *e = s;
	struct conf_at eat = *at;
	const char *v;
	int rc;

	if (config_setting_is_array(s) || config_setting_is_list(s)) {
		if (config_setting_length(s) == 0)
			return conf_fail(ld, at, "must name a UDTF");
		if (config_setting_length(s) > 1)
			return conf_fail(ld, at, "UDTF chains are not "
			    "supported yet; use one UDTF");
		e = config_setting_get_elem(s, 0);
		snprintf(name, sizeof(name), "%s[0]", at->key);
		eat = conf_at_setting(e, name);
	}
	if ((rc = conf_get_string(ld, e, &eat, &v)) != 0)
		return rc;
	if (udtf_builtin_find(v) == NULL) {
		conf_udtf_names(names, sizeof(names));
		return conf_fail(ld, &eat, "\"%s\" is not a built-in UDTF; "
		    "available: %s", v, names);
	}
	if (conf_strv_add(dst, v) != 0)
		return conf_oom(ld);
	return 0;
}

static int
conf_kv_add(struct conf_kv **kv, size_t *n, const char *key,
    const char *value, int line)
{
	struct conf_kv *grown = realloc(*kv, (*n + 1) * sizeof(*grown));

	if (grown == NULL)
		return -ENOMEM;
	*kv = grown;
	grown[*n].key = strdup(key);
	grown[*n].value = strdup(value);
	grown[*n].line = line;
	(*n)++; /* conf_free() frees what was copied */
	if (grown[*n - 1].key == NULL || grown[*n - 1].value == NULL)
		return -ENOMEM;
	return 0;
}

/* Turns an rdkafka member name into librdkafka's ('_' for '.') and
 * refuses the properties kedge sets itself. */
static int
conf_rdkafka_name(struct conf_loader *ld, const struct conf_at *at,
    char *name)
{
	size_t n = sizeof(conf_rdkafka_reserved) /
	    sizeof(conf_rdkafka_reserved[0]);

	for (char *p = name; *p != '\0'; p++)
		if (*p == '_')
			*p = '.';
	for (size_t i = 0; i < n; i++) {
		if (strcmp(name, conf_rdkafka_reserved[i].name) != 0)
			continue;
		if (conf_rdkafka_reserved[i].instead != NULL)
			return conf_fail(ld, at, "sets librdkafka's %s; use %s "
			    "instead", name, conf_rdkafka_reserved[i].instead);
		return conf_fail(ld, at, "sets librdkafka's %s, which kedge "
		    "manages", name);
	}
	return 0;
}

/* A group of key = scalar, kept as strings. */
static int
conf_set_kvs(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at,
    struct conf_kv **dst, size_t *n)
{
	char name[2 * CONF_NAME_MAX], key[CONF_NAME_MAX], buf[CONF_TEXT_MAX];
	struct conf_at mat;
	const char *value;
	int rc;

	if ((rc = conf_expect(ld, s, at, CONFIG_TYPE_GROUP,
	    "a group { key = value; }")) != 0)
		return rc;
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		    (unsigned)i);
		const char *mname = config_setting_name(m);

		snprintf(name, sizeof(name), "%s.%s", at->key, mname);
		mat = conf_at_setting(m, name);
		if ((value = conf_scalar_text(m, buf, sizeof(buf))) == NULL)
			return conf_fail(ld, &mat, "expected a string, number "
			    "or boolean, got %s",
			    conf_type_name(config_setting_type(m)));
		snprintf(key, sizeof(key), "%s", mname);
		if (k->type == CONF_RDKAFKA &&
		    (rc = conf_rdkafka_name(ld, &mat, key)) != 0)
			return rc;
		if (conf_kv_add(dst, n, key, value, mat.line) != 0)
			return conf_oom(ld);
	}
	return 0;
}

static int conf_walk(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base, unsigned char *seen);
static int conf_fill_defaults(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base,
    const unsigned char *seen);

static const struct udtf_key *
conf_udtf_key(const struct udtf_plugin *p, const char *name)
{
	for (const struct udtf_key *k = p->keys; k != NULL && k->name != NULL;
	    k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* Checks a table's udtf_config against its UDTF's keys and fills in the
 * defaults of those left out. */
static int
conf_check_udtf_config(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *t, size_t i)
{
	const struct udtf_plugin *p = udtf_builtin_find(t->udtf.v[0]);
	config_setting_t *g = config_setting_get_member(ts, "udtf_config");
	char name[2 * CONF_NAME_MAX], keys[CONF_TEXT_MAX] = "";
	const struct udtf_key *k;
	size_t used = 0;
	struct conf_at at;

	for (k = p->keys; k != NULL && k->name != NULL && used < sizeof(keys);
	    k++)
		used += (size_t)snprintf(keys + used, sizeof(keys) - used,
		    "%s%s", used > 0 ? ", " : "", k->name);
	for (int j = 0; g != NULL && j < config_setting_length(g); j++) {
		const config_setting_t *m = config_setting_get_elem(g,
		    (unsigned)j);
		const char *mname = config_setting_name(m);

		if (conf_udtf_key(p, mname) != NULL)
			continue;
		snprintf(name, sizeof(name), "tables[%zu].udtf_config.%s", i,
		    mname);
		at = conf_at_setting(m, name);
		if (keys[0] == '\0')
			return conf_fail(ld, &at, "UDTF %s takes no keys",
			    p->name);
		return conf_fail(ld, &at, "UDTF %s has no such key; its keys: "
		    "%s", p->name, keys);
	}
	for (k = p->keys; k != NULL && k->name != NULL; k++) {
		if (g != NULL && config_setting_get_member(g, k->name) != NULL)
			continue;
		snprintf(name, sizeof(name), "tables[%zu].udtf_config.%s", i,
		    k->name);
		at = conf_at_setting(ts, name);
		at.line = conf_line_of(ts, "udtf_config");
		if (k->default_value == NULL)
			return conf_fail(ld, &at, "required by the UDTF %s but "
			    "missing", p->name);
		if (conf_kv_add(&t->udtf_config, &t->n_udtf_config, k->name,
		    k->default_value, t->line) != 0)
			return conf_oom(ld);
	}
	return 0;
}

/* The checks of table i that span its keys, or tables before it. */
static int
conf_check_table(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *tables, size_t i)
{
	struct conf_table *t = &tables[i];
	int max = t->codec == CODEC_GZIP ? 9 : t->codec == CODEC_ZSTD ? 19 : 0;
	char name[CONF_NAME_MAX] = "";
	struct conf_at at = conf_at_setting(ts, name);

	for (size_t j = 0; j < i; j++) {
		if (strcmp(tables[j].name, t->name) != 0)
			continue;
		snprintf(name, sizeof(name), "tables[%zu].name", i);
		at.line = conf_line_of(ts, "name");
		return conf_fail(ld, &at, "\"%s\" is already the name of "
		    "tables[%zu] (line %d)", t->name, j, tables[j].line);
	}
	if (t->codec_level > max) {
		snprintf(name, sizeof(name), "tables[%zu].codec_level", i);
		at.line = conf_line_of(ts, "codec_level");
		if (max == 0)
			return conf_fail(ld, &at, "must be 0 with codec none");
		return conf_fail(ld, &at, "%d is out of range for %s: 0 (its "
		    "default) or 1..%d", t->codec_level,
		    t->codec == CODEC_GZIP ? "gzip" : "zstd", max);
	}
	return conf_check_udtf_config(ld, ts, t, i);
}

static int
conf_load_table(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *tables, size_t i)
{
	unsigned char seen[CONF_NKEYS] = { 0 };
	char name[32], shown[32];
	struct conf_at at;
	int rc;

	snprintf(name, sizeof(name), "tables[%zu]", i);
	snprintf(shown, sizeof(shown), "tables[%zu].", i);
	at = conf_at_setting(ts, name);
	if ((rc = conf_expect(ld, ts, &at, CONFIG_TYPE_GROUP,
	    "a group { name = ...; }")) != 0)
		return rc;
	tables[i].line = at.line;
	if ((rc = conf_walk(ld, ts, CONF_TABLE_PREFIX, shown, &tables[i],
	    seen)) != 0 ||
	    (rc = conf_fill_defaults(ld, ts, CONF_TABLE_PREFIX, shown,
	    &tables[i], seen)) != 0)
		return rc;
	return conf_check_table(ld, ts, tables, i);
}

static int
conf_set_tables(struct conf_loader *ld, config_setting_t *s,
    const struct conf_at *at, struct conf_table **dst, size_t *n)
{
	int len = config_setting_length(s);
	int rc;

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, at, "expected a list of groups "
		    "( { ... }, ... ), got %s",
		    conf_type_name(config_setting_type(s)));
	if (len == 0)
		return conf_fail(ld, at, "must hold at least one table");
	if ((*dst = calloc((size_t)len, sizeof(**dst))) == NULL)
		return conf_oom(ld);
	*n = (size_t)len;
	for (int i = 0; i < len; i++)
		if ((rc = conf_load_table(ld, config_setting_get_elem(s,
		    (unsigned)i), *dst, (size_t)i)) != 0)
			return rc;
	return 0;
}

/* Checks setting s against key k and stores its value in base. */
static int
conf_set_value(struct conf_loader *ld, const struct conf_key *k,
    config_setting_t *s, const struct conf_at *at, void *base)
{
	void *dst = (char *)base + k->offset;
	size_t *count = (size_t *)(void *)((char *)base + k->count_offset);

	switch (k->type) {
	case CONF_STRING:
	case CONF_DIR:
		return conf_set_string(ld, k, s, at, dst);
	case CONF_INT:
	case CONF_INT64:
		return conf_set_int(ld, k, s, at, dst);
	case CONF_ENUM:
		return conf_set_enum(ld, k, s, at, dst);
	case CONF_BYTE:
		return conf_set_byte(ld, s, at, dst);
	case CONF_STRING_LIST:
		return conf_set_list(ld, k, s, at, dst);
	case CONF_UDTF:
		return conf_set_udtf(ld, s, at, dst);
	case CONF_RDKAFKA:
	case CONF_UDTF_CONFIG:
		return conf_set_kvs(ld, k, s, at, dst, count);
	case CONF_TABLES:
		return conf_set_tables(ld, s, at, dst, count);
	}
	return -EINVAL;
}

static size_t
conf_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[CONF_NAME_MAX];

	if (lb >= CONF_NAME_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
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

/* An unknown key: suggests the nearest known one, or lists them. */
static int
conf_unknown(struct conf_loader *ld, const struct conf_at *at,
    const char *prefix, const char *name)
{
	char known[CONF_TEXT_MAX] = "", best[CONF_NAME_MAX] = "";
	char comp[CONF_NAME_MAX];
	size_t best_d = 3, used = 0;

	for (size_t i = 0; i < CONF_NKEYS; i++) {
		size_t d;

		if (conf_key_component(&conf_keys[i], prefix, comp,
		    sizeof(comp)) != 0 ||
		    conf_component_repeats(i, prefix, comp))
			continue;
		if ((d = conf_edit_distance(name, comp)) < best_d) {
			best_d = d;
			memcpy(best, comp, sizeof(best));
		}
		if (used < sizeof(known))
			used += (size_t)snprintf(known + used,
			    sizeof(known) - used, "%s%s", used > 0 ? ", " : "",
			    comp);
	}
	if (best[0] != '\0')
		return conf_fail(ld, at, "unknown key; did you mean \"%s\"?",
		    best);
	return conf_fail(ld, at, "unknown key; the keys here are %s", known);
}

/* Pass one: every setting of group g, in file order.  prefix is g's path
 * in the key table ("" at the root, "tables." in a table), shown how its
 * keys are named in errors ("tables[2]."). */
static int
conf_walk(struct conf_loader *ld, config_setting_t *g, const char *prefix,
    const char *shown, void *base, unsigned char *seen)
{
	char path[CONF_NAME_MAX + 1], name[CONF_NAME_MAX + 1];
	const struct conf_key *k;
	struct conf_at at;
	int rc;

	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
		const char *mname = config_setting_name(m);

		snprintf(path, CONF_NAME_MAX, "%s%s", prefix, mname);
		snprintf(name, CONF_NAME_MAX, "%s%s", shown, mname);
		at = conf_at_setting(m, name);
		if ((k = conf_key_find(path)) != NULL) {
			seen[k - conf_keys] = 1;
			rc = conf_set_value(ld, k, m, &at, base);
		} else if (conf_is_group_path(path)) {
			rc = conf_expect(ld, m, &at, CONFIG_TYPE_GROUP,
			    "a group { ... }");
			strcat(path, ".");
			strcat(name, ".");
			if (rc == 0)
				rc = conf_walk(ld, m, path, name, base, seen);
		} else
			rc = conf_unknown(ld, &at, prefix, mname);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
conf_set_default(struct conf_loader *ld, const struct conf_key *k,
    const struct conf_at *at, void *base)
{
	char text[CONF_TEXT_MAX];
	config_setting_t *s;
	config_t d;
	int rc;

	config_init(&d);
	if (k->default_fn != NULL) {
		if ((rc = k->default_fn(text, sizeof(text))) != 0) {
			rc = conf_fail(ld, at, "has no default here (%s); set "
			    "it", strerror(-rc));
			goto done;
		}
		s = config_setting_add(config_root_setting(&d), "v",
		    CONFIG_TYPE_STRING);
		if (s == NULL || !config_setting_set_string(s, text)) {
			rc = conf_oom(ld);
			goto done;
		}
	} else {
		snprintf(text, sizeof(text), "v = %s;", k->default_text);
		if (!config_read_string(&d, text) ||
		    (s = config_lookup(&d, "v")) == NULL) {
			rc = conf_fail(ld, at, "the default %s does not parse",
			    k->default_text);
			goto done;
		}
	}
	rc = conf_set_value(ld, k, s, at, base);
done:
	config_destroy(&d);
	return rc;
}

/* Pass two: the keys of g's scope the file left out. */
static int
conf_fill_defaults(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base,
    const unsigned char *seen)
{
	unsigned scope = prefix[0] != '\0' ? CONF_IN_TABLE : 0;
	char name[CONF_NAME_MAX];
	struct conf_at at;
	int rc;

	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];
		const char *rel = k->path + strlen(prefix);

		if ((k->flags & CONF_IN_TABLE) != scope || seen[i])
			continue;
		snprintf(name, sizeof(name), "%s%s", shown, rel);
		at = conf_at_setting(g, name);
		at.line = conf_line_of(g, rel);
		if (k->flags & CONF_REQUIRED)
			return conf_fail(ld, &at, "required key is missing");
		if ((k->default_text != NULL || k->default_fn != NULL) &&
		    (rc = conf_set_default(ld, k, &at, base)) != 0)
			return rc;
	}
	return 0;
}

static int
conf_table_reads(const struct conf *c, const char *topic)
{
	for (size_t i = 0; i < c->n_tables; i++)
		if (conf_strv_has(&c->tables[i].topics, topic))
			return 1;
	return 0;
}

/* kafka.topics, when given, is exactly what the tables read; when left
 * out, it is the union of their topics. */
static int
conf_check_topics(struct conf_loader *ld)
{
	config_setting_t *list = config_lookup(&ld->cfg, "kafka.topics");
	struct conf *c = ld->c;
	char name[CONF_NAME_MAX];
	struct conf_at at;

	for (size_t i = 0; i < c->n_tables; i++) {
		const struct conf_strv *topics = &c->tables[i].topics;

		for (size_t j = 0; j < topics->n; j++) {
			if (conf_strv_has(&c->kafka.topics, topics->v[j]))
				continue;
			if (list == NULL) {
				if (conf_strv_add(&c->kafka.topics,
				    topics->v[j]) != 0)
					return conf_oom(ld);
				continue;
			}
			at = conf_at_setting(list, "kafka.topics");
			return conf_fail(ld, &at, "does not list \"%s\", a "
			    "topic of table \"%s\"; add it, or leave "
			    "kafka.topics out to read the tables' topics",
			    topics->v[j], c->tables[i].name);
		}
	}
	for (size_t j = 0; list != NULL && j < c->kafka.topics.n; j++) {
		if (conf_table_reads(c, c->kafka.topics.v[j]))
			continue;
		snprintf(name, sizeof(name), "kafka.topics[%zu]", j);
		at = conf_at_setting(config_setting_get_elem(list, (unsigned)j),
		    name);
		return conf_fail(ld, &at, "\"%s\" feeds no table: its records "
		    "would be consumed and dropped", c->kafka.topics.v[j]);
	}
	return 0;
}

/* Compares two absolute paths, ignoring repeated and trailing '/'. */
static int
conf_path_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (a[0] == '/' && (a[1] == '/' || a[1] == '\0'))
			a++;
		while (b[0] == '/' && (b[1] == '/' || b[1] == '\0'))
			b++;
		if (*a != *b)
			return 0;
		if (*a == '\0')
			return 1;
	}
}

static int
conf_check_dirs(struct conf_loader *ld)
{
	const char *spool = ld->c->output.spool_dir;
	const char *local = ld->c->output.local_dir;
	config_setting_t *root = config_root_setting(&ld->cfg);
	struct conf_at at = conf_at_setting(root, "output.local_dir");
	struct stat a, b;

	at.line = conf_line_of(root, "output.local_dir");

	if (stat(spool, &a) == 0 && stat(local, &b) == 0 ?
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino :
	    conf_path_eq(spool, local))
		return conf_fail(ld, &at, "%s is output.spool_dir too; use "
		    "two directories", local);
	return 0;
}

static int
conf_read(struct conf_loader *ld)
{
	const char *path = ld->c->path;
	struct stat st;
	int e = 0;
	FILE *f;

	/* libconfig only says "file I/O error"; find the cause first. */
	if ((f = fopen(path, "r")) == NULL)
		e = errno;
	else {
		if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
			e = EISDIR;
		fclose(f);
	}
	errno = 0;
	if (e == 0 && config_read_file(&ld->cfg, path))
		return 0;
	if (e != 0 || config_error_type(&ld->cfg) == CONFIG_ERR_FILE_IO) {
		e = e != 0 ? e : errno != 0 ? errno : EIO;
		snprintf(ld->err, ld->errlen, "%s: cannot read: %s", path,
		    strerror(e));
		return -e;
	}
	snprintf(ld->err, ld->errlen, "%s:%d: syntax error: %s",
	    config_error_file(&ld->cfg) != NULL ?
	    config_error_file(&ld->cfg) : path,
	    config_error_line(&ld->cfg), config_error_text(&ld->cfg));
	return -EINVAL;
}

struct conf *
conf_load(const char *path, char *err, size_t errlen)
{
	unsigned char seen[CONF_NKEYS] = { 0 };
	struct conf_loader ld = { .err = err, .errlen = errlen };
	config_setting_t *root;
	int rc = -ENOMEM;

	config_init(&ld.cfg);
	if ((ld.c = calloc(1, sizeof(*ld.c))) == NULL ||
	    (ld.c->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto done;
	}
	if ((rc = conf_read(&ld)) != 0)
		goto done;
	root = config_root_setting(&ld.cfg);
	if ((rc = conf_walk(&ld, root, "", "", ld.c, seen)) != 0 ||
	    (rc = conf_fill_defaults(&ld, root, "", "", ld.c, seen)) != 0 ||
	    (rc = conf_check_topics(&ld)) != 0)
		goto done;
	rc = conf_check_dirs(&ld);
done:
	config_destroy(&ld.cfg);
	if (rc != 0) {
		conf_free(ld.c);
		return NULL;
	}
	return ld.c;
}

void
conf_free(struct conf *c)
{
	if (c == NULL)
		return;
	free(c->path);
	free(c->kafka.brokers);
	free(c->kafka.group_id);
	conf_strv_clear(&c->kafka.topics);
	free(c->kafka.protocol);
	free(c->kafka.start);
	conf_kvs_free(c->kafka.rdkafka, c->kafka.n_rdkafka);
	for (size_t i = 0; i < c->n_tables; i++) {
		struct conf_table *t = &c->tables[i];

		free(t->name);
		conf_strv_clear(&t->topics);
		conf_strv_clear(&t->udtf);
		conf_kvs_free(t->udtf_config, t->n_udtf_config);
		free(t->event_time);
	}
	free(c->tables);
	free(c->output.spool_dir);
	free(c->output.target);
	free(c->output.local_dir);
	free(c->output.timezone);
	free(c->output.host);
	free(c->log.level);
	free(c);
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
		[CONF_ENUM] = "one of:",
		[CONF_BYTE] = "one-byte string",
		[CONF_STRING_LIST] = "list of strings",
		[CONF_UDTF] = "UDTF name",
		[CONF_RDKAFKA] = "group",
		[CONF_UDTF_CONFIG] = "group",
		[CONF_TABLES] = "list of groups",
	};
	char values[CONF_NAME_MAX];

	if (k->type == CONF_INT || k->type == CONF_INT64)
		snprintf(buf, len, "%s %lld..%lld", names[k->type], k->min,
		    k->max);
	else if (k->type == CONF_ENUM) {
		conf_list_values(k->values, values, sizeof(values));
		snprintf(buf, len, "%s %s", names[k->type], values);
	} else
		snprintf(buf, len, "%s", names[k->type]);
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
				snprintf(dflt, sizeof(dflt), "`%s`",
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
	    "`agent/config.c`.\n", out);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		conf_key_component(k, "", comp, sizeof(comp));
		if (strcmp(comp, section) != 0) {
			memcpy(section, comp, sizeof(section));
			fprintf(out, "\n## %s\n\n| key | type | default | "
			    "description |\n|---|---|---|---|\n", section);
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
		conf_md_cell(out, k->description);
		fputc('\n', out);
	}
	fputc('\n', out);
	conf_write_udtfs(out);
}
