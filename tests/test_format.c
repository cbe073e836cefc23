/*
 * format: hive-text rows read back by a reader that follows Hive's
 * LazySimpleSerDe (split on unescaped delimiters, \N is NULL, then
 * unescape), jsonl rows decoded by a small JSON string reader, and exact
 * bytes for every type, escape and timestamp.
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
#include <time.h>

#include <cmocka.h>

#include "tests/testlib.h"

#include "agent/write/format.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static struct udtf_value
v_strn(const char *s, size_t len)
{
	struct udtf_value v = { .type = UDTF_STRING };

	v.u.s.ptr = s;
	v.u.s.len = len;
	return v;
}

static struct udtf_value
v_str(const char *s)
{
	return v_strn(s, strlen(s));
}

static struct udtf_value
v_i64(int64_t i)
{
	struct udtf_value v = { .type = UDTF_INT64 };

	v.u.i64 = i;
	return v;
}

static struct udtf_value
v_dbl(double d)
{
	struct udtf_value v = { .type = UDTF_DOUBLE };

	v.u.d = d;
	return v;
}

static struct udtf_value
v_bool(int b)
{
	struct udtf_value v = { .type = UDTF_BOOL };

	v.u.b = b;
	return v;
}

static struct udtf_value
v_ts(int64_t ts_us)
{
	struct udtf_value v = { .type = UDTF_TIMESTAMP };

	v.u.ts_us = ts_us;
	return v;
}

static struct udtf_value
v_null(void)
{
	struct udtf_value v = { .type = UDTF_NULL };

	return v;
}

/* Columns named c0, c1, ... of type STRING; names matter only in jsonl. */
static const struct udtf_column plain_cols[] = {
	{ "c0", UDTF_STRING }, { "c1", UDTF_STRING }, { "c2", UDTF_STRING },
	{ "c3", UDTF_STRING }, { "c4", UDTF_STRING }, { "c5", UDTF_STRING },
	{ "c6", UDTF_STRING }, { "c7", UDTF_STRING },
};

static void
expect_row(const struct format *f, const struct udtf_column *cols,
    const struct udtf_value *vals, size_t n, const char *want, size_t wantlen)
{
	struct buf out = { 0 };

	assert_int_equal(format_row(f, cols, vals, n, &out), 0);
	if (out.len != wantlen || memcmp(out.data, want, wantlen) != 0)
		fail_msg("row is \"%.*s\" (%zu bytes), want \"%.*s\" (%zu)",
		    (int)out.len, out.data, out.len, (int)wantlen, want,
		    wantlen);
	buf_clear(&out);
}

#define EXPECT_ROW(f, cols, vals, lit) \
	expect_row(f, cols, vals, NELEM(vals), lit, sizeof(lit) - 1)

static void
expect_escape(const char *in, size_t inlen, char delim, const char *want,
    size_t wantlen)
{
	struct buf out = { 0 };

	assert_int_equal(format_hive_escape(in, inlen, delim, &out), 0);
	assert_int_equal(out.len, wantlen);
	assert_memory_equal(out.data, want, wantlen);
	buf_clear(&out);
}

/* expect_escape() of a copy of in that has exactly inlen bytes, so that
 * a sanitizer build sees any read past its end. */
static void
expect_escape_exact(const char *in, size_t inlen, char delim,
    const char *want, size_t wantlen)
{
	char *copy = malloc(inlen);

	assert_non_null(copy);
	memcpy(copy, in, inlen);
	expect_escape(copy, inlen, delim, want, wantlen);
	free(copy);
}

#define EXPECT_ESCAPE(in, delim, want) \
	expect_escape(in, sizeof(in) - 1, delim, want, sizeof(want) - 1)

/* One field as Hive reads it back. */
struct field {
	int is_null;
	char *data;
	size_t len;
};

/* Reads one hive-text line the way LazySimpleSerDe does with ESCAPED BY
 * '\\': fields end at a delimiter that is not escaped, a field that is
 * exactly \N is NULL, and \n, \r and \X unescape to newline, CR and X.
 * Returns the number of fields. */
static size_t
hive_read_line(const char *line, size_t len, char delim, struct field *f,
    size_t max)
{
	size_t n = 0, start = 0;

	assert_true(len > 0 && line[len - 1] == '\n');
	len--;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] == '\\') {
			i++;
			continue;
		}
		if (i < len && line[i] != delim)
			continue;
		assert_true(n < max);
		f[n].is_null = i - start == 2 &&
		    memcmp(line + start, "\\N", 2) == 0;
		f[n].data = malloc(i - start + 1);
		assert_non_null(f[n].data);
		f[n].len = 0;
		for (size_t j = start; j < i; j++) {
			char c = line[j];

			/* A raw newline or CR would end the line for Hive. */
			assert_true(c != '\n' && c != '\r');
			if (c == '\\' && j + 1 < i) {
				c = line[++j];
				c = c == 'n' ? '\n' : c == 'r' ? '\r' : c;
			}
			f[n].data[f[n].len++] = c;
		}
		n++;
		start = i + 1;
	}
	return n;
}

static void
test_hive_escape(void **state)
{
	(void)state;
	EXPECT_ESCAPE("plain text", '\001', "plain text");
	EXPECT_ESCAPE("", '\001', "");
	expect_escape(NULL, 0, '\001', "", 0);
	EXPECT_ESCAPE("a\001b", '\001', "a\\\001b");
	EXPECT_ESCAPE("a\\b", '\001', "a\\\\b");
	EXPECT_ESCAPE("line1\nline2\r\n", '\001', "line1\\nline2\\r\\n");
	EXPECT_ESCAPE("\\N", '\001', "\\\\N");
	EXPECT_ESCAPE("\001\001", '\001', "\\\001\\\001");
	EXPECT_ESCAPE("a,b\001c", ',', "a\\,b\001c");
	EXPECT_ESCAPE("tab\tstays", ',', "tab\tstays");
	/* A NUL byte inside a string is data, not an end. */
	EXPECT_ESCAPE("a\0b", '\001', "a\0b");
}

static void
test_hive_null_and_empty(void **state)
{
	const struct format f = { FORMAT_HIVE_TEXT, '\001', NULL };
	const struct udtf_value row[] = {
		v_null(), v_str(""), v_str("\\N"), v_str("x"),
	};
	const struct udtf_value one_null[] = { v_null() };
	const struct udtf_value one_empty[] = { v_str("") };
	struct field fl[8];
	struct buf out = { 0 };
	size_t n;

	(void)state;
	EXPECT_ROW(&f, plain_cols, row, "\\N\001\001\\\\N\001x\n");
	EXPECT_ROW(&f, plain_cols, one_null, "\\N\n");
	EXPECT_ROW(&f, plain_cols, one_empty, "\n");

	assert_int_equal(format_row(&f, plain_cols, row, NELEM(row), &out), 0);
	n = hive_read_line(out.data, out.len, '\001', fl, NELEM(fl));
	assert_int_equal(n, 4);
	assert_true(fl[0].is_null);
	assert_false(fl[1].is_null);
	assert_int_equal(fl[1].len, 0);
	assert_false(fl[2].is_null);
	assert_int_equal(fl[2].len, 2);
	assert_memory_equal(fl[2].data, "\\N", 2);
	for (size_t i = 0; i < n; i++)
		free(fl[i].data);
	buf_clear(&out);
}

/* Every integer next to a power of ten, either sign, as printf writes it. */
static void
test_integer_digits(void **state)
{
	const struct format f = { FORMAT_HIVE_TEXT, ',', NULL };
	const struct udtf_column col = { "n", UDTF_INT64 };
	char want[32];
	int64_t p = 1;

	(void)state;
	for (int e = 0; e <= 18; e++) {
		const int64_t near[] = { p - 1, p, p + 1 };

		for (size_t k = 0; k < NELEM(near); k++)
			for (int neg = 0; neg <= 1; neg++) {
				int64_t i = neg ? -near[k] : near[k];
				struct udtf_value v = v_i64(i);
				int n = snprintf(want, sizeof(want), "%lld\n",
				    (long long)i);

				expect_row(&f, &col, &v, 1, want, (size_t)n);
			}
		if (e < 18)
			p *= 10;
	}
}

static void
test_hive_types(void **state)
{
	const struct format f = { FORMAT_HIVE_TEXT, ',', NULL };
	const struct udtf_value ints[] = {
		v_i64(0), v_i64(-1), v_i64(42), v_i64(INT64_MAX),
		v_i64(INT64_MIN),
	};
	const struct udtf_value dbls[] = {
		v_dbl(0.1), v_dbl(1.0 / 3), v_dbl(100), v_dbl(1e20),
		v_dbl(-0.0),
		v_dbl(-2.5e-7), v_dbl(0.1 + 0.2), v_dbl(1.7976931348623157e308),
		v_dbl(0.0001), v_dbl(0.00001), v_dbl(-12.000001),
		v_dbl(999999999999999), v_dbl(1e15), v_dbl(123456.789),
	};
	const struct udtf_value odd[] = {
		v_dbl(NAN), v_dbl(INFINITY), v_dbl(-INFINITY),
		v_bool(1), v_bool(0), v_bool(7),
	};
	const struct udtf_value mixed[] = {
		v_str("GET /a,b"), v_i64(200), v_dbl(0.25), v_bool(0), v_null(),
	};

	(void)state;
	EXPECT_ROW(&f, plain_cols, ints,
	    "0,-1,42,9223372036854775807,-9223372036854775808\n");
	EXPECT_ROW(&f, plain_cols, dbls, "0.1,0.3333333333333333,100,1e+20,-0,"
	    "-2.5e-07,0.30000000000000004,1.7976931348623157e+308,0.0001,1e-05,"
	    "-12.000001,999999999999999,1e+15,123456.789\n");
	EXPECT_ROW(&f, plain_cols, odd,
	    "NaN,Infinity,-Infinity,true,false,true\n");
	EXPECT_ROW(&f, plain_cols, mixed, "GET /a\\,b,200,0.25,false,\\N\n");
}

/* Every finite double reads back the same, written as the first of
 * "%.15g", "%.16g", "%.17g" that does. */
static void
test_double_round_trip(void **state)
{
	const struct format f = { FORMAT_HIVE_TEXT, '\001', NULL };
	static const uint64_t pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000, 100000000000, 1000000000000,
		10000000000000, 100000000000000, 1000000000000000,
		10000000000000000,
	};
	uint64_t seed = 1;
	struct buf out = { 0 };

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = splitmix64(&seed);
		struct udtf_value v;
		char want[40];
		double d;

		/* Any bit pattern, or a decimal of up to 16 digits with up to
		 * 9 of them after the point. */
		if (i % 2 == 0)
			memcpy(&d, &bits, sizeof(d));
		else
			d = (double)(int64_t)(bits % pow10[1 + bits % 16] -
			    pow10[bits % 16]) / pow10[bits / 16 % 10];
		if (!isfinite(d))
			continue;
		v = v_dbl(d);
		buf_reset(&out);
		assert_int_equal(format_row(&f, plain_cols, &v, 1, &out), 0);
		assert_true(out.len > 1 && out.data[out.len - 1] == '\n');
		out.data[out.len - 1] = '\0';
		if (strtod(out.data, NULL) != d)
			fail_msg("%s does not read back as %a", out.data, d);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(want, sizeof(want), "%.*g", prec, d);
			if (strtod(want, NULL) == d)
				break;
		}
		assert_string_equal(out.data, want);
	}
	buf_clear(&out);
}

/* Random strings over the bytes that matter read back intact, with the
 * NULLs where they were. */
static void
test_hive_read_back(void **state)
{
	static const char alphabet[] = "ab\\N\n\r\001,\t \"";
	const char delims[] = { '\001', ',', '\t' };
	uint64_t seed = 7;
	struct buf out = { 0 };

	(void)state;
	for (int i = 0; i < 20000; i++) {
		char text[8][12];
		struct udtf_value row[8];
		struct field fl[8];
		char delim = delims[i % NELEM(delims)];
		const struct format f = { FORMAT_HIVE_TEXT, delim, NULL };
		size_t ncols = 1 + splitmix64(&seed) % 8, n;

		for (size_t c = 0; c < ncols; c++) {
			size_t len = splitmix64(&seed) % sizeof(text[c]);

			for (size_t k = 0; k < len; k++)
				text[c][k] = alphabet[splitmix64(&seed) %
				    (sizeof(alphabet) - 1)];
			row[c] = splitmix64(&seed) % 5 == 0 ? v_null() :
			    v_strn(text[c], len);
		}
		buf_reset(&out);
		assert_int_equal(format_row(&f, plain_cols, row, ncols, &out),
		    0);
		n = hive_read_line(out.data, out.len, delim, fl, NELEM(fl));
		assert_int_equal(n, ncols);
		for (size_t c = 0; c < ncols; c++) {
			assert_int_equal(fl[c].is_null,
			    row[c].type == UDTF_NULL);
			if (!fl[c].is_null) {
				assert_int_equal(fl[c].len, row[c].u.s.len);
				assert_memory_equal(fl[c].data, row[c].u.s.ptr,
				    fl[c].len);
			}
			free(fl[c].data);
		}
	}
	buf_clear(&out);
}

static void
test_timestamps(void **state)
{
	static const struct udtf_column cols[] = {
		{ "t", UDTF_TIMESTAMP }, { "t_ms", UDTF_TIMESTAMP },
		{ "t_us", UDTF_TIMESTAMP }, { "early", UDTF_TIMESTAMP },
	};
	int64_t t = utc_us(2026, 5, 4, 16, 30, 0);
	const struct udtf_value row[] = {
		v_ts(t), v_ts(t + 123000), v_ts(t + 123456), v_ts(-1),
	};
	char err[256];
	struct format f = { FORMAT_HIVE_TEXT, '\001', NULL };

	(void)state;
	f.tz = tz_open("UTC", err, sizeof(err));
	assert_non_null(f.tz);
	EXPECT_ROW(&f, cols, row, "2026-05-04 16:30:00"
	    "\0012026-05-04 16:30:00.123"
	    "\0012026-05-04 16:30:00.123456\001\\N\n");
	f.kind = FORMAT_JSONL;
	EXPECT_ROW(&f, cols, row, "{\"t\":\"2026-05-04T16:30:00+00:00\","
	    "\"t_ms\":\"2026-05-04T16:30:00.123+00:00\","
	    "\"t_us\":\"2026-05-04T16:30:00.123456+00:00\",\"early\":null}\n");
	tz_close(f.tz);

	f.tz = tz_open("Asia/Shanghai", err, sizeof(err));
	assert_non_null(f.tz);
	f.kind = FORMAT_HIVE_TEXT;
	EXPECT_ROW(&f, cols, row, "2026-05-05 00:30:00"
	    "\0012026-05-05 00:30:00.123"
	    "\0012026-05-05 00:30:00.123456\001\\N\n");
	f.kind = FORMAT_JSONL;
	EXPECT_ROW(&f, cols, row, "{\"t\":\"2026-05-05T00:30:00+08:00\","
	    "\"t_ms\":\"2026-05-05T00:30:00.123+08:00\","
	    "\"t_us\":\"2026-05-05T00:30:00.123456+08:00\",\"early\":null}\n");
	tz_close(f.tz);
}

static void
test_jsonl_types(void **state)
{
	static const struct udtf_column cols[] = {
		{ "s", UDTF_STRING }, { "i", UDTF_INT64 }, { "d", UDTF_DOUBLE },
		{ "b", UDTF_BOOL }, { "n", UDTF_STRING },
		{ "nan", UDTF_DOUBLE },
		{ "inf", UDTF_DOUBLE }, { "f", UDTF_BOOL },
	};
	static const struct udtf_column odd_names[] = {
		{ "a\"b", UDTF_INT64 }, { "line\nbreak", UDTF_INT64 },
		{ "caf\xc3\xa9", UDTF_INT64 },
	};
	const struct format f = { FORMAT_JSONL, '\001', NULL };
	const struct udtf_value row[] = {
		v_str("x\001y"), v_i64(INT64_MIN), v_dbl(0.1), v_bool(1),
		v_null(), v_dbl(NAN), v_dbl(-INFINITY), v_bool(0),
	};
	const struct udtf_value nums[] = { v_i64(1), v_i64(-2), v_i64(3) };

	(void)state;
	EXPECT_ROW(&f, cols, row, "{\"s\":\"x\\u0001y\","
	    "\"i\":-9223372036854775808,\"d\":0.1,\"b\":true,\"n\":null,"
	    "\"nan\":null,\"inf\":null,\"f\":false}\n");
	EXPECT_ROW(&f, odd_names, nums, "{\"a\\\"b\":1,\"line\\nbreak\":-2,"
	    "\"caf\xc3\xa9\":3}\n");
	expect_row(&f, cols, row, 0, "{}\n", 3);
}

static void
expect_json_string(const char *in, size_t inlen, const char *want,
    size_t wantlen)
{
	static const struct udtf_column col[] = { { "k", UDTF_STRING } };
	const struct format f = { FORMAT_JSONL, '\001', NULL };
	const struct udtf_value v = v_strn(in, inlen);
	struct buf out = { 0 };

	assert_int_equal(format_row(&f, col, &v, 1, &out), 0);
	assert_true(out.len >= 9);
	assert_memory_equal(out.data, "{\"k\":\"", 6);
	assert_memory_equal(out.data + out.len - 3, "\"}\n", 3);
	if (out.len - 9 != wantlen || memcmp(out.data + 6, want, wantlen) != 0)
		fail_msg("json \"%.*s\", want \"%.*s\"", (int)(out.len - 9),
		    out.data + 6, (int)wantlen, want);
	buf_clear(&out);
}

#define EXPECT_JSON(in, want) \
	expect_json_string(in, sizeof(in) - 1, want, sizeof(want) - 1)

static void
test_jsonl_escapes(void **state)
{
	(void)state;
	EXPECT_JSON("plain", "plain");
	EXPECT_JSON("", "");
	/* An empty string may point nowhere. */
	expect_json_string(NULL, 0, "", 0);
	EXPECT_JSON("\"q\" \\ /", "\\\"q\\\" \\\\ /");
	EXPECT_JSON("\b\f\n\r\t", "\\b\\f\\n\\r\\t");
	EXPECT_JSON("\0\001\037\177", "\\u0000\\u0001\\u001f\177");
	/* Valid UTF-8 of 2, 3 and 4 bytes, the edges included. */
	EXPECT_JSON("\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80",
	    "\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
	EXPECT_JSON("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf",
	    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	/* Invalid: each byte of the bad sequence on its own. */
	EXPECT_JSON("\xff", "\\u00ff");
	EXPECT_JSON("a\xc3", "a\\u00c3");
	EXPECT_JSON("\xc3(", "\\u00c3(");
	EXPECT_JSON("\xc0\xaf", "\\u00c0\\u00af");               /* overlong */
	EXPECT_JSON("\xe0\x80\xaf", "\\u00e0\\u0080\\u00af");    /* overlong */
	EXPECT_JSON("\xed\xa0\x80", "\\u00ed\\u00a0\\u0080");    /* surrogate */
	EXPECT_JSON("\xf4\x90\x80\x80",
	    "\\u00f4\\u0090\\u0080\\u0080");                    /* > U+10FFFF */
	EXPECT_JSON("\xe2\x82x\xe2\x82\xac", "\\u00e2\\u0082x\xe2\x82\xac");
	EXPECT_JSON("\x80\xbf", "\\u0080\\u00bf");
	EXPECT_JSON("\xf0\x8f\xbf\xbf",
	    "\\u00f0\\u008f\\u00bf\\u00bf");                    /* overlong */
	/* A sequence cut by the end of the value, though memory goes on. */
	expect_json_string("\xe2\x82\xac", 2, "\\u00e2\\u0082", 12);
	expect_json_string("\xc3\xa9", 1, "\\u00c3", 6);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	fail_msg("bad hex digit %c", c);
	return 0;
}

/* Decodes the JSON string that starts at *p (after its opening quote) to
 * bytes: escapes below U+0080 become that byte, raw bytes are copied.
 * Fails on raw control bytes or a missing closing quote. */
static size_t
json_decode(const char **p, const char *end, char *dst)
{
	size_t n = 0;

	for (const char *s = *p; s < end; s++) {
		unsigned char c = (unsigned char)*s;
		unsigned u;

		assert_true(c >= 0x20);
		if (c == '"') {
			*p = s + 1;
			return n;
		}
		if (c != '\\') {
			dst[n++] = (char)c;
			continue;
		}
		switch (*++s) {
		case 'b': dst[n++] = '\b'; break;
		case 'f': dst[n++] = '\f'; break;
		case 'n': dst[n++] = '\n'; break;
		case 'r': dst[n++] = '\r'; break;
		case 't': dst[n++] = '\t'; break;
		case '"': case '\\': case '/': dst[n++] = *s; break;
		case 'u':
			assert_true(end - s > 4);
			u = (unsigned)(hexval(s[1]) << 12 | hexval(s[2]) << 8 |
			    hexval(s[3]) << 4 | hexval(s[4]));
			assert_true(u < 0x80);
			dst[n++] = (char)u;
			s += 4;
			break;
		default:
			fail_msg("bad escape \\%c", *s);
		}
	}
	fail_msg("unterminated JSON string");
	return 0;
}

/* Random strings of ASCII, control bytes and valid UTF-8 decode back to
 * themselves. */
static void
test_jsonl_read_back(void **state)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f",
		"\001", "\037", "\177", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x98\x80", "\xef\xbf\xbd",
	};
	static const struct udtf_column col[] = { { "k\"\\\n", UDTF_STRING } };
	const struct format f = { FORMAT_JSONL, '\001', NULL };
	uint64_t seed = 3;
	struct buf out = { 0 };

	(void)state;
	for (int i = 0; i < 20000; i++) {
		char text[128], back[128];
		const char *p;
		size_t len = 0, n;
		struct udtf_value v;

		for (size_t k = splitmix64(&seed) % 24; k > 0; k--) {
			const char *piece = pieces[splitmix64(&seed) %
			    NELEM(pieces)];

			memcpy(text + len, piece, strlen(piece));
			len += strlen(piece);
		}
		v = v_strn(text, len);
		buf_reset(&out);
		assert_int_equal(format_row(&f, col, &v, 1, &out), 0);
		assert_true(out.len > 2 && out.data[0] == '{' &&
		    out.data[1] == '"');
		p = out.data + 2;
		n = json_decode(&p, out.data + out.len, back);
		assert_int_equal(n, 4);
		assert_memory_equal(back, "k\"\\\n", 4);
		assert_true(*p++ == ':' && *p++ == '"');
		n = json_decode(&p, out.data + out.len, back);
		assert_int_equal(n, len);
		assert_memory_equal(back, text, len);
		assert_true(out.data + out.len - p == 2);
		assert_memory_equal(p, "}\n", 2);
	}
	buf_clear(&out);
}

/* Each byte that matters, at every offset of a longer string, with and
 * without a second one further on: the scans go eight bytes at a time. */
static void
test_specials_at_every_offset(void **state)
{
	static const struct {
		char delim;
		char byte;
		const char *esc;
	} hive[] = {
		{ '\001', '\001', "\\\001" }, { ',', ',', "\\," },
		{ ',', '\001', "\001" }, { '\001', '\\', "\\\\" },
		{ '\001', '\n', "\\n" }, { '\001', '\r', "\\r" },
		{ '\001', '\t', "\t" },
	};
	static const struct {
		const char *in;
		const char *out;
	} json[] = {
		{ "\"", "\\\"" }, { "\\", "\\\\" }, { "\037", "\\u001f" },
		{ "\n", "\\n" }, { "\177", "\177" }, { " ", " " },
		{ "\x80", "\\u0080" }, { "\xc3\xa9", "\xc3\xa9" },
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	};
	char in[64], want[128];
	size_t inlen, wantlen, esclen;

	(void)state;
	for (size_t c = 0; c < NELEM(hive); c++) {
		esclen = strlen(hive[c].esc);
		/* every length up to 47, for the 16- and 8-byte steps and
		 * the last overlapping one: x...x B x...x, and the same with
		 * a second B at the end */
		for (size_t len = 1; len < 48; len++)
			for (size_t at = 0; at < len; at++)
				for (int twice = 0; twice <= 1; twice++) {
					memset(in, 'x', sizeof(in));
					memset(want, 'x', sizeof(want));
					inlen = len + (size_t)twice;
					in[at] = hive[c].byte;
					memcpy(want + at, hive[c].esc, esclen);
					wantlen = len + esclen - 1;
					if (twice) {
						in[len] = hive[c].byte;
						memcpy(want + wantlen, hive[c].esc,
						    esclen);
						wantlen += esclen;
					}
					expect_escape_exact(in, inlen,
					    hive[c].delim, want, wantlen);
				}
	}
	for (size_t c = 0; c < NELEM(json); c++) {
		size_t blen = strlen(json[c].in), olen = strlen(json[c].out);

		for (size_t at = 0; at < 40; at++) {
			memset(in, 'y', sizeof(in));
			memset(want, 'y', sizeof(want));
			memcpy(in + at, json[c].in, blen);
			memcpy(want + at, json[c].out, olen);
			expect_json_string(in, 40 + blen, want, 40 + olen);
		}
	}
}

static void
test_kind_names(void **state)
{
	enum format_kind k = FORMAT_JSONL;

	(void)state;
	assert_int_equal(format_kind_parse("hive-text", &k), 0);
	assert_int_equal(k, FORMAT_HIVE_TEXT);
	assert_int_equal(format_kind_parse("jsonl", &k), 0);
	assert_int_equal(k, FORMAT_JSONL);
	assert_int_equal(format_kind_parse("json", &k), -EINVAL);
	assert_int_equal(format_kind_parse("", &k), -EINVAL);
	assert_int_equal(format_kind_parse("Hive-Text", &k), -EINVAL);
	assert_int_equal(k, FORMAT_JSONL);
	assert_string_equal(format_kind_ext(FORMAT_HIVE_TEXT), "txt");
	assert_string_equal(format_kind_ext(FORMAT_JSONL), "jsonl");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hive_escape),
		cmocka_unit_test(test_hive_null_and_empty),
		cmocka_unit_test(test_hive_types),
		cmocka_unit_test(test_integer_digits),
		cmocka_unit_test(test_double_round_trip),
		cmocka_unit_test(test_hive_read_back),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_jsonl_types),
		cmocka_unit_test(test_jsonl_escapes),
		cmocka_unit_test(test_jsonl_read_back),
		cmocka_unit_test(test_specials_at_every_offset),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
