#include "lib/tick.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int tick_tsc;
static int tick_ready;
static uint64_t tick_mult;   /* nanoseconds per tick, times 2^32 */

static uint64_t
tick_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPUID leaf 0x80000007, EDX bit 8: the TSC runs at a constant rate in
 * every P-, C- and T-state. */
static int
tick_invariant_tsc(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	if ((unsigned)__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

void
tick_init(void)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	uint64_t t0, n0, t1, n1;

	if (tick_ready)
		return;
	tick_ready = 1;
	if (!tick_invariant_tsc())
		return;
	tick_tsc = 1;
	n0 = tick_mono_ns();
	t0 = tick_now();
	nanosleep(&nap, NULL);
	n1 = tick_mono_ns();
	t1 = tick_now();
	if (t1 <= t0 || n1 <= n0) {
		tick_tsc = 0;
		return;
	}
	tick_mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
}

const char *
tick_source(void)
{
	return tick_tsc ? "TSC" : "CLOCK_MONOTONIC";
}

uint64_t
tick_ns(uint64_t ticks)
{
	if (!tick_tsc)
		return ticks;
	return (uint64_t)(((unsigned __int128)ticks * tick_mult) >> 32);
}
