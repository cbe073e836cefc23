/*
 * config_int: what config.c (the loader: the file read with libconfig,
 * walked against the key table, the defaults filled in) shares with
 * confsrc.c (the text libconfig reads, @includes spliced in),
 * confcheck.c (the checks that span several keys), confvalue.c (the
 * lists a struct conf holds, and freeing it) and confreport.c (the
 * diagnostics).  Private to the loader: the rest of kedge sees only
 * config.h.
 */
#ifndef KEDGE_CONFIG_INT_H
#define KEDGE_CONFIG_INT_H

#include <stddef.h>

#include <libconfig.h>

#include "agent/config/config.h"
#include "lib/buf.h"

/* Where an error points: "FILE:LINE: key: ...". */
struct conf_at {
	const char *file;
	int line;
	const char *key;
};

/* conf_where()'s entries: each key the loader set, and where. */
struct conf_where {
	char *key;
	struct conf_loc at;
};

/* A run of lines of the text libconfig reads that come from one file:
 * line first of the text is line from of file. */
struct conf_seg {
	const char *file;     /* one of the config's files */
	int first;
	int from;
};

/* The text libconfig reads (confsrc.c): the main file with each @include
 * spliced in, nginx's single-quoted strings turned into libconfig's, and
 * the integers past 32 bits marked 64-bit; and where each of its lines
 * comes from. */
struct conf_src {
	struct buf text;
	struct conf_seg *segs;
	size_t nsegs, segs_cap;
	struct conf_loc runs_on;  /* the first string that held a line end */
};

/* One load of a file: libconfig's reading of it, the config being built,
 * and where the diagnostics go. */
struct conf_loader {
	config_t cfg;
	struct conf_src src;
	struct conf *c;
	struct conf_report *rep;
};

/*
 * The loader's errors and lines (config.c).
 */

/* Adds the error "FILE:LINE: key: " and the rest to ld->rep, FILE being
 * at->file or, when that is NULL, the config's path; returns -EINVAL. */
int conf_fail(struct conf_loader *ld, const struct conf_at *at,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Adds "PATH: out of memory" to ld->rep; returns -ENOMEM. */
int conf_oom(struct conf_loader *ld);

/* Where an error about setting s points: its file and line (line 1 of the
 * main file for the root), named key. */
struct conf_at conf_at_setting(struct conf_loader *ld,
    const config_setting_t *s, const char *key);

/* Where an error about rel ("webhdfs.url") under g points, named key: rel,
 * or its nearest enclosing group that is there, or g itself. */
struct conf_at conf_at_of(struct conf_loader *ld, config_setting_t *g,
    const char *rel, const char *key);

/*
 * The text libconfig reads (confsrc.c).
 */

/* Reads ld->c->path into ld->src, adding each file it reads to
 * ld->c->files.  Returns 0, or -EINVAL (-ENOMEM) with the error in
 * ld->rep: a file that cannot be read, an @include that cannot, a string,
 * comment or bracket never closed, a size written without its quotes. */
int conf_src_read(struct conf_loader *ld);

/* Adds the syntax error what, at at, to ld->rep, with hint (NULL: none)
 * after it; when a string ran on past its line before at
 * (ld->src.runs_on), the error is that string's, most likely where a
 * quote went missing, which made every quote after it pair with the wrong
 * one.  Returns -EINVAL. */
int conf_src_syntax(struct conf_loader *ld, struct conf_loc at,
    const char *what, const char *hint);

/* Where line (of ld->src's text) comes from. */
struct conf_loc conf_src_where(const struct conf_loader *ld, int line);

void conf_src_clear(struct conf_src *s);

/*
 * The checks that span several keys (confcheck.c).  Each adds its errors
 * to ld->rep and returns 0, -EINVAL or -ENOMEM.
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

/* Each topic of each table, and of the rejects table, against the longest
 * file name kedge makes from it with output.host (NAME_MAX). */
int conf_check_names(struct conf_loader *ld);

/*
 * The lists a struct conf holds (confvalue.c); conf_free() frees them.
 */

/* Returns 1 when v holds the string s, else 0. */
int conf_strv_has(const struct conf_strv *v, const char *s);

/* Appends a copy of s to v.  Returns 0 or -ENOMEM. */
int conf_strv_add(struct conf_strv *v, const char *s);

/* Appends a copy of key and value, at at, to the array *kv of *n.
 * Returns 0 or -ENOMEM; on -ENOMEM the entry may be counted with a NULL
 * half, which conf_free() frees as it is. */
int conf_kv_add(struct conf_kv **kv, size_t *n, const char *key,
    const char *value, struct conf_loc at);

/* Appends a stage of a UDTF chain, a copy of spec naming udtf, at at,
 * with no params yet, to the array *v of *n.  Returns 0 or -ENOMEM. */
int conf_stage_add(struct conf_stage **v, size_t *n, const char *spec,
    const struct udtf_plugin *udtf, struct conf_loc at);

/* Notes that the key shown as key is at at, for conf_where().  Returns 0
 * or -ENOMEM. */
int conf_where_add(struct conf *c, const char *key, struct conf_loc at);

#endif /* KEDGE_CONFIG_INT_H */
