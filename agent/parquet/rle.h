/*
 * rle: Parquet's RLE/bit-packed hybrid encoding of small unsigned
 * integers (definition levels, dictionary indices), as the format's
 * Encodings.md describes it: a sequence of runs, each a ULEB128 header
 * whose low bit says which kind,
 *
 *     RLE run         header = count << 1, then the value in
 *                     ceil(width / 8) bytes, little-endian
 *     bit-packed run  header = groups << 1 | 1, then groups * 8 values
 *                     of width bits each, packed from the low bit of
 *                     each byte up
 *
 * No length prefix: the caller adds one where the page format asks.
 */
#ifndef KEDGE_RLE_H
#define KEDGE_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* The values to encode: bytes (u8) or 32-bit integers (u32, when u8 is
 * NULL). */
struct rle_seq {
	const uint8_t *u8;
	const uint32_t *u32;
};

/* Appends s[0..n) encoded with bit width width (1..32, every value must
 * fit): runs of 8 or more equal values as RLE runs, the rest in
 * bit-packed groups of 8, the last one padded with zeros.  The same input
 * gives the same bytes.  Returns 0 or -ENOMEM. */
int rle_encode(const struct rle_seq *s, size_t n, int width, struct buf *out);

/* Appends s[from..to) bit-packed, width bits each, LSB first; values at n
 * and past are written as 0 (padding).  Returns 0 or -ENOMEM. */
int rle_bitpack(const struct rle_seq *s, size_t from, size_t to, size_t n,
    int width, struct buf *out);

/* Appends v as ULEB128, 7 bits a byte from the low ones up, the high bit
 * set on every byte but the last: the runs' headers, the unsigned varints
 * of Thrift's compact protocol (thrift.c, and the footer reader,
 * pqfooter.c) and the numbers of rowlog.c.  Returns 0 or -ENOMEM. */
int rle_uleb128(struct buf *out, uint64_t v);

/* Writes v as ULEB128 at p, which has room for RLE_ULEB128_MAX bytes;
 * returns the bytes written. */
#define RLE_ULEB128_MAX 10
size_t rle_uleb128_put(unsigned char *p, uint64_t v);

/* Reads the ULEB128 at *p, before end, into *out and moves *p past it.
 * Returns 0, -EAGAIN when end comes first (*p is left alone), or -EINVAL
 * when it runs past 64 bits. */
int rle_uleb128_get(const unsigned char **p, const unsigned char *end,
    uint64_t *out);

/* Zigzag, how Thrift and rowlog.c carry a signed number as an unsigned
 * one: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
static inline uint64_t
rle_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t
rle_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The bit width of values 0..max: at least 1 (0 is valid Parquet, but not
 * every reader takes it). */
int rle_width(uint32_t max);

#endif /* KEDGE_RLE_H */
