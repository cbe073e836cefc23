/*
 * The nginx and raw UDTFs: the log_format compiler, the combined format on
 * real-looking lines (IPv6, escapes, TLS garbage, long and truncated
 * lines), typed columns, escape=json and escape=none, the rejects.
 *
 * Every record is copied into a buffer of exactly its length, so that a
 * read past the end shows up under valgrind or AddressSanitizer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testlib.h"

#include "udtf/registry.h"
#include "udtf/udtf.h"

#define MAX_COLS 32

/* The last row emitted, its strings copied out of the UDTF's memory. */
struct capture {
	struct udtf_emitter em;
	int rows;
	int refuse;    /* emit() returns this when negative */
	size_t ncols;
	struct udtf_value v[MAX_COLS];
	char *str[MAX_COLS];
};

static int
capture_emit(struct udtf_emitter *em, const struct udtf_value *values,
    size_t n)
{
	struct capture *c = em->opaque;

	if (c->refuse < 0)
		return c->refuse;
	assert_true(n <= MAX_COLS);
	for (size_t i = 0; i < c->ncols; i++)
		free(c->str[i]);
	c->rows++;
	c->ncols = n;
	for (size_t i = 0; i < n; i++) {
		c->v[i] = values[i];
		c->str[i] = NULL;
		if (values[i].type != UDTF_STRING)
			continue;
		c->str[i] = malloc(values[i].u.s.len + 1);
		assert_non_null(c->str[i]);
		memcpy(c->str[i], values[i].u.s.ptr, values[i].u.s.len);
		c->str[i][values[i].u.s.len] = '\0';
		c->v[i].u.s.ptr = c->str[i];
	}
	return 0;
}

static void
capture_reset(struct capture *c)
{
	for (size_t i = 0; i < c->ncols; i++)
		free(c->str[i]);
	memset(c, 0, sizeof *c);
	c->em.emit = capture_emit;
	c->em.opaque = c;
}

/* A UDTF under test with its capture and last reason. */
struct fixture {
	const struct udtf_plugin *plugin;
	void *state;
	struct capture cap;
	char err[512];
};

static struct fixture fx;

static int
teardown(void **state)
{
	(void)state;
	if (fx.plugin != NULL)
		fx.plugin->fini(fx.state);
	capture_reset(&fx.cap);
	memset(&fx, 0, sizeof fx);
	return 0;
}

/* Opens the nginx UDTF with format and escape (NULL: the default). */
static void *
open_nginx(const char *format, const char *escape)
{
	struct udtf_param params[2];
	size_t n = 0;

	fx.plugin = udtf_builtin_find("nginx");
	assert_non_null(fx.plugin);
	if (format != NULL)
		params[n++] = (struct udtf_param){ "log_format", format };
	if (escape != NULL)
		params[n++] = (struct udtf_param){ "escape", escape };
	fx.err[0] = '\0';
	fx.state = fx.plugin->init(params, n, fx.err, sizeof fx.err);
	capture_reset(&fx.cap);
	return fx.state;
}

static void
open_nginx_ok(const char *format, const char *escape)
{
	if (open_nginx(format, escape) == NULL)
		fail_msg("init failed: %s", fx.err);
}

/* Runs one record of len bytes, held in a buffer of exactly len bytes. */
static int
run_len(const char *data, size_t len)
{
	struct udtf_record rec;
	char *copy = malloc(len ? len : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, data, len);
	memset(&rec, 0, sizeof rec);
	rec.data = copy;
	rec.len = len;
	rec.topic = "access";
	rec.timestamp_ms = -1;
	fx.err[0] = '\0';
	fx.cap.rows = 0;
	r = fx.plugin->process(fx.state, &rec, &fx.cap.em, fx.err,
	    sizeof fx.err);
	free(copy);
	return r;
}

static int
run(const char *line)
{
	return run_len(line, strlen(line));
}

static void
run_ok(const char *line)
{
	if (run(line) != 0)
		fail_msg("rejected: %s\nline: %s", fx.err, line);
	assert_int_equal(fx.cap.rows, 1);
}

static void
run_rejected(const char *line, const char *reason)
{
	assert_int_equal(run(line), -EINVAL);
	assert_int_equal(fx.cap.rows, 0);
	if (strstr(fx.err, reason) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", fx.err, reason);
}

static void
assert_str(size_t col, const char *expected, size_t len)
{
	assert_int_equal(fx.cap.v[col].type, UDTF_STRING);
	assert_int_equal(fx.cap.v[col].u.s.len, len);
	assert_memory_equal(fx.cap.v[col].u.s.ptr, expected, len);
}

static void
assert_cstr(size_t col, const char *expected)
{
	assert_str(col, expected, strlen(expected));
}

static void
assert_col_null(size_t col)
{
	assert_int_equal(fx.cap.v[col].type, UDTF_NULL);
}

static void
assert_i64(size_t col, int64_t expected)
{
	assert_int_equal(fx.cap.v[col].type, UDTF_INT64);
	assert_int_equal(fx.cap.v[col].u.i64, expected);
}

static void
assert_ts(size_t col, int64_t expected)
{
	assert_int_equal(fx.cap.v[col].type, UDTF_TIMESTAMP);
	assert_int_equal(fx.cap.v[col].u.ts_us, expected);
}

/* Column indexes of the combined format. */
enum {
	C_ADDR, C_USER, C_TIME, C_REQUEST, C_STATUS, C_BYTES, C_REFERER, C_UA,
	C_NCOLS
};

#define LINE_IPV4 "203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] " \
	"\"GET /apache_pb.gif HTTP/1.0\" 200 2326 " \
	"\"http://www.example.com/start.html\" " \
	"\"Mozilla/4.08 [en] (Win98; I ;Nav)\""

/* The log_format compiler. */

static void
test_combined_columns(void **state)
{
	static const struct udtf_column expected[] = {
		{ "remote_addr", UDTF_STRING },
		{ "remote_user", UDTF_STRING },
		{ "time_local", UDTF_TIMESTAMP },
		{ "request", UDTF_STRING },
		{ "status", UDTF_INT64 },
		{ "body_bytes_sent", UDTF_INT64 },
		{ "http_referer", UDTF_STRING },
		{ "http_user_agent", UDTF_STRING },
	};
	const struct udtf_column *cols;
	size_t ncols;
	const struct udtf_key *k;

	(void)state;
	open_nginx_ok(NULL, NULL);
	fx.plugin->columns(fx.state, &cols, &ncols);
	assert_int_equal(ncols, C_NCOLS);
	for (size_t i = 0; i < ncols; i++) {
		assert_string_equal(cols[i].name, expected[i].name);
		assert_int_equal(cols[i].type, expected[i].type);
	}
	assert_int_equal(fx.plugin->abi_version, KEDGE_UDTF_ABI_VERSION);
	k = fx.plugin->keys;
	assert_string_equal(k[0].name, "log_format");
	assert_string_equal(k[0].default_value, "$remote_addr - $remote_user "
	    "[$time_local] \"$request\" $status $body_bytes_sent "
	    "\"$http_referer\" \"$http_user_agent\"");
	assert_string_equal(k[1].name, "escape");
	assert_string_equal(k[1].default_value, "default");
	assert_null(k[2].name);
}

static void
test_compile_braces_and_literals(void **state)
{
	const struct udtf_column *cols;
	size_t ncols;

	(void)state;
	open_nginx_ok("<<${remote_addr}x${status}:$request_time|$msec>>",
	    NULL);
	fx.plugin->columns(fx.state, &cols, &ncols);
	assert_int_equal(ncols, 4);
	assert_string_equal(cols[0].name, "remote_addr");
	assert_string_equal(cols[1].name, "status");
	assert_int_equal(cols[1].type, UDTF_INT64);
	assert_string_equal(cols[2].name, "request_time");
	assert_int_equal(cols[2].type, UDTF_DOUBLE);
	assert_string_equal(cols[3].name, "msec");
	assert_int_equal(cols[3].type, UDTF_TIMESTAMP);
	run_ok("<<10.1.2.3x404:0.250|1700000000.5>>");
	assert_cstr(0, "10.1.2.3");
	assert_i64(1, 404);
	assert_int_equal(fx.cap.v[2].type, UDTF_DOUBLE);
	assert_true(fx.cap.v[2].u.d == 0.25);
	assert_ts(3, 1700000000500000LL);
	run_rejected(">>10.1.2.3x404:0.250|1700000000.5>>",
	    "line does not start with \"<<\"");
	run_rejected("<<10.1.2.3x404:0.250|1700000000.5>", "line ends inside "
	    "$msec");
	run_rejected("<<10.1.2.3x404:0.250|1700000000.5>>>",
	    "trailing text after the log format");
	run_rejected("<<10.1.2.3x404:0.250|1700000000.5x>>",
	    "msec: \"1700000000.5x\" is not a time");
}

static void
test_compile_duplicates(void **state)
{
	const struct udtf_column *cols;
	size_t ncols;

	(void)state;
	open_nginx_ok("$status $host $status ${status} $host", NULL);
	fx.plugin->columns(fx.state, &cols, &ncols);
	assert_int_equal(ncols, 5);
	assert_string_equal(cols[0].name, "status");
	assert_string_equal(cols[1].name, "host");
	assert_string_equal(cols[2].name, "status_2");
	assert_int_equal(cols[2].type, UDTF_INT64);
	assert_string_equal(cols[3].name, "status_3");
	assert_string_equal(cols[4].name, "host_2");
	run_ok("200 a 301 - b");
	assert_i64(0, 200);
	assert_i64(2, 301);
	assert_col_null(3);
	assert_cstr(4, "b");
}

static void
test_compile_errors(void **state)
{
	static const struct {
		const char *format;
		const char *reason;
	} cases[] = {
		{ "$remote_addr ${status", "\"${\" at offset 13 is not closed" },
		{ "${status-x}", "\"${\" at offset 0 is not closed" },
		{ "${}", "empty variable name" },
		{ "$status $", "\"$\" at offset 8 has an empty variable name" },
		{ "$status $ x", "empty variable name" },
		{ "$remote_addr$status", "$remote_addr and $status have no "
		    "text between them" },
		{ "${remote_addr}${status}", "no text between them" },
		{ "[$a]$b${c}", "$b and $c have no text between them" },
		{ "just text", "no variable" },
		{ "", "no variable" },
		{ "$a $a $a_2", "two columns the name a_2" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (open_nginx(cases[i].format, NULL) != NULL)
			fail_msg("accepted \"%s\"", cases[i].format);
		if (strstr(fx.err, cases[i].reason) == NULL)
			fail_msg("\"%s\": reason \"%s\" lacks \"%s\"",
			    cases[i].format, fx.err, cases[i].reason);
	}
}

static void
test_init_bad_escape_and_key(void **state)
{
	struct udtf_param bad_key = { "log_fmt", "$a" };

	(void)state;
	assert_null(open_nginx(NULL, "xml"));
	assert_string_equal(fx.err, "escape must be default, json or none, "
	    "not \"xml\"");
	assert_null(open_nginx(NULL, ""));
	assert_non_null(strstr(fx.err, "escape must be"));
	assert_null(fx.plugin->init(&bad_key, 1, fx.err, sizeof fx.err));
	assert_string_equal(fx.err, "nginx has no key \"log_fmt\"");
	fx.plugin->fini(NULL);
}

/* The combined format. */

static void
test_combined_ipv4(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok(LINE_IPV4);
	assert_int_equal(fx.cap.ncols, C_NCOLS);
	assert_cstr(C_ADDR, "203.0.113.7");
	assert_cstr(C_USER, "alice");
	assert_ts(C_TIME, oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	assert_cstr(C_REQUEST, "GET /apache_pb.gif HTTP/1.0");
	assert_i64(C_STATUS, 200);
	assert_i64(C_BYTES, 2326);
	assert_cstr(C_REFERER, "http://www.example.com/start.html");
	assert_cstr(C_UA, "Mozilla/4.08 [en] (Win98; I ;Nav)");
}

static void
test_combined_ipv6(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok("2001:db8::1 - - [01/Mar/2024:00:00:01 +0000] \"GET / "
	    "HTTP/2.0\" 304 0 \"-\" \"curl/8.5.0\"");
	assert_cstr(C_ADDR, "2001:db8::1");
	assert_col_null(C_USER);
	assert_ts(C_TIME, oracle_us(2024, 3, 1, 0, 0, 1, 0));
	assert_i64(C_STATUS, 304);
	assert_i64(C_BYTES, 0);
	assert_col_null(C_REFERER);
	assert_cstr(C_UA, "curl/8.5.0");
	run_ok("::ffff:10.0.0.1 - - [01/Mar/2024:00:00:01 +0000] \"GET / "
	    "HTTP/1.1\" 200 12 \"-\" \"-\"");
	assert_cstr(C_ADDR, "::ffff:10.0.0.1");
	assert_col_null(C_UA);
	run_ok("fe80::1%eth0 - - [01/Mar/2024:00:00:01 +0000] \"-\" 400 0 "
	    "\"-\" \"-\"");
	assert_cstr(C_ADDR, "fe80::1%eth0");
	assert_col_null(C_REQUEST);
}

static void
test_combined_escaped_quotes(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"GET /q?x=\\x22a b\\x22 HTTP/1.1\" 200 5 "
	    "\"http://x/\\x22\" \"Mozilla \\x22quoted\\x22 \\x5C path "
	    "\\x5cz\"");
	assert_cstr(C_REQUEST, "GET /q?x=\"a b\" HTTP/1.1");
	assert_cstr(C_REFERER, "http://x/\"");
	assert_cstr(C_UA, "Mozilla \"quoted\" \\ path \\z");
	/* A backslash that does not start \xHH stays as it is. */
	run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"a\\x2 \\xZZ "
	    "\\y \\x\" 200 5 \"x\\x4\" \"\\x41\\\"");
	assert_cstr(C_REQUEST, "a\\x2 \\xZZ \\y \\x");
	assert_cstr(C_REFERER, "x\\x4");
	assert_cstr(C_UA, "A\\");
	/* Escapes are undone in every string column, quoted or not. */
	run_ok("10.0.0.1 - b\\x20ob [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"");
	assert_cstr(C_USER, "b ob");
}

static void
test_combined_empty_and_dash(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"\" 400 - \"\" "
	    "\"\"");
	assert_col_null(C_USER);
	assert_cstr(C_REQUEST, "");
	assert_col_null(C_BYTES);
	assert_cstr(C_REFERER, "");
	assert_cstr(C_UA, "");
	/* "-" only as the whole value. */
	run_ok("10.0.0.1 - -- [10/Oct/2000:13:55:36 -0700] \"- \" 400 0 "
	    "\"-x\" \"x-\"");
	assert_cstr(C_USER, "--");
	assert_cstr(C_REQUEST, "- ");
	assert_cstr(C_REFERER, "-x");
	assert_cstr(C_UA, "x-");
	run_ok("- - - [-] \"-\" - - \"-\" \"-\"");
	for (size_t i = 0; i < C_NCOLS; i++)
		assert_col_null(i);
}

static void
test_combined_tls_garbage(void **state)
{
	static const char bytes[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xFC"
	    "\x03\x03";

	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok("198.51.100.4 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03\" "
	    "400 157 \"-\" \"-\"");
	assert_str(C_REQUEST, bytes, sizeof bytes - 1);
	assert_i64(C_STATUS, 400);
	assert_i64(C_BYTES, 157);
	assert_col_null(C_REFERER);
	assert_col_null(C_UA);
}

static void
test_combined_long_line(void **state)
{
	const size_t ualen = 64 * 1024;
	const char *head = "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"GET / HTTP/1.1\" 200 1 \"-\" \"";
	size_t headlen = strlen(head), len = headlen + ualen + 2;
	char *line = malloc(len), *ua = malloc(ualen);

	(void)state;
	assert_non_null(line);
	assert_non_null(ua);
	for (size_t i = 0; i < ualen; i++)
		ua[i] = (char)('a' + i % 26);
	memcpy(ua + 1000, "\\x22", 4);
	memcpy(line, head, headlen);
	memcpy(line + headlen, ua, ualen);
	memcpy(line + headlen + ualen, "\"\n", 2);
	open_nginx_ok(NULL, NULL);
	assert_int_equal(run_len(line, len), 0);
	assert_int_equal(fx.cap.v[C_UA].u.s.len, ualen - 3);
	assert_memory_equal(fx.cap.v[C_UA].u.s.ptr, ua, 1000);
	assert_int_equal(fx.cap.v[C_UA].u.s.ptr[1000], '"');
	assert_memory_equal(fx.cap.v[C_UA].u.s.ptr + 1001, ua + 1004,
	    ualen - 1004);
	/* Without escapes the value comes straight from the record. */
	memcpy(line + headlen + 1000, "wxyz", 4);
	assert_int_equal(run_len(line, len), 0);
	assert_int_equal(fx.cap.v[C_UA].u.s.len, ualen);
	assert_memory_equal(fx.cap.v[C_UA].u.s.ptr + 1004, ua + 1004,
	    ualen - 1004);
	free(line);
	free(ua);
}

/* Every strict prefix of a valid line is rejected with a reason. */
static void
check_prefixes(const char *line)
{
	size_t len = strlen(line);

	assert_int_equal(run_len(line, len), 0);
	for (size_t cut = 0; cut < len; cut++) {
		int r = run_len(line, cut);

		if (r != -EINVAL || fx.cap.rows != 0 || fx.err[0] == '\0')
			fail_msg("prefix of %zu bytes: r=%d, rows=%d, reason "
			    "\"%s\"", cut, r, fx.cap.rows, fx.err);
	}
}

static void
test_combined_truncated(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	check_prefixes(LINE_IPV4);
	check_prefixes("2001:db8::1 - - [10/Oct/2000:13:55:36 +0800] "
	    "\"\\x16\\x03\\x01\" 400 157 \"\" \"a \\x22b\\x22\"");
	run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] "
	    "\"GET /apache_pb.gif", "line ends inside $request");
	run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55", "line ends "
	    "inside $time_local");
	run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] GET",
	    "expected \"] \\\"\" after $time_local");
	run_rejected("203.0.113.7", "line ends inside $remote_addr");
	run_rejected("", "empty record");
	run_rejected("\n", "empty record");
	run_rejected("\r\n", "empty record");
}

static void
test_combined_line_endings(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_ok(LINE_IPV4 "\n");
	assert_cstr(C_UA, "Mozilla/4.08 [en] (Win98; I ;Nav)");
	run_ok(LINE_IPV4 "\r\n");
	assert_cstr(C_UA, "Mozilla/4.08 [en] (Win98; I ;Nav)");
	run_rejected(LINE_IPV4 "\n\n", "trailing text after the log format");
	run_rejected(LINE_IPV4 "\r", "trailing text after the log format");
	run_rejected(LINE_IPV4 " extra", "trailing text after the log format");
	run_rejected(LINE_IPV4 "\"", "trailing text after the log format");
}

static void
test_combined_bad_values(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" abc 5 "
	    "\"-\" \"-\"", "status: \"abc\" is not an integer");
	run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "99999999999999999999 \"-\" \"-\"",
	    "body_bytes_sent: \"99999999999999999999\" is out of range");
	run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "1.5 \"-\" \"-\"", "body_bytes_sent: \"1.5\" is not an integer");
	run_rejected("10.0.0.1 - - [10/Foo/2000:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"",
	    "time_local: \"10/Foo/2000:13:55:36 -0700\" is not a time");
	run_rejected("10.0.0.1 - - [30/Feb/2024:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"", "time_local: \"30/Feb/2024");
	run_rejected("10.0.0.1 - - [] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"\" is not a time");
	/* A long bad value is cut short and kept printable. */
	run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700 and a good deal "
	    "more text\x01] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"10/Oct/2000:13:55:36 -0700 and a good de...\" is "
	    "not a time");
	run_rejected("10.0.0.1 - - [\x01\x80\"] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"\\x01\\x80\\\"\" is not a time");
	assert_true(strlen(fx.err) < 120);
}

static void
test_combined_time_offsets(void **state)
{
	static const struct {
		const char *text;
		int y, mo, d, h, mi, s, off;
	} cases[] = {
		{ "10/Oct/2000:13:55:36 +0800", 2000, 10, 10, 13, 55, 36,
		    8 * 3600 },
		{ "10/Oct/2000:13:55:36 -0700", 2000, 10, 10, 13, 55, 36,
		    -7 * 3600 },
		{ "10/Oct/2000:13:55:36 +0000", 2000, 10, 10, 13, 55, 36, 0 },
		{ "01/Jan/2024:00:00:00 +0800", 2024, 1, 1, 0, 0, 0,
		    8 * 3600 },
		{ "31/Dec/2023:23:59:59 -0700", 2023, 12, 31, 23, 59, 59,
		    -7 * 3600 },
		{ "29/Feb/2024:23:59:59 -0100", 2024, 2, 29, 23, 59, 59,
		    -3600 },
		{ "01/Mar/2024:00:00:00 +0800", 2024, 3, 1, 0, 0, 0,
		    8 * 3600 },
		{ "30/Jun/2023:18:00:00 -0600", 2023, 6, 30, 18, 0, 0,
		    -6 * 3600 },
	};
	char line[256];

	(void)state;
	open_nginx_ok(NULL, NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(line, sizeof line, "10.0.0.1 - - [%s] \"r\" 200 5 "
		    "\"-\" \"-\"", cases[i].text);
		run_ok(line);
		assert_ts(C_TIME, oracle_us(cases[i].y, cases[i].mo, cases[i].d,
		    cases[i].h, cases[i].mi, cases[i].s, cases[i].off));
	}
}

/* Other formats and escapes. */

static void
test_typed_format(void **state)
{
	(void)state;
	open_nginx_ok("$time_iso8601|$msec|$request_time|$remote_port|$pid|"
	    "$bytes_sent|$request_length|$connection|$connection_requests|"
	    "$server_port|$upstream_response_time", NULL);
	run_ok("2000-10-10T13:55:36-07:00|1700000000.123|12.345|54321|77|"
	    "-9223372036854775808|9223372036854775807|1|2|443|0.1, 0.2");
	assert_ts(0, oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	assert_ts(1, 1700000000123000LL);
	assert_int_equal(fx.cap.v[2].type, UDTF_DOUBLE);
	assert_true(fx.cap.v[2].u.d == 12.345);
	assert_i64(3, 54321);
	assert_i64(4, 77);
	assert_i64(5, INT64_MIN);
	assert_i64(6, INT64_MAX);
	assert_i64(7, 1);
	assert_i64(8, 2);
	assert_i64(9, 443);
	assert_cstr(10, "0.1, 0.2");
	run_ok("2000-10-10T20:55:36Z|1700000000|0|1|1|1|1|1|1|1|x");
	assert_ts(0, oracle_us(2000, 10, 10, 20, 55, 36, 0));
	assert_ts(1, 1700000000000000LL);
	assert_true(fx.cap.v[2].u.d == 0.0);
	run_ok("2000-10-10T20:55:36+0000|-|-|-|-|-|-|-|-|-|-");
	assert_ts(0, oracle_us(2000, 10, 10, 20, 55, 36, 0));
	for (size_t i = 1; i < 11; i++)
		assert_col_null(i);
	run_rejected("2000-10-10T20:55:36|1|1|1|1|1|1|1|1|1|x",
	    "time_iso8601: \"2000-10-10T20:55:36\" is not a time");
	run_rejected("2000-10-10T20:55:36Z|1.2.3|1|1|1|1|1|1|1|1|x",
	    "msec: \"1.2.3\" is not a time");
	run_rejected("2000-10-10T20:55:36Z|1|1.|1|1|1|1|1|1|1|x",
	    "request_time: \"1.\" is not a number");
	run_rejected("2000-10-10T20:55:36Z|1|1|1|1|9223372036854775808|1|1|1|"
	    "1|x", "bytes_sent: \"9223372036854775808\" is out of range");
	run_rejected("2000-10-10T20:55:36Z|1|1|1|1|1|1|1|1|1",
	    "line ends inside $server_port");
}

static void
test_escape_json(void **state)
{
	(void)state;
	open_nginx_ok("{\"ua\":\"$http_user_agent\",\"req\":\"$request\","
	    "\"status\":$status}", "json");
	run_ok("{\"ua\":\"say \\\"hi\\\", \\\\o/ \\/ \\t\\n\\u00e9\\u20ac"
	    "\\ud83d\\ude00\",\"req\":\"GET /\\\\\",\"status\":200}");
	assert_cstr(0, "say \"hi\", \\o/ / \t\n\xc3\xa9\xe2\x82\xac"
	    "\xf0\x9f\x98\x80");
	assert_cstr(1, "GET /\\");
	assert_i64(2, 200);
	/* Not JSON escapes: kept as written. */
	run_ok("{\"ua\":\"\\q \\u12 \\ud83d \\x22\",\"req\":\"\\u0041\","
	    "\"status\":-}");
	assert_cstr(0, "\\q \\u12 \\ud83d \\x22");
	assert_cstr(1, "A");
	assert_col_null(2);
	run_rejected("{\"ua\":\"a\\\",\"req\":\"b\",\"status\":1}",
	    "expected \"\\\",\\\"req\\\":\\\"\" after $http_user_agent");
}

static void
test_escape_none(void **state)
{
	(void)state;
	open_nginx_ok(NULL, "none");
	run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /\\x22 "
	    "HTTP/1.1\" 200 5 \"-\" \"a\\\\b\"");
	assert_cstr(C_REQUEST, "GET /\\x22 HTTP/1.1");
	assert_cstr(C_UA, "a\\\\b");
}

/* Several unescaped values in one row stay valid together, and records
 * that grow the scratch buffer do not disturb the next ones. */
static void
test_scratch_reuse(void **state)
{
	char line[1024], ua[600];

	(void)state;
	open_nginx_ok(NULL, NULL);
	for (int round = 0; round < 3; round++) {
		size_t n = (size_t)(round == 1 ? 500 : 10);

		memset(ua, 'u', n);
		ua[n] = '\0';
		snprintf(line, sizeof line, "10.0.0.1 - \\x41 "
		    "[10/Oct/2000:13:55:36 -0700] \"\\x42\\x43\" 200 5 "
		    "\"\\x44\" \"%s\\x45\"", ua);
		run_ok(line);
		assert_cstr(C_USER, "A");
		assert_cstr(C_REQUEST, "BC");
		assert_cstr(C_REFERER, "D");
		assert_int_equal(fx.cap.v[C_UA].u.s.len, n + 1);
		assert_int_equal(fx.cap.v[C_UA].u.s.ptr[n], 'E');
	}
}

static void
test_emit_refused(void **state)
{
	(void)state;
	open_nginx_ok(NULL, NULL);
	fx.cap.refuse = -ENOBUFS;
	assert_int_equal(run(LINE_IPV4), -ENOBUFS);
}

/* The raw UDTF. */

static void
test_raw(void **state)
{
	const struct udtf_column *cols;
	size_t ncols;

	(void)state;
	fx.plugin = udtf_builtin_find("raw");
	assert_non_null(fx.plugin);
	assert_int_equal(fx.plugin->abi_version, KEDGE_UDTF_ABI_VERSION);
	assert_null(fx.plugin->keys[0].name);
	fx.state = fx.plugin->init(NULL, 0, fx.err, sizeof fx.err);
	assert_non_null(fx.state);
	capture_reset(&fx.cap);
	fx.plugin->columns(fx.state, &cols, &ncols);
	assert_int_equal(ncols, 1);
	assert_string_equal(cols[0].name, "raw");
	assert_int_equal(cols[0].type, UDTF_STRING);
	assert_int_equal(run_len("any\0thing\r\n", 11), 0);
	assert_int_equal(fx.cap.rows, 1);
	assert_str(0, "any\0thing\r\n", 11);
	assert_int_equal(run_len("", 0), 0);
	assert_int_equal(fx.cap.rows, 1);
	assert_str(0, "", 0);
	fx.cap.refuse = -E2BIG;
	assert_int_equal(run("x"), -E2BIG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_combined_columns, teardown),
		cmocka_unit_test_teardown(test_compile_braces_and_literals,
		    teardown),
		cmocka_unit_test_teardown(test_compile_duplicates, teardown),
		cmocka_unit_test_teardown(test_compile_errors, teardown),
		cmocka_unit_test_teardown(test_init_bad_escape_and_key,
		    teardown),
		cmocka_unit_test_teardown(test_combined_ipv4, teardown),
		cmocka_unit_test_teardown(test_combined_ipv6, teardown),
		cmocka_unit_test_teardown(test_combined_escaped_quotes,
		    teardown),
		cmocka_unit_test_teardown(test_combined_empty_and_dash,
		    teardown),
		cmocka_unit_test_teardown(test_combined_tls_garbage, teardown),
		cmocka_unit_test_teardown(test_combined_long_line, teardown),
		cmocka_unit_test_teardown(test_combined_truncated, teardown),
		cmocka_unit_test_teardown(test_combined_line_endings, teardown),
		cmocka_unit_test_teardown(test_combined_bad_values, teardown),
		cmocka_unit_test_teardown(test_combined_time_offsets,
		    teardown),
		cmocka_unit_test_teardown(test_typed_format, teardown),
		cmocka_unit_test_teardown(test_escape_json, teardown),
		cmocka_unit_test_teardown(test_escape_none, teardown),
		cmocka_unit_test_teardown(test_scratch_reuse, teardown),
		cmocka_unit_test_teardown(test_emit_refused, teardown),
		cmocka_unit_test_teardown(test_raw, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
