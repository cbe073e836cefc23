/* parquet: a Parquet file's pages, column chunks, row groups and footer,
 * written from the rows parquet_col.c buffers per column: see parquet.h. */
#include "agent/parquet/parquet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "agent/parquet/parquet_int.h"
#include "agent/parquet/rle.h"
#include "agent/parquet/thrift.h"
#include "lib/codec.h"
#include "lib/le.h"

/* parquet.thrift's numbers that this writer uses. */
enum { PT_BOOLEAN = 0, PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { PE_PLAIN = 0, PE_RLE = 3, PE_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };
enum { REP_OPTIONAL = 1 };
enum { CT_UTF8 = 0, CT_TIMESTAMP_MICROS = 10 };

#define PQ_MAGIC "PAR1"
#define PQ_CREATED_BY "kedge version " KEDGE_VERSION

struct pq_writer {
	struct pq_col *cols;
	size_t ncols;
	struct pq_opts o;
	struct codec *codec;   /* gzip and zstd; NULL otherwise */
	pq_sink_fn *sink;      /* takes the file's bytes */
	void *sink_arg;
	uint64_t rows;
	uint64_t bytes;        /* of the file, given to sink so far */
	size_t rg_rows;
	size_t rg_bytes;       /* values buffered in cols */
	size_t nrg;
	struct buf rgmeta;     /* RowGroup structs, each written at depth 0 */
	struct buf kv;         /* KeyValue structs, each written at depth 0 */
	size_t nkv;
	struct buf page, zpage, hdr; /* scratch */
	struct pq_dict dict;
	int finished;
};

/* ---- pages ---- */

static int
pq_emit(struct pq_writer *w, const void *p, size_t len)
{
	int r;

	if ((r = w->sink(w->sink_arg, p, len)) == 0)
		w->bytes += len;
	return r;
}

/* Compresses w->page into w->zpage with the writer's codec. */
static int
pq_compress(struct pq_writer *w)
{
	size_t n;
	int r;

	buf_reset(&w->zpage);
	switch (w->o.codec) {
	case PQ_SNAPPY:
		n = snappy_max_compressed_length(w->page.len);
		if ((r = buf_reserve(&w->zpage, n)) < 0)
			return r;
		if (snappy_compress(w->page.data, w->page.len, w->zpage.data,
		    &n) != SNAPPY_OK)
			return -EIO;
		w->zpage.len = n;
		return 0;
	case PQ_GZIP:
	case PQ_ZSTD:
		if ((r = codec_write(w->codec, w->page.data, w->page.len,
		    &w->zpage)) < 0)
			return r;
		return codec_finish(w->codec, &w->zpage);
	default:
		return buf_append(&w->zpage, w->page.data, w->page.len);
	}
}

/* Sizes of a column chunk's pages, headers included. */
struct pq_sizes {
	uint64_t unc, comp;
};

/* Writes w->page as one page: its PageHeader, then its compressed bytes.
 * nvalues: rows of a data page, entries of a dictionary page. */
static int
pq_page(struct pq_writer *w, int type, size_t nvalues,
    int encoding, struct pq_sizes *sz)
{
	struct thrift_writer t;
	int r;

	if (w->page.len > INT32_MAX || nvalues > INT32_MAX)
		return -EFBIG;
	if ((r = pq_compress(w)) < 0)
		return r;
	if (w->zpage.len > INT32_MAX)
		return -EFBIG;
	buf_reset(&w->hdr);
	thrift_init(&t, &w->hdr);
	thrift_i32_field(&t, 1, type);
	thrift_i32_field(&t, 2, (int32_t)w->page.len);
	thrift_i32_field(&t, 3, (int32_t)w->zpage.len);
	thrift_field(&t, type == PAGE_DATA ? 5 : 7, THRIFT_STRUCT);
	thrift_begin(&t);
	thrift_i32_field(&t, 1, (int32_t)nvalues);
	thrift_i32_field(&t, 2, encoding);
	if (type == PAGE_DATA) {
		thrift_i32_field(&t, 3, PE_RLE); /* definition levels */
		thrift_i32_field(&t, 4, PE_RLE); /* repetition levels: none */
	}
	thrift_end(&t);
	thrift_end(&t);
	if (t.err < 0)
		return t.err;
	if ((r = pq_emit(w, w->hdr.data, w->hdr.len)) < 0 ||
	    (r = pq_emit(w, w->zpage.data, w->zpage.len)) < 0)
		return r;
	sz->unc += w->hdr.len + w->page.len;
	sz->comp += w->hdr.len + w->zpage.len;
	return 0;
}

/* Builds in w->page the body of a data page v1 of c's rows [r0, r1),
 * values [v0, v1): definition levels with their 4-byte length, then the
 * values, as dictionary indices when dict is set. */
static int
pq_data_body(struct pq_writer *w, const struct pq_col *c, size_t r0,
    size_t r1, size_t v0, size_t v1, int dict)
{
	struct rle_seq defs = { (const uint8_t *)c->defs.data + r0, NULL };
	struct rle_seq seq = { NULL, NULL };
	size_t at;
	uint8_t n[4];
	int width, r;

	buf_reset(&w->page);
	if ((r = buf_append(&w->page, "\0\0\0\0", 4)) < 0 ||
	    (r = rle_encode(&defs, r1 - r0, 1, &w->page)) < 0)
		return r;
	le_put32(n, (uint32_t)(w->page.len - 4));
	memcpy(w->page.data, n, 4);
	/* past here there are values: vals and idx are not NULL */
	if (v1 == v0)
		return 0;
	if (dict) {
		seq.u32 = w->dict.idx + v0;
		width = rle_width((uint32_t)(w->dict.n - 1));
		n[0] = (uint8_t)width;
		if ((r = buf_append(&w->page, n, 1)) < 0)
			return r;
		return rle_encode(&seq, v1 - v0, width, &w->page);
	}
	if (c->type == UDTF_BOOL) { /* PLAIN booleans: one bit each */
		seq.u8 = (const uint8_t *)c->vals.data + v0;
		return rle_bitpack(&seq, 0, (v1 - v0 + 7) / 8 * 8, v1 - v0, 1,
		    &w->page);
	}
	at = pq_col_value_at(c, v0);
	return buf_append(&w->page, c->vals.data + at,
	    pq_col_value_at(c, v1) - at);
}

/* Writes c's data pages, each of about page_bytes of values. */
static int
pq_data_pages(struct pq_writer *w, const struct pq_col *c, int dict,
    struct pq_sizes *sz)
{
	size_t nrows = c->defs.len, r0 = 0, v0 = 0, v = 0, est = 0, len;
	int r;

	for (size_t row = 0; row < nrows; row++) {
		est++;
		if (c->defs.data[row]) {
			pq_col_value(c, v++, &len);
			est += dict ? 4 : len;
		}
		if (est < w->o.page_bytes && row + 1 < nrows)
			continue;
		if ((r = pq_data_body(w, c, r0, row + 1, v0, v, dict)) < 0 ||
		    (r = pq_page(w, PAGE_DATA, row + 1 - r0,
		    dict ? PE_RLE_DICTIONARY : PE_PLAIN, sz)) < 0)
			return r;
		r0 = row + 1;
		v0 = v;
		est = 0;
	}
	return 0;
}

static int
pq_physical(enum udtf_type type)
{
	switch (type) {
	case UDTF_STRING:
		return PT_BYTE_ARRAY;
	case UDTF_DOUBLE:
		return PT_DOUBLE;
	case UDTF_BOOL:
		return PT_BOOLEAN;
	default:
		return PT_INT64;
	}
}

/* Writes c's column chunk and its ColumnChunk struct, as a list element,
 * to t. */
static int
pq_chunk(struct pq_writer *w, const struct pq_col *c,
    struct thrift_writer *t, struct pq_sizes *sz)
{
	uint64_t start = w->bytes, data_at;
	int dict = 0, r;

	if (c->type != UDTF_BOOL && c->nvals > 0 &&
	    (dict = pq_dict_build(&w->dict, c, w->o.dict_bytes)) < 0)
		return dict;
	if (dict) {
		buf_reset(&w->page);
		if ((r = buf_append(&w->page, w->dict.plain.data,
		    w->dict.plain.len)) < 0 ||
		    (r = pq_page(w, PAGE_DICTIONARY, w->dict.n, PE_PLAIN,
		    sz)) < 0)
			return r;
	}
	data_at = w->bytes;
	if ((r = pq_data_pages(w, c, dict, sz)) < 0)
		return r;

	thrift_begin(t);
	thrift_i64_field(t, 2, (int64_t)start);
	thrift_field(t, 3, THRIFT_STRUCT);
	thrift_begin(t);
	thrift_i32_field(t, 1, pq_physical(c->type));
	/* encodings, ascending: PLAIN (values or dictionary page), RLE
	 * (levels), RLE_DICTIONARY */
	thrift_field(t, 2, THRIFT_LIST);
	thrift_list(t, THRIFT_I32, dict ? 3 : 2);
	thrift_i32(t, PE_PLAIN);
	thrift_i32(t, PE_RLE);
	if (dict)
		thrift_i32(t, PE_RLE_DICTIONARY);
	thrift_field(t, 3, THRIFT_LIST);
	thrift_list(t, THRIFT_BINARY, 1);
	thrift_binary(t, c->name, strlen(c->name));
	thrift_i32_field(t, 4, (int32_t)w->o.codec);
	thrift_i64_field(t, 5, (int64_t)c->defs.len);
	thrift_i64_field(t, 6, (int64_t)sz->unc);
	thrift_i64_field(t, 7, (int64_t)sz->comp);
	thrift_i64_field(t, 9, (int64_t)data_at);
	if (dict)
		thrift_i64_field(t, 11, (int64_t)start);
	pq_col_stats(t, c);
	thrift_end(t);
	thrift_end(t);
	return t->err;
}

static int
pq_magic(struct pq_writer *w)
{
	return w->bytes == 0 ? pq_emit(w, PQ_MAGIC, 4) : 0;
}

/* Writes the buffered rows as one row group and keeps its RowGroup
 * struct for the footer. */
static int
pq_row_group(struct pq_writer *w)
{
	struct thrift_writer t;
	struct pq_sizes all = { 0, 0 }, sz;
	uint64_t start = w->bytes;
	int r;

	if (w->rg_rows == 0)
		return 0;
	thrift_init(&t, &w->rgmeta);
	thrift_field(&t, 1, THRIFT_LIST);
	thrift_list(&t, THRIFT_STRUCT, w->ncols);
	for (size_t i = 0; i < w->ncols; i++) {
		sz.unc = sz.comp = 0;
		if ((r = pq_chunk(w, &w->cols[i], &t, &sz)) < 0)
			return r;
		all.unc += sz.unc;
		all.comp += sz.comp;
	}
	thrift_i64_field(&t, 2, (int64_t)all.unc);
	thrift_i64_field(&t, 3, (int64_t)w->rg_rows);
	thrift_i64_field(&t, 5, (int64_t)start);
	thrift_i64_field(&t, 6, (int64_t)all.comp);
	if (w->nrg <= INT16_MAX) /* ordinal: an i16 */
		thrift_i16_field(&t, 7, (int16_t)w->nrg);
	thrift_end(&t);
	if (t.err < 0)
		return t.err;
	for (size_t i = 0; i < w->ncols; i++)
		pq_col_reset(&w->cols[i]);
	w->nrg++;
	w->rg_rows = 0;
	w->rg_bytes = 0;
	return 0;
}

/* ---- the footer ---- */

static void
pq_schema(struct thrift_writer *t, const struct pq_writer *w)
{
	thrift_field(t, 2, THRIFT_LIST);
	thrift_list(t, THRIFT_STRUCT, w->ncols + 1);
	thrift_begin(t);
	thrift_string_field(t, 4, "schema");
	thrift_i32_field(t, 5, (int32_t)w->ncols);
	thrift_end(t);
	for (size_t i = 0; i < w->ncols; i++) {
		const struct pq_col *c = &w->cols[i];

		thrift_begin(t);
		thrift_i32_field(t, 1, pq_physical(c->type));
		thrift_i32_field(t, 3, REP_OPTIONAL);
		thrift_string_field(t, 4, c->name);
		if (c->type == UDTF_STRING || c->type == UDTF_TIMESTAMP)
			thrift_i32_field(t, 6, c->type == UDTF_STRING ?
			    CT_UTF8 : CT_TIMESTAMP_MICROS);
		if (c->type == UDTF_STRING) {
			thrift_field(t, 10, THRIFT_STRUCT); /* LogicalType */
			thrift_begin(t);
			thrift_field(t, 1, THRIFT_STRUCT);  /* STRING */
			thrift_begin(t);
			thrift_end(t);
			thrift_end(t);
		} else if (c->type == UDTF_TIMESTAMP) {
			thrift_field(t, 10, THRIFT_STRUCT); /* LogicalType */
			thrift_begin(t);
			thrift_field(t, 8, THRIFT_STRUCT);  /* TIMESTAMP */
			thrift_begin(t);
			thrift_bool_field(t, 1, 1);         /* UTC */
			thrift_field(t, 2, THRIFT_STRUCT);  /* unit */
			thrift_begin(t);
			thrift_field(t, 2, THRIFT_STRUCT);  /* MICROS */
			thrift_begin(t);
			thrift_end(t);
			thrift_end(t);
			thrift_end(t);
			thrift_end(t);
		}
		thrift_end(t);
	}
}

static int
pq_footer(struct pq_writer *w)
{
	struct thrift_writer t;
	uint8_t n[4];
	int r;

	buf_reset(&w->hdr);
	thrift_init(&t, &w->hdr);
	thrift_i32_field(&t, 1, 1); /* version */
	pq_schema(&t, w);
	thrift_i64_field(&t, 3, (int64_t)w->rows);
	thrift_field(&t, 4, THRIFT_LIST);
	thrift_list(&t, THRIFT_STRUCT, w->nrg);
	thrift_raw(&t, w->rgmeta.data, w->rgmeta.len);
	if (w->nkv > 0) {
		thrift_field(&t, 5, THRIFT_LIST);
		thrift_list(&t, THRIFT_STRUCT, w->nkv);
		thrift_raw(&t, w->kv.data, w->kv.len);
	}
	thrift_string_field(&t, 6, PQ_CREATED_BY);
	/* column_orders: TYPE_ORDER for all, so that readers trust the
	 * statistics of strings */
	thrift_field(&t, 7, THRIFT_LIST);
	thrift_list(&t, THRIFT_STRUCT, w->ncols);
	for (size_t i = 0; i < w->ncols; i++) {
		thrift_begin(&t);
		thrift_field(&t, 1, THRIFT_STRUCT);
		thrift_begin(&t);
		thrift_end(&t);
		thrift_end(&t);
	}
	thrift_end(&t);
	if (t.err < 0)
		return t.err;
	if (w->hdr.len > UINT32_MAX)
		return -EFBIG;
	le_put32(n, (uint32_t)w->hdr.len);
	if ((r = pq_emit(w, w->hdr.data, w->hdr.len)) < 0 ||
	    (r = pq_emit(w, n, 4)) < 0)
		return r;
	return pq_emit(w, PQ_MAGIC, 4);
}

/* ---- the interface ---- */

struct pq_writer *
pq_writer_new(const struct udtf_column *cols, size_t ncols,
    const struct pq_opts *opts, pq_sink_fn *sink, void *sink_arg, char *err,
    size_t errlen)
{
	struct pq_writer *w;

	if (ncols == 0) {
		snprintf(err, errlen, "a Parquet file needs a column");
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->cols = calloc(ncols, sizeof(*w->cols))) == NULL)
		goto nomem;
	w->ncols = ncols;
	w->sink = sink;
	w->sink_arg = sink_arg;
	w->o = *opts;
	if (w->o.row_group_bytes == 0)
		w->o.row_group_bytes = PQ_ROW_GROUP_BYTES;
	if (w->o.page_bytes == 0)
		w->o.page_bytes = PQ_PAGE_BYTES;
	if (w->o.dict_bytes == 0)
		w->o.dict_bytes = PQ_DICT_BYTES;
	for (size_t i = 0; i < ncols; i++) {
		if (cols[i].type < UDTF_STRING ||
		    cols[i].type > UDTF_TIMESTAMP) {
			snprintf(err, errlen, "column %s has no Parquet type",
			    cols[i].name);
			goto fail;
		}
		w->cols[i].type = cols[i].type;
		if ((w->cols[i].name = strdup(cols[i].name)) == NULL)
			goto nomem;
	}
	switch (w->o.codec) {
	case PQ_UNCOMPRESSED:
	case PQ_SNAPPY:
		break;
	case PQ_GZIP:
	case PQ_ZSTD:
		if ((w->codec = codec_new(w->o.codec == PQ_GZIP ? CODEC_GZIP :
		    CODEC_ZSTD, w->o.level)) == NULL)
			goto nomem;
		break;
	default:
		snprintf(err, errlen, "Parquet codec %d is not written",
		    (int)w->o.codec);
		goto fail;
	}
	return w;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	pq_writer_free(w);
	return NULL;
}

void
pq_writer_free(struct pq_writer *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; w->cols != NULL && i < w->ncols; i++) {
		free(w->cols[i].name);
		buf_clear(&w->cols[i].vals);
		buf_clear(&w->cols[i].defs);
		free(w->cols[i].off);
	}
	free(w->cols);
	codec_free(w->codec);
	buf_clear(&w->rgmeta);
	buf_clear(&w->kv);
	buf_clear(&w->page);
	buf_clear(&w->zpage);
	buf_clear(&w->hdr);
	pq_dict_clear(&w->dict);
	free(w);
}

int
pq_writer_meta(struct pq_writer *w, const char *key, const char *value)
{
	struct thrift_writer t;

	thrift_init(&t, &w->kv);
	thrift_string_field(&t, 1, key);
	thrift_string_field(&t, 2, value);
	thrift_end(&t);
	if (t.err == 0)
		w->nkv++;
	return t.err;
}

int
pq_writer_row(struct pq_writer *w, const struct udtf_value *vals)
{
	size_t added;
	int r;

	if (w->finished)
		return -EINVAL;
	for (size_t i = 0; i < w->ncols; i++)
		if (vals[i].type != UDTF_NULL &&
		    vals[i].type != w->cols[i].type)
			return -EINVAL;
	if ((r = pq_magic(w)) < 0)
		return r;
	for (size_t i = 0; i < w->ncols; i++) {
		if ((r = pq_col_add(&w->cols[i], &vals[i], &added)) < 0)
			return r;
		w->rg_bytes += added;
	}
	w->rg_rows++;
	w->rows++;
	if (w->rg_bytes >= w->o.row_group_bytes)
		return pq_row_group(w);
	return 0;
}

int
pq_writer_finish(struct pq_writer *w)
{
	int r;

	if (w->finished)
		return -EINVAL;
	if ((r = pq_magic(w)) < 0 || (r = pq_row_group(w)) < 0 ||
	    (r = pq_footer(w)) < 0)
		return r;
	w->finished = 1;
	return 0;
}

uint64_t
pq_writer_rows(const struct pq_writer *w)
{
	return w->rows;
}

uint64_t
pq_writer_bytes(const struct pq_writer *w)
{
	return w->bytes;
}

int
pq_sink_buf(void *arg, const void *p, size_t len)
{
	return buf_append(arg, p, len);
}

static const struct {
	enum codec_kind kind;
	enum pq_codec codec;
} pq_codecs[] = {
	{ CODEC_NONE, PQ_UNCOMPRESSED }, { CODEC_SNAPPY, PQ_SNAPPY },
	{ CODEC_GZIP, PQ_GZIP }, { CODEC_ZSTD, PQ_ZSTD },
};

#define PQ_NCODECS (sizeof(pq_codecs) / sizeof(pq_codecs[0]))

enum pq_codec
pq_codec_of(enum codec_kind kind)
{
	for (size_t i = 0; i < PQ_NCODECS; i++)
		if (pq_codecs[i].kind == kind)
			return pq_codecs[i].codec;
	return PQ_UNCOMPRESSED;
}

enum codec_kind
pq_codec_kind(enum pq_codec codec)
{
	for (size_t i = 0; i < PQ_NCODECS; i++)
		if (pq_codecs[i].codec == codec)
			return pq_codecs[i].kind;
	return CODEC_NONE;
}

int
pq_codec_parse(const char *name, enum pq_codec *out)
{
	enum codec_kind kind;

	if (codec_kind_parse(name, &kind) < 0)
		return -EINVAL;
	*out = pq_codec_of(kind);
	return 0;
}
