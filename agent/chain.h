/*
 * chain: a table's UDTFs run as one.  The first UDTF parses the Kafka
 * record; every UDTF after it parses, as a record of its own, the first
 * column of each row the one before it emits (split → nginx: one row per
 * log line of a batch).  The other columns of an earlier UDTF ride along:
 * a row of the chain is the last UDTF's columns, then the second and later
 * columns of each earlier UDTF in chain order.
 *
 * chain_run() keeps every row of one record, within the table's limits of
 * rows and bytes per record, or gives the reason the record must go to the
 * rejects table.  It measures nothing: the caller times it.
 */
#ifndef KEDGE_CHAIN_H
#define KEDGE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "udtf/udtf.h"

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

/* Runs rec through the chain.  Returns 0 with the rows kept (see
 * chain_rows; none is fine), or a negative errno with the reason the
 * record is rejected in reason. */
int chain_run(struct chain *ch, const struct udtf_record *rec, char *reason,
    size_t reasonlen);

/* The rows of the last chain_run(): *nrows rows of ncols values each, valid
 * until the next chain_run(). */
const struct udtf_value *chain_rows(const struct chain *ch, size_t *nrows);

#endif /* KEDGE_CHAIN_H */
