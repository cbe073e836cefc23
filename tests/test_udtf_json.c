/*
 * The json UDTF and the jsonpath scan under it: every column type from
 * every kind of JSON value, paths into nested objects and arrays, flattened
 * names, many members of one object, explode, on_missing, string escapes,
 * the malformed inputs (every prefix of a valid record among them, and
 * random damage, with jansson's verdict on each), deep nesting, duplicate
 * keys, huge strings, bytes that are not UTF-8, bad configurations and a
 * refused emit().
 *
 * Records run through tests/udtf_harness.h, which holds each in a buffer of
 * exactly its length, so that a read past the end shows up under
 * AddressSanitizer.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "tests/testlib.h"
#include "tests/udtf_harness.h"

extern const struct udtf_plugin udtf_json_plugin;

#define J (&udtf_json_plugin)

/* A realistic record, for the prefix and damage tests. */
#define ORDER "{\"id\":42,\"user\":{\"name\":\"al\\u00e9\",\"tags\":[\"a\"," \
	"\"b\"]},\"ok\":true,\"n\":null,\"price\":-1.5e2,\"items\":[{\"sku\":" \
	"\"x1\",\"q\":2},{\"sku\":\"x\\\"2\",\"q\":[]}],\"ts\":" \
	"\"2026-11-29T10:00:00Z\"}"

static void
test_descriptor(void **state)
{
	const struct udtf_key *k = J->keys;

	(void)state;
	assert_int_equal(J->abi_version, KEDGE_UDTF_ABI_VERSION);
	assert_string_equal(J->name, "json");
	assert_string_equal(k[0].name, "fields");
	assert_null(k[0].default_value);
	assert_string_equal(k[1].name, "explode");
	assert_string_equal(k[1].default_value, "");
	assert_string_equal(k[2].name, "on_missing");
	assert_string_equal(k[2].default_value, "null");
	assert_null(k[3].name);
	/* the defaults, passed as kedge passes them */
	hx_open_ok(J, "fields", "a", "explode", "", "on_missing", "null", NULL);
	hx_run_ok("{\"a\":\"x\"}", 1);
	hx_assert_str(0, "a", "x");
}

static void
test_flattened_names(void **state)
{
	static const struct {
		const char *name;
		enum udtf_type type;
	} expected[] = {
		{ "user_name", UDTF_STRING },
		{ "items_0__sku", UDTF_STRING },
		{ "a_b_2__0", UDTF_INT64 },
		{ "price", UDTF_DOUBLE },
		{ "when", UDTF_TIMESTAMP },
		{ "raw", UDTF_STRING },
		{ "timestamp", UDTF_STRING },
	};

	(void)state;
	hx_open_ok(J, "fields", "user.name, items[0].sku, a.b[2][0]:int64, "
	    "price:double, when=ts:timestamp_ms, raw=user:json, @timestamp",
	    NULL);
	assert_int_equal(hx.ncols, 7);
	for (size_t i = 0; i < hx.ncols; i++) {
		assert_string_equal(hx.cols[i].name, expected[i].name);
		assert_int_equal(hx.cols[i].type, expected[i].type);
	}
	hx_run_ok("{\"@timestamp\":\"t\",\"user\":{\"name\":\"al\"},"
	    "\"items\":[{\"sku\":\"s0\"},{\"sku\":\"s1\"}],"
	    "\"a\":{\"b\":[0,1,[7,8]]},\"price\":2.5,\"ts\":1000}", 1);
	hx_assert_str(0, "user_name", "al");
	hx_assert_str(0, "items_0__sku", "s0");
	hx_assert_i64(0, "a_b_2__0", 7);
	hx_assert_double(0, "price", 2.5);
	hx_assert_ts(0, "when", 1000000);
	hx_assert_str(0, "raw", "{\"name\":\"al\"}");
	hx_assert_str(0, "timestamp", "t");
	/* the element itself is named after the explode path */
	hx_open_ok(J, "fields", "@, @.sku, @[1]", "explode", "order.lines",
	    NULL);
	assert_string_equal(hx.cols[0].name, "order_lines");
	assert_string_equal(hx.cols[1].name, "sku");
	assert_string_equal(hx.cols[2].name, "1");
}

static void
test_strings(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "s, n, f, t, z, e, u:string", NULL);
	hx_run_ok("{\"s\":\"hello\",\"n\":-12.5e+3,\"f\":false,\"t\":true,"
	    "\"z\":null,\"e\":\"\"}", 1);
	hx_assert_str(0, "s", "hello");
	hx_assert_str(0, "n", "-12.5e+3");
	hx_assert_str(0, "f", "false");
	hx_assert_str(0, "t", "true");
	hx_assert_null(0, "z");
	hx_assert_str(0, "e", "");
	hx_assert_null(0, "u");
	hx_run_rejected("{\"s\":{\"a\":1}}", "column s: is an object, not a "
	    "string; type json keeps its JSON text");
	hx_run_rejected("{\"s\":[1]}", "column s: is an array, not a string");
}

static void
test_int64(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "v:int64", NULL);
	hx_run_ok("{\"v\":42}", 1);
	hx_assert_i64(0, "v", 42);
	hx_run_ok("{\"v\":-9223372036854775808}", 1);
	hx_assert_i64(0, "v", INT64_MIN);
	/* on either side of eighteen bytes, which cannot overflow */
	hx_run_ok("{\"v\":999999999999999999}", 1);
	hx_assert_i64(0, "v", 999999999999999999LL);
	hx_run_ok("{\"v\":-99999999999999999}", 1);
	hx_assert_i64(0, "v", -99999999999999999LL);
	hx_run_ok("{\"v\":9223372036854775807}", 1);
	hx_assert_i64(0, "v", INT64_MAX);
	hx_run_ok("{\"v\":-0}", 1);
	hx_assert_i64(0, "v", 0);
	hx_run_rejected("{\"v\":-1.5}", "column v: \"-1.5\" is not an int64");
	hx_run_ok("{\"v\":\"17\"}", 1);
	hx_assert_i64(0, "v", 17);
	hx_run_ok("{\"v\":\"\\u0031\\u0032\"}", 1);
	hx_assert_i64(0, "v", 12);
	hx_run_ok("{\"v\":null}", 1);
	hx_assert_null(0, "v");
	hx_run_rejected("{\"v\":1.5}", "column v: \"1.5\" is not an int64");
	hx_run_rejected("{\"v\":1e3}", "column v: \"1e3\" is not an int64");
	hx_run_rejected("{\"v\":9223372036854775808}", "is not an int64");
	hx_run_rejected("{\"v\":true}", "column v: \"true\" is not an int64");
	hx_run_rejected("{\"v\":\"x\"}", "column v: \"x\" is not an int64");
	hx_run_rejected("{\"v\":{}}", "column v: is an object, not an int64");
	hx_run_rejected("{\"v\":[]}", "column v: is an array, not an int64");
}

static void
test_double_bool_timestamps(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "d:double, b:bool, t:timestamp, "
	    "ms:timestamp_ms, us:timestamp_us", NULL);
	hx_run_ok("{\"d\":-0.25e1,\"b\":true,\"t\":\"2026-11-29T10:00:00.5Z\","
	    "\"ms\":1764410400123,\"us\":\"1764410400123456\"}", 1);
	hx_assert_double(0, "d", -2.5);
	hx_assert_bool(0, "b", 1);
	hx_assert_ts(0, "t", utc_us(2026, 11, 29, 10, 0, 0) + 500000);
	hx_assert_ts(0, "ms", 1764410400123000LL);
	hx_assert_ts(0, "us", 1764410400123456LL);
	hx_run_ok("{\"d\":\"3\",\"b\":false,\"t\":1764410400.25,\"ms\":null}",
	    1);
	hx_assert_double(0, "d", 3.0);
	hx_assert_bool(0, "b", 0);
	hx_assert_ts(0, "t", utc_us(2025, 11, 29, 10, 0, 0) + 250000);
	hx_assert_null(0, "ms");
	hx_assert_null(0, "us");
	hx_run_ok("{\"b\":\"TRUE\"}", 1);
	hx_assert_bool(0, "b", 1);
	hx_run_ok("{\"b\":0}", 1);
	hx_assert_bool(0, "b", 0);
	hx_run_rejected("{\"b\":2}", "column b: \"2\" is not a bool");
	hx_run_rejected("{\"d\":\"NaN\"}", "column d: \"NaN\" is not a double");
	hx_run_rejected("{\"t\":\"yesterday\"}", "column t: \"yesterday\" is "
	    "not a timestamp");
	hx_run_rejected("{\"ms\":1.5}", "is not a timestamp_ms");
}

static void
test_json_type(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "o:json, a:json, s:json, n:json, t:json, "
	    "z:json", NULL);
	hx_run_ok("{\"o\": { \"k\" : [1, 2] } ,\"a\":[ ],"
	    "\"s\":\"q\\\"\\u00e9\",\"n\":1.0E-2,\"t\":true,\"z\":null}", 1);
	hx_assert_str(0, "o", "{ \"k\" : [1, 2] }");
	hx_assert_str(0, "a", "[ ]");
	hx_assert_str(0, "s", "\"q\\\"\\u00e9\"");
	hx_assert_str(0, "n", "1.0E-2");
	hx_assert_str(0, "t", "true");
	hx_assert_null(0, "z");
	/* the whole record, and a root that is not an object */
	hx_open_ok(J, "fields", "all=[0]:json, second=[1]", NULL);
	hx_run_ok(" [ {\"x\":1} , \"two\" ] ", 1);
	hx_assert_str(0, "all", "{\"x\":1}");
	hx_assert_str(0, "second", "two");
	hx_run_ok("\"just a string\"", 1);
	hx_assert_null(0, "all");
}

static void
test_nested_paths(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "a.b.c, a.b.d:int64, x[1][0], x[2].y, "
	    "deep=x[2].y.z, last=l[3]", NULL);
	hx_run_ok("{\"a\":{\"skip\":{\"b\":{\"c\":\"no\"}},"
	    "\"b\":{\"c\":\"yes\",\"d\":5}},"
	    "\"x\":[[9],[\"p\",\"q\"],{\"y\":\"why\"}],\"l\":[0,1,2]}", 1);
	hx_assert_str(0, "a_b_c", "yes");
	hx_assert_i64(0, "a_b_d", 5);
	hx_assert_str(0, "x_1__0", "p");
	hx_assert_str(0, "x_2__y", "why");
	hx_assert_null(0, "deep");
	hx_assert_null(0, "last");
	/* paths through a value of another kind are missing */
	hx_run_ok("{\"a\":\"str\",\"x\":{\"1\":[1]}}", 1);
	hx_assert_null(0, "a_b_c");
	hx_assert_null(0, "x_1__0");
	hx_run_ok("{\"a\":{\"b\":null},\"x\":[1,2,[3]]}", 1);
	hx_assert_null(0, "a_b_d");
	hx_assert_null(0, "x_2__y");
	/* a member key written with escapes */
	hx_open_ok(J, "fields", "na\xc3\xafve/k", NULL);
	hx_run_ok("{\"na\\u00efve\\/k\":\"v\"}", 1);
	hx_assert_str(0, "na__ve_k", "v");
	hx_run_ok("{\"na\\u00efve\\/k\\u0000\":\"v\"}", 1);
	hx_assert_null(0, "na__ve_k");
}

/* Many members of one object: the lookup of keys by hash. */
static void
test_many_members(void **state)
{
	char fields[1024], rec[16384], name[8];
	size_t nf = 0, nr = 0;

	(void)state;
	for (int i = 0; i < 60; i++)
		nf += (size_t)sprintf(fields + nf, "%sk%d:int64", i ? "," : "",
		    i * 7);
	hx_open_ok(J, "fields", fields, NULL);
	nr += (size_t)sprintf(rec, "{");
	for (int i = 419; i >= 0; i--)
		nr += (size_t)sprintf(rec + nr, "%s\"k%d\":%d", i < 419 ? "," :
		    "", i, i);
	sprintf(rec + nr, "}");
	hx_run_ok(rec, 1);
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof name, "k%d", i * 7);
		hx_assert_i64(0, name, i * 7);
	}
	hx_run_ok("{\"k\":1,\"k00\":2,\"\":3,\"k0 \":4}", 1);
	hx_assert_null(0, "k0");
}

static void
test_duplicate_keys(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "a, o.b, o.c", NULL);
	hx_run_ok("{\"a\":\"first\",\"o\":{\"b\":\"1\"},\"a\":\"second\","
	    "\"o\":{\"b\":\"2\",\"c\":\"3\"}}", 1);
	hx_assert_str(0, "a", "first");
	hx_assert_str(0, "o_b", "1");
	hx_assert_null(0, "o_c");
	/* the later duplicate is still checked */
	hx_run_rejected("{\"a\":\"first\",\"a\":tru}", "byte 17: invalid "
	    "literal");
}

/* A key is compared as the bytes of the member that came next last time
 * (names up to 16 bytes, read as two words): a longer or shorter key, one
 * spelled with escapes, one too near the record's end for the words, and
 * a duplicate all read as the general path reads them. */
static void
test_guessed_keys(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "a, abcdefgh, abcdefghi, abcdefghijklmnop, "
	    "abcdefghijklmnopq", NULL);
	/* learn the order */
	hx_run_ok("{\"a\":\"1\",\"abcdefgh\":\"2\",\"abcdefghi\":\"3\","
	    "\"abcdefghijklmnop\":\"4\",\"abcdefghijklmnopq\":\"5\"}", 1);
	hx_assert_str(0, "abcdefghijklmnop", "4");
	hx_assert_str(0, "abcdefghijklmnopq", "5");
	/* keys that start like the guess but are not it */
	hx_run_ok("{\"ab\":\"x\",\"a\":\"1\",\"abcdefghX\":\"y\","
	    "\"abcdefgh\":\"2\",\"abcdefghij\":\"z\",\"abcdefghi\":\"3\","
	    "\"abcdefghijklmno\":\"w\",\"abcdefghijklmnop\":\"4\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "abcdefgh", "2");
	hx_assert_str(0, "abcdefghi", "3");
	hx_assert_str(0, "abcdefghijklmnop", "4");
	hx_assert_null(0, "abcdefghijklmnopq");
	/* the guessed names spelled with escapes */
	hx_run_ok("{\"\\u0061\":\"1\",\"abcdefg\\u0068\":\"2\","
	    "\"abcdefgh\\u0069\":\"3\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "abcdefgh", "2");
	hx_assert_str(0, "abcdefghi", "3");
	/* a duplicate of the guess: the first wins, the second is checked */
	hx_run_ok("{\"a\":\"1\",\"a\":\"2\",\"abcdefgh\":\"3\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "abcdefgh", "3");
	hx_run_rejected("{\"a\":\"1\",\"a\":tru}", "invalid literal");
	/* keys that end at or near the record's end, too near for the words */
	hx_run_ok("{\"a\":\"1\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_run_ok("{\"a\":\"1\",\"abcdefgh\":2}", 1);
	hx_assert_str(0, "abcdefgh", "2");
	hx_run_rejected("{\"a\":\"1\",\"abcdefgh\"", "unexpected end");
	hx_run_rejected("{\"a\":\"1\",\"abcdefgh", "unterminated string");
	hx_run_rejected("{\"a\":\"1\",\"abcdefgh\":", "unexpected end");
	hx_run_rejected("{\"abcdefghijklmnop", "unterminated string");
	hx_run_rejected("{\"abcdefghijklmnop\"", "unexpected end");
	/* the guess compares the key with its colon: a guessed key written
	 * with blanks, or followed by no colon, is not taken as "NAME": */
	hx_run_ok("{\"a\" :\"1\",\"abcdefgh\"\t: \"2\",\"abcdefghi\""
	    "\n:\"3\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "abcdefgh", "2");
	hx_assert_str(0, "abcdefghi", "3");
	hx_run_rejected("{\"a\":\"1\",\"abcdefgh\",\"abcdefghi\":\"3\"}",
	    "byte 19: expected ':' after an object key");
	hx_run_rejected("{\"a\":\"1\",\"abcdefgh\";\"2\",\"abcdefghi\":1}",
	    "byte 19: expected ':' after an object key");
	/* nested objects and arrays no path wants, between guessed keys */
	hx_run_ok("{\"a\":\"1\",\"x\":{\"a\":[1,{\"abcdefgh\":\"no\"}],"
	    "\"y\":[[],{}]},\"abcdefgh\":\"2\"}", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "abcdefgh", "2");
	hx_run_rejected("{\"a\":\"1\",\"x\":{\"a\":[1,{\"b\":tru}]},"
	    "\"abcdefgh\":\"2\"}", "invalid literal");
}

/* A key that no wanted name's length and first byte allow is skipped; one
 * whose escapes decode to a wanted name is still found. */
static void
test_unwanted_keys(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "host, msg", NULL);
	hx_run_ok("{\"tags\":[\"a\"],\"hosts\":1,\"Host\":2,\"\":3,"
	    "\"\\u0068ost\":\"h\",\"msg\":\"m\"}", 1);
	hx_assert_str(0, "host", "h");
	hx_assert_str(0, "msg", "m");
	hx_run_ok("{\"h\\u006fst\":\"h2\"}", 1);
	hx_assert_str(0, "host", "h2");
	hx_assert_null(0, "msg");
}

/* A value no path wants is skipped, but checked as strictly: a fault in
 * it, at any depth, gives the reason and the byte it gives anywhere. */
static void
test_skipped_values(void **state)
{
	static const struct {
		const char *frag;
		size_t at;         /* the byte of the fault in frag */
		const char *why;   /* NULL: frag is valid */
	} cases[] = {
		{ "[\"checkout\",\"a\"]", 0, NULL },
		{ "[{\"sku\":\"SKU-1\",\"qty\":3,\"price\":85.28},"
		    "{\"a\":[true,false,null,-0.5e-3,1E+2,{},[]]}]", 0, NULL },
		{ "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
		    "\"x y\",\"\x7f\xc3\xa9\"]", 0, NULL },
		{ "[ 1 ,\t{ \"a\" :\n[ ] } ]", 0, NULL },
		{ "{\"a\":{\"b\":[{\"c\":\"{[]}\\\"\"}]},\"d\":\"]}\"}", 0,
		    NULL },
		{ "[tru]", 1, "invalid literal; expected true, false or null" },
		{ "[nul,1]", 1, "invalid literal" },
		{ "[truex]", 5, "expected ',' or ']' in an array" },
		{ "[01]", 1, "number with a leading zero" },
		{ "[1.]", 3, "invalid number" },
		{ "[-]", 2, "invalid number" },
		{ "[1e+]", 4, "invalid number" },
		{ "[0x1]", 2, "expected ',' or ']' in an array" },
		{ "[+1]", 1, "expected a value" },
		{ "[\"a\x01\"]", 3, "control byte 0x01 in a string; it must be "
		    "escaped" },
		{ "[\"a\nb\"]", 3, "control byte 0x0a in a string" },
		{ "[\"\\x\"]", 2, "invalid escape in a string" },
		{ "[\"\\u12g4\"]", 2, "\\u needs four hex digits" },
		{ "[1,]", 3, "expected a value" },
		{ "[,1]", 1, "expected a value" },
		{ "{\"a\":1,}", 7, "expected a string as object key" },
		{ "{\"a\" 1}", 5, "expected ':' after an object key" },
		{ "{\"a\"}", 4, "expected ':' after an object key" },
		{ "{\"a\":1]", 6, "expected ',' or '}' in an object" },
		{ "{\"a\":1:2}", 6, "expected ',' or '}' in an object" },
		{ "{\"a\":\"b\":1}", 8, "expected ',' or '}' in an object" },
		{ "[1}", 2, "expected ',' or ']' in an array" },
		{ "[1 2]", 3, "expected ',' or ']' in an array" },
		{ "[\"a\"\"b\"]", 4, "expected ',' or ']' in an array" },
		{ "[\"a\":1]", 4, "expected ',' or ']' in an array" },
		{ "{1:2}", 1, "expected a string as object key" },
		{ "{,}", 1, "expected a string as object key" },
		{ "[{]", 2, "expected a string as object key" },
		{ "{{}}", 1, "expected a string as object key" },
		{ "{[]}", 1, "expected a string as object key" },
		{ "{\"a\":1,2}", 7, "expected a string as object key" },
		{ "{\"a\":1,[]}", 7, "expected a string as object key" },
		{ "{\"a\":[],{}}", 8, "expected a string as object key" },
		{ "[[],\"a\":1]", 7, "expected ',' or ']' in an array" },
	};
	/* the fragment alone, in an array, and in an object in an array */
	static const char *const open[] = { "", "[", "{\"k\":[0," };
	static const char *const close[] = { "", "]", "]}" };
	char rec[512], why[256];
	size_t n;

	(void)state;
	hx_open_ok(J, "fields", "s:int64", NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (size_t w = 0; w < sizeof open / sizeof open[0]; w++) {
			n = (size_t)snprintf(rec, sizeof rec, "{\"t\":%s%s%s,"
			    "\"s\":1}", open[w], cases[i].frag, close[w]);
			assert_true(n < sizeof rec);
			if (cases[i].why == NULL) {
				hx_run_ok(rec, 1);
				hx_assert_i64(0, "s", 1);
				continue;
			}
			snprintf(why, sizeof why, "byte %zu: %s", strlen("{\"t\":") +
			    strlen(open[w]) + cases[i].at, cases[i].why);
			hx_run_rejected(rec, why);
		}
	}
	/* 64 levels, the record's object included, pass; 65 do not */
	for (int depth = 64; depth <= 65; depth++) {
		n = (size_t)sprintf(rec, "{\"t\":");
		for (int i = 2; i < depth; i++)
			n += (size_t)sprintf(rec + n, "{\"k\":");
		n += (size_t)sprintf(rec + n, "[1]");
		for (int i = 2; i < depth; i++)
			rec[n++] = '}';
		sprintf(rec + n, ",\"s\":1}");
		if (depth == 64)
			hx_run_ok(rec, 1);
		else
			hx_run_rejected(rec, "byte 320: nesting deeper than 64");
	}
}

/* true, false and null are compared as words: cut short, misspelt or
 * ending the record exactly. */
static void
test_literals(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "b:bool", NULL);
	hx_run_ok("{\"b\":true}", 1);
	hx_assert_bool(0, "b", 1);
	hx_run_ok("{\"b\":false}", 1);
	hx_assert_bool(0, "b", 0);
	hx_run_ok("{\"b\":null}", 1);
	hx_assert_null(0, "b");
	hx_run_ok("true", 1);
	hx_run_ok("null", 1);
	hx_run_ok("false", 1);
	hx_run_rejected("tru", "unexpected end");
	hx_run_rejected("fals", "unexpected end");
	hx_run_rejected("nul", "unexpected end");
	hx_run_rejected("{\"b\":tru", "unexpected end");
	hx_run_rejected("{\"b\":truE}", "invalid literal");
	hx_run_rejected("{\"b\":falsy}", "invalid literal");
	hx_run_rejected("{\"b\":nulL}", "invalid literal");
	hx_run_rejected("{\"b\":trux", "invalid literal");
	hx_run_rejected("{\"b\":truex}", "expected ',' or '}'");
	hx_run_rejected("{\"b\":-}", "invalid number");
	hx_run_rejected("{\"b\":+1}", "expected a value");
}

/* A double column converts a plain number itself, to what strtod()
 * gives; an exponent or more than 15 digits go to coltype. */
static void
test_double_numbers(void **state)
{
	static const char *const numbers[] = { "0", "-0", "1.5", "-0.25",
	    "188.898", "0.1", "123456789012345", "-12345678901234.5",
	    "0.12345678901234", "1234567890123456", "0.123456789012345678",
	    "1e3", "-2.5E-2", "9007199254740993", NULL };
	char rec[64];

	(void)state;
	hx_open_ok(J, "fields", "d:double", NULL);
	for (int i = 0; numbers[i] != NULL; i++) {
		snprintf(rec, sizeof(rec), "{\"d\":%s}", numbers[i]);
		hx_run_ok(rec, 1);
		hx_assert_double(0, "d", strtod(numbers[i], NULL));
	}
	hx_run_ok("{\"d\":-0}", 1);
	assert_true(signbit(hx_value(0, "d")->u.d));
}

/* A number read in one word, with eight bytes of the record from its
 * start on, ends where the byte-wise scan ends it, or is refused for the
 * same reason at the same byte: each number, valid or not, in a record
 * that ends right after it (fewer than eight bytes: the byte-wise scan)
 * and in one that goes on. */
static void
test_numbers_in_a_word(void **state)
{
	static const char *const numbers[] = { "0", "7", "42", "123456",
	    "0.5", "85.28", "1.2345", "123.45", "0.0", "01", "00", "00.5",
	    "1.", "1.e5", "1.5e3", "-1", "-0.5", "1e5", "1E+2", "0e1", "0x1",
	    "1.2.3", ".5", "1..2", "0.", "9.9e", "5-", "12a", "1.2a", "1.5E",
	    NULL };
	char shortrec[64], longrec[64], err[sizeof hx.err], text[64];
	int r;

	(void)state;
	hx_open_ok(J, "fields", "d:json", NULL);
	for (int i = 0; numbers[i] != NULL; i++) {
		snprintf(shortrec, sizeof(shortrec), "{\"d\":%s}", numbers[i]);
		snprintf(longrec, sizeof(longrec), "{\"d\":%s,\"pad\":\"xxxxxxxx\"}",
		    numbers[i]);
		r = hx_run(shortrec);
		snprintf(err, sizeof(err), "%s", hx.err);
		text[0] = '\0';
		if (r == 0)
			snprintf(text, sizeof(text), "%.*s",
			    (int)hx_value(0, "d")->u.s.len,
			    hx_value(0, "d")->u.s.ptr);
		if (hx_run(longrec) != r)
			fail_msg("%s: %s, but %s", numbers[i], r == 0 ?
			    "taken" : err, r == 0 ? hx.err : "taken");
		if (r == 0)
			hx_assert_str(0, "d", text);
		else if (strcmp(hx.err, err) != 0)
			fail_msg("%s: \"%s\", but \"%s\"", numbers[i], err,
			    hx.err);
	}
}

static void
test_explode(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "id:int64, sku=@.sku, q=@.q:int64, "
	    "line=@:json, ts", "explode", "order.items", NULL);
	hx_run_ok("{\"id\":7,\"order\":{\"items\":[{\"sku\":\"a\",\"q\":1},"
	    "{\"q\":\"2\"},null,{\"sku\":\"c\",\"q\":3,\"sku\":\"d\"}]},"
	    "\"ts\":\"late\"}", 4);
	for (int r = 0; r < 4; r++) {
		hx_assert_i64(r, "id", 7);
		hx_assert_str(r, "ts", "late");
	}
	hx_assert_str(0, "sku", "a");
	hx_assert_i64(0, "q", 1);
	hx_assert_str(0, "line", "{\"sku\":\"a\",\"q\":1}");
	hx_assert_null(1, "sku");
	hx_assert_i64(1, "q", 2);
	hx_assert_null(2, "sku");
	hx_assert_null(2, "line");
	hx_assert_str(3, "sku", "c");
	/* no array: no row, and no reject */
	hx_run_ok("{\"id\":7,\"order\":{\"items\":[]}}", 0);
	hx_run_ok("{\"id\":7,\"order\":{\"items\":null}}", 0);
	hx_run_ok("{\"id\":7,\"order\":{}}", 0);
	hx_run_ok("{\"id\":7}", 0);
	hx_run_rejected("{\"order\":{\"items\":\"x\"}}", "explode path "
	    "order.items is a string, not an array");
	hx_run_rejected("{\"order\":{\"items\":{\"k\":[{}]}}}", "explode "
	    "path order.items is an object, not an array");
	hx_run_rejected("{\"order\":{\"items\":1}}", "is a number, not an "
	    "array");
	hx_run_rejected("{\"id\":\"x\",\"order\":{\"items\":[{}]}}",
	    "column id: \"x\" is not an int64");
	hx_run_rejected("{\"order\":{\"items\":[{\"q\":\"x\"}]}}",
	    "column q: \"x\" is not an int64 (order.items[0])");
	/* a failure at a later element: no row either */
	hx_run_rejected("{\"order\":{\"items\":[{},{\"q\":[]}]}}",
	    "column q: is an array, not an int64 (order.items[1])");
	/* the element itself, scalars, and an explode at the root */
	hx_open_ok(J, "fields", "v=@:int64, first=@[0]", "explode", "[1]",
	    NULL);
	hx_run_ok("[0,[5,6,\"7\"]]", 3);
	hx_assert_i64(0, "v", 5);
	hx_assert_i64(2, "v", 7);
	hx_assert_null(0, "first");
	hx_run_rejected("[0,[[1]]]", "column v: is an array, not an int64 "
	    "([1][0])");
	hx_open_ok(J, "fields", "first=@[0]", "explode", "[1]", NULL);
	hx_run_ok("[0,[[1],[2,3]]]", 2);
	hx_assert_str(1, "first", "2");
	/* explode without element fields: a row per element; the first
	 * array of two with the same key */
	hx_open_ok(J, "fields", "id", "explode", "xs", NULL);
	hx_run_ok("{\"xs\":[1,2,3],\"id\":\"k\",\"xs\":[4]}", 3);
	hx_assert_str(2, "id", "k");
}

static void
test_explode_many(void **state)
{
	char *rec = malloc(256 * 1024);
	size_t n = 0;

	(void)state;
	assert_non_null(rec);
	hx_open_ok(J, "fields", "i=@.i:int64, s=@.s", "explode", "a", NULL);
	n += (size_t)sprintf(rec + n, "{\"a\":[");
	for (int i = 0; i < 3000; i++)
		n += (size_t)sprintf(rec + n,
		    "%s{\"s\":\"\\u00e9%d\",\"i\":%d}", i ? "," : "", i, i);
	n += (size_t)sprintf(rec + n, "]}");
	assert_int_equal(hx_run_len(rec, n), 0);
	assert_int_equal(hx.nrows, 3000);
	hx_assert_i64(2999, "i", 2999);
	hx_assert_str(2999, "s", "\xc3\xa9" "2999");
	free(rec);
}

/* Writes {"a":[{"i":0},...,{"i":n-1}]tail} into a buffer it returns,
 * setting *len. */
static char *
explode_record(int n, const char *tail, size_t *len)
{
	char *rec = malloc((size_t)n * 24 + strlen(tail) + 16);
	size_t m = 0;

	assert_non_null(rec);
	m += (size_t)sprintf(rec + m, "{\"a\":[");
	for (int i = 0; i < n; i++)
		m += (size_t)sprintf(rec + m, "%s{\"i\":%d}", i ? "," : "", i);
	m += (size_t)sprintf(rec + m, "%s", tail);
	*len = m;
	return rec;
}

/* An explode array of far more elements than the emitter takes rows:
 * only max_rows + 1 elements are recorded and converted, so an element
 * past them that would not convert is never reached, and the record is
 * refused by the emitter, as kedge's chain refuses it ("more than N rows
 * from one record").  The rest of the record is still checked, root
 * values after the array are still found. */
static void
test_explode_stops_at_max_rows(void **state)
{
	size_t len;
	char *rec;

	(void)state;
	hx_open_ok(J, "fields", "i=@.i:int64, id", "explode", "a", NULL);
	hx.em.max_rows = 3;
	rec = explode_record(200000, ",{\"i\":\"x\"}],\"id\":\"r\"}", &len);
	assert_int_equal(hx_run_len(rec, len), -E2BIG);
	assert_int_equal(hx.emits, 4);
	assert_int_equal(hx.nrows, 3);
	hx_assert_str(2, "id", "r");
	free(rec);

	/* a syntax error past the recorded elements still rejects */
	rec = explode_record(1000, "]", &len);
	assert_int_equal(hx_run_len(rec, len), -EINVAL);
	assert_int_equal(hx.emits, 0);
	assert_non_null(strstr(hx.err, "unexpected end of record"));
	free(rec);

	/* exactly max_rows elements: every row, the root's value after them */
	rec = explode_record(3, "],\"id\":\"r\"}", &len);
	assert_int_equal(hx_run_len(rec, len), 0);
	assert_int_equal(hx.nrows, 3);
	hx_assert_i64(2, "i", 2);
	hx_assert_str(2, "id", "r");
	free(rec);
}

/* An emitter that keeps the values as given, pointers included, to check
 * after process() that every string stayed where it was. */
struct keep {
	struct udtf_emitter em;
	int n;
	struct udtf_value v[64][2];
};

static int
keep_emit(struct udtf_emitter *em, const struct udtf_value *values,
    size_t n)
{
	struct keep *k = em->opaque;

	assert_int_equal(n, 2);
	assert_true(k->n < 64);
	memcpy(k->v[k->n++], values, 2 * sizeof(*values));
	return 0;
}

static void
test_strings_stay_put(void **state)
{
	static struct keep k;
	struct udtf_record rec;
	char data[4096], want[32];
	size_t n = 0;

	(void)state;
	memset(&k, 0, sizeof k);
	k.em.emit = keep_emit;
	k.em.opaque = &k;
	memset(&rec, 0, sizeof rec);
	hx_open_ok(J, "fields", "root, s=@", "explode", "a", NULL);
	n += (size_t)sprintf(data + n, "{\"root\":\"r\\u00e9\",\"a\":[");
	for (int i = 0; i < 60; i++)
		n += (size_t)sprintf(data + n, "%s\"\\t%02d%s\"", i ? "," : "",
		    i, i % 7 ? "" : "\\ud83d\\ude00");
	n += (size_t)sprintf(data + n, "]}");
	rec.data = data;
	rec.len = n;
	assert_int_equal(J->process(hx.state, &rec, &k.em, hx.err,
	    sizeof hx.err), 0);
	assert_int_equal(k.n, 60);
	for (int i = 0; i < 60; i++) {
		snprintf(want, sizeof want, "\t%02d%s", i,
		    i % 7 ? "" : "\xf0\x9f\x98\x80");
		assert_int_equal(k.v[i][0].u.s.len, 3);
		assert_memory_equal(k.v[i][0].u.s.ptr, "r\xc3\xa9", 3);
		assert_int_equal(k.v[i][1].u.s.len, strlen(want));
		assert_memory_equal(k.v[i][1].u.s.ptr, want, strlen(want));
	}
}

static void
test_on_missing(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "a, b.c:int64", NULL);
	hx_run_ok("{}", 1);
	hx_assert_null(0, "a");
	hx_assert_null(0, "b_c");
	hx_open_ok(J, "fields", "a, b.c:int64", "on_missing", "reject", NULL);
	hx_run_ok("{\"a\":null,\"b\":{\"c\":null}}", 1);
	hx_assert_null(0, "a");
	hx_assert_null(0, "b_c");
	hx_run_rejected("{\"a\":\"x\"}", "path b.c is missing");
	hx_run_rejected("{\"a\":\"x\",\"b\":null}", "path b.c is missing");
	hx_run_rejected("{\"a\":\"x\",\"b\":[]}", "path b.c is missing");
	hx_run_rejected("{\"b\":{\"c\":1}}", "path a is missing");
	hx_open_ok(J, "fields", "@.x", "explode", "e", "on_missing", "reject",
	    NULL);
	hx_run_ok("{}", 0);
	hx_run_rejected("{\"e\":[{\"x\":1},{}]}", "path @.x is missing (e[1])");
}

static void
test_escapes(void **state)
{
	static const struct {
		const char *json;
		const char *text;
	} ok[] = {
		{ "\"\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\n\t\"\\/\b\f\r" },
		{ "\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac" },
		{ "\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80" },
		{ "\"x\\uDBFF\\uDFFFy\"", "x\xf4\x8f\xbf\xbfy" },
		/* lone surrogates become U+FFFD */
		{ "\"\\ud800\"", "\xef\xbf\xbd" },
		{ "\"\\udc00x\"", "\xef\xbf\xbdx" },
		{ "\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A" },
		{ "\"\\ud800\\n\"", "\xef\xbf\xbd\n" },
		{ "\"\\ude00\\ud83d\"", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\"\\ud83d\"", "\xef\xbf\xbd" },
		{ "\"\x7f\"", "\x7f" },
	};
	static const struct {
		const char *json;
		const char *why;
	} bad[] = {
		{ "\"\\x41\"", "byte 6: invalid escape in a string" },
		{ "\"\\U0041\"", "invalid escape" },
		{ "\"\\'\"", "invalid escape" },
		{ "\"\\u00g1\"", "byte 6: \\u needs four hex digits" },
		{ "\"\\u12\"", "\\u needs four hex digits" },
		{ "\"a\nb\"", "byte 7: control byte 0x0a in a string" },
		{ "\"\t\"", "control byte 0x09" },
	};
	char rec[128];

	(void)state;
	hx_open_ok(J, "fields", "s", NULL);
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		snprintf(rec, sizeof rec, "{\"s\":%s}", ok[i].json);
		hx_run_ok(rec, 1);
		hx_assert_str(0, "s", ok[i].text);
	}
	/* a NUL, which the text may hold */
	hx_run_ok("{\"s\":\"a\\u0000b\"}", 1);
	hx_assert_bytes(0, "s", "a\0b", 3);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(rec, sizeof rec, "{\"s\":%s}", bad[i].json);
		hx_run_rejected(rec, bad[i].why);
		/* checked as strictly where nothing is extracted */
		snprintf(rec, sizeof rec, "{\"t\":[%s],\"s\":1}", bad[i].json);
		assert_int_equal(hx_run(rec), -EINVAL);
	}
}

static void
test_malformed(void **state)
{
	static const struct {
		const char *rec;
		const char *why;
	} cases[] = {
		{ " ", "byte 1: unexpected end of record" },
		{ "{", "byte 1: unexpected end of record" },
		{ "{\"a\":1", "byte 6: unexpected end of record" },
		{ "{\"a\":1}x", "byte 7: trailing bytes after the JSON value" },
		{ "{\"a\":1}{}", "byte 7: trailing bytes" },
		{ "{\"a\":1} \n\r\t", NULL },
		{ "{a:1}", "byte 1: expected a string as object key" },
		{ "{\"a\" 1}", "byte 5: expected ':' after an object key" },
		{ "{\"a\":1 \"b\":2}", "byte 7: expected ',' or '}' in an "
		    "object" },
		{ "{\"a\":1,}", "byte 7: expected a string as object key" },
		{ "{\"a\":[1 2]}", "byte 8: expected ',' or ']' in an array" },
		{ "{\"a\":[1,]}", "byte 8: expected a value" },
		{ "{\"a\":}", "byte 5: expected a value" },
		{ "{\"a\":'x'}", "byte 5: expected a value" },
		{ "{\"a\":\"x}", "byte 5: unterminated string" },
		{ "{\"a\":01}", "byte 5: number with a leading zero" },
		{ "{\"a\":-}", "byte 6: invalid number" },
		{ "{\"a\":+1}", "byte 5: expected a value" },
		{ "{\"a\":.5}", "byte 5: expected a value" },
		{ "{\"a\":1.}", "byte 7: invalid number" },
		{ "{\"a\":1e}", "byte 7: invalid number" },
		{ "{\"a\":1e+}", "byte 8: invalid number" },
		{ "{\"a\":0x1}", "byte 6: expected ',' or '}'" },
		{ "{\"a\":NaN}", "byte 5: expected a value" },
		{ "{\"a\":Infinity}", "expected a value" },
		{ "{\"a\":tru}", "byte 5: invalid literal" },
		{ "{\"a\":nulll}", "byte 9: expected ',' or '}'" },
		{ "{\"a\":True}", "expected a value" },
		{ "[1,2", "byte 4: unexpected end of record" },
		{ "{\"a\":[}", "byte 6: expected a value" },
		{ "{\"a\":{]}", "byte 6: expected a string as object key" },
		{ "{\"a\":[1}", "byte 7: expected ',' or ']'" },
		{ "{\"a\":{\"b\":1]}", "byte 11: expected ',' or '}'" },
		{ "{\"a\":1}}", "byte 7: trailing bytes" },
		{ "\xef\xbb\xbf{}", "byte 0: expected a value" },
	};

	(void)state;
	hx_open_ok(J, "fields", "a", NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].why == NULL) {
			hx_run_ok(cases[i].rec, 1);
			continue;
		}
		hx_run_rejected(cases[i].rec, cases[i].why);
	}
	assert_int_equal(hx_run_len("{\"a\":1}\0", 8), -EINVAL);
	assert_string_equal(hx.err, "byte 7: trailing bytes after the JSON "
	    "value");
	assert_int_equal(hx_run_len("", 0), -EINVAL);
	assert_string_equal(hx.err, "empty record");
}

/* Every proper prefix of a valid record is rejected with a reason. */
static void
check_prefixes(const char *rec)
{
	size_t len = strlen(rec);

	if (hx_run(rec) != 0)
		fail_msg("rejected: %s\nrecord: %s", hx.err, rec);
	for (size_t n = 0; n < len; n++) {
		if (hx_run_len(rec, n) != -EINVAL)
			fail_msg("prefix of %zu bytes accepted: %.*s", n,
			    (int)n, rec);
		assert_int_equal(hx.nrows, 0);
		assert_true(hx.err[0] != '\0');
	}
}

static void
test_truncated(void **state)
{
	(void)state;
	/* extracting nothing of it, all of it, and exploding it */
	hx_open_ok(J, "fields", "none", NULL);
	check_prefixes(ORDER);
	hx_open_ok(J, "fields", "id:int64, user.name, user.tags[1], ok:bool, "
	    "n, price:double, items:json, ts:timestamp", NULL);
	check_prefixes(ORDER);
	hx_open_ok(J, "fields", "id, sku=@.sku, q=@.q:json", "explode",
	    "items", NULL);
	check_prefixes(ORDER);
	check_prefixes("[[],{},\"\",0,-0.0e-0,true,false,null,{\"\":[{}]}]");
}

/* Random damage to a valid record never crashes, and a reject always has
 * a reason. */
static void
test_mutations(void **state)
{
	static const char alphabet[] = "{}[]\",:\\u0aeE.-+ tfn\x80\xff\n";
	const size_t len = strlen(ORDER);
	uint64_t seed = 7;
	char rec[sizeof(ORDER)];

	(void)state;
	hx_open_ok(J, "fields", "id, sku=@.sku, u=user:json, user.tags[0]",
	    "explode", "items", NULL);
	for (int round = 0; round < 20000; round++) {
		memcpy(rec, ORDER, len);
		for (int k = 0; k < 1 + round % 3; k++)
			rec[splitmix64(&seed) % len] =
			    alphabet[splitmix64(&seed) % (sizeof alphabet - 1)];
		if (hx_run_len(rec, len) < 0)
			assert_true(hx.err[0] != '\0');
	}
}

/* Whether jansson, reading on its own, takes rec as a JSON document:
 * the oracle of test_verdicts().  NUL escapes allowed and integers read as
 * doubles, so that it judges the grammar alone, as the scan does. */
static int
jansson_takes(const char *rec, size_t len)
{
	json_error_t e;
	json_t *doc = json_loadb(rec, len, JSON_ALLOW_NUL |
	    JSON_DECODE_INT_AS_REAL, &e);

	json_decref(doc);
	return doc != NULL;
}

/* Whether rec holds an exponent of three digits or more, which jansson
 * refuses as out of a double's range where RFC 8259 sets no range. */
static int
has_long_exponent(const char *rec, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t j = i + 1, digits = 0;

		if (rec[i] != 'e' && rec[i] != 'E')
			continue;
		j += j < len && (rec[j] == '+' || rec[j] == '-');
		while (j < len && rec[j] >= '0' && rec[j] <= '9')
			j++, digits++;
		if (digits >= 3)
			return 1;
	}
	return 0;
}

/* Random damage (a byte changed, added or taken away, one to three times)
 * to a valid record gets the verdict jansson gives: accepted exactly when
 * it is JSON.  Once with no path into the damaged containers, so that they
 * are skipped, and once with paths into them, so that the walk reads them;
 * every column is json, which takes any value.  The alphabet is ASCII
 * without 'd' (no \uD800-\uDFFF escape): jansson also refuses bytes that
 * are not UTF-8 and lone surrogates, which the scan does not judge. */
static void
test_verdicts(void **state)
{
	static const char alphabet[] = "{}[]\",:\\/u0123456789aefbnrtlsE.-+ "
	    "\t\n\x01\x7f";
	static const char *const fields[] = {
		"s:json",
		"i=id:json, u=user:json, t=user.tags[1]:json, q=items[1].q:json, "
		"k=items[0].sku:json",
	};
	const size_t base = strlen(ORDER);
	char rec[sizeof(ORDER) + 3];
	int tried[2] = { 0, 0 }, taken[2] = { 0, 0 };

	(void)state;
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
		uint64_t seed = 11;

		hx_open_ok(J, "fields", fields[f], NULL);
		for (int round = 0; round < 20000; round++) {
			size_t len = base, at;
			int want, r;

			memcpy(rec, ORDER, len);
			for (int k = 0; k < 1 + round % 3; k++) {
				char c = alphabet[splitmix64(&seed) %
				    (sizeof alphabet - 1)];

				at = (size_t)(splitmix64(&seed) % len);
				switch (splitmix64(&seed) % 3) {
				case 0:
					rec[at] = c;
					break;
				case 1:
					memmove(rec + at + 1, rec + at, len - at);
					rec[at] = c;
					len++;
					break;
				default:
					memmove(rec + at, rec + at + 1,
					    len - at - 1);
					len--;
				}
			}
			if (has_long_exponent(rec, len))
				continue;
			want = jansson_takes(rec, len);
			r = hx_run_len(rec, len);
			if ((r == 0) != want)
				fail_msg("%s, jansson %s it\nfields: %s\n"
				    "record: %.*s", r == 0 ? "accepted" :
				    hx.err, want ? "takes" : "refuses",
				    fields[f], (int)len, rec);
			tried[f]++;
			taken[f] += want;
		}
	}
	/* both verdicts came up often, under both sets of paths */
	for (int f = 0; f < 2; f++) {
		assert_true(tried[f] > 19000);
		assert_true(taken[f] > tried[f] / 10);
		assert_true(taken[f] < tried[f] * 9 / 10);
	}
}

static void
test_deep_nesting(void **state)
{
	char rec[512];
	size_t n;

	(void)state;
	hx_open_ok(J, "fields", "a:json", NULL);
	/* 64 levels, the record's object included, pass; 65 do not */
	for (int depth = 64; depth <= 65; depth++) {
		n = (size_t)sprintf(rec, "{\"a\":");
		for (int i = 1; i < depth; i++)
			rec[n++] = '[';
		for (int i = 1; i < depth; i++)
			rec[n++] = ']';
		rec[n++] = '}';
		rec[n] = '\0';
		if (depth == 64) {
			hx_run_ok(rec, 1);
			assert_int_equal(hx.rows[0].v[0].u.s.len, 2 * 63);
		} else {
			hx_run_rejected(rec, "byte 68: nesting deeper than 64");
		}
	}
	/* and in objects the scan descends into */
	hx_open_ok(J, "fields", "a.a.a.a", NULL);
	n = 0;
	for (int i = 0; i < 65; i++)
		n += (size_t)sprintf(rec + n, "{\"a\":");
	rec[n++] = '1';
	for (int i = 0; i < 65; i++)
		rec[n++] = '}';
	rec[n] = '\0';
	hx_run_rejected(rec, "nesting deeper than 64");
	/* far deeper than the bound, and unclosed: no recursion to blow */
	{
		char *deep = malloc(1000000);

		assert_non_null(deep);
		memset(deep, '[', 1000000);
		assert_int_equal(hx_run_len(deep, 1000000), -EINVAL);
		assert_string_equal(hx.err, "byte 64: nesting deeper than 64");
		free(deep);
	}
}

static void
test_huge_strings(void **state)
{
	const size_t big = 3 * 1024 * 1024 + 5;
	char *rec = malloc(2 * big + 64), *want = malloc(big);
	size_t n;

	(void)state;
	assert_non_null(rec);
	assert_non_null(want);
	hx_open_ok(J, "fields", "s, t", NULL);
	n = (size_t)sprintf(rec, "{\"t\":\"");
	memset(rec + n, 'x', big);
	n += big;
	n += (size_t)sprintf(rec + n, "\",\"s\":\"");
	for (size_t i = 0; i < big / 2; i++) {
		rec[n++] = i % 1000 == 999 ? '\\' : 'y';
		if (i % 1000 == 999)
			rec[n++] = 'n';
	}
	n += (size_t)sprintf(rec + n, "\"}");
	assert_int_equal(hx_run_len(rec, n), 0);
	assert_int_equal(hx.rows[0].v[1].u.s.len, big);
	assert_int_equal(hx.rows[0].v[0].u.s.len, big / 2);
	for (size_t i = 0; i < big / 2; i++)
		want[i] = i % 1000 == 999 ? '\n' : 'y';
	assert_memory_equal(hx.rows[0].v[0].u.s.ptr, want, big / 2);
	/* a quote or control byte at every position of a word */
	for (size_t at = 0; at < 24; at++) {
		char small[64];

		n = (size_t)sprintf(small, "{\"s\":\"");
		memset(small + n, 'z', 30);
		small[n + at] = '"';
		memcpy(small + n + at + 1, "}", 2);
		hx_run_ok(small, 1);
		assert_int_equal(hx.rows[0].v[0].u.s.len, at);
		small[n + at] = '\x1f';
		assert_int_equal(hx_run_len(small, n + 30), -EINVAL);
		assert_non_null(strstr(hx.err, "control byte 0x1f"));
	}
	free(rec);
	free(want);
}

static void
test_not_utf8(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "s, \xff\xfe=k\xff", NULL);
	hx_run_ok("{\"s\":\"a\xff\xc3(\x80z\",\"k\xff\":\"\xed\xa0\x80\"}", 1);
	hx_assert_str(0, "s", "a\xff\xc3(\x80z");
	hx_assert_str(0, "\xff\xfe", "\xed\xa0\x80");
}

static void
test_bad_configs(void **state)
{
	(void)state;
	hx_open_fails("fields is required", J, NULL);
	hx_open_fails("json has no key \"field\"", J, "field", "a", NULL);
	hx_open_fails("on_missing must be null or reject, not \"skip\"", J,
	    "fields", "a", "on_missing", "skip", NULL);
	hx_open_fails("fields: path \"a..b\" has an empty member name at "
	    "byte 2", J, "fields", "a..b", NULL);
	hx_open_fails("fields: path \".a\" has an empty member name", J,
	    "fields", ".a", NULL);
	hx_open_fails("fields: path \"a.\" has an empty member name", J,
	    "fields", "x=a.", NULL);
	hx_open_fails("fields: path \"a[x]\": write an array index as [N]", J,
	    "fields", "a[x]", NULL);
	hx_open_fails("write an array index as [N]", J, "fields", "a[]",
	    NULL);
	hx_open_fails("write an array index as [N]", J, "fields", "a[1",
	    NULL);
	hx_open_fails("write an array index as [N]", J, "fields", "a[-1]",
	    NULL);
	hx_open_fails("write an array index as [N]", J, "fields",
	    "a[1000000000]", NULL);
	hx_open_fails("fields: path \"a]b\": expected '.', '[' or the end at "
	    "byte 1", J, "fields", "a]b", NULL);
	hx_open_fails("fields: path \"a[0]b\": expected '.', '[' or the end "
	    "at byte 4", J, "fields", "a[0]b", NULL);
	hx_open_fails("fields: path \"@.[0]\" has an empty member name", J,
	    "fields", "@.[0]", "explode", "e", NULL);
	hx_open_fails("fields: \"a:int\" has unknown type \"int\"; use string, "
	    "int64, double, bool, timestamp, timestamp_ms, timestamp_us or "
	    "json", J, "fields", "a:int", NULL);
	hx_open_fails("fields: path \"@.sku\" starts with @, the explode "
	    "element, but explode is not set", J, "fields", "@.sku", NULL);
	hx_open_fails("fields: two columns named \"a_b\"", J, "fields",
	    "a.b, a_b", NULL);
	hx_open_fails("fields: empty entry", J, "fields", "a,,b", NULL);
	hx_open_fails("explode: path \"@.e\" cannot start with @", J,
	    "fields", "a", "explode", "@.e", NULL);
	hx_open_fails("explode: path \"e..f\" has an empty member name", J,
	    "fields", "a", "explode", "e..f", NULL);
	hx_open_fails("fields: path \"e[0].x\" goes into the explode array e; "
	    "reach its elements with a path starting with @", J, "fields",
	    "e[0].x", "explode", "e", NULL);
	hx_open_fails("goes into the explode array", J, "fields", "e.n",
	    "explode", "e", NULL);
	{
		char path[300];
		size_t n = 0;

		for (int i = 0; i < 65; i++)
			n += (size_t)sprintf(path + n, "%sa", i ? "." : "");
		hx_open_fails("is deeper than 64", J, "fields", path, NULL);
	}
	/* what is allowed: @name is a member, the explode array as json */
	hx_open_ok(J, "fields", "@version, e:json", "explode", "e", NULL);
	hx_run_ok("{\"@version\":\"1\",\"e\":[1,2]}", 2);
	hx_assert_str(1, "version", "1");
	hx_assert_str(1, "e", "[1,2]");
}

static void
test_emit_refused(void **state)
{
	(void)state;
	hx_open_ok(J, "fields", "a", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("{\"a\":1}"), -E2BIG);
	hx_open_ok(J, "fields", "a=@", "explode", "x", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("{\"x\":[1,2,3]}"), -E2BIG);
	hx.refuse = 0;
	hx_run_ok("{\"x\":[1,2,3]}", 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_descriptor, hx_teardown),
		cmocka_unit_test_teardown(test_flattened_names, hx_teardown),
		cmocka_unit_test_teardown(test_strings, hx_teardown),
		cmocka_unit_test_teardown(test_int64, hx_teardown),
		cmocka_unit_test_teardown(test_double_bool_timestamps,
		    hx_teardown),
		cmocka_unit_test_teardown(test_json_type, hx_teardown),
		cmocka_unit_test_teardown(test_nested_paths, hx_teardown),
		cmocka_unit_test_teardown(test_many_members, hx_teardown),
		cmocka_unit_test_teardown(test_duplicate_keys, hx_teardown),
		cmocka_unit_test_teardown(test_guessed_keys, hx_teardown),
		cmocka_unit_test_teardown(test_unwanted_keys, hx_teardown),
		cmocka_unit_test_teardown(test_skipped_values, hx_teardown),
		cmocka_unit_test_teardown(test_literals, hx_teardown),
		cmocka_unit_test_teardown(test_numbers_in_a_word, hx_teardown),
		cmocka_unit_test_teardown(test_double_numbers, hx_teardown),
		cmocka_unit_test_teardown(test_explode, hx_teardown),
		cmocka_unit_test_teardown(test_explode_many, hx_teardown),
		cmocka_unit_test_teardown(test_explode_stops_at_max_rows,
		    hx_teardown),
		cmocka_unit_test_teardown(test_strings_stay_put, hx_teardown),
		cmocka_unit_test_teardown(test_on_missing, hx_teardown),
		cmocka_unit_test_teardown(test_escapes, hx_teardown),
		cmocka_unit_test_teardown(test_malformed, hx_teardown),
		cmocka_unit_test_teardown(test_truncated, hx_teardown),
		cmocka_unit_test_teardown(test_mutations, hx_teardown),
		cmocka_unit_test_teardown(test_verdicts, hx_teardown),
		cmocka_unit_test_teardown(test_deep_nesting, hx_teardown),
		cmocka_unit_test_teardown(test_huge_strings, hx_teardown),
		cmocka_unit_test_teardown(test_not_utf8, hx_teardown),
		cmocka_unit_test_teardown(test_bad_configs, hx_teardown),
		cmocka_unit_test_teardown(test_emit_refused, hx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
