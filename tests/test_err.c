/*
 * err_set(): the one writer of an error sentence.  It returns the code it
 * is given, writes nothing without a buffer, and truncates to the buffer
 * rather than overflowing it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lib/err.h"

static void
test_writes_and_returns_code(void **state)
{
	char err[64];

	(void)state;
	assert_int_equal(err_set(err, sizeof(err), -EINVAL, "%s:%d: bad %s",
	    "kedge.conf", 7, "key"), -EINVAL);
	assert_string_equal(err, "kedge.conf:7: bad key");
	assert_int_equal(err_set(err, sizeof(err), 1, "differs"), 1);
	assert_string_equal(err, "differs");
	assert_int_equal(err_set(err, sizeof(err), 0, "%s", ""), 0);
	assert_string_equal(err, "");
}

static void
test_null_err(void **state)
{
	(void)state;
	assert_int_equal(err_set(NULL, 0, -ENOMEM, "out of %s", "memory"),
	    -ENOMEM);
	/* a length with no buffer is not written through */
	assert_int_equal(err_set(NULL, 64, -EIO, "cannot read"), -EIO);
}

static void
test_len_zero(void **state)
{
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(err_set(err, 0, -ENOENT, "no such file"), -ENOENT);
	for (size_t i = 0; i < sizeof(err); i++)
		assert_int_equal(err[i], 'x');
}

static void
test_truncates(void **state)
{
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(err_set(err, 6, -E2BIG, "%s", "0123456789"), -E2BIG);
	assert_string_equal(err, "01234");
	/* nothing past len is touched */
	assert_int_equal(err[6], 'x');
	assert_int_equal(err[7], 'x');
	assert_int_equal(err_set(err, 1, -E2BIG, "long"), -E2BIG);
	assert_string_equal(err, "");
}

/* A wrapper holding a va_list, as a module that prefixes its sentences
 * writes one. */
static int
prefixed(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
prefixed(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = err_vset(err, len, 1, fmt, ap);
	va_end(ap);
	return r;
}

static void
test_vset(void **state)
{
	char err[16];

	(void)state;
	assert_int_equal(prefixed(err, sizeof(err), "%s %d", "row", 42), 1);
	assert_string_equal(err, "row 42");
	assert_int_equal(prefixed(err, 4, "%s", "truncated"), 1);
	assert_string_equal(err, "tru");
	assert_int_equal(prefixed(NULL, 0, "%s", "nothing"), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_and_returns_code),
		cmocka_unit_test(test_null_err),
		cmocka_unit_test(test_len_zero),
		cmocka_unit_test(test_truncates),
		cmocka_unit_test(test_vset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
