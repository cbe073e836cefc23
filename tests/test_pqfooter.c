/*
 * pqfooter: the footers kedge's Parquet writer makes read back exactly
 * (schema, rows, row groups, codecs, offsets, null counts, key-value
 * metadata, created_by) for every codec and several row groups; a tail
 * too short for the footer asks for more, and a file's descriptor is read
 * as its bytes are; damaged and hostile footers are
 * refused with a sentence, and no truncation or flipped byte of a real
 * footer crashes or passes for another file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/testlib.h"

#include "agent/parquet/parquet.h"
#include "agent/parquet/pqfooter.h"
#include "lib/le.h"

static const struct udtf_column cols[] = {
	{ "host", UDTF_STRING }, { "n", UDTF_INT64 }, { "x", UDTF_DOUBLE },
	{ "ok", UDTF_BOOL }, { "ts", UDTF_TIMESTAMP },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* A file of rows rows (every third host NULL) with codec c and row groups
 * of rg bytes, and the pairs k=v of its footer. */
static void
make_file(struct buf *out, enum pq_codec c, size_t rg, int rows)
{
	struct pq_opts o = { .codec = c, .row_group_bytes = rg };
	char err[256], host[32];
	struct pq_writer *w;

	memset(out, 0, sizeof(*out));
	assert_non_null(w = pq_writer_new(cols, NCOLS, &o, pq_sink_buf, out,
	    err, sizeof(err)));
	assert_int_equal(pq_writer_meta(w, "kedge.table", "access"), 0);
	assert_int_equal(pq_writer_meta(w, "kedge.partition", "3"), 0);
	for (int i = 0; i < rows; i++) {
		struct udtf_value v[NCOLS];

		snprintf(host, sizeof(host), "host-%d", i % 7);
		v[0] = i % 3 == 0 ? (struct udtf_value){ .type = UDTF_NULL } :
		    (struct udtf_value){ .type = UDTF_STRING,
		    .u.s = { host, strlen(host) } };
		v[1] = (struct udtf_value){ .type = UDTF_INT64, .u.i64 = i };
		v[2] = (struct udtf_value){ .type = UDTF_DOUBLE, .u.d = i / 2.0 };
		v[3] = (struct udtf_value){ .type = UDTF_BOOL, .u.b = i & 1 };
		v[4] = (struct udtf_value){ .type = UDTF_TIMESTAMP,
		    .u.ts_us = INT64_C(1796000000000000) + i };
		assert_int_equal(pq_writer_row(w, v), 0);
	}
	assert_int_equal(pq_writer_finish(w), 0);
	pq_writer_free(w);
}

static void
test_reads_what_was_written(void **state)
{
	static const enum pq_codec codecs[] = { PQ_UNCOMPRESSED, PQ_SNAPPY,
	    PQ_GZIP, PQ_ZSTD };
	static const int physical[] = { 6, 2, 5, 0, 2 };
	static const enum pqf_logical logical[] = { PQF_LOGICAL_STRING,
	    PQF_LOGICAL_NONE, PQF_LOGICAL_NONE, PQF_LOGICAL_NONE,
	    PQF_LOGICAL_TIMESTAMP_US_UTC };
	char err[256];

	(void)state;
	for (size_t k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++) {
		struct pqf_meta m;
		struct buf b;
		int64_t nulls = 0;

		make_file(&b, codecs[k], 65536, 20000);
		if (pqf_parse(b.data, b.len, b.len, &m, err, sizeof(err)) != 0)
			fail_msg("codec %d: %s", codecs[k], err);
		assert_int_equal(m.num_rows, 20000);
		assert_int_equal(m.ncols, NCOLS);
		for (size_t i = 0; i < NCOLS; i++) {
			assert_string_equal(m.cols[i].name, cols[i].name);
			assert_int_equal(m.cols[i].physical, physical[i]);
			assert_int_equal(m.cols[i].repetition, 1);
			assert_int_equal(m.cols[i].logical, logical[i]);
		}
		assert_true(m.nrow_groups >= 2);
		for (size_t g = 0, sum = 0; g < m.nrow_groups; g++) {
			sum += (size_t)m.rg_rows[g];
			for (size_t i = 0; i < NCOLS; i++) {
				const struct pqf_chunk *c =
				    &m.chunks[g * NCOLS + i];
				assert_int_equal(c->codec, codecs[k]);
				assert_int_equal(c->num_values, m.rg_rows[g]);
				assert_true(c->data_page_offset >= 4);
				assert_true(c->has_null_count);
				if (i == 0)
					nulls += c->null_count;
				else
					assert_int_equal(c->null_count, 0);
			}
			if (g + 1 == m.nrow_groups)
				assert_int_equal(sum, 20000);
		}
		assert_int_equal(nulls, (20000 + 2) / 3);
		assert_int_equal(m.nkv, 2);
		assert_string_equal(pqf_meta_value(&m, "kedge.table"), "access");
		assert_string_equal(pqf_meta_value(&m, "kedge.partition"), "3");
		assert_null(pqf_meta_value(&m, "kedge.topic"));
		assert_non_null(m.created_by);
		assert_non_null(strstr(m.created_by, "kedge"));
		pqf_meta_clear(&m);
		buf_clear(&b);
	}
}

/* A file of no row: a schema, no row group. */
static void
test_empty_file(void **state)
{
	struct pqf_meta m;
	struct buf b;
	char err[256];

	(void)state;
	make_file(&b, PQ_SNAPPY, 0, 0);
	assert_int_equal(pqf_parse(b.data, b.len, b.len, &m, err,
	    sizeof(err)), 0);
	assert_int_equal(m.num_rows, 0);
	assert_int_equal(m.nrow_groups, 0);
	assert_int_equal(m.ncols, NCOLS);
	pqf_meta_clear(&m);
	buf_clear(&b);
}

/* Given the file's last bytes only: enough for the footer, or -E2BIG
 * saying how many are needed. */
static void
test_tail(void **state)
{
	struct pqf_meta m;
	struct buf b;
	char err[256];
	uint32_t flen;

	(void)state;
	make_file(&b, PQ_ZSTD, 65536, 5000);
	flen = le_get32(b.data + b.len - 8);
	assert_int_equal(pqf_parse(b.data + b.len - flen - 8, flen + 8, b.len,
	    &m, err, sizeof(err)), 0);
	assert_int_equal(m.num_rows, 5000);
	pqf_meta_clear(&m);
	assert_int_equal(pqf_parse(b.data + b.len - flen - 7, flen + 7, b.len,
	    &m, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "bytes of the file's end are needed"));
	pqf_meta_clear(&m);
	buf_clear(&b);
}

/* A file of bytes p[0..n) on disk: a descriptor of an unlinked file. */
static int
file_of(const void *p, size_t n)
{
	FILE *f = tmpfile();
	int fd;

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fflush(f), 0);
	assert_true((fd = dup(fileno(f))) >= 0);
	fclose(f);
	return fd;
}

/* From a descriptor: the footer as from the bytes; a file without the
 * magic at its start, with a footer longer than itself or shorter than
 * it is said to be, refused or not read, with a sentence. */
static void
test_read(void **state)
{
	struct pqf_meta m;
	struct buf b;
	char err[256];
	int fd;

	(void)state;
	make_file(&b, PQ_GZIP, 65536, 5000);
	fd = file_of(b.data, b.len);
	assert_int_equal(pqf_read(fd, b.len, &m, err, sizeof(err)), 0);
	assert_int_equal(m.num_rows, 5000);
	assert_true(m.nrow_groups > 1);
	assert_string_equal(pqf_meta_value(&m, "kedge.partition"), "3");
	pqf_meta_clear(&m);
	assert_int_equal(pqf_read(fd, b.len + 1, &m, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "cannot read it"));
	pqf_meta_clear(&m);
	close(fd);
	memcpy(b.data, "PAR2", 4);
	fd = file_of(b.data, b.len);
	assert_int_equal(pqf_read(fd, b.len, &m, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "not a Parquet file (no PAR1 at its start "
	    "and its end)");
	pqf_meta_clear(&m);
	close(fd);
	buf_clear(&b);
	fd = file_of("PAR1\xff\xff\x00\x00PAR1", 12);
	assert_int_equal(pqf_read(fd, 12, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "its footer would be 65535 bytes"));
	pqf_meta_clear(&m);
	assert_int_equal(pqf_read(fd, 8, &m, err, sizeof(err)), -EINVAL);
	pqf_meta_clear(&m);
	close(fd);
}

static void
expect_refused(const void *p, size_t n, uint64_t filelen, const char *what)
{
	struct pqf_meta m;
	char err[256] = "";

	assert_int_equal(pqf_parse(p, n, filelen, &m, err, sizeof(err)),
	    -EINVAL);
	if (strstr(err, what) == NULL)
		fail_msg("got \"%s\", want \"%s\"", err, what);
	pqf_meta_clear(&m);
}

static void
test_refusals(void **state)
{
	/* footer: FileMetaData with a list of 2 SchemaElements, the root
	 * claiming 5 children */
	static const unsigned char nested[] = {
		'P', 'A', 'R', '1',
		0x29, 0x2c,             /* field 2: list of 2 structs */
		0x55, 0x0a,             /* root: field 5 num_children = 5 */
		0x00,
		0x48, 0x01, 'a', 0x00,  /* field 4 name "a" */
		0x00,
		10, 0, 0, 0, 'P', 'A', 'R', '1',
	};
	static const unsigned char deep[] = {
		'P', 'A', 'R', '1',
		/* field 7 (unknown) struct, nested past the bound */
		0x7c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c,
		0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c,
		0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c,
		0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c,
		40, 0, 0, 0, 'P', 'A', 'R', '1',
	};
	static const unsigned char huge_list[] = {
		'P', 'A', 'R', '1',
		0x29, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x0f, /* 2^32-1 structs */
		7, 0, 0, 0, 'P', 'A', 'R', '1',
	};
	struct buf b;

	(void)state;
	expect_refused("PAR1PAR1xxxx", 12, 12, "no PAR1 at its end");
	expect_refused("PAR1\xff\xff\x00\x00PAR1", 12, 12, "its footer would be");
	expect_refused(nested, sizeof(nested), sizeof(nested),
	    "root has 5 children, and 1 elements follow it");
	expect_refused(deep, sizeof(deep), sizeof(deep), "damaged");
	expect_refused(huge_list, sizeof(huge_list), sizeof(huge_list),
	    "schema is damaged");
	/* a real footer whose row count is off by one */
	make_file(&b, PQ_SNAPPY, 65536, 300);
	{
		struct pqf_meta m;
		char err[256];
		uint32_t flen = le_get32(b.data + b.len - 8);
		unsigned char *f = (unsigned char *)b.data + b.len - 8 - flen;
		size_t i;

		/* field 3 (num_rows, i64): 300 is zigzag 600, 0xd8 0x04 */
		for (i = 0; i + 2 < flen; i++)
			if (f[i] == 0x16 && f[i + 1] == 0xd8 && f[i + 2] == 0x04)
				break;
		assert_true(i + 2 < flen);
		f[i + 1] = 0xda;
		assert_int_equal(pqf_parse(b.data, b.len, b.len, &m, err,
		    sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "row groups hold 300 rows, its "
		    "footer says 301"));
		pqf_meta_clear(&m);
	}
	buf_clear(&b);
}

/* Every truncation and every flipped byte of a real footer: refused or
 * read, never a crash, and read only as a file of 0..300 rows. */
static void
test_damage_never_crashes(void **state)
{
	struct buf b;
	uint32_t flen;

	(void)state;
	make_file(&b, PQ_GZIP, 4096, 300);
	flen = le_get32(b.data + b.len - 8);
	for (size_t i = 0; i < flen; i++) {
		unsigned char *p = (unsigned char *)b.data + b.len - 8 - flen + i;
		unsigned char was = *p;
		struct pqf_meta m;
		char err[256];

		for (int bit = 0; bit < 8; bit++) {
			*p = (unsigned char)(was ^ (1u << bit));
			if (pqf_parse(b.data, b.len, b.len, &m, err,
			    sizeof(err)) == 0)
				assert_true(m.num_rows >= 0);
			pqf_meta_clear(&m);
		}
		*p = was;
		/* the footer cut at i bytes, its length saying so */
		{
			size_t n = (size_t)(b.len - 8 - flen) + i;
			char *cut = malloc(n + 8);

			memcpy(cut, b.data, n);
			le_put32(cut + n, (uint32_t)i);
			memcpy(cut + n + 4, "PAR1", 4);
			if (pqf_parse(cut, n + 8, n + 8, &m, err,
			    sizeof(err)) == 0)
				assert_true(m.num_rows >= 0);
			pqf_meta_clear(&m);
			free(cut);
		}
	}
	buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_what_was_written),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_damage_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
