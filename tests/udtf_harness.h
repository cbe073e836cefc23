/*
 * A harness the UDTF unit tests share: opens a UDTF by its descriptor with
 * string parameters, runs one record held in a buffer of exactly its length
 * (so a read past the end shows up under AddressSanitizer), and keeps every
 * row it emitted, strings copied out of the UDTF's memory, noting for each
 * whether the UDTF pointed into the record (zero copy) or elsewhere.
 *
 * Include after <cmocka.h>.  One harness per test file: `hx`.
 */
#ifndef KEDGE_TESTS_UDTF_HARNESS_H
#define KEDGE_TESTS_UDTF_HARNESS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/udtf/udtf.h"

#define HX_MAX_COLS 64
#define HX_MAX_ROWS 4096

struct hx_row {
	size_t ncols;
	struct udtf_value v[HX_MAX_COLS];
	char *str[HX_MAX_COLS];
	/* 1: a string within the record; 0: a string elsewhere; -1: not a
	 * string */
	int inside[HX_MAX_COLS];
};

struct hx {
	struct udtf_emitter em;
	const struct udtf_plugin *plugin;
	void *state;
	const struct udtf_column *cols;
	size_t ncols;
	struct hx_row rows[HX_MAX_ROWS];
	int nrows;
	int emits;      /* emit() calls, the refused ones too */
	int refuse;     /* emit() returns this when negative */
	const char *rec; /* the record process() is on, or NULL */
	size_t reclen;
	char err[512];
};

static struct hx hx;

/* Whether the string v lies within the record h runs. */
static inline int
hx_inside(const struct hx *h, const struct udtf_value *v)
{
	uintptr_t p = (uintptr_t)v->u.s.ptr, rec = (uintptr_t)h->rec;

	return h->rec != NULL && p >= rec && p + v->u.s.len <= rec + h->reclen;
}

static inline int
hx_emit(struct udtf_emitter *em, const struct udtf_value *values, size_t n)
{
	struct hx *h = em->opaque;
	struct hx_row *row;

	h->emits++;
	if (h->refuse < 0)
		return h->refuse;
	/* as kedge's emitter does with the bound it announces */
	if (h->em.max_rows != 0 && (uint64_t)h->nrows >= h->em.max_rows)
		return -E2BIG;
	assert_true(n <= HX_MAX_COLS);
	assert_true(h->nrows < HX_MAX_ROWS);
	assert_int_equal(n, h->ncols);
	row = &h->rows[h->nrows++];
	row->ncols = n;
	for (size_t i = 0; i < n; i++) {
		row->v[i] = values[i];
		row->str[i] = NULL;
		row->inside[i] = -1;
		if (values[i].type != UDTF_STRING)
			continue;
		row->inside[i] = hx_inside(h, &values[i]);
		row->str[i] = malloc(values[i].u.s.len + 1);
		assert_non_null(row->str[i]);
		memcpy(row->str[i], values[i].u.s.ptr, values[i].u.s.len);
		row->str[i][values[i].u.s.len] = '\0';
		row->v[i].u.s.ptr = row->str[i];
	}
	return 0;
}

static inline void
hx_clear_rows(void)
{
	for (int r = 0; r < hx.nrows; r++)
		for (size_t i = 0; i < hx.rows[r].ncols; i++)
			free(hx.rows[r].str[i]);
	hx.nrows = 0;
}

/* A cmocka teardown: closes the UDTF and forgets every row. */
static inline int
hx_teardown(void **state)
{
	(void)state;
	hx_clear_rows();
	if (hx.plugin != NULL)
		hx.plugin->fini(hx.state);
	memset(&hx, 0, sizeof hx);
	return 0;
}

/* Opens plugin p with params given as key, value, ..., NULL.  Returns its
 * state, or NULL with the reason in hx.err. */
static inline void *
hx_open_v(const struct udtf_plugin *p, const char *const *kv)
{
	struct udtf_param params[32];
	size_t n = 0;

	hx_teardown(NULL);
	hx.plugin = p;
	hx.em.emit = hx_emit;
	hx.em.opaque = &hx;
	for (; kv != NULL && kv[0] != NULL; kv += 2) {
		assert_true(n < 32);
		params[n++] = (struct udtf_param){ kv[0], kv[1] };
	}
	hx.state = p->init(params, n, hx.err, sizeof hx.err);
	if (hx.state != NULL)
		p->columns(hx.state, &hx.cols, &hx.ncols);
	return hx.state;
}

#define hx_open(p, ...) hx_open_v((p), (const char *const[]){ __VA_ARGS__ })

/* Like hx_open, but fails the test when init fails. */
#define hx_open_ok(p, ...) do { \
	if (hx_open((p), __VA_ARGS__) == NULL) \
		fail_msg("init failed: %s", hx.err); \
} while (0)

/* Like hx_open, but expects init to fail with a reason containing why. */
#define hx_open_fails(why, p, ...) do { \
	if (hx_open((p), __VA_ARGS__) != NULL) \
		fail_msg("init succeeded, expected \"%s\"", (why)); \
	if (strstr(hx.err, (why)) == NULL) \
		fail_msg("reason \"%s\" lacks \"%s\"", hx.err, (why)); \
} while (0)

/* Runs one record of len bytes followed by pad bytes of fill, which are no
 * part of it: a UDTF that reads them, as it might the bytes after a record
 * in a batch, gives another answer than with none.  Returns what process()
 * returned. */
static inline int
hx_run_padded(const char *data, size_t len, size_t pad, int fill)
{
	struct udtf_record rec;
	char *copy = malloc(len + pad ? len + pad : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, data, len);
	memset(copy + len, fill, pad);
	memset(&rec, 0, sizeof rec);
	rec.data = copy;
	rec.len = len;
	rec.topic = "t";
	rec.timestamp_ms = -1;
	hx.err[0] = '\0';
	hx_clear_rows();
	hx.emits = 0;
	hx.rec = copy;
	hx.reclen = len;
	r = hx.plugin->process(hx.state, &rec, &hx.em, hx.err, sizeof hx.err);
	hx.rec = NULL;
	free(copy);
	return r;
}

/* Runs one record of len bytes, held in a buffer of exactly that size.
 * Returns what process() returned. */
static inline int
hx_run_len(const char *data, size_t len)
{
	return hx_run_padded(data, len, 0, 0);
}

static inline int
hx_run(const char *s)
{
	return hx_run_len(s, strlen(s));
}

/* Runs s and expects nrows rows. */
static inline void
hx_run_ok(const char *s, int nrows)
{
	if (hx_run(s) != 0)
		fail_msg("rejected: %s\nrecord: %s", hx.err, s);
	assert_int_equal(hx.nrows, nrows);
}

/* Runs s and expects a rejection whose reason contains why, and no row. */
static inline void
hx_run_rejected(const char *s, const char *why)
{
	int r = hx_run(s);

	if (r >= 0)
		fail_msg("accepted, expected \"%s\"\nrecord: %s", why, s);
	assert_int_equal(r, -EINVAL);
	assert_int_equal(hx.nrows, 0);
	if (strstr(hx.err, why) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", hx.err, why);
}

/* Returns the index of column name; fails the test when there is none. */
static inline size_t
hx_col(const char *name)
{
	for (size_t i = 0; i < hx.ncols; i++)
		if (strcmp(hx.cols[i].name, name) == 0)
			return i;
	fail_msg("no column \"%s\"", name);
	return 0;
}

/* Returns the value of column col in row; fails the test when there is no
 * such row. */
static inline const struct udtf_value *
hx_value(int row, const char *col)
{
	if (row >= hx.nrows)
		fail_msg("no row %d: %d rows", row, hx.nrows);
	return &hx.rows[row].v[hx_col(col)];
}

/* Expects a string of the len bytes at expected. */
static inline void
hx_assert_bytes(int row, const char *col, const char *expected, size_t len)
{
	const struct udtf_value *v = hx_value(row, col);

	if (v->type != UDTF_STRING)
		fail_msg("row %d column %s: type %d, expected a string", row, col,
		    v->type);
	assert_int_equal(v->u.s.len, len);
	assert_memory_equal(v->u.s.ptr, expected, len);
}

static inline void
hx_assert_str(int row, const char *col, const char *expected)
{
	hx_assert_bytes(row, col, expected, strlen(expected));
}

static inline void
hx_assert_null(int row, const char *col)
{
	assert_int_equal(hx_value(row, col)->type, UDTF_NULL);
}

static inline void
hx_assert_i64(int row, const char *col, int64_t expected)
{
	const struct udtf_value *v = hx_value(row, col);

	assert_int_equal(v->type, UDTF_INT64);
	assert_int_equal(v->u.i64, expected);
}

static inline void
hx_assert_double(int row, const char *col, double expected)
{
	const struct udtf_value *v = hx_value(row, col);

	assert_int_equal(v->type, UDTF_DOUBLE);
	assert_true(v->u.d == expected);
}

static inline void
hx_assert_bool(int row, const char *col, int expected)
{
	const struct udtf_value *v = hx_value(row, col);

	assert_int_equal(v->type, UDTF_BOOL);
	assert_int_equal(!!v->u.b, !!expected);
}

static inline void
hx_assert_ts(int row, const char *col, int64_t expected_us)
{
	const struct udtf_value *v = hx_value(row, col);

	assert_int_equal(v->type, UDTF_TIMESTAMP);
	assert_int_equal(v->u.ts_us, expected_us);
}

static inline const char *
hx_where(int inside)
{
	return inside < 0 ? "not a string" : inside ? "in the record" :
	    "copied";
}

/* Expects the value in column col to be a string that points into the
 * record (expected 1), a string copied elsewhere (0), or no string (-1). */
static inline void
hx_assert_zero_copy(int row, const char *col, int expected)
{
	int inside = hx.rows[row].inside[hx_value(row, col) - hx.rows[row].v];

	if (inside != expected)
		fail_msg("row %d column %s: %s, expected %s", row, col,
		    hx_where(inside), hx_where(expected));
}

#endif /* KEDGE_TESTS_UDTF_HARNESS_H */
