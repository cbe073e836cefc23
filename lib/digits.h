/*
 * digits: decimal digits checked eight bytes a word, for the parsers' hot
 * paths (hand-written: it is a few operations inlined where a digit loop
 * would branch a byte; what it saves is measured by scripts/bench-udtf.sh's
 * instr lines).
 */
#ifndef KEDGE_DIGITS_H
#define KEDGE_DIGITS_H

#include <stdint.h>

/* A byte of 1 in each of a word's eight. */
#define DIGITS_ONES UINT64_C(0x0101010101010101)

/* The top bit of each byte of x that does not fit.  x is eight bytes of
 * text, the first lowest (le_get64()), XORed with what they should be:
 * '0' where digits has a byte of 1, the very byte elsewhere; so a digit
 * fits as 0..9 and any other byte as 0.  Exact for every byte: its low
 * seven bits plus 0x76 (a digit) or 0x7f (another byte) reach the top bit
 * just when they pass 9 or 0, never carrying into the next byte, and a
 * byte whose own top bit is set does not fit either way. */
static inline uint64_t
digits_misfits(uint64_t x, uint64_t digits)
{
	return (((x & DIGITS_ONES * 0x7f) + digits * 0x76 +
	    (DIGITS_ONES - digits) * 0x7f) | x) & DIGITS_ONES * 0x80;
}

/* Whether every byte of x fits, as digits_misfits() says, in fewer
 * operations where it need not say which does not: a digit's 0..9 plus 6
 * stays below 16, any other byte must be 0, and a carry comes only out of
 * a byte that does not fit. */
static inline int
digits_fit(uint64_t x, uint64_t digits)
{
	return ((x | (x + digits * 6)) & ~(digits * 0x0f)) == 0;
}

#endif /* KEDGE_DIGITS_H */
