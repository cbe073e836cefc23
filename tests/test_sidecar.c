/*
 * sidecar: the header's example reads and writes back byte for byte, as
 * do sidecars of earlier versions ("sha256" instead of "crc32c"; no
 * digest, no event range) and one with both digests;
 * every cut of a sidecar short of its end, and each kind of text that is
 * not a sidecar (a key twice, a number beyond int64, a value of another
 * type), is refused with a sentence that says where: the line and column,
 * or the key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "tests/testlib.h"

/* The example of sidecar.h, on one line. */
static const char example[] =
    "{\"kedge\":1,\"table\":\"access\",\"topic\":\"nginx-access\","
    "\"partition\":3,\"host\":\"edge01\",\"first_offset\":120000,"
    "\"rows\":1234,\"bytes\":56789,\"crc32c\":\"1f3a09c4\","
    "\"format\":\"hive-text\",\"codec\":\"gzip\","
    "\"min_event_us\":1795946400123000,\"max_event_us\":1795949998870000,"
    "\"offsets\":[[120000,120180]],\"empty\":[],\"spill\":[]}\n";

/* The example's "sha256" when a kedge before the crc32c wrote it. */
#define SHA "\"8df37d9ffa266019129991fdaf07b1dd3f3bd99199361e46cb3f14539ef0cea2" \
    "\""

/* A rejects file of an earlier kedge: no "sha256", no event range. */
static const char earlier[] =
    "{\"kedge\":1,\"table\":\"_rejects\",\"topic\":\"t\",\"partition\":0,"
    "\"host\":\"h\",\"first_offset\":5,\"rows\":2,\"bytes\":40,"
    "\"format\":\"jsonl\",\"codec\":\"none\",\"offsets\":[],\"empty\":[],"
    "\"spill\":[],\"rejected\":{\"access\":[[5,5]],\"web\":[[6,6]]}}\n";

static void
assert_reads_back(const char *text)
{
	struct sidecar sc = { 0 };
	struct buf out = { 0 };
	char err[512] = "";

	if (sidecar_parse(text, strlen(text), &sc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(sidecar_format(&sc, &out), 0);
	assert_int_equal(buf_append(&out, "", 1), 0);
	assert_string_equal(out.data, text);
	sidecar_clear(&sc);
	buf_clear(&out);
}

static void
test_reads_back(void **state)
{
	struct sidecar sc = { 0 };
	char err[512] = "", *text;

	(void)state;
	assert_reads_back(example);
	assert_reads_back(earlier);
	/* of a kedge before the crc32c */
	text = text_with(example, "\"crc32c\":\"1f3a09c4\"", "\"sha256\":" SHA);
	assert_reads_back(text);
	assert_int_equal(sidecar_parse(text, strlen(text), &sc, err,
	    sizeof(err)), 0);
	assert_string_equal(sc.crc32c, "");
	assert_string_equal(sc.sha256,
	    "8df37d9ffa266019129991fdaf07b1dd3f3bd99199361e46cb3f14539ef0cea2");
	sidecar_clear(&sc);
	free(text);
	/* both */
	text = text_with(example, "\"crc32c\":\"1f3a09c4\"",
	    "\"crc32c\":\"1f3a09c4\",\"sha256\":" SHA);
	assert_reads_back(text);
	assert_int_equal(sidecar_parse(text, strlen(text), &sc, err,
	    sizeof(err)), 0);
	assert_string_equal(sc.crc32c, "1f3a09c4");
	assert_int_equal(strlen(sc.sha256), SIDECAR_SHA256_HEX);
	sidecar_clear(&sc);
	free(text);
}

/* sidecar_parse as test_parse_fn. */
static int
parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct sidecar sc = { 0 };
	int r = sidecar_parse(text, len, &sc, err, errlen);

	sidecar_clear(&sc);
	return r;
}

/* A file cut anywhere before its end, as a crash or a full disk leaves
 * it, is refused, saying where it stops. */
static void
test_truncated(void **state)
{
	(void)state;
	assert_cuts_refused(parse, example);
}

static void
test_refused(void **state)
{
	static const struct test_refusal cases[] = {
		{ "\"1f3a09c4\"", "\"1F3A09C4\"",
		    "\"crc32c\": not 8 lowercase hex digits" },
		{ "\"1f3a09c4\"", "\"1f3a09c\"",
		    "\"crc32c\": not 8 lowercase hex digits" },
		{ "\"1f3a09c4\"", "\"\"",
		    "\"crc32c\": not 8 lowercase hex digits" },
		{ "\"1f3a09c4\"", "3",
		    "\"crc32c\": expected a string, found an integer" },
		{ "\"rows\":1234,", "\"rows\":1234,\"rows\":1,",
		    "line 1, column 121: duplicate object key near '\"rows\"'" },
		{ "\"rows\":1234,", "\"rows\":1234,\n\"rows\":1,",
		    "line 2, column 6: duplicate object key near '\"rows\"'" },
		{ "\"rows\":1234,", "\"rows\":9223372036854775808,",
		    "line 1, column 129: too big integer near "
		    "'9223372036854775808'" },
		{ "\"rows\":1234,", "\"rows\":-1,", "\"rows\": negative" },
		{ "\"rows\":1234,", "\"rows\":12.0,",
		    "\"rows\": expected an integer, found a real number" },
		{ "\"rows\":1234,", "\"rows\":[1234],",
		    "\"rows\": expected an integer, found an array" },
		{ "\"partition\":3,", "\"partition\":-3,",
		    "\"partition\": negative" },
		{ "\"partition\":3,", "\"partition\":9223372036854775807,",
		    "\"partition\": 9223372036854775807 is out of range [0, "
		    "2147483647]" },
		{ "\"first_offset\":120000,", "\"first_offset\":null,",
		    "\"first_offset\": expected an integer, found null" },
		{ "\"host\":\"edge01\"", "\"host\":7",
		    "\"host\": expected a string, found an integer" },
		{ "\"host\":\"edge01\"", "\"host\":\"..\"",
		    "\"host\": empty, \".\", \"..\", or holds '/'" },
		{ "\"format\":\"hive-text\"", "\"format\":{}",
		    "\"format\": expected a string, found an object" },
		{ "\"min_event_us\":1795946400123000",
		    "\"min_event_us\":-9223372036854775809",
		    "too big negative integer" },
		{ "\"min_event_us\":1795946400123000", "\"min_event_us\":false",
		    "\"min_event_us\": expected an integer, found false" },
		{ "[[120000,120180]]", "[[120000,9223372036854775808]]",
		    "too big integer" },
		{ "[[120000,120180]]", "[[120000,\"120180\"]]",
		    "\"offsets\": element 0 is not a range" },
		{ "[[120000,120180]]", "[[]]",
		    "\"offsets\": element 0 is not a range" },
		{ "\"spill\":[]", "\"spill\":{}",
		    "\"spill\": expected an array, found an object" },
		{ "\"spill\":[]}", "\"spill\":[],\"rejected\":[]}",
		    "\"rejected\": expected an object of ranges" },
		{ "\"spill\":[]}", "\"spill\":[],\"\\u0001\\n\":1}",
		    "unknown key \"\\u0001\\n\"" },
		{ "{\"kedge\":1,", "[{\"kedge\":1,",
		    "line 2, column 0: ']' expected near end of file" },
	};

	(void)state;
	assert_refusals(parse, example, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Not an object at all. */
static void
test_not_an_object(void **state)
{
	static const char *const texts[] = { "", "   ", "[]", "1", "\"x\"",
	    "null", "{}{}" };
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct sidecar sc = { 0 };
		int r;

		err[0] = '\0';
		r = sidecar_parse(texts[i], strlen(texts[i]), &sc, err,
		    sizeof(err));
		sidecar_clear(&sc);
		if (r != -EINVAL || strncmp(err, "line ", 5) != 0)
			fail_msg("\"%s\": %d \"%s\"", texts[i], r, err);
	}
}

/* A name that is not UTF-8 is not written as if it were. */
static void
test_format_refuses_non_utf8(void **state)
{
	struct sidecar sc = { 0 };
	struct buf out = { 0 };
	char err[512];

	(void)state;
	assert_int_equal(sidecar_parse(example, strlen(example), &sc, err,
	    sizeof(err)), 0);
	free(sc.host);
	assert_non_null(sc.host = strdup("edge\xff"));
	assert_int_equal(sidecar_format(&sc, &out), -EILSEQ);
	sidecar_clear(&sc);
	buf_clear(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_back),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_format_refuses_non_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
