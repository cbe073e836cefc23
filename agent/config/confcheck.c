/*
 * confcheck: the checks of a loaded config that span several keys: those
 * within a table, once its keys are set, and then those across the file
 * (the tables' topics against kafka.topics, output.target against the
 * keys it needs, the names that become file names), the loader's last
 * pass.  Each error names the key to change; a key whose own value was
 * refused holds none, and the checks that read it are left out.
 */
#include "agent/config/config_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/config/confkeys.h"
#include "agent/write/spool.h"
#include "agent/write/writer.h"

/* The checks of table i that span its keys, or tables before it. */
int
conf_check_table(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *tables, size_t i)
{
	struct conf_table *t = &tables[i];
	char name[CONF_NAME_MAX] = "";
	struct conf_at at;
	int max;

	/* Parquet's codec is the ecosystem's default unless one is given */
	if (t->format == FORMAT_PARQUET &&
	    config_setting_lookup(ts, "codec") == NULL)
		t->codec = CODEC_SNAPPY;
	if (t->codec == CODEC_SNAPPY && t->format != FORMAT_PARQUET) {
		snprintf(name, sizeof(name), "tables[%zu].codec", i);
		at = conf_at_of(ld, ts, "codec", name);
		return conf_fail(ld, &at, "snappy is for format parquet only; "
		    "format %s takes none, gzip or zstd",
		    format_kind_name(t->format));
	}
	max = t->codec == CODEC_GZIP ? 9 : t->codec == CODEC_ZSTD ? 19 : 0;

	for (size_t j = 0; j < i; j++) {
		if (tables[j].name == NULL || strcmp(tables[j].name, t->name) != 0)
			continue;
		snprintf(name, sizeof(name), "tables[%zu].name", i);
		at = conf_at_of(ld, ts, "name", name);
		return conf_fail(ld, &at, "\"%s\" is already the name of "
		    "tables[%zu] (line %d)", t->name, j, tables[j].at.line);
	}
	if (t->codec_level > max) {
		snprintf(name, sizeof(name), "tables[%zu].codec_level", i);
		at = conf_at_of(ld, ts, "codec_level", name);
		if (max == 0)
			return conf_fail(ld, &at, "must be 0 with codec %s",
			    codec_kind_name(t->codec));
		return conf_fail(ld, &at, "%d is out of range for %s: 0 (its "
		    "default) or 1..%d", t->codec_level,
		    t->codec == CODEC_GZIP ? "gzip" : "zstd", max);
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
int
conf_check_topics(struct conf_loader *ld)
{
	config_setting_t *list = config_lookup(&ld->cfg, "kafka.topics");
	struct conf *c = ld->c;
	char name[CONF_NAME_MAX];
	struct conf_at at;
	int rc = 0;

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
			at = conf_at_setting(ld, list, "kafka.topics");
			rc = conf_fail(ld, &at, "does not list \"%s\", a "
			    "topic of table \"%s\"; add it, or leave "
			    "kafka.topics out to read the tables' topics",
			    topics->v[j], c->tables[i].name != NULL ?
			    c->tables[i].name : "?");
		}
	}
	for (size_t j = 0; list != NULL && j < c->kafka.topics.n; j++) {
		if (conf_table_reads(c, c->kafka.topics.v[j]))
			continue;
		snprintf(name, sizeof(name), "kafka.topics[%zu]", j);
		at = conf_at_setting(ld, config_setting_get_elem(list,
		    (unsigned)j), name);
		rc = conf_fail(ld, &at, "\"%s\" feeds no table: its records "
		    "would be consumed and dropped", c->kafka.topics.v[j]);
	}
	return rc;
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
	struct conf_at at = conf_at_of(ld, root, "output.local_dir",
	    "output.local_dir");
	struct stat a, b;

	if (spool == NULL || local == NULL)
		return 0;
	if (stat(spool, &a) == 0 && stat(local, &b) == 0 ?
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino :
	    conf_path_eq(spool, local))
		return conf_fail(ld, &at, "%s is output.spool_dir too; use "
		    "two directories", local);
	return 0;
}

/* What output.target needs of other keys. */
int
conf_check_target(struct conf_loader *ld)
{
	const struct conf *c = ld->c;
	config_setting_t *root = config_root_setting(&ld->cfg);
	struct conf_at at;

	if (c->output.target == NULL)
		return 0;
	if (strcmp(c->output.target, "webhdfs") != 0)
		return conf_check_dirs(ld);
	at = conf_at_of(ld, root, "output.target", "output.target");
	if (c->output.webhdfs.url == NULL &&
	    !conf_report_blames(ld->rep, "output.webhdfs.url"))
		return conf_fail(ld, &at, "\"webhdfs\" needs output.webhdfs.url");
	if (c->output.webhdfs.auth != NULL &&
	    strcmp(c->output.webhdfs.auth, "kerberos") == 0 &&
	    c->kerberos.principal == NULL &&
	    !conf_report_blames(ld->rep, "kerberos.principal")) {
		at = conf_at_of(ld, root, "output.webhdfs.auth",
		    "output.webhdfs.auth");
		return conf_fail(ld, &at, "\"kerberos\" (the default) needs "
		    "kerberos.principal and its keytab; for a cluster without "
		    "security set output.webhdfs.auth = \"simple\"");
	}
	return 0;
}

/* A topic of a table, at at ("tables[0].topics[1]"), made into part
 * files in format and codec (what's: whose files they are): their longest
 * file name must fit in NAME_MAX, or kedge stops at the topic's first
 * record with "File name too long". */
static int
conf_check_name(struct conf_loader *ld, const char *topic,
    const struct conf_at *at, const char *what, enum format_kind format,
    enum codec_kind codec)
{
	const char *host = ld->c->output.host;
	size_t longest = writer_name_longest(topic, host, format, codec);
	/* what the name holds besides the topic and the host */
	size_t others = longest - strlen(topic) - strlen(host);
	char fix[256];

	if (longest <= NAME_MAX)
		return 0;
	if (others + strlen(topic) + 1 <= NAME_MAX)
		snprintf(fix, sizeof(fix), "shorten output.host (\"%s\") to %zu "
		    "bytes or fewer", host, NAME_MAX - others - strlen(topic));
	else
		snprintf(fix, sizeof(fix), "no output.host leaves room: kedge "
		    "can land topics of up to %zu bytes", NAME_MAX - others - 1);
	return conf_fail(ld, at, "%s files for this topic would have names of "
	    "up to %zu bytes (\".<topic>+<partition>+<offset>+<host>.%s%s%s"
	    ".journal\"), over the %d a file name may have: %s", what, longest,
	    format_kind_ext(format), format_codec_ext(format, codec),
	    format == FORMAT_PARQUET ? SPOOL_ROWS_EXT : "", NAME_MAX, fix);
}

int
conf_check_names(struct conf_loader *ld)
{
	const struct conf *c = ld->c;
	config_setting_t *list;
	char name[CONF_NAME_MAX];
	struct conf_at at;
	int rc = 0, r;

	if (c->output.host == NULL)
		return 0;
	for (size_t i = 0; i < c->n_tables; i++) {
		const struct conf_table *t = &c->tables[i];

		snprintf(name, sizeof(name), "tables[%zu]", i);
		if (conf_report_blames(ld->rep, name))
			continue;
		list = config_setting_get_member(config_setting_get_elem(
		    config_lookup(&ld->cfg, "tables"), (unsigned)i), "topics");
		for (size_t j = 0; list != NULL && j < t->topics.n; j++) {
			snprintf(name, sizeof(name), "tables[%zu].topics[%zu]",
			    i, j);
			at = conf_at_setting(ld, config_setting_get_elem(list,
			    (unsigned)j), name);
			if ((r = conf_check_name(ld, t->topics.v[j], &at,
			    "the table's", t->format, t->codec)) == 0)
				r = conf_check_name(ld, t->topics.v[j], &at,
				    "the rejects table's",
				    c->output.rejects.format,
				    c->output.rejects.codec);
			rc = r != 0 ? r : rc;
		}
	}
	return rc;
}
