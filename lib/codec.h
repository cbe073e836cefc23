/*
 * codec: compression of a file's bytes as a series of independent
 * members (gzip) or frames (zstd).  codec_finish() closes the current one,
 * so the bytes written up to that point are a complete, valid file on their
 * own, and the next codec_write() starts a new member or frame.  Files made
 * of concatenated members/frames are valid gzip/zstd streams that gzip -d,
 * zstd -d, Hadoop and Hive read whole.
 */
#ifndef KEDGE_CODEC_H
#define KEDGE_CODEC_H

#include <stddef.h>

#include "lib/buf.h"

/* CODEC_SNAPPY is Parquet's only: its pages are compressed one by one
 * (parquet.h), and a text file is never snappy. */
enum codec_kind { CODEC_NONE, CODEC_GZIP, CODEC_ZSTD, CODEC_SNAPPY };

struct codec;

/* Returns a codec at compression level `level` (0: the codec's default),
 * or NULL when out of memory or for CODEC_SNAPPY. */
struct codec *codec_new(enum codec_kind kind, int level);
void codec_free(struct codec *c); /* accepts NULL */

/* Compresses in[0..len) and appends what is ready to out.  Returns 0 or a
 * negative errno. */
int codec_write(struct codec *c, const void *in, size_t len, struct buf *out);
/* Ends the current member/frame, appending its last bytes to out; a no-op
 * when nothing was written since the last finish.  Returns 0 or a negative
 * errno. */
int codec_finish(struct codec *c, struct buf *out);

/* Finishes the current member/frame, then appends one that holds no byte:
 * a file of none but that is still a valid gzip or zstd file.  Returns 0
 * or a negative errno. */
int codec_empty(struct codec *c, struct buf *out);

/* Parses "none", "gzip", "zstd", "snappy"; returns 0 or -EINVAL. */
int codec_kind_parse(const char *name, enum codec_kind *out);
/* "", ".gz" or ".zst" ("" for snappy: a Parquet file's name is .parquet). */
const char *codec_kind_ext(enum codec_kind kind);
/* The name codec_kind_parse() reads. */
const char *codec_kind_name(enum codec_kind kind);

#endif /* KEDGE_CODEC_H */
