/*
 * le: little-endian integers in byte buffers, as the checkpoint store's
 * records and Parquet's files hold them.  p need not be aligned.
 */
#ifndef KEDGE_LE_H
#define KEDGE_LE_H

#include <stdint.h>
#include <string.h>

/* The n bytes at p as an integer, the lowest first. */
static inline uint64_t
le_get(const void *p, int n)
{
	const unsigned char *b = p;
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* The four and eight bytes of v at p, the lowest first: one store (after
 * a byte swap on a big-endian CPU), as rows are logged a value at a time
 * with them. */
static inline void
le_put32(void *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, sizeof(v));
}

static inline void
le_put64(void *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof(v));
}

/* The four and eight bytes at p as an integer, the lowest first: one load
 * (a byte swap on a big-endian CPU), as the parsers read text a word at a
 * time with them. */
static inline uint32_t
le_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t
le_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

#endif /* KEDGE_LE_H */
