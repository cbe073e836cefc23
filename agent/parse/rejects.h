/*
 * rejects: the table of records no UDTF could turn into rows.  One row per
 * rejected record: the table it was meant for, topic, partition, offset,
 * arrival time, the reason, the raw bytes (escaped by the format; the first
 * output.rejects.max_raw_bytes of them), the record's length and whether
 * the raw bytes were cut.
 * Routed to <local_dir>/_rejects/dt=../hr=.. by arrival time, through the
 * same writer, spool and publisher as every table.
 */
#ifndef KEDGE_REJECTS_H
#define KEDGE_REJECTS_H

#include <stddef.h>

#include "agent/config/config.h"
#include "agent/udtf/udtf.h"
#include "agent/write/sidecar.h" /* REJECTS_TABLE */
#include "agent/write/tz.h"
#include "agent/write/writer.h"

struct rejects;

/* Returns the rejects table for config c, or NULL with a sentence in err. */
struct rejects *rejects_new(const struct conf *c, struct tz *tz, char *err,
    size_t errlen);
void rejects_free(struct rejects *rj); /* accepts NULL */

/* Writes one rejects row for rec, meant for table `table`, with reason.
 * Returns 0 or a negative errno with a sentence in err. */
int rejects_add(struct rejects *rj, const char *table,
    const struct udtf_record *rec, const char *reason, char *err,
    size_t errlen);

struct writer *rejects_writer(struct rejects *rj);

/* output.roll of c, as every writer (the tables' and _rejects') rolls. */
struct roll_policy roll_policy_of(const struct conf *c);

#endif /* KEDGE_REJECTS_H */
