/*
 * fingerprint: what `kedge reconcile` compares of a row, and what every
 * part file's sidecar and every hour's manifest record of their rows
 * (docs/reconcile.md).  A row's canonical text is its values joined by
 * \001, each written as:
 *
 *   NULL       \N
 *   string     its UTF-8, each byte that is not part of valid UTF-8 taken
 *              as U+0080..U+00FF (as jsonl and Parquet write it), then a
 *              backslash before '\\' and \001, and \n and \r as the two
 *              characters backslash-n and backslash-r (hive-text's escape)
 *   int64      decimal
 *   double     Java's Double.toHexString(): "0x1.91eb851eb851fp-3",
 *              "-0x0.0p0", "NaN", "Infinity" (exact, and what Spark's
 *              format_string('%a', d) prints)
 *   bool       true or false
 *   timestamp  local time in output.timezone, "yyyy-MM-dd HH:mm:ss.SSSSSS";
 *              an instant tz cannot render (before 1970, after 9999) as \N,
 *              as hive-text writes it
 *
 * A row's hash is XXH64 of that text with seed 42, Spark's xxhash64() of
 * the string; a set of rows' fingerprint is the sum of its rows' hashes
 * modulo 2^64, so that it does not depend on their order and the
 * fingerprints of two files add up to their union's.
 */
#ifndef KEDGE_FINGERPRINT_H
#define KEDGE_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/udtf/udtf.h"
#include "agent/write/tz.h"
#include "lib/buf.h"

#define FINGERPRINT_SEED 42      /* Spark's xxhash64() */
#define FINGERPRINT_SEP '\001'   /* between two values */
#define FINGERPRINT_HEX 16       /* digits of a fingerprint as text */

/* Appends the canonical text of the values vals[pick[0]], ...,
 * vals[pick[n - 1]] (vals[0..n) when pick is NULL) to out.  A value's type
 * is its column's or UDTF_NULL.  Returns 0 or -ENOMEM. */
int fingerprint_text(struct tz *tz, const struct udtf_value *vals,
    const size_t *pick, size_t n, struct buf *out);

/* fingerprint_text() of vals[0..n) whose strings are all valid UTF-8, as
 * rowlog_row() returning 0 says of a row it logged: none is checked
 * again. */
int fingerprint_text_utf8(struct tz *tz, const struct udtf_value *vals,
    size_t n, struct buf *out);

/* fingerprint_text() of vals[0..n), read mostly from the hive-text row
 * that format_hive_row_ends() wrote of them with delimiter FINGERPRINT_SEP
 * and the timezone fingerprint_text() would take: value i's text ends at
 * row[ends[i]].  NULLs, integers, booleans and strings of valid UTF-8 read
 * the same in both and are copied; a timestamp's fraction is padded to six
 * digits; a double and a string that is not valid UTF-8 are written
 * again.  Returns 0 or -ENOMEM. */
int fingerprint_text_hive(const struct udtf_value *vals, size_t n,
    const char *row, const size_t *ends, struct buf *out);

/* The hash of a row whose canonical text is text[0..len). */
uint64_t fingerprint_hash(const void *text, size_t len);

/* Appends the canonical text of one double (as above) to out.  Returns 0
 * or -ENOMEM. */
int fingerprint_double(double d, struct buf *out);

/* Writes fp as FINGERPRINT_HEX lowercase hex digits and a NUL into
 * buf[FINGERPRINT_HEX + 1]; returns buf. */
char *fingerprint_format(uint64_t fp, char *buf);

/* Reads FINGERPRINT_HEX lowercase hex digits, nothing else, into *out.
 * Returns 0 or -EINVAL. */
int fingerprint_parse(const char *s, uint64_t *out);

#endif /* KEDGE_FINGERPRINT_H */
