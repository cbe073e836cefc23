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

#include "agent/write/codec.h"
#include "agent/write/format.h"

#define CONF_DEFAULT_PATH "/etc/kedge/kedge.conf"
/* A table name's bytes at most: Hive's bound, and well within a file
 * name (NAME_MAX) with its journal's and sidecar's dots and suffixes. */
#define CONF_TABLE_NAME_MAX 128

/* A key and value given as strings (rdkafka pass-through, udtf_config). */
struct conf_kv {
	char *key;
	char *value;
	int line;
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
	int line;                        /* of its name under udtf */
	int config_line;                 /* of its udtf_config, or line */
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
	int line;                    /* where the table's group starts */
};

struct conf {
	char *path;

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
	} metrics;

	struct {
		char *level;
	} log;
};

/* Parses and validates the file at path.  Returns the config, or NULL with
 * "FILE:LINE: key: what is wrong" in err. */
struct conf *conf_load(const char *path, char *err, size_t errlen);
void conf_free(struct conf *c); /* accepts NULL */

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
