/*
 * bench: `kedge bench udtf`: runs one table's UDTF chain over a file of
 * records on one core and reports what a record costs (records/s, the
 * latency percentiles, the slowest records), what timing every record
 * costs, and, in the same run, what one PCRE2-JIT regex that extracts the
 * same fields costs, as a ratio, both over the records the regex matches
 * (a regex that misses lines would be measured on failed matches).  With
 * --passes N it runs N passes and no clock, for callgrind: instructions
 * per record are (Ir(3 passes) - Ir(1 pass)) / 2 / records.  `kedge bench consume`: kedge's consumer
 * alone, every record dropped unparsed, the reference that shows what
 * parsing and writing cost beside fetching.
 */
#ifndef KEDGE_BENCH_H
#define KEDGE_BENCH_H

#include <stdio.h>

#include "agent/config/config.h"

struct bench_opts {
	const char *table;     /* the table's name */
	const char *input;     /* records, one per line unless delimiter */
	char delimiter;        /* between records */
	const char *regex;     /* the reference; NULL: derived when possible */
	double seconds;        /* how long each measured pass runs, at least */
	int passes;            /* > 0: exactly this many passes, untimed by
	                        * the clock (for an instruction counter) */
	int only;              /* with passes: BENCH_BOTH, _UDTF or _REGEX */
};

enum { BENCH_BOTH, BENCH_UDTF, BENCH_REGEX };

/* Runs the benchmark and prints the report to out.  Returns 0, or 1 after
 * printing why to stderr. */
int bench_udtf(const struct conf *c, const struct bench_opts *o, FILE *out);

/* Consumes what c's kafka section names with kedge's consumer (static
 * assignment or group, as c says) until every partition is at its end,
 * dropping each record, and prints the records and bytes, the rate from
 * the first record to the last, when the first came and how long closing
 * took, CPU time, peak RSS, and the librdkafka settings that bound its
 * memory.  Fails after limit seconds.  Returns 0, or 1 after printing
 * why to stderr. */
int bench_consume(const struct conf *c, double limit, FILE *out);

#endif /* KEDGE_BENCH_H */
