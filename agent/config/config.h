/*
 * config: /etc/kedge/kedge.conf, in libconfig syntax, parsed against one
 * table of keys (confkeys.c: conf_keys[]) that also prints the reference in
 * docs/config.md.  A parsed config is a plain value: the structs below are
 * public because every part of the agent reads them.
 *
 * Every error is one sentence "FILE:LINE: key: what is wrong".
 */
#ifndef KEDGE_CONFIG_H
#define KEDGE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/write/format.h"
#include "lib/codec.h"

#define CONF_DEFAULT_PATH "/etc/kedge/kedge.conf"
/* A table name's bytes at most: Hive's bound, and well within a file
 * name (NAME_MAX) with its journal's and sidecar's dots and suffixes. */
#define CONF_TABLE_NAME_MAX 128

/* Where a key is: a file of the configuration (the main file or one it
 * @includes) and a line of it.  file belongs to the struct conf. */
struct conf_loc {
	const char *file;
	int line;
};

/* A key and value given as strings (rdkafka pass-through, udtf_config). */
struct conf_kv {
	char *key;
	char *value;
	struct conf_loc at;
};

struct conf_strv {
	char **v;
	size_t n;
};

struct udtf_plugin;

/* One UDTF of a table's chain. */
struct conf_stage {
	char *spec;                      /* a built-in's name or "plugin:PATH" */
	const struct udtf_plugin *udtf;  /* what spec names; never freed */
	struct conf_kv *params;          /* its udtf_config, defaults filled in */
	size_t n_params;
	struct conf_loc at;              /* its name under udtf */
	struct conf_loc config_at;       /* its udtf_config, or at */
};

struct conf_table {
	char *name;
	struct conf_strv topics;
	struct conf_stage *udtf;     /* the chain: each feeds the next */
	size_t n_udtf;
	int64_t max_rows;            /* per record */
	int64_t max_bytes;           /* of row values, per record */
	char *event_time;            /* a column name, or "kafka_timestamp" */
	enum format_kind format;
	char field_delimiter;
	enum codec_kind codec;
	int codec_level;
	struct conf_loc at;          /* where the table's group starts */
};

struct conf_where;

struct conf {
	char *path;
	struct conf_strv files;          /* path, then each file @included */
	struct conf_where *where;        /* conf_where()'s: every key set */
	size_t n_where, where_cap;

	struct {
		char *brokers;
		char *group_id;           /* NULL: static assignment */
		struct conf_strv topics;  /* union of the tables' when omitted */
		char *protocol;
		char *service_name;       /* the brokers' Kerberos service */
		char *ca_file;            /* NULL: the system's CAs */
		char *cert_file;
		char *key_file;
		char *crl_file;
		char *start;              /* "earliest" or "latest" */
		struct conf_kv *rdkafka;  /* librdkafka names, with dots */
		size_t n_rdkafka;
	} kafka;

	struct conf_table *tables;
	size_t n_tables;

	struct {
		char *spool_dir;
		char *target;             /* "local" or "webhdfs" */
		char *local_dir;
		struct {
			char *url;        /* NULL unless target webhdfs */
			char *base_dir;
			char *auth;       /* "kerberos" or "simple" */
			char *user;       /* simple auth's user.name */
			char *ca_file;
			int connect_timeout;
			int timeout;
		} webhdfs;
		char *timezone;
		char *host;               /* in part file names; gethostname() */
		struct {
			int64_t max_bytes;
			int max_age;      /* seconds */
			int inactive;     /* seconds */
			int max_open_files; /* per table, and _rejects */
			int max_parked_files; /* the same */
		} roll;
		struct {
			int past;         /* seconds before now */
			int future;       /* seconds after now */
		} event_window;
		struct {
			int64_t row_group_bytes;
			int64_t page_bytes;
			int64_t dict_bytes;
		} parquet;
		struct {
			enum format_kind format;
			enum codec_kind codec;
			int64_t max_raw_bytes; /* of a record, per row */
		} rejects;
		struct conf_strv on_complete; /* argv; n == 0: no command */
		int on_complete_timeout;  /* seconds */
	} output;

	struct {
		char *principal;          /* NULL: no Kerberos */
		char *keytab;
		int use_ticket_cache;
		double renew_at;          /* fraction of the lifetime */
	} kerberos;

	struct {
		int64_t max_bytes;        /* then consumption pauses */
		int64_t min_free_bytes;   /* on its file system, likewise */
	} spool;

	struct {
		int interval;             /* seconds */
	} checkpoint;

	struct {
		int enabled;              /* 0: no manifests, no _SUCCESS */
		int allowed_lateness;     /* seconds */
		int idle_timeout;         /* seconds */
		int rescan;               /* seconds */
	} completion;

	struct {
		int enabled;
		char *listen;             /* ADDRESS:PORT */
		int stall_timeout;        /* seconds */
	} metrics;

	struct {
		char *level;
		char *format;             /* "text" or "json" */
	} log;
};

/* One thing wrong (or worth a warning) in a configuration: where, which
 * key ("" when none is to blame), and the sentence. */
struct conf_diag {
	char *file;
	int line;                 /* 0: the file as a whole */
	char *key;
	char *message;
};

/* Everything a check of a configuration found. */
struct conf_report {
	struct conf_diag *errors;
	size_t nerrors, errors_cap;
	struct conf_diag *warnings;
	size_t nwarnings, warnings_cap;
	int oom;                  /* a diagnostic was lost to memory */
};

/* Parses and validates the file at path.  Returns the config, or NULL with
 * "FILE:LINE: key: what is wrong" in err, the first of the errors
 * conf_load_all() would find. */
struct conf *conf_load(const char *path, char *err, size_t errlen);

/* Parses and validates the file at path, adding every error (and warning)
 * it finds to rep.  Returns the config when the file could be read and
 * parsed, even with errors in its keys: then a key that was wrong holds no
 * value (NULL or 0), and only a checker that looks at rep may read the
 * config, skipping what conf_report_blames() blames.  Returns NULL when
 * the file could not be read or parsed (the reason in rep). */
struct conf *conf_load_all(const char *path, struct conf_report *rep);
void conf_free(struct conf *c); /* accepts NULL */

/* Where the key shown as key ("kerberos.keytab", "tables[1].event_time")
 * was set, or where its default was filled in: the file and line of it or
 * of its group; {c->path, 0} for a key the loader did not see. */
struct conf_loc conf_where(const struct conf *c, const char *key);

/* Adds a diagnostic to rep (an error, or a warning when warning is 1):
 * at (NULL: the file as a whole, file NULL), key ("" or NULL: none), and
 * the sentence fmt makes.  Out of memory, rep->oom is set. */
void conf_report_add(struct conf_report *rep, int warning,
    const struct conf_loc *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Adds the sentence of another module, which starts "FILE:LINE: key: " when
 * FILE is one of c's files, as a diagnostic split into its parts; a
 * sentence that does not start so is blamed on c's file as a whole. */
void conf_report_sentence(struct conf_report *rep, int warning,
    const struct conf *c, const char *sentence);

/* Returns 1 when an error of rep is about the key shown as key or about a
 * key under it ("output" blames "output.timezone"; "tables[1]" blames
 * "tables[1].udtf" but not "tables[10]"), else 0. */
int conf_report_blames(const struct conf_report *rep, const char *key);

/* Writes d as "FILE:LINE: key: message" into out ("FILE: key: message"
 * without a line, "FILE:LINE: message" without a key). */
void conf_diag_text(const struct conf_diag *d, char *out, size_t outlen);

/* Writes each error as a line "FILE:LINE: key: message", then each warning
 * as "warning: FILE:LINE: key: message". */
void conf_report_write(const struct conf_report *rep, FILE *out);

/* Writes the first error as "FILE:LINE: key: message" into err (""
 * when there is none). */
void conf_report_first(const struct conf_report *rep, char *err,
    size_t errlen);

/* Returns rep as one JSON document, {"ok": true|false, "errors": [{"file",
 * "line", "key", "message"}...], "warnings": [...]}, "ok" being whether it
 * holds no error; the caller frees it.  NULL: out of memory. */
char *conf_report_json(const struct conf_report *rep);

/* Frees what rep holds and zeroes it. */
void conf_report_clear(struct conf_report *rep);

/* The entry of kafka.rdkafka for the librdkafka property key (its name
 * with dots), the last one when it is given twice, or NULL. */
const struct conf_kv *conf_rdkafka_find(const struct conf *c,
    const char *key);

/* The index in c->tables of the table named name, or c->n_tables when
 * there is none. */
size_t conf_table_find(const struct conf *c, const char *name);

/* Writes the key reference (docs/config.md) as Markdown. */
void conf_write_reference(FILE *out);

/* The number of keys in the key table, and the path of key i ("kafka.brokers",
 * "tables.udtf_config", ...; NULL when i is out of range). */
size_t conf_key_count(void);
const char *conf_key_path(size_t i);

/* Returns 1 when SIGHUP applies a change of the key whose path is path
 * (as conf_diff names it), 0 when the change needs a restart or there
 * is no such key. */
int conf_key_reloads(const char *path);

#endif /* KEDGE_CONFIG_H */
