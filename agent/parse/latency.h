/*
 * latency: what one UDTF chain's calls cost: a histogram of every record's
 * parse time (hist.h) and the slowest records with where they came from,
 * so that a person can fetch the record that was slow.
 */
#ifndef KEDGE_LATENCY_H
#define KEDGE_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "agent/udtf/udtf.h"
#include "lib/hist.h"

#define LATENCY_SLOWEST 10

struct latency_slow {
	char topic[256];
	int32_t partition;
	int64_t offset;
	uint64_t ns;
};

struct latency {
	struct hist hist;
	size_t nslow;
	struct latency_slow slow[LATENCY_SLOWEST]; /* ascending by ns */
};

/* The quantiles kedge shows of every latency, in this order. */
#define LATENCY_NQUANTILES 4
extern const struct latency_quantile {
	double q;
	const char *name;          /* "p50", ... */
} latency_quantiles[LATENCY_NQUANTILES];

void latency_keep_slow(struct latency *l, uint64_t ns,
    const struct udtf_record *rec);

/* Writes "mean M p50 A p90 B p99 C p99.9 D max E", in ns, to buf: how the
 * log, `kedge status` and `kedge bench udtf` show a latency. */
void latency_describe(const struct latency *l, char *buf, size_t len);

/* Writes "TOPIC [P] offset O: N ns", for slow record s, to buf. */
void latency_describe_slow(const struct latency_slow *s, char *buf,
    size_t len);

/* Adds the parse time ns of rec. */
static inline void
latency_record(struct latency *l, uint64_t ns, const struct udtf_record *rec)
{
	hist_record(&l->hist, ns);
	if (l->nslow < LATENCY_SLOWEST || ns > l->slow[0].ns)
		latency_keep_slow(l, ns, rec);
}

#endif /* KEDGE_LATENCY_H */
