/*
 * parquet_int: what parquet.c (the pages, column chunks and row groups,
 * the footer) shares with parquet_col.c (a column's rows as they are
 * buffered, and the statistics and dictionary of the chunk they make).
 * Private to parquet*.c: the rest of kedge sees only parquet.h.
 */
#ifndef KEDGE_PARQUET_INT_H
#define KEDGE_PARQUET_INT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/udtf/udtf.h"
#include "lib/buf.h"

struct thrift_writer;

/* One column's rows of the row group being built. */
struct pq_col {
	char *name;
	enum udtf_type type;
	struct buf vals;  /* non-NULL values, PLAIN; bool: a byte each */
	size_t *off;      /* string: where value i starts in vals */
	size_t offcap;
	size_t nvals;     /* non-NULL values */
	struct buf defs;  /* a byte per row: 1 a value, 0 NULL */
	uint64_t nulls;
};

/* The dictionary of one column chunk, rebuilt for each. */
struct pq_dict {
	struct buf plain;  /* the entries, PLAIN-encoded: the dictionary page */
	struct pq_entry {
		size_t off, len; /* in plain */
	} *ent;
	size_t n, ecap;
	uint32_t *idx;     /* per non-NULL value, its entry */
	size_t idxcap;
	uint32_t *slots;   /* hash table: entry + 1, 0 empty */
	size_t nslots;
};

/* Returns where non-NULL value i of c starts in c->vals, and its PLAIN
 * size (a string's with its 4-byte length) in *len. */
const char *pq_col_value(const struct pq_col *c, size_t i, size_t *len);

/* Returns where non-NULL value i of c (or the end, i == c->nvals) starts
 * in c->vals. */
size_t pq_col_value_at(const struct pq_col *c, size_t i);

/* Adds v, of c's type or UDTF_NULL, as c's next row: its definition level
 * and, unless NULL, its value.  *added gets the bytes that adds to the row
 * group's size.  Returns 0, -EINVAL for a string longer than UINT32_MAX,
 * or -ENOMEM. */
int pq_col_add(struct pq_col *c, const struct udtf_value *v, size_t *added);

/* Empties c for the next row group; its buffers are kept. */
void pq_col_reset(struct pq_col *c);

/* Writes the Statistics of c's chunk to t as field 12: null_count, and
 * max_value and min_value when a value is not NULL (NaNs left out). */
void pq_col_stats(struct thrift_writer *t, const struct pq_col *c);

/* Builds the dictionary of c's values into d, entries in the order of
 * first appearance, with each value's entry in d->idx.  Returns 1 when
 * built, 0 when its entries would pass bound bytes (then the chunk is
 * PLAIN), or -ENOMEM. */
int pq_dict_build(struct pq_dict *d, const struct pq_col *c, size_t bound);

/* Frees what d holds, not d. */
void pq_dict_clear(struct pq_dict *d);

#endif /* KEDGE_PARQUET_INT_H */
