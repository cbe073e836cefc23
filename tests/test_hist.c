/*
 * The latency histogram: bucket edges, quantiles within the bucket
 * resolution of the exact answer, max exact; and the slowest records.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/parse/latency.h"
#include "lib/hist.h"

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

/* The upper edge of the bucket holding v, read through a quantile: with
 * v and a far larger value recorded, the lowest quantile is v's bucket's
 * upper edge. */
static uint64_t
bucket_upper(uint64_t v)
{
	struct hist h;

	memset(&h, 0, sizeof(h));
	hist_record(&h, v);
	hist_record(&h, UINT64_C(1) << 62);
	return hist_quantile(&h, 0.0);
}

/* Bucket edges: below 64 ns every value has its own bucket; above, 32
 * buckets per power of two, so [64, 65] is one bucket, 66 starts the next,
 * and every bucket is at most 1/32 of its lower edge wide. */
static void
test_bucket_edges(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 64; v++)
		assert_int_equal(bucket_upper(v), v);
	assert_int_equal(bucket_upper(64), 65);
	assert_int_equal(bucket_upper(65), 65);
	assert_int_equal(bucket_upper(66), 67);
	assert_int_equal(bucket_upper(127), 127);
	assert_int_equal(bucket_upper(128), 131);
	assert_int_equal(bucket_upper(1000000), 1015807);
	for (uint64_t lo = 64; lo < (UINT64_C(1) << 40);) {
		uint64_t up = bucket_upper(lo);

		assert_true(up >= lo);
		assert_int_equal(bucket_upper(up), up);   /* same bucket */
		assert_true(bucket_upper(up + 1) > up);   /* the next one */
		assert_true((double)(up - lo + 1) <= (double)lo / 32 + 1);
		lo = up + 1 + (up >> 3);                  /* skip ahead */
	}
}

/* The slowest records: the N largest, slowest last, with their origin. */
static void
test_latency_keeps_slowest(void **state)
{
	static struct latency l;
	struct udtf_record rec = { .topic = "web", .partition = 3 };

	(void)state;
	/* offset i costs 1000 + i ns; they arrive in a shuffled order */
	for (int64_t i = 0; i < 10000; i++) {
		int64_t off = (int64_t)((uint64_t)i * 7919 % 10000);
		rec.offset = off;
		latency_record(&l, 1000 + (uint64_t)off, &rec);
	}
	assert_int_equal(l.hist.count, 10000);
	assert_int_equal(l.nslow, LATENCY_SLOWEST);
	for (size_t j = 0; j < LATENCY_SLOWEST; j++) {
		int64_t want = 10000 - LATENCY_SLOWEST + (int64_t)j;
		assert_int_equal(l.slow[j].offset, want);
		assert_int_equal(l.slow[j].ns, 1000 + (uint64_t)want);
		assert_int_equal(l.slow[j].partition, 3);
		assert_string_equal(l.slow[j].topic, "web");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_quantiles_close_to_exact),
		cmocka_unit_test(test_huge_value_clamped),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_latency_keeps_slowest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
