/*
 * le: little-endian integers in byte buffers, as the checkpoint store's
 * records and Parquet's files hold them.  p need not be aligned.
 */
#ifndef KEDGE_LE_H
#define KEDGE_LE_H

#include <stdint.h>

/* The low n bytes of v at p, the lowest first. */
static inline void
le_put(void *p, uint64_t v, int n)
{
	unsigned char *b = p;

	for (int i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

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

static inline void le_put32(void *p, uint32_t v) { le_put(p, v, 4); }
static inline void le_put64(void *p, uint64_t v) { le_put(p, v, 8); }
static inline uint32_t le_get32(const void *p) { return (uint32_t)le_get(p, 4); }
static inline uint64_t le_get64(const void *p) { return le_get(p, 8); }

#endif /* KEDGE_LE_H */
