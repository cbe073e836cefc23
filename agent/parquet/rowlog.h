/*
 * rowlog: the rows of a Parquet part file while it is open.  A Parquet
 * file cannot be cut back to a checkpoint (its footer comes last), so the
 * writer appends rows to a log that can, like a text file: every length a
 * journal mark records is a row boundary.  When the file is finalized, the
 * log, cut back to its checkpoint, becomes the Parquet file (spool.c); the
 * log holds the columns and the writer's options too, so that a recovery
 * after a crash converts it alone, to the same bytes.
 *
 *   header  "KEDGEROWS\n", then ULEB128 numbers: the log's version (1),
 *           the Parquet codec, the level (zigzag), row_group_bytes,
 *           page_bytes, dict_bytes, the number of columns, and per column
 *           its type (enum udtf_type) and its name (length, bytes)
 *   row     per column a byte, 0 for NULL and 1 for a value, then the
 *           value: a string as its ULEB128 length and its bytes (valid
 *           UTF-8, as Parquet's STRING must be: a byte that is not is
 *           the character U+0080..U+00FF of its value, as in jsonl), an int64,
 *           a timestamp or a double as 8 bytes little-endian, a bool as
 *           one byte 0 or 1
 */
#ifndef KEDGE_ROWLOG_H
#define KEDGE_ROWLOG_H

#include <stddef.h>
#include <stdint.h>

#include "agent/parquet/parquet.h"
#include "agent/udtf/udtf.h"
#include "lib/buf.h"

/* Appends the header of a log of rows of cols[0..ncols) to be written with
 * opts.  Returns 0 or -ENOMEM. */
int rowlog_header(const struct pq_opts *opts, const struct udtf_column *cols,
    size_t ncols, struct buf *out);

/* Appends one row; vals[i] is of cols[i]'s type or UDTF_NULL.  Returns 0,
 * 1 when a string was not valid UTF-8 (and was written as utf8.h's
 * utf8_fixed_len() says), -EINVAL for a value of another type (nothing
 * appended) or -ENOMEM. */
int rowlog_row(const struct udtf_column *cols, const struct udtf_value *vals,
    size_t n, struct buf *out);

/* Writes the Parquet file of the first len bytes of the log at path to
 * sink(arg, ...), with the key-value pairs kv[0..2*nkv) (key, value, ...)
 * in its footer; *rows gets the rows converted, *codec the log's codec.  Reads the log a chunk at
 * a time: the memory is the Parquet writer's (parquet.h) and the longest
 * row.  Returns 0 or a negative errno with a sentence in err (-EINVAL: the
 * log is damaged). */
int rowlog_convert(const char *path, uint64_t len, const char *const *kv,
    size_t nkv, pq_sink_fn *sink, void *arg, uint64_t *rows,
    enum pq_codec *codec, char *err, size_t errlen);

#endif /* KEDGE_ROWLOG_H */
