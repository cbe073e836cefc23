/*
 * grow_array(): capacity starts at GROW_MIN_BYTES' worth and doubles, the
 * contents move with it, a request that fits changes nothing, and a size
 * that overflows fails with -ENOMEM, leaving the array as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/buf.h"
#include "lib/grow.h"

static void
test_first_capacity(void **state)
{
	uint64_t *v = NULL;
	char *bytes = NULL;
	char (*big)[1000] = NULL;
	size_t cap = 0, bcap = 0, gcap = 0;

	(void)state;
	assert_int_equal(grow_array((void **)&v, &cap, 1, sizeof(*v)), 0);
	assert_non_null(v);
	assert_int_equal(cap, GROW_MIN_BYTES / sizeof(*v));
	assert_int_equal(grow_array((void **)&bytes, &bcap, 1, 1), 0);
	assert_int_equal(bcap, GROW_MIN_BYTES);
	/* an element larger than the minimum: one */
	assert_int_equal(grow_array((void **)&big, &gcap, 1, sizeof(*big)), 0);
	assert_int_equal(gcap, 1);
	free(v);
	free(bytes);
	free(big);
}

static void
test_doubles_and_keeps(void **state)
{
	uint32_t *v = NULL, *before;
	size_t cap = 0, n;

	(void)state;
	for (n = 0; n < 10000; n++) {
		size_t was = cap;

		assert_int_equal(grow_array((void **)&v, &cap, n + 1,
		    sizeof(*v)), 0);
		assert_true(cap >= n + 1);
		assert_true(cap == was || cap == 2 * was || was == 0);
		v[n] = (uint32_t)n * 7u;
	}
	for (n = 0; n < 10000; n++)
		assert_int_equal(v[n], (uint32_t)n * 7u);
	/* what fits changes nothing */
	before = v;
	n = cap;
	assert_int_equal(grow_array((void **)&v, &cap, cap, sizeof(*v)), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, n);
	assert_int_equal(grow_array((void **)&v, &cap, 0, sizeof(*v)), 0);
	assert_ptr_equal(v, before);
	free(v);
}

/* A need far past the current capacity is met at once. */
static void
test_jump(void **state)
{
	uint16_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(grow_array((void **)&v, &cap, 100000, sizeof(*v)), 0);
	assert_true(cap >= 100000);
	v[99999] = 1;
	free(v);
}

static void
test_overflow(void **state)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0, was;

	(void)state;
	assert_int_equal(grow_array((void **)&v, &cap, 4, sizeof(*v)), 0);
	v[3] = 42;
	before = v;
	was = cap;
	/* need * size wraps around SIZE_MAX */
	assert_int_equal(grow_array((void **)&v, &cap, SIZE_MAX / 4,
	    sizeof(*v)), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, was);
	assert_int_equal(grow_array((void **)&v, &cap, SIZE_MAX, sizeof(*v)),
	    -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, was);
	assert_int_equal(v[3], 42);
	free(v);
}

/* The byte buffer grows through grow_array(): an append that would make
 * its length wrap is refused and the buffer kept. */
static void
test_buf_reserve(void **state)
{
	struct buf b = { 0 };

	(void)state;
	assert_int_equal(buf_append(&b, "abc", 3), 0);
	assert_int_equal(b.cap, GROW_MIN_BYTES);
	assert_int_equal(buf_reserve(&b, SIZE_MAX - 1), -ENOMEM);
	assert_int_equal(b.len, 3);
	assert_int_equal(b.cap, GROW_MIN_BYTES);
	assert_memory_equal(b.data, "abc", 3);
	assert_int_equal(buf_reserve(&b, GROW_MIN_BYTES), 0);
	assert_int_equal(b.cap, 2 * GROW_MIN_BYTES);
	buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_capacity),
		cmocka_unit_test(test_doubles_and_keeps),
		cmocka_unit_test(test_jump),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_buf_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
