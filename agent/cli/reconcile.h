/*
 * reconcile: `kedge reconcile`, hour by hour, whether a table's rows in
 * kedge's target (local or HDFS, as `kedge report` reads it) are the rows
 * of an offline copy of the same data: counted and fingerprinted
 * (agent/write/fingerprint.h) on both sides, the offline rows bucketed by
 * their event time in output.timezone, not by the partition they were
 * loaded into.  docs/reconcile.md says what is compared and why.
 *
 * The offline side is files under a directory or a WebHDFS URL
 * (--offline), a TSV of counts that the warehouse computed with the query
 * --print-sql prints (--offline-counts), or nothing (--print-sql, which
 * only prints that query).  The report is TSV (a header, an hour a line,
 * --explain's rows, a summary line) or, with --json, one JSON document.
 */
#ifndef KEDGE_RECONCILE_H
#define KEDGE_RECONCILE_H

#include <stddef.h>
#include <stdio.h>

#include "agent/config/config.h"

#define RECONCILE_LOOKBACK 1     /* hours, --lookback's default */
#define RECONCILE_LATENESS 2     /* hours, --lateness's default */
#define RECONCILE_LAYOUT "dt=%Y%m%d/hr=%H"

/* The command line, as given (NULL, or -1, when a flag is not). */
struct reconcile_opts {
	const char *table;
	const char *from, *to;           /* YYYYMMDDHH, local hours */
	const char *offline;             /* DIR or URL */
	const char *offline_format;      /* raw (default), hive-text, tsv, csv,
	                                  * jsonl */
	const char *offline_layout;      /* RECONCILE_LAYOUT by default */
	const char *offline_time;        /* the offline event-time column */
	const char *offline_counts;      /* a TSV of the query's result */
	const char *print_sql;           /* "spark" */
	const char *offline_table;       /* DB.TABLE, for --print-sql */
	const char *columns;             /* "a,b=other,c" */
	const char *user, *ca_file;      /* --offline URL's access */
	long lookback, lateness;         /* hours */
	long explain;                    /* rows per side and hour; 0: none */
	int json;
};

/* Checks o as a command line: a table, --from and --to as YYYYMMDDHH and
 * in order, exactly one of --offline, --offline-counts and --print-sql,
 * the flags each of them takes and no other.  Returns 0, or -EINVAL with
 * one sentence naming the flag in err. */
int reconcile_check(const struct reconcile_opts *o, char *err,
    size_t errlen);

/* Reconciles table o->table of c as o says and prints the report (or the
 * query) to out.  Returns 0 when every hour matches or is empty on both
 * sides, 1 when one does not; or a negative errno with the sentence in err
 * when a side cannot be read (naming the file, URL or line) or o names
 * what c does not have (a table, a column). */
int reconcile_run(const struct conf *c, const struct reconcile_opts *o,
    FILE *out, char *err, size_t errlen);

#endif /* KEDGE_RECONCILE_H */
