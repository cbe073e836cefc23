/* parquet_col: a column's rows as the Parquet writer buffers them, PLAIN
 * values and definition levels, and the statistics and the dictionary of
 * the chunk they make: see parquet_int.h. */
#include "agent/parquet/parquet_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/parquet/thrift.h"
#include "lib/grow.h"
#include "lib/le.h"

/* ---- buffering rows ---- */

/* Where non-NULL value i of c starts in c->vals, and its PLAIN size. */
const char *
pq_col_value(const struct pq_col *c, size_t i, size_t *len)
{
	switch (c->type) {
	case UDTF_STRING:
		*len = 4 + le_get32(c->vals.data + c->off[i]);
		return c->vals.data + c->off[i];
	case UDTF_BOOL:
		*len = 1;
		return c->vals.data + i;
	default:
		*len = 8;
		return c->vals.data + 8 * i;
	}
}

/* Where non-NULL value i of c (or the end, i == nvals) starts in
 * c->vals. */
size_t
pq_col_value_at(const struct pq_col *c, size_t i)
{
	if (i == c->nvals)
		return c->vals.len;
	if (c->type == UDTF_STRING)
		return c->off[i];
	return c->type == UDTF_BOOL ? i : 8 * i;
}

int
pq_col_add(struct pq_col *c, const struct udtf_value *v, size_t *added)
{
	uint8_t b[8];
	uint64_t u;
	int r;

	if (v->type == UDTF_NULL) {
		c->nulls++;
		*added = 1;
		return buf_append(&c->defs, "\0", 1);
	}
	if ((r = buf_append(&c->defs, "\1", 1)) < 0)
		return r;
	switch (c->type) {
	case UDTF_STRING:
		if (v->u.s.len > UINT32_MAX)
			return -EINVAL;
		if ((r = grow_array((void **)&c->off, &c->offcap, c->nvals + 1,
		    sizeof(*c->off))) < 0)
			return r;
		c->off[c->nvals] = c->vals.len;
		le_put32(b, (uint32_t)v->u.s.len);
		if ((r = buf_append(&c->vals, b, 4)) < 0 ||
		    (r = buf_append(&c->vals, v->u.s.ptr, v->u.s.len)) < 0)
			return r;
		*added = 5 + v->u.s.len;
		break;
	case UDTF_BOOL:
		b[0] = v->u.b != 0;
		if ((r = buf_append(&c->vals, b, 1)) < 0)
			return r;
		*added = 2;
		break;
	case UDTF_DOUBLE:
		memcpy(&u, &v->u.d, 8);
		le_put64(b, u);
		if ((r = buf_append(&c->vals, b, 8)) < 0)
			return r;
		*added = 9;
		break;
	default: /* UDTF_INT64, UDTF_TIMESTAMP */
		le_put64(b, (uint64_t)(c->type == UDTF_INT64 ? v->u.i64 :
		    v->u.ts_us));
		if ((r = buf_append(&c->vals, b, 8)) < 0)
			return r;
		*added = 9;
		break;
	}
	c->nvals++;
	return 0;
}

void
pq_col_reset(struct pq_col *c)
{
	buf_reset(&c->vals);
	buf_reset(&c->defs);
	c->nvals = 0;
	c->nulls = 0;
}

/* ---- statistics ---- */

/* Compares non-NULL values a and b of c in the order of c's type. */
static int
pq_col_cmp(const struct pq_col *c, size_t a, size_t b)
{
	size_t la, lb;
	const char *pa = pq_col_value(c, a, &la), *pb = pq_col_value(c, b, &lb);
	int64_t ia, ib;
	double da, db;
	uint64_t u;
	int r;

	switch (c->type) {
	case UDTF_STRING: /* unsigned bytes, then length */
		r = memcmp(pa + 4, pb + 4, la < lb ? la - 4 : lb - 4);
		return r != 0 ? r : (la > lb) - (la < lb);
	case UDTF_BOOL:
		return (*pa > *pb) - (*pa < *pb);
	case UDTF_DOUBLE:
		u = le_get64(pa);
		memcpy(&da, &u, 8);
		u = le_get64(pb);
		memcpy(&db, &u, 8);
		return (da > db) - (da < db);
	default:
		ia = (int64_t)le_get64(pa);
		ib = (int64_t)le_get64(pb);
		return (ia > ib) - (ia < ib);
	}
}

static int
pq_col_is_nan(const struct pq_col *c, size_t i)
{
	size_t len;
	uint64_t u;
	double d;

	if (c->type != UDTF_DOUBLE)
		return 0;
	u = le_get64(pq_col_value(c, i, &len));
	memcpy(&d, &u, 8);
	return isnan(d);
}

/* Writes a min_value or max_value field: the value PLAIN-encoded, a
 * string without its length.  The spec asks for -0.0 as a minimum and
 * +0.0 as a maximum of doubles that are zero, so that either is covered. */
static void
pq_col_stat_field(struct thrift_writer *t, int16_t id, const struct pq_col *c,
    size_t i)
{
	size_t len;
	const char *p = pq_col_value(c, i, &len);
	uint8_t z[8];
	double d;
	uint64_t u;

	if (c->type == UDTF_STRING) {
		thrift_binary_field(t, id, p + 4, len - 4);
		return;
	}
	if (c->type == UDTF_DOUBLE) {
		u = le_get64(p);
		memcpy(&d, &u, 8);
		if (d == 0) {
			d = id == 6 ? -0.0 : 0.0;
			memcpy(&u, &d, 8);
			le_put64(z, u);
			p = (const char *)z;
		}
	}
	thrift_binary_field(t, id, p, len);
}

/* Writes the Statistics struct of c's chunk as field 12. */
void
pq_col_stats(struct thrift_writer *t, const struct pq_col *c)
{
	size_t min = SIZE_MAX, max = SIZE_MAX;

	for (size_t i = 0; i < c->nvals; i++) {
		if (pq_col_is_nan(c, i))
			continue;
		if (min == SIZE_MAX || pq_col_cmp(c, i, min) < 0)
			min = i;
		if (max == SIZE_MAX || pq_col_cmp(c, i, max) > 0)
			max = i;
	}
	thrift_field(t, 12, THRIFT_STRUCT);
	thrift_begin(t);
	thrift_i64_field(t, 3, (int64_t)c->nulls);
	if (max != SIZE_MAX) {
		pq_col_stat_field(t, 5, c, max);
		pq_col_stat_field(t, 6, c, min);
	}
	thrift_end(t);
}

/* ---- the dictionary ---- */

static uint64_t
pq_dict_hash(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a, 64-bit offset basis */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 1099511628211ULL;
	return h;
}

/* Builds the dictionary of c into d, entries in the order of first
 * appearance.  Returns 1 when built, 0 when it would pass bound bytes
 * (then PLAIN it is), or -ENOMEM. */
int
pq_dict_build(struct pq_dict *d, const struct pq_col *c, size_t bound)
{
	size_t cap = c->nvals < bound / 4 + 1 ? c->nvals : bound / 4 + 1;
	size_t nslots = 16, len, s;
	const char *p;
	uint32_t e;
	int r;

	while (nslots < 2 * cap)
		nslots *= 2;
	if (nslots > d->nslots) {
		free(d->slots);
		if ((d->slots = calloc(nslots, sizeof(*d->slots))) == NULL) {
			d->nslots = 0;
			return -ENOMEM;
		}
		d->nslots = nslots;
	}
	memset(d->slots, 0, nslots * sizeof(*d->slots));
	buf_reset(&d->plain);
	d->n = 0;
	if ((r = grow_array((void **)&d->idx, &d->idxcap, c->nvals,
	    sizeof(*d->idx))) < 0)
		return r;
	for (size_t i = 0; i < c->nvals; i++) {
		p = pq_col_value(c, i, &len);
		s = pq_dict_hash(p, len) & (nslots - 1);
		while ((e = d->slots[s]) != 0 && (d->ent[e - 1].len != len ||
		    memcmp(d->plain.data + d->ent[e - 1].off, p, len) != 0))
			s = (s + 1) & (nslots - 1);
		if (e == 0) {
			if (d->plain.len + len > bound)
				return 0;
			if ((r = grow_array((void **)&d->ent, &d->ecap,
			    d->n + 1, sizeof(*d->ent))) < 0)
				return r;
			d->ent[d->n].off = d->plain.len;
			d->ent[d->n].len = len;
			if ((r = buf_append(&d->plain, p, len)) < 0)
				return r;
			e = (uint32_t)++d->n;
			d->slots[s] = e;
		}
		d->idx[i] = e - 1;
	}
	return 1;
}

void
pq_dict_clear(struct pq_dict *d)
{
	buf_clear(&d->plain);
	free(d->ent);
	free(d->idx);
	free(d->slots);
}
