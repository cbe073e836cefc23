/*
 * The kv UDTF: logfmt with its defaults (quoted values and their escapes,
 * empty values, bare keys, repeated keys, skipped keys), the other
 * separators and quotes, on_missing, every reject reason, truncated and
 * huge records, non-UTF-8 bytes, the configs it refuses, and a refused
 * emit; escapes, closing quotes and the ends of keys and values at every
 * place around its sixteen-byte steps, keys out of the last record's
 * order, and records whose next bytes are not theirs.
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

#include "tests/udtf_harness.h"

extern const struct udtf_plugin udtf_kv_plugin;

#define KV (&udtf_kv_plugin)

#define LOGFMT "ts=2026-11-29T10:00:00Z level=info msg=\"user logged in\" " \
	"user.id=42 dur=1.5 ok=true path=/login ip=10.0.0.1 " \
	"ua=\"curl/8.0 \\\"x\\\"\" n=7"

static void
test_descriptor(void **state)
{
	(void)state;
	assert_int_equal(KV->abi_version, KEDGE_UDTF_ABI_VERSION);
	assert_string_equal(KV->name, "kv");
	for (const struct udtf_key *k = KV->keys; k->name != NULL; k++) {
		assert_non_null(k->description);
		if (strcmp(k->name, "fields") == 0)
			assert_null(k->default_value);
		else
			assert_non_null(k->default_value);
	}
}

static void
test_logfmt(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "ts:timestamp, level, msg, uid=user.id:int64, "
	    "dur:double, ok:bool, ua, user.id, absent:int64", NULL);
	assert_int_equal(hx.ncols, 9);
	assert_string_equal(hx.cols[2].name, "msg");
	assert_int_equal(hx.cols[0].type, UDTF_TIMESTAMP);
	assert_int_equal(hx.cols[3].type, UDTF_INT64);
	assert_string_equal(hx.cols[7].name, "user_id");
	hx_run_ok(LOGFMT, 1);
	hx_assert_ts(0, "ts", INT64_C(1795946400000000));
	hx_assert_str(0, "level", "info");
	hx_assert_str(0, "msg", "user logged in");
	hx_assert_i64(0, "uid", 42);
	hx_assert_double(0, "dur", 1.5);
	hx_assert_bool(0, "ok", 1);
	hx_assert_str(0, "ua", "curl/8.0 \"x\"");
	hx_assert_str(0, "user_id", "42");
	hx_assert_null(0, "absent");
}

static void
test_empty_and_bare(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b, c, ab=a:bool, ai=a:int64, bi=b:int64, "
	    "cb=c:bool, ci=c:int64, cd=c:double, ct=c:timestamp", NULL);
	hx_run_ok("a= b=\"\" c", 1);
	hx_assert_str(0, "a", "");
	hx_assert_str(0, "b", "");
	hx_assert_str(0, "c", "");
	hx_assert_null(0, "ab");
	hx_assert_null(0, "ai");
	hx_assert_null(0, "bi");
	hx_assert_bool(0, "cb", 1);
	hx_assert_null(0, "ci");
	hx_assert_null(0, "cd");
	hx_assert_null(0, "ct");
	/* a bare key at the end, and between pairs */
	hx_run_ok("x=1 c", 1);
	hx_assert_bool(0, "cb", 1);
	hx_run_ok("c a=0", 1);
	hx_assert_bool(0, "cb", 1);
	hx_assert_bool(0, "ab", 0);
	hx_assert_i64(0, "ai", 0);
}

static void
test_first_wins(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, n:int64", NULL);
	hx_run_ok("a=1 a=2 n=3 n=4", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_i64(0, "n", 3);
	/* a later value is not looked at, even when it would not convert */
	hx_run_ok("n=5 n=five a", 1);
	hx_assert_i64(0, "n", 5);
	hx_assert_str(0, "a", "");
	hx_run_rejected("n=five n=5", "column n: \"five\" is not an int64");
	/* a bare key is the first occurrence too */
	hx_run_ok("a a=x", 1);
	hx_assert_str(0, "a", "");
}

static void
test_one_key_many_columns(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "s=k, i=k:int64, t=k:timestamp_ms, other",
	    NULL);
	hx_run_ok("k=1000 other=\"x\\ty\"", 1);
	hx_assert_str(0, "s", "1000");
	hx_assert_i64(0, "i", 1000);
	hx_assert_ts(0, "t", 1000000);
	hx_assert_str(0, "other", "x\ty");
}

static void
test_skipped_keys(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a", NULL);
	/* skipped keys are still parsed: their quotes hide blanks and '=' */
	hx_run_ok("x=\"a=2 b\" y=\"\\\" a=3\" z a=1 a=4", 1);
	hx_assert_str(0, "a", "1");
	/* keys match byte for byte */
	hx_run_ok("A=1 aa=2 a.=3", 1);
	hx_assert_null(0, "a");
	/* unquoted values may hold '=' and the quote */
	hx_run_ok("a=b=c\"d\"", 1);
	hx_assert_str(0, "a", "b=c\"d\"");
}

/* Many keys alike but for a digit or two, so that their hashes crowd. */
static void
test_many_keys(void **state)
{
	char fields[2048], rec[2048], name[16];
	size_t nf = 0, nr = 0;

	(void)state;
	for (int i = 0; i < 60; i++)
		nf += (size_t)snprintf(fields + nf, sizeof fields - nf,
		    "%sf%d=field_%02d:int64", i ? "," : "", i, i);
	for (int i = 59; i >= 0; i--)
		if (i % 7 != 3)
			nr += (size_t)snprintf(rec + nr, sizeof rec - nr,
			    "field_%02d=%d field_%02dx=-1 ", i, i * 10, i);
	hx_open_ok(KV, "fields", fields, NULL);
	assert_int_equal(hx.ncols, 60);
	hx_run_ok(rec, 1);
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof name, "f%d", i);
		if (i % 7 == 3)
			hx_assert_null(0, name);
		else
			hx_assert_i64(0, name, i * 10);
	}
}

static void
test_escapes(void **state)
{
	char big[4096];
	size_t n = 0;

	(void)state;
	hx_open_ok(KV, "fields", "m, a, b, c", NULL);
	hx_run_ok("m=\"q\\\"b\\\\s\\nn\\tt\\rr\\qx\\\\\"", 1);
	hx_assert_str(0, "m", "q\"b\\s\nn\tt\rr\\qx\\");
	hx_run_ok("m=\"\\\\\\\\\" a=\"\\\\\"", 1);
	hx_assert_str(0, "m", "\\\\");
	hx_assert_str(0, "a", "\\");
	/* several unescaped values of one record, all kept in place */
	n += (size_t)snprintf(big + n, sizeof big - n, "m=\"");
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(big + n, sizeof big - n, "\\\"m");
	n += (size_t)snprintf(big + n, sizeof big - n, "\" a=\"\\\"a\" b=plain "
	    "c=\"\\\\c\"");
	hx_run_ok(big, 1);
	assert_int_equal(hx.rows[0].v[0].u.s.len, 600);
	assert_memory_equal(hx.rows[0].str[0], "\"m\"m\"m", 6);
	hx_assert_str(0, "a", "\"a");
	hx_assert_str(0, "b", "plain");
	hx_assert_str(0, "c", "\\c");
	/* the next record reuses the scratch buffer */
	hx_run_ok("a=\"\\\"z\"", 1);
	hx_assert_str(0, "a", "\"z");
	hx_assert_null(0, "m");
}

static void
test_blanks_and_line_ends(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b", NULL);
	hx_run_ok(" \t a=1 \t\t b=\"x\"\t ", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "b", "x");
	hx_run_ok("a=1 b=2\r\n", 1);
	hx_assert_str(0, "b", "2");
	hx_run_ok("a=1 b=\"2\"\n", 1);
	hx_assert_str(0, "b", "2");
	/* a blank after '=' ends an empty value */
	hx_run_ok("a= b", 1);
	hx_assert_str(0, "a", "");
	hx_assert_str(0, "b", "");
}

static void
test_pair_separator(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b, c, d:bool, e", "pair_separator", "&",
	    NULL);
	hx_run_ok("a=1&b=hello world&&c=&d&", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "b", "hello world");
	hx_assert_str(0, "c", "");
	hx_assert_bool(0, "d", 1);
	hx_assert_null(0, "e");
	hx_open_ok(KV, "fields", "a, b, c, key with blank", "pair_separator",
	    ";", NULL);
	hx_run_ok(" a = 1 ; b= \"x;y\" ;c=  two words  ; key with blank =v", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "b", "x;y");
	hx_assert_str(0, "c", "two words");
	hx_assert_str(0, "key_with_blank", "v");
	hx_run_rejected("a=\"x\" y;b=1", "byte 6: expected ';' after the "
	    "quoted value of key a");
	hx_run_rejected(";;", "no pair in the record");
	hx_run_rejected("a=1; =2", "byte 5: empty key before '='");
	/* a tab separates pairs, and is no longer a blank */
	hx_open_ok(KV, "fields", "a, b, c", "pair_separator", "\t", NULL);
	hx_run_ok("a=1 2\t\tb=\"x\" \tc= y ", 1);
	hx_assert_str(0, "a", "1 2");
	hx_assert_str(0, "b", "x");
	hx_assert_str(0, "c", "y");
}

static void
test_kv_separator_and_quote(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b, c", "kv_separator", ":", NULL);
	hx_run_ok("a:1 b:\"x y\" c:http://h:80/", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "b", "x y");
	hx_assert_str(0, "c", "http://h:80/");
	hx_run_ok("a=1", 1);
	hx_assert_null(0, "a");
	hx_open_ok(KV, "fields", "a, b, c", "quote", "'", NULL);
	hx_run_ok("a='x y' b=\"z c='it\\'s'", 1);
	hx_assert_str(0, "a", "x y");
	hx_assert_str(0, "b", "\"z");
	hx_assert_str(0, "c", "it's");
	hx_open_ok(KV, "fields", "a, b, c", "quote", "", NULL);
	hx_run_ok("a=\"x y\" b=\" c=\"\\\"", 1);
	hx_assert_str(0, "a", "\"x");
	hx_assert_str(0, "b", "\"");
	hx_assert_str(0, "c", "\"\\\"");
}

static void
test_on_missing(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, x=b, c:int64", "on_missing", "reject",
	    NULL);
	hx_run_ok("a=1 b c=", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "x", "");
	hx_assert_null(0, "c");
	hx_run_rejected("a=1 c=2", "missing key b");
	hx_run_rejected("c=2", "missing key a");
	hx_open_ok(KV, "fields", "a, b", "on_missing", "null", NULL);
	hx_run_ok("zzz=1", 1);
	hx_assert_null(0, "a");
	hx_assert_null(0, "b");
}

static void
test_rejects(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, n:int64, ok:bool, t:timestamp", NULL);
	hx_run_rejected("a=1 msg=\"abc", "byte 8: unterminated quoted value "
	    "of key msg");
	hx_run_rejected("a=\"abc\\\"", "byte 2: unterminated quoted value of "
	    "key a");
	hx_run_rejected("a=\"", "byte 2: unterminated quoted value of key a");
	hx_run_rejected("a=\"x\"y", "byte 5: expected a blank after the "
	    "quoted value of key a");
	hx_run_rejected("a=\"x\"\"y\"", "byte 5: expected a blank");
	hx_run_rejected("=v", "byte 0: empty key before '='");
	hx_run_rejected("a=1 = n=2", "byte 4: empty key before '='");
	hx_run_rejected("n=1.5", "column n: \"1.5\" is not an int64");
	hx_run_rejected("ok=yes", "column ok: \"yes\" is not a bool");
	hx_run_rejected("t=yesterday", "column t: \"yesterday\" is not a "
	    "timestamp");
	hx_run_rejected("", "no pair in the record");
	hx_run_rejected(" \t ", "no pair in the record");
	hx_run_rejected("\r\n", "no pair in the record");
	/* a key in a reason is made printable and cut short */
	hx_run_rejected("k\x01\xff=\"x", "unterminated quoted value of key "
	    "k??");
}

#define SEMI_RECORD " a = 'x;\\'y' ; b=;c ; ;"

/* Every prefix of a record gives a row or a reason, never a crash or a read
 * past the end (AddressSanitizer). */
static void
test_truncated(void **state)
{
	static const char *const records[] = {
		LOGFMT,
		"a=\"\\\\\\\"\" b= c d=\"x y\"  e=1\r\n",
	};

	(void)state;
	hx_open_ok(KV, "fields", "ts:timestamp, level, msg, user.id:int64, "
	    "dur:double, ok:bool, ua, a, b, c:bool, d, e:int64", NULL);
	for (size_t r = 0; r < sizeof records / sizeof records[0]; r++) {
		size_t len = strlen(records[r]);

		for (size_t i = 0; i <= len; i++) {
			int rc = hx_run_len(records[r], i);

			assert_true(rc == 0 || rc == -EINVAL);
			assert_int_equal(hx.nrows, rc == 0);
			if (rc < 0)
				assert_true(hx.err[0] != '\0');
		}
	}
	hx_open_ok(KV, "fields", "a, b, c", "pair_separator", ";", "quote",
	    "'", NULL);
	for (size_t i = 0; i <= strlen(SEMI_RECORD); i++) {
		int rc = hx_run_len(SEMI_RECORD, i);

		assert_true(rc == 0 || rc == -EINVAL);
	}
}

static void
test_huge_values(void **state)
{
	size_t big = 4u << 20;
	char *rec = malloc(2 * big + 64);
	size_t n;

	(void)state;
	assert_non_null(rec);
	hx_open_ok(KV, "fields", "a, b", NULL);
	memcpy(rec, "a=", 2);
	memset(rec + 2, 'x', big);
	memcpy(rec + 2 + big, " b=\"", 4);
	memset(rec + 6 + big, '\\', big);
	n = 6 + 2 * big;
	rec[n++] = '"';
	assert_int_equal(hx_run_len(rec, n), 0);
	assert_int_equal(hx.rows[0].v[0].u.s.len, big);
	assert_int_equal(hx.rows[0].v[1].u.s.len, big / 2);
	assert_int_equal(hx.rows[0].str[1][big / 2 - 1], '\\');
	assert_int_equal(hx_run_len(rec, n - 1), -EINVAL);
	assert_non_null(strstr(hx.err, "unterminated quoted value of key b"));
	free(rec);
}

static void
test_non_utf8_and_nul(void **state)
{
	static const char rec[] = "a=\xff\xfe b=\"\xc3\x28 \x80\" \xe9=1 "
	    "c=x\0y";

	(void)state;
	hx_open_ok(KV, "fields", "a, b, c, e=\xe9:int64", NULL);
	assert_int_equal(hx_run_len(rec, sizeof rec - 1), 0);
	hx_assert_str(0, "a", "\xff\xfe");
	hx_assert_str(0, "b", "\xc3\x28 \x80");
	hx_assert_i64(0, "e", 1);
	hx_assert_bytes(0, "c", "x\0y", 3);
}

/* Runs of 'z' and 'x' to cut values from. */
static const char zs[] = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
static const char xs[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

/* A record or a value built piece by piece, NUL-terminated. */
struct text {
	char s[160];
	size_t n;
};

static void
text_add(struct text *t, const char *s)
{
	size_t len = strlen(s);

	assert_true(t->n + len < sizeof t->s);
	memcpy(t->s + t->n, s, len + 1);
	t->n += len;
}

/* Adds len copies of byte b. */
static void
text_fill(struct text *t, int b, size_t len)
{
	assert_true(t->n + len < sizeof t->s);
	memset(t->s + t->n, b, len);
	t->n += len;
	t->s[t->n] = '\0';
}

/* Adds the pair k=<pad - 1 z's> and sep when pad is not 0: pad bytes of
 * the record before the pair a test is about. */
static void
text_pad_pair(struct text *t, size_t pad, const char *sep)
{
	if (pad == 0)
		return;
	text_add(t, "k=");
	text_fill(t, 'z', pad - 1);
	text_add(t, sep);
}

/* Runs k=<pad z's> a="<at x's><escape>[y]"[ b=7] for each escape, with and
 * without a byte between it and the closing quote and a pair after. */
static void
check_escape_at(size_t pad, size_t at)
{
	static const char *const escapes[][2] = {
		{ "\\\"", "\"" }, { "\\\\", "\\" }, { "\\n", "\n" },
		{ "\\q", "\\q" },
	};

	for (size_t i = 0; i < 4 * sizeof escapes / sizeof escapes[0]; i++) {
		const char *const *e = escapes[i / 4];
		int after = i & 1, tail = i & 2;
		struct text rec = { .n = 0 }, want = { .n = 0 };

		text_add(&rec, "k=");
		text_fill(&rec, 'z', pad);
		text_add(&rec, " a=\"");
		text_fill(&rec, 'x', at);
		text_add(&rec, e[0]);
		text_add(&rec, after ? "y\"" : "\"");
		text_add(&rec, tail ? " b=7" : "");
		text_fill(&want, 'x', at);
		text_add(&want, e[1]);
		text_add(&want, after ? "y" : "");
		hx_run_ok(rec.s, 1);
		hx_assert_bytes(0, "k", zs, pad);
		hx_assert_str(0, "a", want.s);
		if (tail)
			hx_assert_i64(0, "b", 7);
		else
			hx_assert_null(0, "b");
	}
}

/* Each escape at every place around the first steps of sixteen bytes from
 * the record's start and from the opening quote. */
static void
test_escape_at_boundaries(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "k, a, b:int64", NULL);
	for (size_t pad = 0; pad <= 17; pad++)
		for (size_t at = 0; at <= 40; at++)
			check_escape_at(pad, at);
}

/* Runs [k=<pad - 1 z's> ]a="<len x's>" (with the separator and quote of
 * semi) before each line end. */
static void
check_quote_at_end(int semi, size_t pad, size_t len)
{
	static const char *const ends[] = { "", "\n", "\r\n" };

	for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
		struct text rec = { .n = 0 };

		text_pad_pair(&rec, pad, semi ? ";" : " ");
		text_add(&rec, semi ? "a='" : "a=\"");
		text_fill(&rec, 'x', len);
		text_add(&rec, semi ? "'" : "\"");
		text_add(&rec, ends[e]);
		hx_run_ok(rec.s, 1);
		hx_assert_bytes(0, "a", xs, len);
		hx_assert_zero_copy(0, "a", 1);
		if (pad > 0)
			hx_assert_bytes(0, "k", zs, pad - 1);
		else
			hx_assert_null(0, "k");
	}
}

/* A quoted value whose closing quote is the record's last byte, before a
 * line end or not, whatever the lengths before it. */
static void
test_quote_at_last_byte(void **state)
{
	(void)state;
	for (int semi = 0; semi < 2; semi++) {
		if (semi)
			hx_open_ok(KV, "fields", "k, a", "pair_separator", ";",
			    "quote", "'", NULL);
		else
			hx_open_ok(KV, "fields", "k, a", NULL);
		for (size_t pad = 0; pad <= 17; pad++)
			for (size_t len = 0; len <= 40; len++)
				check_quote_at_end(semi, pad, len);
	}
}

/* Runs [k=<pad - 1 z's> ]a="<len x's> with each unterminated end. */
static void
check_unterminated(size_t pad, size_t len)
{
	static const char *const lasts[] = {
		"", "\\", "\\\"", "\\\\\\\"", "\\\\\\", "\\\"\n", "\\\r\n",
	};
	char why[64];

	for (size_t l = 0; l < sizeof lasts / sizeof lasts[0]; l++) {
		struct text rec = { .n = 0 };

		text_pad_pair(&rec, pad, " ");
		snprintf(why, sizeof why, "byte %zu: unterminated quoted value "
		    "of key a", rec.n + 2);
		text_add(&rec, "a=\"");
		text_fill(&rec, 'x', len);
		text_add(&rec, lasts[l]);
		hx_run_rejected(rec.s, why);
		assert_string_equal(hx.err, why);
	}
}

/* A quoted value the record ends in: no closing quote, or one escaped, or
 * a backslash as the last byte, whatever the lengths before. */
static void
test_unterminated_at_end(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "k, a", NULL);
	for (size_t pad = 0; pad <= 17; pad++)
		for (size_t len = 0; len <= 40; len++)
			check_unterminated(pad, len);
}

/* Keys in another order than the record before, or other keys where it had
 * wanted ones: the same length and first eight bytes, or short ones of one
 * length, and more pairs than the places remembered. */
static void
test_key_order(void **state)
{
	char fields[1024], rec[1024], name[16];

	(void)state;
	hx_open_ok(KV, "fields", "a, bb, ccc:int64, long_key_1, long_key_2",
	    NULL);
	hx_run_ok("a=1 bb=2 ccc=3 long_key_1=x long_key_2=y", 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "long_key_2", "y");
	hx_run_ok("long_key_2=Y long_key_1=X ccc=30 bb=20 a=10", 1);
	hx_assert_str(0, "a", "10");
	hx_assert_str(0, "bb", "20");
	hx_assert_i64(0, "ccc", 30);
	hx_assert_str(0, "long_key_1", "X");
	hx_assert_str(0, "long_key_2", "Y");
	/* where the last record had wanted keys, unwanted ones alike */
	hx_run_ok("long_key_3=z long_key_1=w ccd=5 bc=6 b=7", 1);
	hx_assert_str(0, "long_key_1", "w");
	hx_assert_null(0, "long_key_2");
	hx_assert_null(0, "ccc");
	hx_assert_null(0, "bb");
	hx_assert_null(0, "a");
	/* and wanted keys where it had unwanted ones alike */
	hx_run_ok("long_key_2=v long_key_1=u ccc=8 bb=9 a=0", 1);
	hx_assert_str(0, "long_key_2", "v");
	hx_assert_str(0, "long_key_1", "u");
	hx_assert_i64(0, "ccc", 8);
	hx_assert_str(0, "bb", "9");
	hx_assert_str(0, "a", "0");
	/* a key missing moves the others by one place */
	hx_run_ok("long_key_1=t ccc=4 bb=3 a=2", 1);
	hx_assert_null(0, "long_key_2");
	hx_assert_str(0, "long_key_1", "t");
	hx_assert_i64(0, "ccc", 4);
	hx_assert_str(0, "a", "2");
	hx_run_ok("x=1 long_key_2=s", 1);
	hx_assert_str(0, "long_key_2", "s");
	hx_assert_null(0, "a");

	/* forty keys, in order, backwards, then every third one left out */
	for (size_t i = 0, nf = 0; i < 40; i++)
		nf += (size_t)snprintf(fields + nf, sizeof fields - nf,
		    "%sf%zu=key_%02zu:int64", i ? "," : "", i, i);
	hx_open_ok(KV, "fields", fields, NULL);
	for (int pass = 0; pass < 3; pass++) {
		size_t nr = 0;

		for (int j = 0; j < 40; j++) {
			int i = pass == 1 ? 39 - j : j;

			if (pass < 2 || i % 3 != 0)
				nr += (size_t)snprintf(rec + nr,
				    sizeof rec - nr, "key_%02d=%d ", i,
				    pass * 100 + i);
		}
		hx_run_ok(rec, 1);
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof name, "f%d", i);
			if (pass == 2 && i % 3 == 0)
				hx_assert_null(0, name);
			else
				hx_assert_i64(0, name, pass * 100 + i);
		}
	}
}

/* A key where the last record had it, with sixteen bytes from its first
 * on, is found with its kv separator in one compare: only that whole key
 * followed by the separator is taken for it, not a longer key, a shorter
 * one, a bare one, one with blanks before the separator, one of fifteen
 * bytes that differs in the last, nor anything where a key of sixteen
 * bytes was (which is never compared so). */
static void
test_key_at_place(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "ab, abc, k15=key_of_15_bytes, "
	    "k16=key_of_16_bytes_, kx=key_of_15_bytez", NULL);
	hx_run_ok("ab=1 abc=2 key_of_15_bytes=3 key_of_16_bytes_=4 "
	    "pad=0123456789abcdef", 1);
	hx_assert_str(0, "ab", "1");
	hx_assert_str(0, "abc", "2");
	hx_assert_str(0, "k15", "3");
	hx_assert_str(0, "k16", "4");
	hx_run_ok("ab=5 abc=6 key_of_15_bytes=7 key_of_16_bytes_=8 "
	    "pad=0123456789abcdef", 1);
	hx_assert_str(0, "ab", "5");
	hx_assert_str(0, "abc", "6");
	hx_assert_str(0, "k15", "7");
	hx_assert_str(0, "k16", "8");
	hx_assert_null(0, "kx");
	/* each key where the last record had another */
	for (int pass = 0; pass < 2; pass++) {
		hx_run_ok(pass == 0 ? "abc=9 ab=10 key_of_15_bytez=11 "
		    "key_of_15_bytes=12 pad=0123456789abcdef" : "abc=13 ab=14 "
		    "key_of_15_bytez=15 key_of_15_bytes=16 "
		    "pad=0123456789abcdef", 1);
		hx_assert_str(0, "abc", pass == 0 ? "9" : "13");
		hx_assert_str(0, "ab", pass == 0 ? "10" : "14");
		hx_assert_str(0, "kx", pass == 0 ? "11" : "15");
		hx_assert_str(0, "k15", pass == 0 ? "12" : "16");
		hx_assert_null(0, "k16");
	}
	/* bare keys where the last record had the same ones with a value */
	hx_run_ok("ab abc=17 key_of_15_bytez 18=x pad=0123456789abcdef", 1);
	hx_assert_str(0, "ab", "");
	hx_assert_str(0, "abc", "17");
	hx_assert_str(0, "kx", "");
	hx_assert_null(0, "k15");
	/* blanks around the separator, where they are allowed */
	hx_open_ok(KV, "fields", "ab, abc", "pair_separator", ";", NULL);
	for (int pass = 0; pass < 3; pass++) {
		hx_run_ok(pass == 1 ? "ab =3;abc= 4;pad=0123456789abcdef" :
		    "ab=1;abc=2;pad=0123456789abcdef", 1);
		hx_assert_str(0, "ab", pass == 1 ? "3" : "1");
		hx_assert_str(0, "abc", pass == 1 ? "4" : "2");
	}
}

/* The first of a key's pairs wins wherever the key is found: where the
 * last record had it, past the places remembered, or by its hash; the
 * later ones are still parsed. */
static void
test_duplicates(void **state)
{
	char rec[512];
	size_t n = 0;

	(void)state;
	hx_open_ok(KV, "fields", "a, s=k, i=k:int64", NULL);
	hx_run_ok("x=0 a=1 k=1", 1);
	hx_run_ok("a=2 a=3 k=4 k=5", 1);
	hx_assert_str(0, "a", "2");
	hx_assert_str(0, "s", "4");
	hx_assert_i64(0, "i", 4);
	hx_run_ok("a a=4", 1);
	hx_assert_str(0, "a", "");
	hx_run_ok("a=\"\\\"q\" a=\"r\"", 1);
	hx_assert_str(0, "a", "\"q");
	hx_run_ok("a=\"r\" a=\"\\\"q\"", 1);
	hx_assert_str(0, "a", "r");
	hx_assert_zero_copy(0, "a", 1);
	hx_run_ok("k= k=5", 1);
	hx_assert_str(0, "s", "");
	hx_assert_null(0, "i");
	hx_run_rejected("a=1 a=\"x", "byte 6: unterminated quoted value of "
	    "key a");
	hx_run_rejected("a=1 a=\"x\"y", "byte 9: expected a blank after the "
	    "quoted value of key a");
	/* past the places the last record's keys are remembered at */
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(rec + n, sizeof rec - n, "%s=%d ",
		    i % 2 ? "a" : "k", i);
	hx_run_ok(rec, 1);
	hx_assert_str(0, "a", "1");
	hx_assert_i64(0, "i", 0);
	hx_run_ok(rec, 1);
	hx_assert_str(0, "a", "1");
	hx_assert_str(0, "s", "0");
}

/* Keys near the wanted ones: longer, shorter, another case, one byte off
 * in the first eight or past them. */
static void
test_unknown_keys(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "level, k16=abcdefghijklmnop", NULL);
	for (int i = 0; i < 2; i++) {
		hx_run_ok("levels=1 leve=2 LEVEL=3 level.x=4 l=5 "
		    "abcdefghijklmnoq=6 abcdefgxijklmnop=7 abcdefghijklmno=8 "
		    "abcdefghijklmnopq=9 bcdefghijklmnop=10", 1);
		hx_assert_null(0, "level");
		hx_assert_null(0, "k16");
	}
	hx_run_ok("levels=1 level=2 abcdefghijklmnoq=3 abcdefghijklmnop=4", 1);
	hx_assert_str(0, "level", "2");
	hx_assert_str(0, "k16", "4");
	hx_run_ok("q=\"level=1\" r=abcdefghijklmnop=2", 1);
	hx_assert_null(0, "level");
	hx_assert_null(0, "k16");
	hx_open_ok(KV, "fields", "level", "on_missing", "reject", NULL);
	hx_run_rejected("levels=1 leve=2 LEVEL=3", "missing key level");
	hx_run_ok("levels=1 leve=2 level=3", 1);
	hx_assert_str(0, "level", "3");
}

/* Empty values in every place a value can end: the end, a blank, a pair
 * separator, an empty quoted value. */
static void
test_empty_values(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b, c, i:int64, d:double, t:bool, "
	    "ts:timestamp", NULL);
	hx_run_ok("a= b=\"\" i= d=\"\" t= ts= c=", 1);
	hx_assert_str(0, "a", "");
	hx_assert_str(0, "b", "");
	hx_assert_str(0, "c", "");
	hx_assert_null(0, "i");
	hx_assert_null(0, "d");
	hx_assert_null(0, "t");
	hx_assert_null(0, "ts");
	hx_run_ok("c=\"\"", 1);
	hx_assert_str(0, "c", "");
	hx_assert_null(0, "a");
	hx_run_ok("t i d c=\t", 1);
	hx_assert_bool(0, "t", 1);
	hx_assert_null(0, "i");
	hx_assert_null(0, "d");
	hx_assert_str(0, "c", "");
	hx_open_ok(KV, "fields", "a, b, c, d, i:int64", "pair_separator", ";",
	    NULL);
	hx_run_ok("a=;b= ;c=\"\" ; i = ;d=", 1);
	hx_assert_str(0, "a", "");
	hx_assert_str(0, "b", "");
	hx_assert_str(0, "c", "");
	hx_assert_str(0, "d", "");
	hx_assert_null(0, "i");
	hx_run_ok("d= \t ", 1);
	hx_assert_str(0, "d", "");
}

/* Runs <keylen j's>=1 <key>=<len z's><blanks>[ b=7], with semi's
 * separator, the value quoted or not. */
static void
check_length(const char *key, int semi, size_t len, size_t blanks)
{
	for (int i = 0; i < 4; i++) {
		int quoted = i & 1, tail = i & 2;
		struct text rec = { .n = 0 };

		/* an unwanted key of the same length first */
		text_fill(&rec, 'j', strlen(key));
		text_add(&rec, semi ? "=1;" : "=1 ");
		text_add(&rec, key);
		text_add(&rec, quoted ? "=\"" : "=");
		text_fill(&rec, 'z', len);
		text_add(&rec, quoted ? "\"" : "");
		text_fill(&rec, blanks % 2 ? ' ' : '\t', blanks);
		if (tail)
			text_add(&rec, semi ? ";b=7" : blanks ? "b=7" : " b=7");
		hx_run_ok(rec.s, 1);
		hx_assert_bytes(0, "v", zs, len);
		if (tail)
			hx_assert_i64(0, "b", 7);
		else
			hx_assert_null(0, "b");
	}
}

/* Keys and values of every length around sixteen bytes, each followed by
 * the end or by a run of blanks and a pair. */
static void
test_lengths(void **state)
{
	static const size_t keylens[] = { 1, 7, 8, 9, 14, 15, 16, 17, 18 };
	static const size_t blanks[] = { 0, 1, 2, 14, 15, 16, 17 };
	char key[32], fields[64];

	(void)state;
	for (size_t i = 0; i < 2 * sizeof keylens / sizeof keylens[0]; i++) {
		int semi = i & 1;

		memset(key, 'k', keylens[i / 2]);
		key[keylens[i / 2]] = '\0';
		snprintf(fields, sizeof fields, "v=%s, b:int64", key);
		if (semi)
			hx_open_ok(KV, "fields", fields, "pair_separator", ";",
			    NULL);
		else
			hx_open_ok(KV, "fields", fields, NULL);
		for (size_t len = 0; len <= 18; len++)
			for (size_t b = 0; b < sizeof blanks / sizeof *blanks;
			    b++)
				check_length(key, semi, len, blanks[b]);
	}
}

/* Records shorter than sixteen bytes. */
static void
test_short_records(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b:bool, n:int64", NULL);
	hx_run_ok("a=1", 1);
	hx_assert_str(0, "a", "1");
	hx_run_ok("a", 1);
	hx_assert_str(0, "a", "");
	hx_run_ok("b", 1);
	hx_assert_bool(0, "b", 1);
	hx_run_ok("a=", 1);
	hx_assert_str(0, "a", "");
	hx_run_ok("a=\"\\\"\"", 1);
	hx_assert_str(0, "a", "\"");
	hx_run_ok(" n=-7 a=x b=0\r\n", 1);
	hx_assert_i64(0, "n", -7);
	hx_assert_str(0, "a", "x");
	hx_assert_bool(0, "b", 0);
	hx_run_ok("n=123456789012", 1);
	hx_assert_i64(0, "n", INT64_C(123456789012));
	hx_run_ok("zzzzzzzzzzzzzzz", 1);
	hx_assert_null(0, "a");
	hx_run_rejected("a=\"", "byte 2: unterminated");
	hx_run_rejected("a=\"\\", "byte 2: unterminated");
	hx_run_rejected("a=\"x\"y", "byte 5: expected a blank");
	hx_run_rejected("n=1x", "column n: \"1x\" is not an int64");
	hx_run_rejected("=", "byte 0: empty key before '='");
	hx_run_rejected("\n", "no pair in the record");
}

/* Writes what the last run gave (rc, the reason, every column of the row)
 * into dst, for two runs to compare.  Returns its length. */
static size_t
outcome(char *dst, size_t size, int rc)
{
	size_t n = (size_t)snprintf(dst, size, "%d %d %s|", rc, hx.nrows,
	    hx.err);

	for (int r = 0; r < hx.nrows; r++) {
		for (size_t i = 0; i < hx.rows[r].ncols; i++) {
			const struct udtf_value *v = &hx.rows[r].v[i];
			size_t len = v->type == UDTF_STRING ? v->u.s.len : 0;

			assert_true(n + 64 + len < size);
			n += (size_t)snprintf(dst + n, size - n, "%d:",
			    v->type);
			if (v->type == UDTF_STRING) {
				n += (size_t)snprintf(dst + n, size - n,
				    "%zu:", len);
				memcpy(dst + n, v->u.s.ptr, len);
				n += len;
			} else if (v->type == UDTF_DOUBLE) {
				n += (size_t)snprintf(dst + n, size - n, "%a",
				    v->u.d);
			} else if (v->type == UDTF_BOOL) {
				n += (size_t)snprintf(dst + n, size - n, "%d",
				    !!v->u.b);
			} else if (v->type != UDTF_NULL) {
				/* an int64 or a timestamp */
				n += (size_t)snprintf(dst + n, size - n, "%jd",
				    (intmax_t)v->u.i64);
			}
			dst[n++] = '|';
		}
	}
	return n;
}

/* Runs the first len bytes of s in a buffer of that size, then followed by
 * each of the bytes that would end, escape or extend what it cut, and
 * expects the same row or reason. */
static void
check_unterminated_record(const char *s, size_t len)
{
	static const char fills[] = "\"'\\= ;\nz";
	char want[2048], got[2048];
	size_t n = outcome(want, sizeof want, hx_run_len(s, len));

	for (size_t f = 0; f < sizeof fills - 1; f++) {
		int rc = hx_run_padded(s, len, 32, fills[f]);

		assert_int_equal(outcome(got, sizeof got, rc), n);
		assert_memory_equal(got, want, n);
	}
}

/* A record is not NUL-terminated, and the bytes after it are none of its
 * own: every prefix of these records gives the same in a buffer of its
 * exact size (a read past it caught by AddressSanitizer) as followed by
 * other bytes. */
static void
test_not_terminated(void **state)
{
	static const char *const records[] = {
		LOGFMT,
		"a=\"\\\\\\\"\" b= c d=\"x y\"  e=1\r\n",
		"n=12345678901234567 a=\"0123456789abcdef\\\"\" b=\"\"",
		"abcdefghijklmnopq=1 a=0123456789abcde b",
	};
	static const char *const semi_records[] = {
		SEMI_RECORD,
		" a = '0123456789abcdef\\'' ;;b = 0123456789abcdef ; c",
	};

	(void)state;
	hx_open_ok(KV, "fields", "ts:timestamp, level, msg, user.id:int64, "
	    "dur:double, ok:bool, ua, a, b, c:bool, d, e:int64, n:int64, "
	    "abcdefghijklmnopq", NULL);
	for (size_t r = 0; r < sizeof records / sizeof records[0]; r++)
		for (size_t i = 0; i <= strlen(records[r]); i++)
			check_unterminated_record(records[r], i);
	hx_open_ok(KV, "fields", "a, b, c:bool", "pair_separator", ";",
	    "quote", "'", NULL);
	for (size_t r = 0; r < sizeof semi_records / sizeof semi_records[0];
	    r++)
		for (size_t i = 0; i <= strlen(semi_records[r]); i++)
			check_unterminated_record(semi_records[r], i);
}

static void
test_bad_configs(void **state)
{
	(void)state;
	hx_open_fails("fields is required", KV, NULL);
	hx_open_fails("kv has no key \"field\"", KV, "field", "a", NULL);
	hx_open_fails("fields: empty entry", KV, "fields", "a,,b", NULL);
	hx_open_fails("fields: \"n:int\" has unknown type \"int\"", KV,
	    "fields", "a, n:int", NULL);
	hx_open_fails("has unknown type \"json\"", KV, "fields", "a:json",
	    NULL);
	hx_open_fails("fields: two columns named \"a\"", KV, "fields",
	    "a, a=b", NULL);
	hx_open_fails("needs a column name", KV, "fields", "...", NULL);
	hx_open_fails("pair_separator: \"&&\" must be one byte", KV, "fields",
	    "a", "pair_separator", "&&", NULL);
	hx_open_fails("pair_separator: \"\" must be one byte", KV, "fields",
	    "a", "pair_separator", "", NULL);
	hx_open_fails("kv_separator: \"==\" must be one byte", KV, "fields",
	    "a", "kv_separator", "==", NULL);
	hx_open_fails("kv_separator: \";\" cannot be told apart", KV,
	    "fields", "a", "pair_separator", ";", "kv_separator", ";", NULL);
	hx_open_fails("kv_separator: \"\t\" cannot be told apart", KV,
	    "fields", "a", "kv_separator", "\t", NULL);
	hx_open_fails("quote: \"''\" must be one byte, or empty", KV, "fields",
	    "a", "quote", "''", NULL);
	hx_open_fails("quote: \"=\" cannot be a separator", KV, "fields", "a",
	    "quote", "=", NULL);
	hx_open_fails("quote: \"\\\" cannot be", KV, "fields", "a", "quote",
	    "\\", NULL);
	hx_open_fails("quote: \" \" cannot be", KV, "fields", "a",
	    "pair_separator", ",", "quote", " ", NULL);
	hx_open_fails("on_missing must be null or reject, not \"skip\"", KV,
	    "fields", "a", "on_missing", "skip", NULL);
}

/* Unquoted values, and quoted ones without escapes, are not copied. */
static void
test_zero_copy(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a, b, c, d", NULL);
	hx_run_ok("a=plain b=\"quoted\" c=\"es\\\"c\" d", 1);
	hx_assert_zero_copy(0, "a", 1);
	hx_assert_zero_copy(0, "b", 1);
	hx_assert_zero_copy(0, "c", 0);
	hx_assert_zero_copy(0, "d", 1);
}

static void
test_emit_refused(void **state)
{
	(void)state;
	hx_open_ok(KV, "fields", "a", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("a=1"), -E2BIG);
	assert_int_equal(hx.nrows, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_descriptor, hx_teardown),
		cmocka_unit_test_teardown(test_logfmt, hx_teardown),
		cmocka_unit_test_teardown(test_empty_and_bare, hx_teardown),
		cmocka_unit_test_teardown(test_first_wins, hx_teardown),
		cmocka_unit_test_teardown(test_one_key_many_columns,
		    hx_teardown),
		cmocka_unit_test_teardown(test_skipped_keys, hx_teardown),
		cmocka_unit_test_teardown(test_many_keys, hx_teardown),
		cmocka_unit_test_teardown(test_escapes, hx_teardown),
		cmocka_unit_test_teardown(test_blanks_and_line_ends,
		    hx_teardown),
		cmocka_unit_test_teardown(test_pair_separator, hx_teardown),
		cmocka_unit_test_teardown(test_kv_separator_and_quote,
		    hx_teardown),
		cmocka_unit_test_teardown(test_on_missing, hx_teardown),
		cmocka_unit_test_teardown(test_rejects, hx_teardown),
		cmocka_unit_test_teardown(test_truncated, hx_teardown),
		cmocka_unit_test_teardown(test_huge_values, hx_teardown),
		cmocka_unit_test_teardown(test_non_utf8_and_nul, hx_teardown),
		cmocka_unit_test_teardown(test_escape_at_boundaries,
		    hx_teardown),
		cmocka_unit_test_teardown(test_quote_at_last_byte, hx_teardown),
		cmocka_unit_test_teardown(test_unterminated_at_end,
		    hx_teardown),
		cmocka_unit_test_teardown(test_key_order, hx_teardown),
		cmocka_unit_test_teardown(test_key_at_place, hx_teardown),
		cmocka_unit_test_teardown(test_duplicates, hx_teardown),
		cmocka_unit_test_teardown(test_unknown_keys, hx_teardown),
		cmocka_unit_test_teardown(test_empty_values, hx_teardown),
		cmocka_unit_test_teardown(test_lengths, hx_teardown),
		cmocka_unit_test_teardown(test_short_records, hx_teardown),
		cmocka_unit_test_teardown(test_not_terminated, hx_teardown),
		cmocka_unit_test_teardown(test_bad_configs, hx_teardown),
		cmocka_unit_test_teardown(test_zero_copy, hx_teardown),
		cmocka_unit_test_teardown(test_emit_refused, hx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
