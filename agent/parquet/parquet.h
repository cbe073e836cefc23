/*
 * parquet: rows of typed columns -> an Apache Parquet file, written from
 * the format's specification (parquet-format's parquet.thrift); no Parquet
 * library is packaged in Debian.
 *
 * Layout: "PAR1", row groups, the footer (FileMetaData in Thrift's compact
 * protocol), its length as 4 bytes little-endian, "PAR1".  Every column is
 * OPTIONAL (any UDTF column may hold NULL), flat, with definition levels
 * (max level 1) in the RLE/bit-packed hybrid.  Column types:
 *
 *     string     BYTE_ARRAY, logical type STRING (converted UTF8)
 *     int64      INT64
 *     double     DOUBLE
 *     bool       BOOLEAN
 *     timestamp  INT64, TIMESTAMP(isAdjustedToUTC=true, MICROS)
 *                (converted TIMESTAMP_MICROS)
 *
 * Per column chunk: a dictionary page (PLAIN) and data pages v1 whose
 * values are RLE_DICTIONARY indices, or, when the chunk's dictionary
 * would pass opts.dict_bytes (and always for booleans), PLAIN data pages
 * and no dictionary.  Statistics per chunk: null_count, and min_value and
 * max_value when a value is not NULL (strings by unsigned bytes, the
 * STRING type's order).  Pages are compressed one by one with the chunk's
 * codec.  A row group is cut when its buffered values reach
 * opts.row_group_bytes (PLAIN sizes plus a byte a value for its level).
 * Memory of a writer: that, plus per string value 8 bytes of offset, per
 * non-NULL value of the column being written 4 bytes of dictionary index,
 * a dictionary of at most opts.dict_bytes with its hash table (8 bytes an
 * entry), and the pages being compressed (about opts.page_bytes twice).
 *
 * The output depends on the rows, the options and the key-value pairs
 * only: the same input gives the same bytes.
 */
#ifndef KEDGE_PARQUET_H
#define KEDGE_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "agent/udtf/udtf.h"
#include "lib/buf.h"
#include "lib/codec.h"

/* Parquet's CompressionCodec numbers. */
enum pq_codec {
	PQ_UNCOMPRESSED = 0,
	PQ_SNAPPY = 1,
	PQ_GZIP = 2,
	PQ_ZSTD = 6
};

struct pq_opts {
	enum pq_codec codec;
	int level;              /* gzip/zstd level, 0: the codec's default */
	size_t row_group_bytes; /* 0: PQ_ROW_GROUP_BYTES */
	size_t page_bytes;      /* 0: PQ_PAGE_BYTES */
	size_t dict_bytes;      /* 0: PQ_DICT_BYTES */
};

#define PQ_ROW_GROUP_BYTES (64u << 20)
#define PQ_PAGE_BYTES      (1u << 20)
#define PQ_DICT_BYTES      (1u << 20)

struct pq_writer;

/* Where the file's bytes go, in order, a page or a footer at a time:
 * returns 0 or a negative errno, which the writer returns. */
typedef int (pq_sink_fn)(void *arg, const void *p, size_t len);

/* A sink appending to the struct buf arg. */
int pq_sink_buf(void *arg, const void *p, size_t len);

/* Returns a writer of rows with columns cols[0..ncols) (names and types
 * are copied) that hands the file to sink(sink_arg, ...), or NULL with a
 * sentence in err. */
struct pq_writer *pq_writer_new(const struct udtf_column *cols, size_t ncols,
    const struct pq_opts *opts, pq_sink_fn *sink, void *sink_arg, char *err,
    size_t errlen);
void pq_writer_free(struct pq_writer *w); /* accepts NULL */

/* Adds a key-value pair to the footer's key_value_metadata (copied), in
 * the order added.  Returns 0 or -ENOMEM. */
int pq_writer_meta(struct pq_writer *w, const char *key, const char *value);

/* Adds one row; vals has one entry per column, each of its column's type
 * or UDTF_NULL.  Gives the sink whatever of the file is ready (the magic
 * with the first row, the pages of a row group when it is full).  Returns
 * 0, -EINVAL for a value of the wrong type (the row is not added), or the
 * sink's or another negative errno: then the file is broken, free the
 * writer. */
int pq_writer_row(struct pq_writer *w, const struct udtf_value *vals);

/* Gives the sink the rest of the file (the last row group and the
 * footer).  Nothing may be added afterwards.  Returns 0 or a negative
 * errno. */
int pq_writer_finish(struct pq_writer *w);

/* Rows added so far, and bytes of the file given to the sink so far. */
uint64_t pq_writer_rows(const struct pq_writer *w);
uint64_t pq_writer_bytes(const struct pq_writer *w);

/* Parses "none", "snappy", "gzip", "zstd"; returns 0 or -EINVAL. */
int pq_codec_parse(const char *name, enum pq_codec *out);

/* A table's codec as Parquet numbers it, and back (a codec kedge does not
 * write maps to none either way). */
enum pq_codec pq_codec_of(enum codec_kind kind);
enum codec_kind pq_codec_kind(enum pq_codec codec);

#endif /* KEDGE_PARQUET_H */
