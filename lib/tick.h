/*
 * tick: a clock cheap enough to time every UDTF call.  On x86-64 with an
 * invariant TSC (constant rate, not stopped in sleep states) a reading is
 * one RDTSC, a few nanoseconds; elsewhere it is CLOCK_MONOTONIC.  Readings
 * are in ticks; tick_ns() turns a difference into nanoseconds.
 */
#ifndef KEDGE_TICK_H
#define KEDGE_TICK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

extern int tick_tsc;   /* 1: ticks are TSC cycles; set by tick_init() */

/* Picks the clock and, for the TSC, measures its rate against
 * CLOCK_MONOTONIC (about 10 ms, once; later calls return at once).  Call
 * before the first tick_ns(). */
void tick_init(void);

/* Returns the name of the clock in use, for the log. */
const char *tick_source(void);

static inline uint64_t
tick_now(void)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (tick_tsc)
		return __rdtsc();
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Converts a number of ticks to nanoseconds. */
uint64_t tick_ns(uint64_t ticks);

#endif /* KEDGE_TICK_H */
