/*
 * config_int: what config.c (the loader: the file read with libconfig,
 * walked against the key table, the defaults filled in) shares with
 * confcheck.c (the checks that span several keys) and confvalue.c (the
 * lists a struct conf holds, and freeing it).  Private to the loader: the
 * rest of kedge sees only config.h.
 */
#ifndef KEDGE_CONFIG_INT_H
#define KEDGE_CONFIG_INT_H

#include <stddef.h>

#include <libconfig.h>

#include "agent/config/config.h"

/* Where an error points: "FILE:LINE: key: ...". */
struct conf_at {
	const char *file;
	int line;
	const char *key;
};

/* One load of a file: libconfig's reading of it, the config being built,
 * and where the error sentence goes. */
struct conf_loader {
	config_t cfg;
	struct conf *c;
	char *err;
	size_t errlen;
};

/*
 * The loader's errors and lines (config.c).
 */

/* Writes "FILE:LINE: key: " and the rest to ld->err, FILE being at->file
 * or, when that is NULL, the config's path; returns -EINVAL. */
int conf_fail(struct conf_loader *ld, const struct conf_at *at,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes "PATH: out of memory" to ld->err; returns -ENOMEM. */
int conf_oom(struct conf_loader *ld);

/* Where an error about setting s points: its file and line (1 for the
 * root), named key. */
struct conf_at conf_at_setting(const config_setting_t *s, const char *key);

/* Returns the line of rel ("webhdfs.url") under g, or of its nearest
 * enclosing group that is there, or of g itself (1 for the file's root). */
int conf_line_of(config_setting_t *g, const char *rel);

/*
 * The checks that span several keys (confcheck.c).  Each returns 0, or
 * -EINVAL (-ENOMEM) with the sentence in ld->err.
 */

/* Table i's, once its keys are set and its defaults filled in: its codec
 * against its format (parquet's default codec, snappy, is set here), the
 * codec's level, its name against those of the tables before it. */
int conf_check_table(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *tables, size_t i);

/* kafka.topics, when given, is exactly what the tables read; when left
 * out, it becomes the union of their topics. */
int conf_check_topics(struct conf_loader *ld);

/* What output.target needs of other keys: webhdfs its URL, and with
 * Kerberos a principal; local a local_dir that is not the spool_dir. */
int conf_check_target(struct conf_loader *ld);

/*
 * The lists a struct conf holds (confvalue.c); conf_free() frees them.
 */

/* Returns 1 when v holds the string s, else 0. */
int conf_strv_has(const struct conf_strv *v, const char *s);

/* Appends a copy of s to v.  Returns 0 or -ENOMEM. */
int conf_strv_add(struct conf_strv *v, const char *s);

/* Appends a copy of key and value, at line, to the array *kv of *n.
 * Returns 0 or -ENOMEM; on -ENOMEM the entry may be counted with a NULL
 * half, which conf_free() frees as it is. */
int conf_kv_add(struct conf_kv **kv, size_t *n, const char *key,
    const char *value, int line);

/* Appends a stage of a UDTF chain, a copy of spec naming udtf, at line,
 * with no params yet, to the array *v of *n.  Returns 0 or -ENOMEM. */
int conf_stage_add(struct conf_stage **v, size_t *n, const char *spec,
    const struct udtf_plugin *udtf, int line);

#endif /* KEDGE_CONFIG_INT_H */
