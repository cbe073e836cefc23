/*
 * pqfooter: the footer of a Parquet file (FileMetaData, in Thrift's
 * compact protocol), read for `kedge verify`.  Hand-written from
 * parquet-format's parquet.thrift, as the writer (parquet.c) is: no C
 * Parquet library is packaged in Debian 12.
 *
 * It reads what verify checks: the schema's leaves, the row count, each
 * row group's rows and column chunks (codec, values, offsets, null count),
 * the key-value metadata and created_by; every other field, of any type,
 * is skipped.  The input is hostile: every read is bounded by the bytes
 * given, nesting by PQF_MAX_DEPTH, and memory grows with the elements
 * actually read, never with a count the footer claims.  kedge writes flat
 * files, so a schema with nested groups is refused.
 */
#ifndef KEDGE_PQFOOTER_H
#define KEDGE_PQFOOTER_H

#include <stddef.h>
#include <stdint.h>

#define PQF_MAX_DEPTH 32

enum pqf_logical {
	PQF_LOGICAL_NONE,
	PQF_LOGICAL_STRING,
	PQF_LOGICAL_TIMESTAMP_US_UTC,
	PQF_LOGICAL_OTHER
};

struct pqf_column {             /* a leaf of the schema */
	char *name;
	int physical;               /* parquet Type: 0 BOOLEAN .. 7 FIXED_LEN_BYTE_ARRAY */
	int repetition;             /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
	enum pqf_logical logical;
};

struct pqf_chunk {
	int codec;                  /* parquet CompressionCodec */
	int64_t num_values;
	int64_t data_page_offset;
	int64_t dictionary_page_offset; /* -1: none */
	int64_t total_compressed_size;
	int has_null_count;
	int64_t null_count;
};

struct pqf_meta {
	int32_t version;
	int64_t num_rows;
	size_t ncols;
	struct pqf_column *cols;
	size_t nrow_groups;
	int64_t *rg_rows;           /* per row group */
	struct pqf_chunk *chunks;   /* nrow_groups * ncols, row group by row group */
	size_t nkv;
	char **kv_keys, **kv_values;
	char *created_by;           /* NULL: none */
};

/* Parses the footer at the end of tail, the file's last taillen bytes
 * (taillen <= filelen): "...<footer><length, 4 bytes LE>PAR1".  Returns 0;
 * -EINVAL with a sentence in err for a file that is not Parquet or whose
 * footer is damaged or is not one kedge writes; -E2BIG when the footer is
 * longer than taillen - 8 (err says how many bytes it needs); -ENOMEM.
 * Either way out holds what was read: free it with pqf_meta_clear(). */
int pqf_parse(const void *tail, size_t taillen, uint64_t filelen,
    struct pqf_meta *out, char *err, size_t errlen);

/* Reads the footer of the Parquet file fd, of filelen bytes, with pread():
 * the magic at its start, then its end as pqf_parse() reads it.  Returns
 * what pqf_parse() returns (never -E2BIG), or -EIO or another negative
 * errno when fd cannot be read, each with a sentence in err.  Either way
 * out holds what was read: free it with pqf_meta_clear(). */
int pqf_read(int fd, uint64_t filelen, struct pqf_meta *out, char *err,
    size_t errlen);

/* Frees the contents of m (not m), and zeroes it. */
void pqf_meta_clear(struct pqf_meta *m);

/* The value of key in m's key-value metadata, or NULL. */
const char *pqf_meta_value(const struct pqf_meta *m, const char *key);

#endif /* KEDGE_PQFOOTER_H */
