/*
 * The latency histogram: quantiles within the bucket resolution of the
 * exact answer, max exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void
test_small_values_exact(void **state)
{
	struct hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1; v <= 50; v++)
		hist_record(&h, v);
	assert_int_equal(h.count, 50);
	assert_int_equal(hist_quantile(&h, 0.5), 26);
	assert_int_equal(hist_quantile(&h, 1.0), 50);
	assert_int_equal(h.max_ns, 50);
}

static void
test_quantiles_close_to_exact(void **state)
{
	static uint64_t v[100000];
	static struct hist h;
	const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* log-uniform-ish from 100 ns to ~100 ms */
		v[i] = 100 + (x % 1000) * ((x >> 20) % 100000);
		hist_record(&h, v[i]);
	}
	qsort(v, 100000, sizeof(v[0]), cmp_u64);
	for (size_t i = 0; i < 4; i++) {
		uint64_t exact = v[(size_t)(qs[i] * 100000)];
		uint64_t got = hist_quantile(&h, qs[i]);
		/* the bucket's upper bound: not below, at most ~3.2 % above */
		assert_true(got >= exact);
		assert_true((double)got <= (double)exact * 1.032 + 1);
	}
	assert_int_equal(h.max_ns, v[99999]);
	assert_int_equal(hist_quantile(&h, 1.0), v[99999]);
}

static void
test_huge_value_clamped(void **state)
{
	struct hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	hist_record(&h, UINT64_MAX);
	assert_int_equal(h.count, 1);
	assert_int_equal(hist_quantile(&h, 0.5), UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_quantiles_close_to_exact),
		cmocka_unit_test(test_huge_value_clamped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
