/*
 * hist: a latency histogram in nanoseconds with log-linear buckets: values
 * below 64 ns exact, then 32 sub-buckets per power of two, so a quantile is
 * within about 3 % of the true value.  Fixed size, no allocation; recording
 * is a few instructions.
 */
#ifndef KEDGE_HIST_H
#define KEDGE_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_BUCKETS ((64 - HIST_SUB_BITS) << HIST_SUB_BITS)

struct hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t buckets[HIST_BUCKETS];
};

/* The bucket of value v (clamped to the last). */
static inline unsigned
hist_bucket(uint64_t v)
{
	unsigned msb, b;

	if (v < (1u << (HIST_SUB_BITS + 1)))
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	/* bucket = exponent block, then the HIST_SUB_BITS bits below the msb */
	b = ((msb - HIST_SUB_BITS) << HIST_SUB_BITS) +
	    (unsigned)((v >> (msb - HIST_SUB_BITS)) &
	    ((1u << HIST_SUB_BITS) - 1)) + (1u << HIST_SUB_BITS);
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

/* Adds one observation of ns nanoseconds: a few instructions, inline, as
 * it runs for every record. */
static inline void
hist_record(struct hist *h, uint64_t ns)
{
	h->buckets[hist_bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}
/* Returns the value at quantile q (0..1): the upper bound of the bucket
 * holding it, or 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);

#endif /* KEDGE_HIST_H */
