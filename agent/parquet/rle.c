#include "agent/parquet/rle.h"

#include <errno.h>

static uint32_t
rle_seq_at(const struct rle_seq *s, size_t i)
{
	return s->u8 != NULL ? s->u8[i] : s->u32[i];
}

size_t
rle_uleb128_put(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

int
rle_uleb128(struct buf *out, uint64_t v)
{
	unsigned char b[RLE_ULEB128_MAX];

	return buf_append(out, b, rle_uleb128_put(b, v));
}

int
rle_uleb128_get(const unsigned char **p, const unsigned char *end,
    uint64_t *out)
{
	const unsigned char *s = *p;
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (s >= end)
			return -EAGAIN;
		v |= (uint64_t)(*s & 0x7f) << shift;
		if ((*s++ & 0x80) == 0) {
			*p = s;
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

/* Length of the run of equal values at s[i..n). */
static size_t
rle_run(const struct rle_seq *s, size_t i, size_t n)
{
	uint32_t v = rle_seq_at(s, i);
	size_t j = i + 1;

	while (j < n && rle_seq_at(s, j) == v)
		j++;
	return j - i;
}

/* Appends values s[from..to) bit-packed, width bits each, LSB first,
 * zeros past n: whole groups of 8. */
int
rle_bitpack(const struct rle_seq *s, size_t from, size_t to, size_t n,
    int width, struct buf *out)
{
	uint64_t acc = 0;
	int nbits = 0;
	int r;

	if ((r = buf_reserve(out, (to - from) / 8 * (size_t)width + 8)) < 0)
		return r;
	for (size_t i = from; i < to; i++) {
		acc |= (uint64_t)(i < n ? rle_seq_at(s, i) : 0) << nbits;
		nbits += width;
		while (nbits >= 8) {
			buf_putc_unchecked(out, (char)(acc & 0xff));
			acc >>= 8;
			nbits -= 8;
		}
	}
	return 0;
}

/* Appends s[0..n) in the RLE/bit-packed hybrid of bit width width (no
 * length prefix): runs of 8 or more equal values as RLE runs, the rest in
 * bit-packed groups of 8. */
int
rle_encode(const struct rle_seq *s, size_t n, int width, struct buf *out)
{
	size_t i = 0, run, start, groups;
	uint8_t v[4];
	int r;

	while (i < n) {
		if ((run = rle_run(s, i, n)) >= 8) {
			for (int k = 0; k < 4; k++)
				v[k] = (uint8_t)(rle_seq_at(s, i) >> (8 * k));
			if ((r = rle_uleb128(out, (uint64_t)run << 1)) < 0 ||
			    (r = buf_append(out, v,
			    ((size_t)width + 7) / 8)) < 0)
				return r;
			i += run;
			continue;
		}
		start = i;
		groups = 0;
		do {
			groups++;
			i += 8;
		} while (i < n && rle_run(s, i, n) < 8);
		if ((r = rle_uleb128(out, (uint64_t)groups << 1 | 1)) < 0 ||
		    (r = rle_bitpack(s, start, i, n, width, out)) < 0)
			return r;
	}
	return 0;
}

int
rle_width(uint32_t max)
{
	int w = 1; /* 0 is valid, but not every reader takes it */

	while (w < 32 && (max >> w) != 0)
		w++;
	return w;
}
