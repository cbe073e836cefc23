/*
 * le: little-endian integers in byte buffers, as the checkpoint store's
 * records and Parquet's files hold them.  p need not be aligned.
 */
#ifndef KEDGE_LE_H
#define KEDGE_LE_H

#include <stdint.h>

static inline void
le_put32(void *p, uint32_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static inline void
le_put64(void *p, uint64_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t
le_get32(const void *p)
{
	const unsigned char *b = p;
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static inline uint64_t
le_get64(const void *p)
{
	const unsigned char *b = p;
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

#endif /* KEDGE_LE_H */
