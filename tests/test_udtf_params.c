/*
 * params, the config reading the built-in UDTFs share: defaults, the last
 * of a repeated key, unknown and missing required keys, choices of two and
 * three words, and refusals cut short by a small buffer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "agent/udtf/params.h"

enum { K_NEEDED, K_MODE, K_NKEYS };

static const struct udtf_key keys[] = {
	[K_NEEDED] = { "needed", NULL, "what the test cannot do without" },
	[K_MODE] = { "mode", "fast", "fast or slow" },
	[K_NKEYS] = { NULL, NULL, NULL },
};

static void
test_read_defaults_and_last_wins(void **state)
{
	struct udtf_param params[] = {
		{ "mode", "slow" }, { "needed", "x" }, { "mode", "fast!" },
	};
	const char *vals[K_NKEYS];
	char err[128] = "";

	(void)state;
	assert_int_equal(udtf_params_read("t", keys, params, 2, vals, err,
	    sizeof err), 0);
	assert_string_equal(vals[K_NEEDED], "x");
	assert_string_equal(vals[K_MODE], "slow");
	assert_int_equal(udtf_params_read("t", keys, params + 1, 1, vals, err,
	    sizeof err), 0);
	assert_string_equal(vals[K_MODE], "fast");
	assert_int_equal(udtf_params_read("t", keys, params, 3, vals, err,
	    sizeof err), 0);
	assert_string_equal(vals[K_MODE], "fast!");
	assert_string_equal(err, "");
}

static void
test_read_refusals(void **state)
{
	struct udtf_param unknown[] = { { "needed", "x" }, { "Mode", "y" } };
	const char *vals[K_NKEYS];
	char err[128], small[12];

	(void)state;
	assert_int_equal(udtf_params_read("t", keys, unknown, 2, vals, err,
	    sizeof err), -EINVAL);
	assert_string_equal(err, "t has no key \"Mode\"");
	assert_int_equal(udtf_params_read("t", keys, unknown + 1, 0, vals, err,
	    sizeof err), -EINVAL);
	assert_string_equal(err, "needed is required: what the test cannot do "
	    "without");
	assert_int_equal(udtf_params_read("t", keys, NULL, 0, vals, small,
	    sizeof small), -EINVAL);
	assert_string_equal(small, "needed is r");
}

static void
test_choice(void **state)
{
	static const char *const two[] = { "null", "reject", NULL };
	static const char *const three[] = { "default", "json", "none", NULL };
	char err[128], small[20];
	int i = -1;

	(void)state;
	assert_int_equal(udtf_params_choice("k", "reject", two, &i, err,
	    sizeof err), 0);
	assert_int_equal(i, 1);
	assert_int_equal(udtf_params_choice("k", "default", three, &i, err,
	    sizeof err), 0);
	assert_int_equal(i, 0);
	assert_int_equal(udtf_params_choice("k", "none", three, &i, err,
	    sizeof err), 0);
	assert_int_equal(i, 2);
	assert_int_equal(udtf_params_choice("on_missing", "Null", two, &i, err,
	    sizeof err), -EINVAL);
	assert_string_equal(err, "on_missing must be null or reject, not "
	    "\"Null\"");
	assert_int_equal(udtf_params_choice("escape", "", three, &i, err,
	    sizeof err), -EINVAL);
	assert_string_equal(err, "escape must be default, json or none, not "
	    "\"\"");
	assert_int_equal(i, 2);
	assert_int_equal(udtf_params_choice("escape", "xml", three, &i, small,
	    sizeof small), -EINVAL);
	assert_string_equal(small, "escape must be defa");
}

/* A bool key reads as a bool column: true/false in any case, 1/0. */
static void
test_bool(void **state)
{
	char err[128] = "";
	int v = -1;

	(void)state;
	assert_int_equal(udtf_params_bool("k", "TRUE", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1);
	assert_int_equal(udtf_params_bool("k", "0", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0);
	assert_int_equal(udtf_params_bool("k", "on", &v, err, sizeof(err)),
	    -EINVAL);
	assert_string_equal(err, "k must be true or false, not \"on\"");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_defaults_and_last_wins),
		cmocka_unit_test(test_read_refusals),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_bool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
