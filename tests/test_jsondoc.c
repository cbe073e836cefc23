/*
 * jsondoc_load(): a text whose values would take more memory than the
 * bound is refused before jansson builds it whole: 16 MiB of empty
 * objects, which jansson alone makes 1.3 GB of, is refused within a
 * 1 MiB bound, the process's peak RSS grows by less than 48 MiB and all of
 * it is handed back; the sentence says why, without a line or column.  A
 * text within the bound reads as json_loadb() reads it, the end of a value
 * included (JSON_DISABLE_EOF_CHECK); jsondoc_parse() refuses a hostile
 * document with the same sentence.
 */
#include <sys/resource.h>

#include "lib/jsondoc.h"
#include "tests/testlib.h"

/* The process's peak resident set, in KiB. */
static long
peak_kib(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/* Runs first: the peak it measures is the process's. */
static void
test_bound(void **state)
{
	size_t n = 16 * 1024 * 1024 / 3, len = 0;
	char *text = malloc(3 * n + 16), err[256];
	struct jsondoc d = JSONDOC_INIT(err, sizeof(err));
	size_t heap;
	json_error_t e;
	long before;

	(void)state;
	assert_non_null(text);
	text[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		memcpy(text + len, i > 0 ? ",{}" : "{}", i > 0 ? 3 : 2);
		len += i > 0 ? 3 : 2;
	}
	text[len++] = ']';
	heap = heap_in_use();
	before = peak_kib();
	assert_null(jsondoc_load(text, len, 0, 1024 * 1024, &e));
	assert_string_equal(e.text,
	    "takes more than 1048576 bytes of memory to read");
	assert_int_equal(e.line, -1);
	assert_true(peak_kib() - before < 48 * 1024);
	assert_true(heap_in_use() <= heap + 4096);

	/* {"a":[{},...]}, 5 bytes more, with jsondoc_parse()'s bound */
	memmove(text + 5, text, len);
	memcpy(text, "{\"a\":", 5);
	len += 5;
	text[len++] = '}';
	assert_null(jsondoc_parse(&d, text, len));
	assert_string_equal(err, "takes more than 67108864 bytes of memory to "
	    "read");
	free(text);
}

static void
test_within(void **state)
{
	const char *two = "{\"a\":[1,2]} [3]";
	char err[256];
	struct jsondoc d = JSONDOC_INIT(err, sizeof(err));
	json_error_t e;
	json_t *v;

	(void)state;
	assert_non_null(v = jsondoc_load(two, strlen(two),
	    JSON_DISABLE_EOF_CHECK, 4096, &e));
	assert_int_equal(e.position, 11);
	assert_int_equal(json_array_size(json_object_get(v, "a")), 2);
	json_decref(v);
	/* a bound too small for even this */
	assert_null(jsondoc_load(two, 11, 0, 16, &e));
	assert_int_equal(e.line, -1);
	/* the bound is for the one call: the next has its own */
	assert_non_null(v = jsondoc_load(two, 11, 0, 4096, &e));
	json_decref(v);
	/* other refusals are as they were */
	assert_null(jsondoc_parse(&d, "{\"a\":", 5));
	assert_int_equal(strncmp(err, "line 1, column ", 15), 0);
	/* building JSON outside a load is not bounded */
	assert_non_null(v = json_array());
	for (int i = 0; i < 1000; i++)
		assert_int_equal(json_array_append_new(v, json_object()), 0);
	json_decref(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_within),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
