/*
 * preview: `kedge parse --table NAME [FILE]`: a table's UDTF chain, built
 * as the daemon builds it (table_new()), over sample records, one a line,
 * and what each would become, printed one record after another: its rows
 * as the table lands them, each with the hour it lands in (dt=YYYYMMDD/
 * hr=HH in output.timezone), or why it would go to the rejects table.
 * The tool to write a log_format or a table's fields against real lines.
 */
#ifndef KEDGE_PREVIEW_H
#define KEDGE_PREVIEW_H

#include <stdio.h>

#include "agent/config/config.h"

struct preview_opts {
	const char *table;    /* the table's name */
	int json;             /* one JSON object a record, not text */
};

/* Reads records from in, one a line (its line end left out), each given
 * the current time as its Kafka timestamp, and prints to out, for each:
 *
 *   text: "LINE<TAB>dt=YYYYMMDD/hr=HH<TAB>ROW" for each row it gives (a
 *   jsonl table's row as the JSON line it lands as; any other table's as
 *   its fields, tab between them, as Hive text writes them: NULL as \N,
 *   a backslash, tab, newline, carriage return or other control byte in
 *   a value as \\, \t, \n, \r, \xHH), "LINE<TAB>rejected<TAB>WHY", or
 *   "LINE<TAB>no rows", after a first line "# line<TAB>hour<TAB>" and the
 *   column names;
 *   json: {"line": N, "rows": [{"dt": "...", "hr": "...", "row": {...}}]}
 *   with each row as the jsonl format writes it, or {"line": N,
 *   "rejected": "WHY"}.
 *
 * Returns 0, or 1 after printing why to stderr (no such table, a table
 * that cannot be built, input that cannot be read). */
int preview_print(const struct conf *c, const struct preview_opts *o,
    FILE *in, FILE *out);

#endif /* KEDGE_PREVIEW_H */
