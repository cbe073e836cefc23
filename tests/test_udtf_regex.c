/*
 * The regex UDTF: named groups as columns (their order, unnamed groups
 * left out, shared names), typed columns, match = first and all (empty
 * matches, CRLF and UTF-8 steps), NULL for unset groups, bytes that are not
 * UTF-8, bounded backtracking, the JIT and its fallback to the interpreter,
 * and every refusal of a bad config.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/testlib.h"
#include "tests/udtf_harness.h"

/* Linux 6.3's prctl that forbids writable+executable memory, as systemd's
 * MemoryDenyWriteExecute=yes does. */
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

extern const struct udtf_plugin udtf_regex_plugin;

#define P (&udtf_regex_plugin)

/* Both ways of matching: each test that matters runs under both. */
static const char *const jit_modes[] = { "auto", "off" };

#define NGINX_LINE "203.0.113.7 - alice [29/Nov/2026:10:00:00 +0000] " \
	"\"GET /index.html?q=1 HTTP/1.1\" 200 5123 \"https://example.com/\" " \
	"\"Mozilla/5.0 (X11; Linux x86_64)\""

#define NGINX_PATTERN "^(?<addr>\\S+) \\S+ (?<user>\\S+) \\[(?<time>[^]]+)\\] " \
	"\"(?<method>[A-Z]+) (?<path>[^ \"]*)(?: (?<proto>[^\"]*))?\" " \
	"(?<status>\\d{3}) (?<bytes>\\d+|-) \"(?<referer>[^\"]*)\" " \
	"\"(?<agent>[^\"]*)\"$"

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
test_nginx_line_typed(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		hx_open_ok(P, "pattern", NGINX_PATTERN, "types",
		    "status:int64, bytes:int64,time:timestamp", "jit",
		    jit_modes[m], NULL);
		assert_int_equal(hx.ncols, 10);
		assert_string_equal(hx.cols[0].name, "addr");
		assert_string_equal(hx.cols[9].name, "agent");
		assert_int_equal(hx.cols[hx_col("status")].type, UDTF_INT64);
		assert_int_equal(hx.cols[hx_col("time")].type, UDTF_TIMESTAMP);
		assert_int_equal(hx.cols[hx_col("path")].type, UDTF_STRING);
		hx_run_ok(NGINX_LINE, 1);
		hx_assert_str(0, "addr", "203.0.113.7");
		hx_assert_str(0, "user", "alice");
		hx_assert_ts(0, "time", utc_us(2026, 11, 29, 10, 0, 0));
		hx_assert_str(0, "method", "GET");
		hx_assert_str(0, "path", "/index.html?q=1");
		hx_assert_str(0, "proto", "HTTP/1.1");
		hx_assert_i64(0, "status", 200);
		hx_assert_i64(0, "bytes", 5123);
		hx_assert_str(0, "referer", "https://example.com/");
		hx_assert_str(0, "agent", "Mozilla/5.0 (X11; Linux x86_64)");
		/* $ matches before a final newline */
		hx_run_ok(NGINX_LINE "\n", 1);
		hx_assert_str(0, "agent", "Mozilla/5.0 (X11; Linux x86_64)");
		hx_run_rejected("203.0.113.7 - - [29/Nov/2026:10:00:00 +0000] "
		    "\"GET / HTTP/1.1\" 2000 1 \"-\" \"-\"",
		    "no match for pattern");
		hx_run_rejected("203.0.113.7 - - [yesterday] \"GET / HTTP/1.1\" "
		    "200 - \"-\" \"-\"", "column time: \"yesterday\" is not");
		hx_run_rejected("203.0.113.7 - - [29/Nov/2026:10:00:00 +0000] "
		    "\"GET / HTTP/1.1\" 200 - \"-\" \"-\"",
		    "byte 66: column bytes: \"-\" is not an int64");
	}
}

static void
test_groups_in_number_order(void **state)
{
	(void)state;
	/* The name table is sorted by name; the columns follow the groups */
	hx_open_ok(P, "pattern", "(?<zeta>\\d+)-(?P<alpha>\\w+)-(?'mid'\\w+)",
	    NULL);
	assert_int_equal(hx.ncols, 3);
	assert_string_equal(hx.cols[0].name, "zeta");
	assert_string_equal(hx.cols[1].name, "alpha");
	assert_string_equal(hx.cols[2].name, "mid");
	hx_run_ok("x 12-ab-cd y", 1);
	hx_assert_str(0, "zeta", "12");
	hx_assert_str(0, "alpha", "ab");
	hx_assert_str(0, "mid", "cd");
}

static void
test_unnamed_groups_ignored(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(\\d+)-(?<n>\\w+)(?:-(x))?", NULL);
	assert_int_equal(hx.ncols, 1);
	assert_string_equal(hx.cols[0].name, "n");
	hx_run_ok("7-abc-x", 1);
	hx_assert_str(0, "n", "abc");
}

static void
test_unset_group_is_null(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		hx_open_ok(P, "pattern", "(?<num>\\d+)|(?<word>[a-z]+)",
		    "types", "num:int64", "jit", jit_modes[m], NULL);
		hx_run_ok("abc", 1);
		hx_assert_null(0, "num");
		hx_assert_str(0, "word", "abc");
		hx_run_ok("42", 1);
		hx_assert_i64(0, "num", 42);
		hx_assert_null(0, "word");
		/* A group after the highest one set is NULL too */
		hx_open_ok(P, "pattern", "(?<a>x)(?<b>y)?", "jit", jit_modes[m],
		    NULL);
		hx_run_ok("xz", 1);
		hx_assert_str(0, "a", "x");
		hx_assert_null(0, "b");
		/* A set, empty group is an empty string, not NULL */
		hx_open_ok(P, "pattern", "<(?<e>[^>]*)>", NULL);
		hx_run_ok("<>", 1);
		hx_assert_str(0, "e", "");
	}
}

static void
test_shared_name_is_one_column(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(?J)(?<v>\\d+)s|(?<w>-)(?<v>[a-z]+)", "types",
	    "v:string", NULL);
	assert_int_equal(hx.ncols, 2);
	assert_string_equal(hx.cols[0].name, "v");
	assert_string_equal(hx.cols[1].name, "w");
	hx_run_ok("12s", 1);
	hx_assert_str(0, "v", "12");
	hx_assert_null(0, "w");
	hx_run_ok("-abc", 1);
	hx_assert_str(0, "v", "abc");
	hx_assert_str(0, "w", "-");
}

static void
test_types(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(?<i>\\S+) (?<d>\\S+) (?<b>\\S+) (?<ms>\\S+) "
	    "(?<s>\\S+)", "types", " i : int64 ,d:double, b:bool, "
	    "ms:timestamp_ms,s:string ", NULL);
	assert_int_equal(hx.cols[0].type, UDTF_INT64);
	assert_int_equal(hx.cols[1].type, UDTF_DOUBLE);
	assert_int_equal(hx.cols[2].type, UDTF_BOOL);
	assert_int_equal(hx.cols[3].type, UDTF_TIMESTAMP);
	assert_int_equal(hx.cols[4].type, UDTF_STRING);
	hx_run_ok("-5 2.5e1 TRUE 1764410400123 007", 1);
	hx_assert_i64(0, "i", -5);
	hx_assert_double(0, "d", 25.0);
	hx_assert_bool(0, "b", 1);
	hx_assert_ts(0, "ms", INT64_C(1764410400123) * 1000);
	hx_assert_str(0, "s", "007");
	hx_run_rejected("1 x true 1 s", "byte 2: column d: \"x\" is not a "
	    "double");
	/* Blanks only are no types at all */
	hx_open_ok(P, "pattern", "(?<a>.)", "types", "  ", NULL);
	assert_int_equal(hx.cols[0].type, UDTF_STRING);
}

static void
test_match_first_takes_the_first(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(?<w>\\w+)", "match", "first", NULL);
	hx_run_ok("  one two three", 1);
	hx_assert_str(0, "w", "one");
}

static void
test_match_all(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		hx_open_ok(P, "pattern", "(?<k>\\w+)=(?<v>\\d*)", "match", "all",
		    "types", "v:int64", "jit", jit_modes[m], NULL);
		hx_run_ok("a=1 b=22 junk c=333", 3);
		hx_assert_str(0, "k", "a");
		hx_assert_i64(0, "v", 1);
		hx_assert_str(1, "k", "b");
		hx_assert_i64(1, "v", 22);
		hx_assert_str(2, "k", "c");
		hx_assert_i64(2, "v", 333);
		/* No match at all: no row, and not a reject */
		hx_run_ok("nothing here", 0);
		hx_run_ok("", 0);
		/* A bad value in a later match rejects the record; kedge
		 * drops the rows emitted before */
		assert_int_equal(hx_run("a=1 b= c=3"), -EINVAL);
		assert_string_equal(hx.err, "byte 6: column v: \"\" is not an "
		    "int64");
	}
}

static void
test_match_all_empty_matches(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		/* As Perl's /(a*)/g: "", "aaa", "", "" */
		hx_open_ok(P, "pattern", "(?<x>a*)", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_ok("baaac", 4);
		hx_assert_str(0, "x", "");
		hx_assert_str(1, "x", "aaa");
		hx_assert_str(2, "x", "");
		hx_assert_str(3, "x", "");
		hx_run_ok("", 1);
		hx_assert_str(0, "x", "");
		/* An empty match at the end stops the search */
		hx_run_ok("aa", 2);
		hx_assert_str(0, "x", "aa");
		hx_assert_str(1, "x", "");
		/* With CRLF as the newline, an empty match steps over it
		 * whole */
		hx_open_ok(P, "pattern", "(*CRLF)(?<x>x*)", "match", "all",
		    "jit", jit_modes[m], NULL);
		hx_run_ok("\r\n", 2);
		hx_open_ok(P, "pattern", "(?<x>x*)", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_ok("\r\n", 3);
		/* Under (*UTF) it steps over a whole character */
		hx_open_ok(P, "pattern", "(*UTF)(?<x>x*)", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_ok("\xc3\xa9", 2);
		hx_open_ok(P, "pattern", "(*UTF)(?<c>.)", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_ok("a\xc3\xa9\xe2\x82\xac", 3);
		hx_assert_str(1, "c", "\xc3\xa9");
		hx_assert_str(2, "c", "\xe2\x82\xac");
	}
}

static void
test_bytes_that_are_not_utf8(void **state)
{
	static const char rec[] = "\xff\xfe\x80 tail\xc3";

	(void)state;
	for (size_t m = 0; m < 2; m++) {
		hx_open_ok(P, "pattern", "^(?<a>[^ ]+) (?<b>.*)$", "jit",
		    jit_modes[m], NULL);
		assert_int_equal(hx_run_len(rec, sizeof rec - 1), 0);
		assert_int_equal(hx.nrows, 1);
		hx_assert_str(0, "a", "\xff\xfe\x80");
		hx_assert_str(0, "b", "tail\xc3");
		/* A NUL byte is just a byte */
		assert_int_equal(hx_run_len("x\0y z", 5), 0);
		assert_int_equal(hx.rows[0].v[0].u.s.len, 3);
		/* A pattern that opts in to UTF-8 rejects a record that is
		 * not, saying where */
		hx_open_ok(P, "pattern", "(*UTF)(?<a>.+)", "jit", jit_modes[m],
		    NULL);
		hx_run_rejected("ok\xff", "byte 2: UTF-8 error");
		hx_open_ok(P, "pattern", "(*UTF)(?<a>.)", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_rejected("ab\xc3(", "byte 2: UTF-8 error");
	}
}

static void
test_backtracking_is_bounded(void **state)
{
	char *deep = malloc(300001);
	double t0;

	(void)state;
	assert_non_null(deep);
	memset(deep, 'a', 300000);
	deep[300000] = 'c';
	for (size_t m = 0; m < 2; m++) {
		/* Exponential: (a+)+ tries 2^30 ways before failing at "!" */
		hx_open_ok(P, "pattern", "^(?<x>(a+)+)$", "jit", jit_modes[m],
		    NULL);
		t0 = seconds_now();
		hx_run_rejected("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "match limit "
		    "exceeded");
		assert_true(seconds_now() - t0 < 10.0);
		hx_open_ok(P, "pattern", "^(?<x>(a+)+)$", "match", "all", "jit",
		    jit_modes[m], NULL);
		hx_run_rejected("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "matching from "
		    "byte 0: match limit exceeded");
		/* Deep: one backtracking point per repeat of the group */
		hx_open_ok(P, "pattern", "(?<x>(?:a|b)*)c", "jit", jit_modes[m],
		    NULL);
		assert_int_equal(hx_run_len(deep, 300001), -EINVAL);
		assert_int_equal(hx.nrows, 0);
		if (strstr(hx.err, m == 0 ? "JIT stack limit reached" :
		    "matching depth limit exceeded") == NULL)
			fail_msg("reason: %s", hx.err);
		/* The same pattern on a short line is fine */
		hx_run_ok("abac", 1);
		hx_assert_str(0, "x", "aba");
	}
	free(deep);
}

static void
test_emit_refusal_propagates(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(?<w>\\w+)", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("one two"), -E2BIG);
	hx_open_ok(P, "pattern", "(?<w>\\w+)", "match", "all", NULL);
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("one two"), -E2BIG);
	assert_int_equal(hx.nrows, 0);
}

static void
test_note_when_jit_works_or_is_off(void **state)
{
	(void)state;
	hx_open_ok(P, "pattern", "(?<a>x)", NULL);
	assert_non_null(P->note);
	assert_null(P->note(hx.state));
	hx_open_ok(P, "pattern", "(?<a>x)", "jit", "off", NULL);
	assert_null(P->note(hx.state));
	hx_run_ok("x", 1);
}

static int
child_emit(struct udtf_emitter *em, const struct udtf_value *v, size_t n)
{
	int *rows = em->opaque;

	if (n == 1 && v[0].type == UDTF_STRING && v[0].u.s.len == 3 &&
	    memcmp(v[0].u.s.ptr, "xxx", 3) == 0)
		++*rows;
	return 0;
}

/* Run as "test_udtf_regex --without-jit": in a process that cannot map
 * writable+executable memory the JIT fails, the note says why, and the
 * interpreter matches.  Returns the exit code: 0 when so, 77 when the
 * kernel lacks PR_SET_MDWE. */
static int
child_without_jit(void)
{
	struct udtf_param params[] = { { "pattern", "(?<a>x+)" } };
	struct udtf_emitter em;
	struct udtf_record rec;
	const char *note;
	char err[256];
	void *st;
	int rows = 0;

	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0L, 0L, 0L) < 0)
		return 77;
	if ((st = P->init(params, 1, err, sizeof err)) == NULL)
		return 1;
	note = P->note(st);
	if (note == NULL || strstr(note, "PCRE2 JIT unavailable (") != note ||
	    strstr(note, "MemoryDenyWriteExecute=yes") == NULL ||
	    strstr(note, "using the interpreter") == NULL)
		return 2;
	memset(&rec, 0, sizeof rec);
	rec.data = "ab xxx";
	rec.len = 6;
	em.emit = child_emit;
	em.opaque = &rows;
	if (P->process(st, &rec, &em, err, sizeof err) != 0 || rows != 1)
		return 3;
	P->fini(st);
	return 0;
}

static void
test_note_when_jit_is_forbidden(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	/* A new image: this one's JIT memory pool would serve the child */
	if ((pid = fork()) == 0) {
		execl("/proc/self/exe", "test_udtf_regex", "--without-jit",
		    (char *)NULL);
		_exit(4);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_bad_configs_refused(void **state)
{
	(void)state;
	hx_open_fails("pattern is required", P, "types", "a:int64", NULL);
	hx_open_fails("pattern: missing closing parenthesis at offset 6", P,
	    "pattern", "(?<x>a", NULL);
	hx_open_fails("pattern: quantifier does not follow a repeatable item "
	    "at offset 0", P, "pattern", "*(?<x>a)", NULL);
	hx_open_fails("pattern has no named group (?<name>...)", P, "pattern",
	    "(a)(b)", NULL);
	hx_open_fails("pattern has no named group", P, "pattern", "", NULL);
	hx_open_fails("types: \"nope\" is not a named group of pattern", P,
	    "pattern", "(?<a>x)", "types", "a:int64,nope:int64", NULL);
	hx_open_fails("types: \"a:int\" has unknown type \"int\"", P, "pattern",
	    "(?<a>x)", "types", "a:int", NULL);
	hx_open_fails("types: \"a:json\" has unknown type \"json\"", P,
	    "pattern", "(?<a>x)", "types", "a:json", NULL);
	hx_open_fails("types: \"b=a:int64\": write NAME[:TYPE], without '='",
	    P, "pattern", "(?<a>x)", "types", "b=a:int64", NULL);
	hx_open_fails("types: two columns named \"a\"", P, "pattern", "(?<a>x)",
	    "types", "a:int64,a:double", NULL);
	hx_open_fails("types: empty entry", P, "pattern", "(?<a>x)", "types",
	    "a:int64,", NULL);
	hx_open_fails("match must be first or all, not \"every\"", P, "pattern",
	    "(?<a>x)", "match", "every", NULL);
	hx_open_fails("jit must be auto or off, not \"on\"", P, "pattern",
	    "(?<a>x)", "jit", "on", NULL);
	hx_open_fails("regex has no key \"anchored\"", P, "pattern", "(?<a>x)",
	    "anchored", "true", NULL);
}

static void
test_keys_declared(void **state)
{
	static const char *const names[] = { "pattern", "types", "match",
	    "jit" };
	static const char *const defaults[] = { NULL, "", "first", "auto" };

	(void)state;
	assert_string_equal(P->name, "regex");
	assert_int_equal(P->abi_version, KEDGE_UDTF_ABI_VERSION);
	for (size_t i = 0; i < 4; i++) {
		assert_non_null(P->keys[i].name);
		assert_string_equal(P->keys[i].name, names[i]);
		if (defaults[i] == NULL)
			assert_null(P->keys[i].default_value);
		else
			assert_string_equal(P->keys[i].default_value,
			    defaults[i]);
		assert_non_null(P->keys[i].description);
	}
	assert_null(P->keys[4].name);
	/* The defaults as kedge passes them, every key filled in */
	hx_open_ok(P, "pattern", "(?<w>\\w+)", "types", "", "match", "first",
	    "jit", "auto", NULL);
	hx_run_ok("a b", 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_nginx_line_typed, hx_teardown),
		cmocka_unit_test_teardown(test_groups_in_number_order,
		    hx_teardown),
		cmocka_unit_test_teardown(test_unnamed_groups_ignored,
		    hx_teardown),
		cmocka_unit_test_teardown(test_unset_group_is_null,
		    hx_teardown),
		cmocka_unit_test_teardown(test_shared_name_is_one_column,
		    hx_teardown),
		cmocka_unit_test_teardown(test_types, hx_teardown),
		cmocka_unit_test_teardown(test_match_first_takes_the_first,
		    hx_teardown),
		cmocka_unit_test_teardown(test_match_all, hx_teardown),
		cmocka_unit_test_teardown(test_match_all_empty_matches,
		    hx_teardown),
		cmocka_unit_test_teardown(test_bytes_that_are_not_utf8,
		    hx_teardown),
		cmocka_unit_test_teardown(test_backtracking_is_bounded,
		    hx_teardown),
		cmocka_unit_test_teardown(test_emit_refusal_propagates,
		    hx_teardown),
		cmocka_unit_test_teardown(test_note_when_jit_works_or_is_off,
		    hx_teardown),
		cmocka_unit_test_teardown(test_note_when_jit_is_forbidden,
		    hx_teardown),
		cmocka_unit_test_teardown(test_bad_configs_refused,
		    hx_teardown),
		cmocka_unit_test_teardown(test_keys_declared, hx_teardown),
	};

	if (argc == 2 && strcmp(argv[1], "--without-jit") == 0)
		return child_without_jit();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
