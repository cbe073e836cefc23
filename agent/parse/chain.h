/*
 * chain: a table's UDTFs run as one.  The first UDTF parses the Kafka
 * record; every UDTF after it parses, as a record of its own, the first
 * column of each row the one before it emits (split → nginx: one row per
 * log line of a batch).  The other columns of an earlier UDTF ride along:
 * a row of the chain is the last UDTF's columns, then the second and later
 * columns of each earlier UDTF in chain order.
 *
 * chain_parse_batch() parses records back to back and keeps every row of
 * each, within the table's limits of rows and bytes per record, or the
 * reason the record must go to the rejects table.  Back to back, one
 * reading of the clock between two records times both: the clock costs
 * half of what a reading before and after each record would, and the
 * parser's code stays hot.
 */
#ifndef KEDGE_CHAIN_H
#define KEDGE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "agent/config/config.h"
#include "agent/parse/latency.h"
#include "agent/udtf/udtf.h"

#define CHAIN_BATCH_MAX 1024            /* records a batch */
#define CHAIN_BATCH_BYTES (4u << 20)    /* a batch ends past this */

/* What chain_parse_batch() made of one record. */
struct chain_span {
	size_t first;   /* its first row in chain_rows() */
	size_t nrows;   /* 0: it gave none */
	int result;     /* 0, or a negative errno: refused, see chain_reason */
	size_t reason;  /* private */
};

struct chain;

/* Initialises the UDTFs of table number index of config c.  Returns NULL
 * with "FILE:LINE: key: what is wrong" in err: a UDTF refused its config, a
 * column comes from two UDTFs, or a UDTF would feed the next one a column
 * that is not a string. */
struct chain *chain_new(const struct conf *c, size_t index, char *err,
    size_t errlen);
void chain_free(struct chain *ch); /* accepts NULL */

/* "nginx", or "split,nginx" for a chain. */
const char *chain_name(const struct chain *ch);
void chain_columns(const struct chain *ch, const struct udtf_column **cols,
    size_t *ncols);

/* The number of UDTFs in the chain. */
size_t chain_length(const struct chain *ch);
/* The sentence UDTF number i (< chain_length) asked to have logged (see
 * udtf.h's note), or NULL; *udtf is set to its name. */
const char *chain_note(const struct chain *ch, size_t i, const char **udtf);

/* Starts a batch and appends recs[0..n) to it in order, until
 * CHAIN_BATCH_MAX records or until it holds CHAIN_BATCH_BYTES; returns how
 * many it took (at least 1 when n > 0), spans[i] telling what became of
 * recs[i].  With lat, every record's time goes into it: one clock reading
 * after each record, the first before.  The records' data must stay as it
 * is until the next batch: rows point into it. */
size_t chain_parse_batch(struct chain *ch, const struct udtf_record *recs,
    size_t n, struct chain_span *spans, struct latency *lat);

/* Why the record of span, refused in the current batch, was. */
const char *chain_reason(const struct chain *ch,
    const struct chain_span *span);

/* The rows of the last batch: *nrows rows of ncols values each, valid
 * until the next chain_parse_batch(). */
const struct udtf_value *chain_rows(const struct chain *ch, size_t *nrows);

#endif /* KEDGE_CHAIN_H */
