/*
 * manifest: the header's example reads and writes back byte for byte; a
 * manifest built in memory (escapes in its strings, a file with no rows
 * and null times, several ranges) goes through format, parse, format
 * unchanged; and each kind of malformed text is refused with a sentence
 * that names the key, the element and the column.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/complete/manifest.h"
#include "lib/buf.h"
#include "tests/testlib.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The example of manifest.h, on one line. */
static const char example[] =
    "{\"kedge\":1,\"table\":\"access\",\"dt\":\"20260801\",\"hr\":\"21\","
    "\"revision\":2,\"host\":\"edge01\",\"written\":\"2026-11-29T15:00:00Z\","
    "\"watermark_us\":1785621600000000,"
    "\"rows\":1234,\"bytes\":56789,\"rejects\":3,\"late_rows\":12,"
    "\"min_event_us\":1785610800000000,\"max_event_us\":1785614399000000,"
    "\"files\":[{\"name\":\"web+0+120000+edge01.txt.gz\",\"bytes\":56789,"
    "\"rows\":1234,\"sha256\":\"" SHA "\",\"topic\":\"web\","
    "\"partition\":0,\"offsets\":[[120000,120180]],"
    "\"min_event_us\":1785610800000000,\"max_event_us\":1785614399000000,"
    "\"revision\":1}],"
    "\"partitions\":[{\"topic\":\"web\",\"partition\":0,"
    "\"offsets\":[[120000,120180]],\"rows\":1234}]}\n";

static void
assert_formats_as(const struct manifest *m, const char *want)
{
	struct buf out = { 0 };

	assert_int_equal(manifest_format(m, &out), 0);
	assert_int_equal(buf_append(&out, "", 1), 0);
	assert_string_equal(out.data, want);
	buf_clear(&out);
}

static void
test_example(void **state)
{
	struct manifest m;
	char err[512] = "";

	(void)state;
	if (manifest_parse(example, strlen(example), &m, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(m.table, "access");
	assert_string_equal(m.dt, "20260801");
	assert_string_equal(m.hr, "21");
	assert_int_equal(m.revision, 2);
	assert_string_equal(m.written, "2026-11-29T15:00:00Z");
	assert_int_equal(m.late_rows, 12);
	assert_int_equal(m.nfiles, 1);
	assert_string_equal(m.files[0].sha256, SHA);
	assert_int_equal(m.files[0].offsets.n, 1);
	assert_int_equal(m.files[0].offsets.v[0].last, 120180);
	assert_int_equal(m.nparts, 1);
	assert_int_equal(m.parts[0].rows, 1234);
	assert_formats_as(&m, example);
	manifest_clear(&m);
}

/* A manifest of this kedge has a file's "crc32c"; one of an earlier kedge
 * its "sha256" (example above), "" when its sidecar had none; a file
 * landed by both has both.  Each reads back as written. */
static void
test_digests(void **state)
{
	static const char *const swaps[][2] = {
		{ "\"sha256\":\"" SHA "\"", "\"crc32c\":\"e3069283\"" },
		{ "\"sha256\":\"" SHA "\"",
		    "\"crc32c\":\"e3069283\",\"sha256\":\"" SHA "\"" },
		{ "\"sha256\":\"" SHA "\"", "\"sha256\":\"\"" },
		{ "\"sha256\":\"" SHA "\",", "" },
	};
	static const char *const crc[] = { "e3069283", "e3069283", "", "" };
	static const char *const sha[] = { "", SHA, "", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++) {
		char *text = text_with(example, swaps[i][0], swaps[i][1]);
		struct manifest m;
		char err[512] = "";

		if (manifest_parse(text, strlen(text), &m, err,
		    sizeof(err)) != 0)
			fail_msg("%zu: %s", i, err);
		assert_string_equal(m.files[0].crc32c, crc[i]);
		assert_string_equal(m.files[0].sha256, sha[i]);
		/* an empty "sha256" of an earlier kedge is not written again */
		if (i != 2)
			assert_formats_as(&m, text);
		manifest_clear(&m);
		free(text);
	}
}

/* Where s is in b's bytes, which end with no NUL; or NULL. */
static const void *
in_buf(const struct buf *b, const char *s)
{
	return memmem(b->data, b->len, s, strlen(s));
}

static void
test_round_trip(void **state)
{
	struct sidecar_range r0[] = { { 0, 9 }, { 20, 29 } }, r1[] = { { 7, 7 } };
	struct manifest_file files[] = {
		{ "t+0+0+h\"1.txt", 100, 20, "", "", "t", 0, { r0, 2, 2 },
		    1000, 2000, 1 },
		{ "t+1+7+h\"1.txt", 0, 0, "", SHA, "t", 1, { r1, 1, 1 },
		    MANIFEST_NO_TIME, MANIFEST_NO_TIME, 3 },
	};
	struct manifest_partition parts[] = {
		{ "t", 0, { r0, 2, 2 }, 20 },
		{ "t", 1, { r1, 1, 1 }, 0 },
	};
	struct manifest m = {
		"a\\b", "20261129", "23", 3, "h\"1\t\x01\xc3\xa9",
		"2026-11-30T00:05:00Z", 0, 20, 100, 0, 0,
		1000, 2000, files, 2, parts, 2, 2, 1, UINT64_C(0xfedcba9876543210),
	}, back;
	struct buf once = { 0 }, twice = { 0 };
	char err[512] = "";

	(void)state;
	assert_int_equal(manifest_format(&m, &once), 0);
	assert_int_equal(once.data[once.len - 1], '\n');
	assert_null(memchr(once.data, '\n', once.len - 1));
	assert_non_null(in_buf(&once, "\"host\":\"h\\\"1\\t\\u0001\xc3\xa9\""));
	/* a digest the sidecar had not is left out */
	assert_null(in_buf(&once, "\"sha256\":\"\""));
	assert_null(in_buf(&once, "\"crc32c\""));
	assert_non_null(in_buf(&once, "\"rows\":0,\"sha256\":\"" SHA));
	assert_non_null(in_buf(&once,
	    "\"min_event_us\":null,\"max_event_us\":null"));
	if (manifest_parse(once.data, once.len, &back, err, sizeof(err)) != 0)
		fail_msg("%s: %.*s", err, (int)once.len, once.data);
	assert_string_equal(back.host, m.host);
	assert_string_equal(back.table, m.table);
	assert_int_equal(back.files[1].min_event_us, MANIFEST_NO_TIME);
	assert_true(back.has_fingerprint);
	assert_true(back.fingerprint == UINT64_C(0xfedcba9876543210));
	assert_int_equal(manifest_format(&back, &twice), 0);
	assert_int_equal(once.len, twice.len);
	assert_memory_equal(once.data, twice.data, once.len);
	manifest_clear(&back);
	manifest_clear(&back); /* a freed manifest is a zeroed one */
	buf_clear(&once);
	buf_clear(&twice);
}

/* Event times before 1970, which a sidecar may hold (the row's time
 * chooses its hour), read back: the hour's manifest is not refused. */
static void
test_before_1970(void **state)
{
	struct sidecar_range r0[] = { { 0, 9 } };
	struct manifest_file files[] = {
		{ "t+0+0+h.txt", 100, 20, "", "", "t", 0, { r0, 1, 1 }, -2000,
		    -1000, 1 },
	};
	struct manifest_partition parts[] = { { "t", 0, { r0, 1, 1 }, 20 } };
	struct manifest m = {
		"access", "19691231", "23", 1, "h", "2026-11-30T00:05:00Z",
		-500, 20, 100, 0, 0, -2000, -1000, files, 1, parts, 1, 1, 0, 0,
	}, back;
	struct buf out = { 0 };
	char err[512] = "";

	(void)state;
	assert_int_equal(manifest_format(&m, &out), 0);
	if (manifest_parse(out.data, out.len, &back, err, sizeof(err)) != 0)
		fail_msg("%s: %.*s", err, (int)out.len, out.data);
	assert_int_equal(back.min_event_us, -2000);
	assert_int_equal(back.files[0].max_event_us, -1000);
	assert_int_equal(back.watermark_us, -500);
	/* a manifest of a kedge before the fingerprint has none */
	assert_false(back.has_fingerprint);
	manifest_clear(&back);
	buf_clear(&out);
}

/* manifest_parse as test_parse_fn. */
static int
parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct manifest m;
	int r = manifest_parse(text, len, &m, err, errlen);

	manifest_clear(&m);
	return r;
}

static void
test_malformed(void **state)
{
	static const struct test_refusal cases[] = {
		/* keys: unknown, missing, repeated; top level and nested */
		{ "\"rejects\":3,", "\"rejects\":3,\"colour\":1,",
		    "unknown key \"colour\"" },
		{ "\"rejects\":3,", "\"rejects\":3,\"co\\\"l\\nour\":1,",
		    "unknown key \"co\\\"l\\nour\"" },
		{ "\"rejects\":3,", "", "no \"rejects\"" },
		{ "\"rejects\":3,", "\"rejects\":3,\"rejects\":3,",
		    "line 1, column 195: duplicate object key near "
		    "'\"rejects\"'" },
		{ "\"bytes\":56789,\"rows\"", "\"size\":56789,\"rows\"",
		    "\"files\"[0]: unknown key \"size\"" },
		{ "\"sha256\":\"" SHA "\",", "\"crc32c\":\"0123ABCD\",",
		    "\"files\"[0]: \"crc32c\": neither empty nor 8 lowercase hex "
		    "digits" },
		{ "\"sha256\":\"" SHA "\",", "\"crc32c\":\"0123abcd0\",",
		    "\"files\"[0]: \"crc32c\": neither empty nor 8 lowercase hex "
		    "digits" },
		{ "\"sha256\":\"" SHA "\",", "\"crc32c\":7,",
		    "\"files\"[0]: \"crc32c\": expected a string, found an "
		    "integer" },
		{ "\"rows\":1234}]}", "\"rows\":1234,\"rows\":1}]}",
		    "duplicate object key near '\"rows\"'" },
		{ "\"partition\":0,\"offsets\":[[120000,120180]],\"rows\"",
		    "\"offsets\":[[120000,120180]],\"rows\"",
		    "\"partitions\"[0]: no \"partition\"" },
		{ "\"files\":[{", "\"files\":[{},{",
		    "\"files\"[0]: no \"name\"" },
		{ "\"files\":[{", "\"files\":[7,{",
		    "\"files\"[0]: expected an object, found an integer" },
		{ "\"files\":[{", "\"files\":{\"a\":{",
		    "line 1, column " },
		{ "\"partitions\":[{", "\"partitions\":{}, \"x\":[{",
		    "unknown key \"x\"" },
		/* ranges, checked as the sidecar's are */
		{ "[[120000,120180]]", "[[5,9],[1,2]]", "\"files\"[0]: "
		    "\"offsets\": range [1,2] is out of order or overlaps the "
		    "one before" },
		{ "[[120000,120180]]", "[[9,5]]",
		    "\"offsets\": range [9,5] ends before it starts" },
		{ "[[120000,120180]]", "[[-1,5]]",
		    "\"offsets\": negative offset in [-1,5]" },
		{ "[[120000,120180]]", "[120000,120180]",
		    "\"offsets\": element 0 is not a range [first,last] of two "
		    "integers" },
		{ "[[120000,120180]]", "[[1,2,3]]",
		    "\"offsets\": element 0 is not a range" },
		{ "[[120000,120180]]", "[[1,2.5]]",
		    "\"offsets\": element 0 is not a range" },
		{ "[[120000,120180]]", "{}",
		    "\"offsets\": expected an array, found an object" },
		/* values */
		{ "\"kedge\":1", "\"kedge\":2",
		    "\"kedge\": version 2, this kedge reads 1" },
		{ "\"20260801\"", "\"2026081\"",
		    "\"dt\": not of the form YYYYMMDD" },
		{ "\"hr\":\"21\"", "\"hr\":\"24\"", "\"hr\": no hour 24" },
		{ "\"hr\":\"21\"", "\"hr\":21",
		    "\"hr\": expected a string, found an integer" },
		{ "15:00:00Z", "15:00:00+00:00",
		    "\"written\": not of the form YYYY-MM-DDTHH:MM:SSZ" },
		{ SHA, "ABCDEF",
		    "\"sha256\": neither empty nor 64 lowercase hex digits" },
		{ "\"rows\":1234,\"bytes\"", "\"rows\":-1,\"bytes\"",
		    "\"rows\": negative" },
		{ "\"rows\":1234,\"bytes\"", "\"rows\":1.5,\"bytes\"",
		    "\"rows\": expected an integer, found a real number" },
		{ "\"rows\":1234,\"bytes\"", "\"rows\":1e3,\"bytes\"",
		    "\"rows\": expected an integer, found a real number" },
		{ "\"rows\":1234,\"bytes\"", "\"rows\":\"1234\",\"bytes\"",
		    "\"rows\": expected an integer, found a string" },
		{ "\"rows\":1234,\"bytes\"", "\"rows\":true,\"bytes\"",
		    "\"rows\": expected an integer, found true" },
		{ "\"rows\":1234,\"bytes\"",
		    "\"rows\":99999999999999999999,\"bytes\"",
		    "line 1, column 175: too big integer near '99999999999999999999'" },
		{ "\"rows\":1234,\"bytes\"",
		    "\"rows\":-9223372036854775809,\"bytes\"",
		    "too big negative integer" },
		{ "\"revision\":2", "\"revision\":0",
		    "\"revision\": revisions start at 1" },
		{ "\"partition\":0,", "\"partition\":2147483648,",
		    "\"files\"[0]: \"partition\": 2147483648 is out of range "
		    "[0, 2147483647]" },
		{ "\"name\":\"web+", "\"name\":\".web+",
		    "\"name\": not a part file's name" },
		{ "\"table\":\"access\"", "\"table\":\"a/b\"",
		    "\"table\": empty, \".\", \"..\", or holds '/'" },
		{ "\"table\":\"access\"", "\"table\":\"..\"",
		    "\"table\": empty, \".\", \"..\", or holds '/'" },
		{ "\"host\":\"edge01\"", "\"host\":\"\"",
		    "\"host\": empty, \".\", \"..\", or holds '/'" },
		{ "\"watermark_us\":1785621600000000", "\"watermark_us\":null",
		    "\"watermark_us\": expected an integer, found null" },
		{ "\"min_event_us\":1785610800000000,\"max_event_us\":"
		    "1785614399000000,\"files\"", "\"min_event_us\":"
		    "-9223372036854775808,\"max_event_us\":1,\"files\"",
		    "\"min_event_us\": -9223372036854775808 is out of range" },
		/* rules between fields */
		{ "\"min_event_us\":1785610800000000,\"max_event_us\":"
		    "1785614399000000,\"files\"",
		    "\"min_event_us\":null,\"max_event_us\":1,\"files\"",
		    "\"min_event_us\" and \"max_event_us\" are not both null or "
		    "an interval" },
		{ "\"min_event_us\":1785610800000000,\"max_event_us\":"
		    "1785614399000000,\"revision\":1",
		    "\"min_event_us\":2,\"max_event_us\":1,\"revision\":1",
		    "\"files\"[0]: \"min_event_us\" and \"max_event_us\" are not "
		    "both null or an interval" },
		{ "\"revision\":1}", "\"revision\":3}",
		    "\"files\"[0]: revision 3 after the manifest's 2" },
		/* the text around */
		{ "}]}\n", "}]}\n{}", "line 2, column 1: end of file expected" },
		{ "}]}\n", "}]", "'}' expected near end of file" },
		{ "\"table\":\"access\"", "\"table\":\"acc\x01ss\"",
		    "line 1, column 23: control character 0x1" },
		{ "\"table\":\"access\"", "\"table\":\"acc\\u0000ss\"",
		    "\\u0000 is not allowed without JSON_ALLOW_NUL" },
		{ "\"table\":\"access\"", "\"table\":\"acc\xffss\"",
		    "line 1, column 23: unable to decode byte 0xff" },
	};

	(void)state;
	assert_refusals(parse, example, cases, sizeof(cases) / sizeof(cases[0]));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_digests),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_before_1970),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
