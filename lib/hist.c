#include "lib/hist.h"

/* The largest value that falls into bucket b. */
static uint64_t
hist_bucket_upper(unsigned b)
{
	unsigned block, sub;

	if (b < (1u << (HIST_SUB_BITS + 1)))
		return b;
	block = (b >> HIST_SUB_BITS) - 1;
	sub = b & ((1u << HIST_SUB_BITS) - 1);
	return ((((uint64_t)1 << HIST_SUB_BITS) + sub + 1) << block) - 1;
}

uint64_t
hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen > rank) {
			/* the last bucket also holds everything above it */
			uint64_t up = b == HIST_BUCKETS - 1 ? h->max_ns :
			    hist_bucket_upper(b);
			return up < h->max_ns ? up : h->max_ns;
		}
	}
	return h->max_ns;
}
