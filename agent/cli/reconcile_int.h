/*
 * reconcile_int: what the parts of `kedge reconcile` share: reconcile.c
 * (the hours, the passes, the verdicts), reconcile_kedge.c (kedge's side,
 * from the target), reconcile_offline.c (the offline side, from files),
 * reconcile_rows.c (text and JSON lines to typed rows), reconcile_sql.c
 * (the Spark query and the counts it gives back) and reconcile_report.c
 * (the report).  Private to agent/cli/reconcile*.c.
 *
 * Both sides hand their rows to rc_row() in up to three passes: COUNT
 * (every hour: rows and fingerprints), COLLECT (the hours that do not
 * match, with --explain: each row's hash and where it comes from), FETCH
 * (the rows --explain names: their canonical text).
 */
#ifndef KEDGE_RECONCILE_INT_H
#define KEDGE_RECONCILE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/cli/reconcile.h"
#include "agent/config/config.h"
#include "agent/parse/chain.h"
#include "agent/target/target.h"
#include "agent/udtf/udtf.h"
#include "agent/write/sidecar.h"
#include "agent/write/tz.h"
#include "lib/buf.h"

enum rc_side { RC_KEDGE, RC_OFFLINE };
enum rc_pass { RC_COUNT, RC_COLLECT, RC_FETCH };
enum rc_format { RC_RAW, RC_HIVE_TEXT, RC_TSV, RC_CSV, RC_JSONL };
enum rc_verdict {
	RC_MATCH, RC_MISSING, RC_EXTRA, RC_DIFFER, RC_INCOMPLETE, RC_EMPTY,
	RC_NVERDICTS
};

struct rc_hour {
	char dt[9], hr[3];
	int64_t key;               /* YYYYMMDDHH */
	uint64_t rows[2], fp[2];   /* by side */
	int complete;              /* kedge's _SUCCESS is there */
	int kedge_files;           /* kedge has part files for it */
	enum rc_verdict verdict;
};

/* A file rows came from, the same index in every pass. */
struct rc_file {
	char *path;                /* kedge: relative to the target */
	enum rc_side side;
	/* kedge: the records whose rows are in the file, in order, when
	 * each gave one row here (else NULL: the offsets are not known) */
	char *topic;
	int32_t partition;
	struct sidecar_ranges records;
	int one_row_each;
	int wanted;                /* FETCH: a row of it is named */
};

/* A row of an hour that does not match (COLLECT), or one --explain names
 * (FETCH gives it its text). */
struct rc_row {
	uint64_t hash;
	uint32_t hour;
	uint32_t file;
	uint64_t line;             /* kedge: the row's number in its file;
	                            * offline: the line's */
	uint32_t sub;              /* raw: the row's number in its record */
	enum rc_side side;
	int named;                 /* --explain names it */
	uint64_t here, there;      /* copies on its side and the other */
	char *text;                /* FETCH: its canonical text */
};

struct rc_col {
	size_t index;              /* in the table's columns */
	const char *offline;       /* its name in the offline table */
};

struct rc {
	const struct conf *c;
	const struct conf_table *ct;
	size_t table_index;
	const struct reconcile_opts *o;
	struct tz *tz;
	struct chain *chain;       /* the table's UDTFs */
	const struct udtf_column *cols;
	size_t ncols;
	const char *const *names;  /* the table's column names */
	const char **offline_names; /* per table column */
	struct rc_col *pick;       /* the columns compared */
	size_t npick;
	size_t *pick_index;        /* pick[i].index, for fingerprint_text() */
	int all_columns;           /* pick is every column in order */
	int event_col;             /* kedge's event time; -1: Kafka's */
	int offline_time_col;      /* the offline rows' event time */
	enum rc_format format;
	const char *layout;
	int64_t from_key, to_key;  /* YYYYMMDDHH */
	int64_t load_lo, load_hi;  /* the load hours read, YYYYMMDDHH */
	struct rc_hour *hours;     /* [from, to], ascending */
	size_t nhours;
	enum rc_pass pass;
	struct rc_file *files;
	size_t nfiles, files_cap;
	struct rc_row *rows;
	size_t nrows, rows_cap;
	struct rc_row **named;     /* the named rows, by where they are */
	size_t nnamed;
	uint64_t rejects[2];
	int offline_rejects_known;
	struct target *kedge_t, *offline_t;
	struct buf text;           /* a row's canonical text */
	int64_t local_key, local_off; /* rc_local_us()'s last hour */
	char *err;
	size_t errlen;
};

/* reconcile.c */

/* The index of hour key in rc->hours, or -1 when it is not in range. */
long rc_hour_find(const struct rc *rc, int64_t key);
/* Whether pass FETCH or COLLECT looks at hour h (COUNT looks at every
 * hour). */
int rc_hour_wanted(const struct rc *rc, size_t h);
/* The index of the file path of side in rc->files, added when new.
 * Returns it, or -ENOMEM. */
long rc_file_id(struct rc *rc, enum rc_side side, const char *path);
/* Takes a row of the table's columns: vals (one per column) of hour h
 * (an index of rc->hours), from line (and sub) of file.  Returns 0 or
 * -ENOMEM with the sentence. */
int rc_row(struct rc *rc, enum rc_side side, size_t h,
    const struct udtf_value *vals, long file, uint64_t line, uint32_t sub);
/* The instant of the local time y-mo-d h:mi:s.us in output.timezone, in
 * microseconds. */
int64_t rc_local_us(struct rc *rc, int y, int mo, int d, int h, int mi,
    int s, int us);
/* YYYYMMDDHH of the local hour of instant us; -1 when out of range. */
int64_t rc_hour_key(struct rc *rc, int64_t us);
/* The instant a local hour key starts at. */
int64_t rc_key_us(struct rc *rc, int64_t key);

/* reconcile_kedge.c: reads kedge's side of the hours rc->pass wants.
 * Returns 0 or a negative errno with the sentence. */
int rc_kedge_read(struct rc *rc);

/* reconcile_offline.c: reads the offline files under rc->offline_t. */
int rc_offline_read(struct rc *rc);

/* reconcile_rows.c: one line of text of format (hive-text, tsv, csv with
 * delim, or jsonl with names[i] the key of table column i) as a row of
 * the table's columns into vals (strings point into line or scratch,
 * valid until the next call).  A csv record that goes on past the line's
 * end is told by -EAGAIN: call again with the next line appended.
 * Returns 0, or -EINVAL with "COLUMN: what" in err. */
struct rc_rowparse {
	struct buf scratch;
	void *json;                /* the last line's document (json_t) */
	size_t *offs;              /* scratch offsets of the strings */
	size_t offs_cap;
};
int rc_parse_line(struct rc *rc, struct rc_rowparse *p, enum rc_format fmt,
    char delim, const char *const *names, const char *line, size_t len,
    struct udtf_value *vals, char *err, size_t errlen);
/* Whether line is a header: the names, in order, joined by delim. */
int rc_is_header(const struct rc *rc, enum rc_format fmt, char delim,
    const char *const *names, const char *line, size_t len);
void rc_rowparse_clear(struct rc_rowparse *p);
/* Parses a timestamp's text: local "YYYY-MM-DD HH:MM:SS[.f...]" (a 'T'
 * for the space too), or with "Z" or "+HH:MM" / "-HH:MM" after it, an
 * instant.  Returns 0 or -EINVAL. */
int rc_parse_time(struct rc *rc, const char *s, size_t len, int64_t *us);

/* reconcile_sql.c */
int rc_print_sql(struct rc *rc, FILE *out);
int rc_read_counts(struct rc *rc, const char *path);

/* reconcile_report.c: the report of rc's hours (and named rows). */
int rc_report(struct rc *rc, FILE *out);

#endif /* KEDGE_RECONCILE_INT_H */
