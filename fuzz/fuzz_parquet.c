/*
 * fuzz_parquet: the input is a schema, writer options and rows (values of
 * any bytes: strings of any content, doubles of any bit pattern, NaN
 * included, long runs and none).  pq_writer_row() must take every row,
 * pq_writer_finish() must end the file, the file must be framed ("PAR1",
 * a footer whose length fits, "PAR1"), and the same input must give the
 * same bytes.
 *
 *   byte 0: codec (% 4), byte 1: dictionary bound 2^(b % 14), byte 2: page
 *   bound 2^(b % 14), byte 3: row group bound 2^(b % 18), byte 4: columns
 *   (% 6 + 1), then a type byte per column (% 5 + 1); then cells, row by
 *   row: a byte whose low bit says NULL, then the value: a string as a
 *   length byte and its bytes, numbers as 8 bytes, a bool as 1.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/parquet/parquet.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"
#include "lib/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PQ_MAX_COLS 6

static const enum pq_codec codecs[] = {
	PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP, PQ_ZSTD,
};

/* Reads one cell of type type at *at; returns 0, or -1 at the input's end. */
static int
cell(const uint8_t *data, size_t size, size_t *at, enum udtf_type type,
    struct udtf_value *v)
{
	size_t need;

	if (*at >= size)
		return -1;
	if (data[(*at)++] & 1) {
		v->type = UDTF_NULL;
		return 0;
	}
	v->type = type;
	if (type == UDTF_STRING) {
		if (*at >= size)
			return -1;
		need = data[*at];
		if (size - *at - 1 < need)
			return -1;
		v->u.s.ptr = (const char *)data + *at + 1;
		v->u.s.len = need;
		*at += 1 + need;
		return 0;
	}
	need = type == UDTF_BOOL ? 1 : 8;
	if (size - *at < need)
		return -1;
	if (type == UDTF_BOOL)
		v->u.b = data[*at] & 1;
	else if (type == UDTF_DOUBLE)
		memcpy(&v->u.d, data + *at, 8);
	else
		memcpy(&v->u.i64, data + *at, 8); /* ts_us shares it */
	*at += need;
	return 0;
}

/* Writes the file the input describes into out. */
static void
write_file(const uint8_t *data, size_t size, struct buf *out)
{
	struct udtf_column cols[FUZZ_PQ_MAX_COLS];
	struct udtf_value v[FUZZ_PQ_MAX_COLS];
	struct pq_opts o;
	struct pq_writer *w;
	size_t ncols, at;
	char err[256];
	int r;

	memset(&o, 0, sizeof(o));
	o.codec = codecs[data[0] % 4];
	o.dict_bytes = (size_t)1 << (data[1] % 14);
	o.page_bytes = (size_t)1 << (data[2] % 14);
	o.row_group_bytes = (size_t)1 << (data[3] % 18);
	ncols = data[4] % FUZZ_PQ_MAX_COLS + 1;
	if (size < 5 + ncols)
		return;
	for (size_t i = 0; i < ncols; i++) {
		static const char *names[] = { "a", "b", "c", "d", "e", "f" };

		cols[i].name = names[i];
		cols[i].type = (enum udtf_type)(data[5 + i] % 5 + 1);
	}
	if ((w = pq_writer_new(cols, ncols, &o, pq_sink_buf, out, err,
	    sizeof(err))) == NULL)
		fuzzkit_die("pq_writer_new", "%s", err);
	if ((r = pq_writer_meta(w, "kedge.table", "fuzz")) != 0)
		fuzzkit_die("pq_writer_meta", "%d", r);
	at = 5 + ncols;
	for (;;) {
		size_t i;

		for (i = 0; i < ncols; i++)
			if (cell(data, size, &at, cols[i].type, &v[i]) < 0)
				break;
		if (i < ncols)
			break;
		if ((r = pq_writer_row(w, v)) != 0)
			fuzzkit_die("pq_writer_row", "refused a row: %d", r);
	}
	if ((r = pq_writer_finish(w)) != 0)
		fuzzkit_die("pq_writer_finish", "%d", r);
	if (pq_writer_bytes(w) != out->len)
		fuzzkit_die("pq_writer_bytes", "%llu, the sink took %zu",
		    (unsigned long long)pq_writer_bytes(w), out->len);
	pq_writer_free(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf once = { 0 }, twice = { 0 };
	uint32_t flen;

	if (size < 5)
		return 0;
	write_file(data, size, &once);
	if (once.len == 0) /* too short for its schema */
		return 0;
	if (once.len < 12 || memcmp(once.data, "PAR1", 4) != 0 ||
	    memcmp(once.data + once.len - 4, "PAR1", 4) != 0)
		fuzzkit_die("parquet", "not framed by PAR1 (%zu bytes)",
		    once.len);
	flen = le_get32(once.data + once.len - 8);
	if (flen == 0 || flen > once.len - 12)
		fuzzkit_die("parquet", "footer of %u bytes in a file of %zu",
		    flen, once.len);
	write_file(data, size, &twice);
	if (once.len != twice.len || memcmp(once.data, twice.data,
	    once.len) != 0)
		fuzzkit_die("parquet", "the same rows gave other bytes");
	buf_clear(&once);
	buf_clear(&twice);
	return 0;
}
