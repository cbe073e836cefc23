/*
 * report: which hours of which tables are complete, from their manifests
 * (manifest.h), read through the target (target.h) so that it works for a
 * local directory and for HDFS alike (`kedge report`).  TSV on stdout, a
 * header line, then one line per hour directory in range that holds part
 * files or a manifest, by table, dt and hr:
 *
 *   table dt hr revision rows rejects late_rows files min_event max_event
 *   complete
 *
 * An hour with a manifest prints what the manifest says and "yes"; an hour
 * with part files and no manifest yet prints the number of its part files,
 * the rows their sidecars count, "-" for what only a manifest knows, and
 * "no".  Event times are ISO 8601 UTC ("2026-11-29T14:00:00Z", with
 * ".fff" or ".ffffff" when they have milliseconds or microseconds), "-"
 * when the hour holds no row.
 *
 * With json, one JSON document instead: {"from": "YYYYMMDDHH", "to": ...,
 * "hours": [...]}, each hour an object with the keys of the TSV header,
 * numbers as numbers, "complete" true or false, and null for "-".
 */
#ifndef KEDGE_REPORT_H
#define KEDGE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "agent/config/config.h"

struct report_opts {
	const char *from, *to;  /* "YYYYMMDDHH", local hours as in dt/hr */
	const char *table;      /* NULL: every table of the configuration */
	int json;               /* JSON, not TSV */
};

/* Prints the report of the hours [o->from, o->to] of c's target to out
 * (in JSON only once every hour is read).  Returns 0; -EINVAL with the
 * sentence in err when o->table is not a table of c, a manifest or
 * sidecar does not parse, or a part file has no sidecar (the sentence
 * names the file); or another negative errno with the sentence when the
 * target cannot be read. */
int report_print(const struct conf *c, const struct report_opts *o,
    FILE *out, char *err, size_t errlen);

#endif /* KEDGE_REPORT_H */
