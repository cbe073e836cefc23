/*
 * parquet: the compact-protocol writer and the RLE/bit-packed hybrid byte
 * for byte against the specifications' own examples; the pages of a
 * one-row file byte for byte, as parquet.thrift and Encodings.md lay them
 * out; the file's framing; dictionary pages and the PLAIN fallback; row
 * groups cut by their byte bound; the same rows giving the same bytes.
 * Readers kedge does not contain check the files themselves
 * (tests/integration/parquet_readers.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/testlib.h"

#include "agent/parquet/parquet.h"
#include "agent/parquet/rle.h"
#include "agent/parquet/thrift.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void
assert_bytes(const struct buf *b, const uint8_t *want, size_t n)
{
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

static void
test_thrift_fields(void **state)
{
	static const uint8_t want[] = {
		0x15, 0x02,             /* field 1 i32 1: delta 1, zigzag 2 */
		0x25, 0x01,             /* field 3 i32 -1 */
		0x05, 0x28, 0x07,       /* field 20 (delta 17): long form */
		0x16, 0xfe, 0x03,       /* field 21 i64 255 */
		0x11,                   /* field 22 bool true */
		0x12,                   /* field 23 bool false */
		0x18, 0x02, 'h', 'i',   /* field 24 binary "hi" */
		0x1c,                   /* field 25 struct */
		0x15, 0x00,             /* nested field 1 (delta from 0) */
		0x00,                   /* nested stop */
		0x19, 0x35,             /* field 26 list of 3 i32 */
		0x00, 0x02, 0x04,       /* 0 1 2 */
		0x19, 0xf5, 0x0f,       /* field 27 list of 15 i32: long */
		0x14, 0x0e,             /* field 28 i16 7 */
		0x00,                   /* stop */
	};
	struct buf b = { 0 };
	struct thrift_writer t;

	(void)state;
	thrift_init(&t, &b);
	thrift_i32_field(&t, 1, 1);
	thrift_i32_field(&t, 3, -1);
	thrift_i32_field(&t, 20, -4);
	thrift_i64_field(&t, 21, 255);
	thrift_bool_field(&t, 22, 1);
	thrift_bool_field(&t, 23, 0);
	thrift_string_field(&t, 24, "hi");
	thrift_field(&t, 25, THRIFT_STRUCT);
	thrift_begin(&t);
	thrift_i32_field(&t, 1, 0);
	thrift_end(&t);
	thrift_field(&t, 26, THRIFT_LIST);
	thrift_list(&t, THRIFT_I32, 3);
	for (int i = 0; i < 3; i++)
		thrift_i32(&t, i);
	thrift_field(&t, 27, THRIFT_LIST);
	thrift_list(&t, THRIFT_I32, 15);
	thrift_i16_field(&t, 28, 7);
	thrift_end(&t);
	assert_int_equal(t.err, 0);
	assert_bytes(&b, want, sizeof(want));
	buf_clear(&b);
}

static void
rle_check(const uint8_t *v, size_t n, int width, const uint8_t *want,
    size_t wn)
{
	struct rle_seq s = { v, NULL };
	struct buf b = { 0 };

	assert_int_equal(rle_encode(&s, n, width, &b), 0);
	assert_bytes(&b, want, wn);
	buf_clear(&b);
}

static void
test_rle_hybrid(void **state)
{
	/* Encodings.md's bit-packing example: 0..7 at width 3 */
	static const uint8_t v8[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t w8[] = { 0x03, 0x88, 0xc6, 0xfa };
	/* ten 1s: one RLE run, header 10 << 1, value in one byte */
	static const uint8_t v10[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint8_t w10[] = { 0x14, 0x01 };
	/* three values: one group, zeros after them */
	static const uint8_t v3[] = { 1, 0, 1 };
	static const uint8_t w3[] = { 0x03, 0x05 };
	/* 1 0 then nine 1s: a group of 8 (the run starts inside it), then
	 * the rest of the run as a run of 3 is shorter than 8: a group */
	static const uint8_t vm[] = { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint8_t wm[] = { 0x05, 0xfd, 0x07 };
	/* eight 0s, then 1 0 1: a run, then a group */
	static const uint8_t vr[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1 };
	static const uint8_t wr[] = { 0x10, 0x00, 0x03, 0x05 };
	/* 300 2s at width 9: varint header 600, value in two bytes */
	uint8_t v300[300];
	static const uint8_t w300[] = { 0xd8, 0x04, 0x02, 0x00 };

	(void)state;
	rle_check(v8, NELEM(v8), 3, w8, sizeof(w8));
	rle_check(v10, NELEM(v10), 1, w10, sizeof(w10));
	rle_check(v3, NELEM(v3), 1, w3, sizeof(w3));
	rle_check(vm, NELEM(vm), 1, wm, sizeof(wm));
	rle_check(vr, NELEM(vr), 1, wr, sizeof(wr));
	memset(v300, 2, sizeof(v300));
	rle_check(v300, NELEM(v300), 9, w300, sizeof(w300));
	assert_int_equal(rle_width(0), 1);
	assert_int_equal(rle_width(1), 1);
	assert_int_equal(rle_width(2), 2);
	assert_int_equal(rle_width(255), 8);
	assert_int_equal(rle_width(256), 9);
}

static struct udtf_value
v_i64(int64_t i)
{
	struct udtf_value v = { .type = UDTF_INT64 };

	v.u.i64 = i;
	return v;
}

static struct udtf_value
v_str(const char *s)
{
	struct udtf_value v = { .type = UDTF_STRING };

	v.u.s.ptr = s;
	v.u.s.len = strlen(s);
	return v;
}

/* A writer into out. */
static struct pq_writer *
writer(const struct udtf_column *cols, size_t n, enum pq_codec codec,
    size_t row_group_bytes, size_t dict_bytes, struct buf *out)
{
	struct pq_opts o = { .codec = codec, .row_group_bytes = row_group_bytes,
	    .dict_bytes = dict_bytes };
	char err[128];
	struct pq_writer *w = pq_writer_new(cols, n, &o, pq_sink_buf, out,
	    err, sizeof(err));

	assert_non_null(w);
	return w;
}

/* The footer's length and the magic at both ends. */
static void
assert_framed(const struct buf *b)
{
	uint32_t flen;

	assert_true(b->len >= 12);
	assert_memory_equal(b->data, "PAR1", 4);
	assert_memory_equal(b->data + b->len - 4, "PAR1", 4);
	memcpy(&flen, b->data + b->len - 8, 4); /* little-endian host */
	assert_true(flen > 0 && flen <= b->len - 12);
}

static void
test_one_row_pages(void **state)
{
	static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };
	struct buf b = { 0 };
	static const uint8_t want[] = {
		'P', 'A', 'R', '1',
		/* PageHeader: type DICTIONARY_PAGE (2), sizes 8 and 8 */
		0x15, 0x04, 0x15, 0x10, 0x15, 0x10,
		/* field 7 dictionary_page_header: 1 entry, PLAIN */
		0x4c, 0x15, 0x02, 0x15, 0x00, 0x00,
		0x00,
		/* the dictionary: 7 as PLAIN INT64 */
		0x07, 0, 0, 0, 0, 0, 0, 0,
		/* PageHeader: DATA_PAGE (0), sizes 9 and 9 */
		0x15, 0x00, 0x15, 0x12, 0x15, 0x12,
		/* field 5 data_page_header: 1 value, RLE_DICTIONARY (8),
		 * levels RLE (3) */
		0x2c, 0x15, 0x02, 0x15, 0x10, 0x15, 0x06, 0x15, 0x06, 0x00,
		0x00,
		/* definition levels: 2 bytes, a group holding level 1 */
		0x02, 0, 0, 0, 0x03, 0x01,
		/* indices: width 1, a group holding index 0 */
		0x01, 0x03, 0x00,
	};
	struct pq_writer *w = writer(cols, 1, PQ_UNCOMPRESSED, 0, 0, &b);
	struct udtf_value v = v_i64(7);

	(void)state;
	assert_int_equal(pq_writer_row(w, &v), 0);
	assert_int_equal(pq_writer_finish(w), 0);
	assert_framed(&b);
	assert_true(b.len > sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(pq_writer_bytes(w), b.len);
	assert_int_equal(pq_writer_rows(w), 1);
	pq_writer_free(w);
	buf_clear(&b);
}

static void
test_empty_file(void **state)
{
	static const struct udtf_column cols[] = { { "s", UDTF_STRING } };
	struct buf b = { 0 };
	struct pq_writer *w = writer(cols, 1, PQ_SNAPPY, 0, 0, &b);

	(void)state;
	assert_int_equal(pq_writer_finish(w), 0);
	assert_framed(&b);
	assert_int_equal(pq_writer_finish(w), -EINVAL);
	pq_writer_free(w);
	buf_clear(&b);
}

/* Writes rows of strings, "v<i % distinct>", uncompressed. */
static void
write_strings(struct buf *b, size_t rows, size_t distinct, size_t dict_bytes)
{
	static const struct udtf_column cols[] = { { "s", UDTF_STRING } };
	struct pq_writer *w = writer(cols, 1, PQ_UNCOMPRESSED, 0, dict_bytes,
	    b);
	char s[32];
	struct udtf_value v;

	for (size_t i = 0; i < rows; i++) {
		snprintf(s, sizeof(s), "v%zu", i % distinct);
		v = v_str(s);
		assert_int_equal(pq_writer_row(w, &v), 0);
	}
	assert_int_equal(pq_writer_finish(w), 0);
	pq_writer_free(w);
}

static size_t
count(const struct buf *b, const void *p, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i + n <= b->len; i++)
		c += memcmp(b->data + i, p, n) == 0;
	return c;
}

static void
test_dictionary_and_plain(void **state)
{
	static const char v1[] = { 2, 0, 0, 0, 'v', '1' };
	static const char v1v2[] = {
		2, 0, 0, 0, 'v', '1', 2, 0, 0, 0, 'v', '2',
	};
	struct buf dict = { 0 }, plain = { 0 };

	(void)state;
	/* 4 values over 1000 rows: each once in the dictionary page */
	write_strings(&dict, 1000, 4, 0);
	assert_framed(&dict);
	assert_int_equal(count(&dict, v1, sizeof(v1)), 1);
	/* a dictionary bound of 10 bytes: PLAIN pages, every value */
	write_strings(&plain, 1000, 4, 10);
	assert_framed(&plain);
	assert_int_equal(count(&plain, v1, sizeof(v1)), 250);
	assert_int_equal(count(&plain, v1v2, sizeof(v1v2)), 250);
	assert_true(plain.len > dict.len);
	buf_clear(&dict);
	buf_clear(&plain);
}

static void
test_row_groups_bounded(void **state)
{
	static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };
	struct buf b = { 0 };
	struct pq_writer *w = writer(cols, 1, PQ_ZSTD, 900, 0, &b);
	struct udtf_value v;
	size_t cuts = 0, last = 4; /* the magic comes with the first row */

	(void)state;
	/* 9 bytes a row (8 + a level): a group every 100 rows */
	for (int i = 0; i < 1000; i++) {
		v = v_i64(i);
		assert_int_equal(pq_writer_row(w, &v), 0);
		if (b.len != last) {
			cuts++;
			assert_int_equal((i + 1) % 100, 0);
			last = b.len;
		}
	}
	assert_int_equal(cuts, 10);
	assert_int_equal(pq_writer_finish(w), 0);
	assert_framed(&b);
	pq_writer_free(w);
	buf_clear(&b);
}

/* Every type and codec, NULLs, drained at random: the same bytes as one
 * writer that keeps all of it. */
static void
test_deterministic(void **state)
{
	static const struct udtf_column cols[] = {
		{ "s", UDTF_STRING }, { "n", UDTF_INT64 }, { "x", UDTF_DOUBLE },
		{ "b", UDTF_BOOL }, { "t", UDTF_TIMESTAMP },
	};
	static const enum pq_codec codecs[] = {
		PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP, PQ_ZSTD,
	};
	struct udtf_value v[NELEM(cols)];
	char s[32];

	(void)state;
	for (size_t c = 0; c < NELEM(codecs); c++) {
		struct buf one = { 0 }, drained = { 0 }, part = { 0 };
		struct pq_writer *a = writer(cols, NELEM(cols), codecs[c],
		    4096, 0, &one);
		struct pq_writer *b = writer(cols, NELEM(cols), codecs[c],
		    4096, 0, &part);
		uint64_t seed = 42;

		assert_int_equal(pq_writer_meta(a, "kedge.table", "t"), 0);
		assert_int_equal(pq_writer_meta(b, "kedge.table", "t"), 0);
		for (int i = 0; i < 3000; i++) {
			uint64_t x = splitmix64(&seed);

			snprintf(s, sizeof(s), "%u", (unsigned)(x % 50));
			v[0] = v_str(s);
			v[1] = v_i64((int64_t)x);
			v[2].type = UDTF_DOUBLE;
			v[2].u.d = (double)(x % 1000) / 7;
			v[3].type = UDTF_BOOL;
			v[3].u.b = (int)(x >> 20) & 1;
			v[4].type = UDTF_TIMESTAMP;
			v[4].u.ts_us = (int64_t)(x >> 12);
			v[(x >> 30) % NELEM(cols)].type = UDTF_NULL;
			assert_int_equal(pq_writer_row(a, v), 0);
			assert_int_equal(pq_writer_row(b, v), 0);
			if (x % 3 == 0) {
				buf_append(&drained, part.data, part.len);
				buf_reset(&part);
			}
		}
		assert_int_equal(pq_writer_finish(a), 0);
		assert_int_equal(pq_writer_finish(b), 0);
		buf_append(&drained, part.data, part.len);
		assert_framed(&one);
		assert_int_equal(one.len, drained.len);
		assert_memory_equal(one.data, drained.data, one.len);
		pq_writer_free(a);
		pq_writer_free(b);
		buf_clear(&one);
		buf_clear(&drained);
		buf_clear(&part);
	}
}

static void
test_refusals(void **state)
{
	static const struct udtf_column cols[] = {
		{ "n", UDTF_INT64 }, { "s", UDTF_STRING },
	};
	static const struct udtf_column bad[] = { { "z", UDTF_NULL } };
	struct pq_opts o = { .codec = PQ_UNCOMPRESSED };
	struct buf ba = { 0 }, bb = { 0 };
	struct pq_writer *a = writer(cols, 2, PQ_UNCOMPRESSED, 0, 0, &ba);
	struct pq_writer *b = writer(cols, 2, PQ_UNCOMPRESSED, 0, 0, &bb);
	struct udtf_value good[2], wrong[2];
	enum pq_codec codec;
	char err[128];

	(void)state;
	good[0] = v_i64(1);
	good[1] = v_str("x");
	wrong[0] = v_i64(2);
	wrong[1] = v_i64(3); /* not a string */
	assert_int_equal(pq_writer_row(a, good), 0);
	assert_int_equal(pq_writer_row(b, good), 0);
	/* a refused row leaves nothing behind */
	assert_int_equal(pq_writer_row(b, wrong), -EINVAL);
	assert_int_equal(pq_writer_finish(a), 0);
	assert_int_equal(pq_writer_finish(b), 0);
	assert_int_equal(ba.len, bb.len);
	assert_memory_equal(ba.data, bb.data, ba.len);
	assert_int_equal(pq_writer_row(a, good), -EINVAL);
	assert_null(pq_writer_new(cols, 0, &o, pq_sink_buf, &ba, err,
	    sizeof(err)));
	assert_null(pq_writer_new(bad, 1, &o, pq_sink_buf, &ba, err,
	    sizeof(err)));
	assert_string_equal(err, "column z has no Parquet type");
	o.codec = (enum pq_codec)3; /* LZO */
	assert_null(pq_writer_new(cols, 2, &o, pq_sink_buf, &ba, err,
	    sizeof(err)));
	assert_int_equal(pq_codec_parse("snappy", &codec), 0);
	assert_int_equal(codec, PQ_SNAPPY);
	assert_int_equal(pq_codec_parse("zstd", &codec), 0);
	assert_int_equal(codec, PQ_ZSTD);
	assert_int_equal(pq_codec_parse("lzo", &codec), -EINVAL);
	pq_writer_free(a);
	pq_writer_free(b);
	buf_clear(&ba);
	buf_clear(&bb);
}

static int
full_sink(void *arg, const void *p, size_t len)
{
	(void)arg;
	(void)p;
	(void)len;
	return -ENOSPC;
}

/* The sink's error comes back as it is. */
static void
test_sink_error(void **state)
{
	static const struct udtf_column cols[] = { { "n", UDTF_INT64 } };
	struct pq_opts o = { .codec = PQ_SNAPPY };
	struct udtf_value v = v_i64(1);
	struct pq_writer *w;
	char err[128];

	(void)state;
	w = pq_writer_new(cols, 1, &o, full_sink, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(pq_writer_row(w, &v), -ENOSPC);
	pq_writer_free(w);
	w = pq_writer_new(cols, 1, &o, full_sink, NULL, err, sizeof(err));
	assert_int_equal(pq_writer_finish(w), -ENOSPC);
	assert_int_equal(pq_writer_bytes(w), 0);
	pq_writer_free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thrift_fields),
		cmocka_unit_test(test_rle_hybrid),
		cmocka_unit_test(test_one_row_pages),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_dictionary_and_plain),
		cmocka_unit_test(test_row_groups_bounded),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_sink_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
