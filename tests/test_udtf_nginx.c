/*
 * The nginx and raw UDTFs: the log_format compiler, the combined format on
 * real-looking lines (IPv6, escapes, TLS garbage, long and truncated
 * lines), typed columns, escape=json and escape=none, the rejects.
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

#include "tests/testlib.h"
#include "tests/udtf_harness.h"

#include "agent/udtf/registry.h"

/* The built-in UDTF called name, as the core finds it. */
static const struct udtf_plugin *
builtin(const char *name)
{
	const struct udtf_plugin *p = udtf_builtin_find(name);

	assert_non_null(p);
	return p;
}

#define NGINX builtin("nginx")
#define RAW builtin("raw")

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
	const struct udtf_key *k;

	(void)state;
	hx_open_ok(NGINX, NULL);
	assert_int_equal(hx.ncols, 8);
	for (size_t i = 0; i < hx.ncols; i++) {
		assert_string_equal(hx.cols[i].name, expected[i].name);
		assert_int_equal(hx.cols[i].type, expected[i].type);
	}
	assert_int_equal(hx.plugin->abi_version, KEDGE_UDTF_ABI_VERSION);
	k = hx.plugin->keys;
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
	(void)state;
	hx_open_ok(NGINX, "log_format",
	    "<<${remote_addr}x${status}:$request_time|$msec>>", NULL);
	assert_int_equal(hx.ncols, 4);
	assert_string_equal(hx.cols[0].name, "remote_addr");
	assert_string_equal(hx.cols[1].name, "status");
	assert_int_equal(hx.cols[1].type, UDTF_INT64);
	assert_string_equal(hx.cols[2].name, "request_time");
	assert_int_equal(hx.cols[2].type, UDTF_DOUBLE);
	assert_string_equal(hx.cols[3].name, "msec");
	assert_int_equal(hx.cols[3].type, UDTF_TIMESTAMP);
	hx_run_ok("<<10.1.2.3x404:0.250|1700000000.5>>", 1);
	hx_assert_str(0, "remote_addr", "10.1.2.3");
	hx_assert_i64(0, "status", 404);
	hx_assert_double(0, "request_time", 0.25);
	hx_assert_ts(0, "msec", 1700000000500000LL);
	hx_run_rejected(">>10.1.2.3x404:0.250|1700000000.5>>",
	    "line does not start with \"<<\"");
	hx_run_rejected("<<10.1.2.3x404:0.250|1700000000.5>", "line ends "
	    "inside $msec");
	hx_run_rejected("<<10.1.2.3x404:0.250|1700000000.5>>>",
	    "trailing text after the log format");
	hx_run_rejected("<<10.1.2.3x404:0.250|1700000000.5x>>",
	    "msec: \"1700000000.5x\" is not a time");
}

static void
test_compile_duplicates(void **state)
{
	(void)state;
	hx_open_ok(NGINX, "log_format", "$status $host $status ${status} $host",
	    NULL);
	assert_int_equal(hx.ncols, 5);
	assert_string_equal(hx.cols[0].name, "status");
	assert_string_equal(hx.cols[1].name, "host");
	assert_string_equal(hx.cols[2].name, "status_2");
	assert_int_equal(hx.cols[2].type, UDTF_INT64);
	assert_string_equal(hx.cols[3].name, "status_3");
	assert_string_equal(hx.cols[4].name, "host_2");
	hx_run_ok("200 a 301 - b", 1);
	hx_assert_i64(0, "status", 200);
	hx_assert_i64(0, "status_2", 301);
	hx_assert_null(0, "status_3");
	hx_assert_str(0, "host_2", "b");
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
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		hx_open_fails(cases[i].reason, NGINX, "log_format",
		    cases[i].format, NULL);
}

/* The log_format as nginx.conf has it: pairs closed, variables known. */
static void
test_lint(void **state)
{
	static const struct {
		const char *format;
		const char *reason;  /* NULL: taken */
	} cases[] = {
		{ "$remote_addr [$time_local \"$request\"", "the \"[\" at "
		  "offset 13 (\"[$time_local \"$request\"\") is never closed by "
		  "\"]\"" },
		{ "$remote_addr] $status", "the \"]\" at offset 12 (\"] $status\") "
		  "closes no \"[\"" },
		{ "[$time_local [$status]]", "the \"[\" at offset 13 (\"[$status]]\") "
		  "comes before the one at offset 0 is closed by \"]\"" },
		{ "$remote_addr \"$request $status", "the '\"' at offset 13 "
		  "(\"\"$request $status\") is never closed by another" },
		{ "$remote_addr $requst", "$requst is not an nginx variable; did "
		  "you mean $request? (one of your own, from map or set, is "
		  "written ${requst})" },
		{ "$remote_addr $statsu", "$statsu is not an nginx variable; did "
		  "you mean $status?" },
		{ "$remote_adr - $status", "$remote_adr is not an nginx "
		  "variable; did you mean $remote_addr?" },
		{ "$upstream_respnse_tme $status", "did you mean "
		  "$upstream_response_time?" },
		/* taken: families, captures, braces, names of one's own */
		{ "$http_x_forwarded_for $sent_http_x $cookie_sid $arg_q $1", NULL },
		{ "[$time_local] \"$request\" ${requst} $msg $loggable", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].reason != NULL) {
			hx_open_fails(cases[i].reason, NGINX, "log_format",
			    cases[i].format, NULL);
			continue;
		}
		assert_non_null(hx_open(NGINX, "log_format", cases[i].format,
		    NULL));
	}
}

/* A name nginx does not define is noted, once, not refused. */
static void
test_lint_note(void **state)
{
	(void)state;
	assert_non_null(hx_open(NGINX, "log_format", "$remote_addr $msg "
	    "$loggable ${requst}", NULL));
	assert_non_null(hx.plugin->note);
	assert_string_equal(hx.plugin->note(hx.state), "log_format: $msg, "
	    "$loggable: not among nginx's variables, so taken as your own "
	    "(map, set, a module's)");
	assert_non_null(hx_open(NGINX, NULL));
	assert_null(hx.plugin->note(hx.state));
}

static void
test_init_bad_escape_and_key(void **state)
{
	(void)state;
	assert_null(hx_open(NGINX, "escape", "xml", NULL));
	assert_string_equal(hx.err, "escape must be default, json or none, "
	    "not \"xml\"");
	assert_null(hx_open(NGINX, "escape", "", NULL));
	assert_non_null(strstr(hx.err, "escape must be"));
	assert_null(hx_open(NGINX, "log_fmt", "$a", NULL));
	assert_string_equal(hx.err, "nginx has no key \"log_fmt\"");
	hx.plugin->fini(NULL);
}

/* The combined format. */

static void
test_combined_ipv4(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok(LINE_IPV4, 1);
	assert_int_equal(hx.rows[0].ncols, 8);
	hx_assert_str(0, "remote_addr", "203.0.113.7");
	hx_assert_str(0, "remote_user", "alice");
	hx_assert_ts(0, "time_local",
	    oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	hx_assert_str(0, "request", "GET /apache_pb.gif HTTP/1.0");
	hx_assert_i64(0, "status", 200);
	hx_assert_i64(0, "body_bytes_sent", 2326);
	hx_assert_str(0, "http_referer", "http://www.example.com/start.html");
	hx_assert_str(0, "http_user_agent", "Mozilla/4.08 [en] (Win98; I ;Nav)");
}

static void
test_combined_ipv6(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok("2001:db8::1 - - [01/Mar/2024:00:00:01 +0000] \"GET / "
	    "HTTP/2.0\" 304 0 \"-\" \"curl/8.5.0\"", 1);
	hx_assert_str(0, "remote_addr", "2001:db8::1");
	hx_assert_null(0, "remote_user");
	hx_assert_ts(0, "time_local", oracle_us(2024, 3, 1, 0, 0, 1, 0));
	hx_assert_i64(0, "status", 304);
	hx_assert_i64(0, "body_bytes_sent", 0);
	hx_assert_null(0, "http_referer");
	hx_assert_str(0, "http_user_agent", "curl/8.5.0");
	hx_run_ok("::ffff:10.0.0.1 - - [01/Mar/2024:00:00:01 +0000] \"GET / "
	    "HTTP/1.1\" 200 12 \"-\" \"-\"", 1);
	hx_assert_str(0, "remote_addr", "::ffff:10.0.0.1");
	hx_assert_null(0, "http_user_agent");
	hx_run_ok("fe80::1%eth0 - - [01/Mar/2024:00:00:01 +0000] \"-\" 400 0 "
	    "\"-\" \"-\"", 1);
	hx_assert_str(0, "remote_addr", "fe80::1%eth0");
	hx_assert_null(0, "request");
}

static void
test_combined_escaped_quotes(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"GET /q?x=\\x22a b\\x22 HTTP/1.1\" 200 5 "
	    "\"http://x/\\x22\" \"Mozilla \\x22quoted\\x22 \\x5C path "
	    "\\x5cz\"", 1);
	hx_assert_str(0, "request", "GET /q?x=\"a b\" HTTP/1.1");
	hx_assert_str(0, "http_referer", "http://x/\"");
	hx_assert_str(0, "http_user_agent", "Mozilla \"quoted\" \\ path \\z");
	/* A backslash that does not start \xHH stays as it is. */
	hx_run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"a\\x2 \\xZZ "
	    "\\y \\x\" 200 5 \"x\\x4\" \"\\x41\\\"", 1);
	hx_assert_str(0, "request", "a\\x2 \\xZZ \\y \\x");
	hx_assert_str(0, "http_referer", "x\\x4");
	hx_assert_str(0, "http_user_agent", "A\\");
	/* Escapes are undone in every string column, quoted or not. */
	hx_run_ok("10.0.0.1 - b\\x20ob [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"", 1);
	hx_assert_str(0, "remote_user", "b ob");
}

static void
test_combined_empty_and_dash(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"\" 400 - \"\" "
	    "\"\"", 1);
	hx_assert_null(0, "remote_user");
	hx_assert_str(0, "request", "");
	hx_assert_null(0, "body_bytes_sent");
	hx_assert_str(0, "http_referer", "");
	hx_assert_str(0, "http_user_agent", "");
	/* "-" only as the whole value. */
	hx_run_ok("10.0.0.1 - -- [10/Oct/2000:13:55:36 -0700] \"- \" 400 0 "
	    "\"-x\" \"x-\"", 1);
	hx_assert_str(0, "remote_user", "--");
	hx_assert_str(0, "request", "- ");
	hx_assert_str(0, "http_referer", "-x");
	hx_assert_str(0, "http_user_agent", "x-");
	hx_run_ok("- - - [-] \"-\" - - \"-\" \"-\"", 1);
	for (size_t i = 0; i < hx.ncols; i++)
		hx_assert_null(0, hx.cols[i].name);
}

static void
test_combined_tls_garbage(void **state)
{
	static const char bytes[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xFC"
	    "\x03\x03";

	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok("198.51.100.4 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03\" "
	    "400 157 \"-\" \"-\"", 1);
	hx_assert_bytes(0, "request", bytes, sizeof bytes - 1);
	hx_assert_i64(0, "status", 400);
	hx_assert_i64(0, "body_bytes_sent", 157);
	hx_assert_null(0, "http_referer");
	hx_assert_null(0, "http_user_agent");
}

static void
test_combined_long_line(void **state)
{
	const size_t ualen = 64 * 1024;
	const char *head = "10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "
	    "\"GET / HTTP/1.1\" 200 1 \"-\" \"";
	size_t headlen = strlen(head), len = headlen + ualen + 2;
	char *line = malloc(len), *ua = malloc(ualen);
	const struct udtf_value *v;

	(void)state;
	assert_non_null(line);
	assert_non_null(ua);
	for (size_t i = 0; i < ualen; i++)
		ua[i] = (char)('a' + i % 26);
	memcpy(ua + 1000, "\\x22", 4);
	memcpy(line, head, headlen);
	memcpy(line + headlen, ua, ualen);
	memcpy(line + headlen + ualen, "\"\n", 2);
	hx_open_ok(NGINX, NULL);
	assert_int_equal(hx_run_len(line, len), 0);
	assert_int_equal(hx.nrows, 1);
	v = hx_value(0, "http_user_agent");
	assert_int_equal(v->u.s.len, ualen - 3);
	assert_memory_equal(v->u.s.ptr, ua, 1000);
	assert_int_equal(v->u.s.ptr[1000], '"');
	assert_memory_equal(v->u.s.ptr + 1001, ua + 1004, ualen - 1004);
	hx_assert_zero_copy(0, "http_user_agent", 0);
	/* Without escapes the value comes straight from the record. */
	memcpy(line + headlen + 1000, "wxyz", 4);
	assert_int_equal(hx_run_len(line, len), 0);
	v = hx_value(0, "http_user_agent");
	assert_int_equal(v->u.s.len, ualen);
	assert_memory_equal(v->u.s.ptr + 1004, ua + 1004, ualen - 1004);
	hx_assert_zero_copy(0, "http_user_agent", 1);
	free(line);
	free(ua);
}

/* Every strict prefix of a valid line is rejected with a reason. */
static void
check_prefixes(const char *line)
{
	size_t len = strlen(line);

	assert_int_equal(hx_run_len(line, len), 0);
	for (size_t cut = 0; cut < len; cut++) {
		int r = hx_run_len(line, cut);

		if (r != -EINVAL || hx.nrows != 0 || hx.err[0] == '\0')
			fail_msg("prefix of %zu bytes: r=%d, rows=%d, reason "
			    "\"%s\"", cut, r, hx.nrows, hx.err);
	}
}

static void
test_combined_truncated(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	check_prefixes(LINE_IPV4);
	check_prefixes("2001:db8::1 - - [10/Oct/2000:13:55:36 +0800] "
	    "\"\\x16\\x03\\x01\" 400 157 \"\" \"a \\x22b\\x22\"");
	hx_run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] "
	    "\"GET /apache_pb.gif", "line ends inside $request");
	hx_run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55", "line ends "
	    "inside $time_local");
	hx_run_rejected("203.0.113.7 - alice [10/Oct/2000:13:55:36 -0700] GET",
	    "expected \"] \\\"\" after $time_local");
	hx_run_rejected("203.0.113.7", "line ends inside $remote_addr");
	hx_run_rejected("", "empty record");
	hx_run_rejected("\n", "empty record");
	hx_run_rejected("\r\n", "empty record");
}

static void
test_combined_line_endings(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_ok(LINE_IPV4 "\n", 1);
	hx_assert_str(0, "http_user_agent", "Mozilla/4.08 [en] (Win98; I ;Nav)");
	hx_run_ok(LINE_IPV4 "\r\n", 1);
	hx_assert_str(0, "http_user_agent", "Mozilla/4.08 [en] (Win98; I ;Nav)");
	hx_run_rejected(LINE_IPV4 "\n\n", "trailing text after the log format");
	hx_run_rejected(LINE_IPV4 "\r", "trailing text after the log format");
	hx_run_rejected(LINE_IPV4 " extra", "trailing text after the log "
	    "format");
	hx_run_rejected(LINE_IPV4 "\"", "trailing text after the log format");
}

static void
test_combined_bad_values(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx_run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" abc 5 "
	    "\"-\" \"-\"", "status: \"abc\" is not an integer");
	hx_run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "99999999999999999999 \"-\" \"-\"",
	    "body_bytes_sent: \"99999999999999999999\" is out of range");
	hx_run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"r\" 200 "
	    "1.5 \"-\" \"-\"", "body_bytes_sent: \"1.5\" is not an integer");
	hx_run_rejected("10.0.0.1 - - [10/Foo/2000:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"",
	    "time_local: \"10/Foo/2000:13:55:36 -0700\" is not a time");
	hx_run_rejected("10.0.0.1 - - [30/Feb/2024:13:55:36 -0700] \"r\" 200 "
	    "5 \"-\" \"-\"", "time_local: \"30/Feb/2024");
	hx_run_rejected("10.0.0.1 - - [] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"\" is not a time");
	/* A long bad value is cut short and kept printable. */
	hx_run_rejected("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700 and a good "
	    "deal more text\x01] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"10/Oct/2000:13:55:36 -0700 and a good de...\" is "
	    "not a time");
	hx_run_rejected("10.0.0.1 - - [\x01\x80\"] \"r\" 200 5 \"-\" \"-\"",
	    "time_local: \"\\x01\\x80\\\"\" is not a time");
	assert_true(strlen(hx.err) < 120);
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
	hx_open_ok(NGINX, NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(line, sizeof line, "10.0.0.1 - - [%s] \"r\" 200 5 "
		    "\"-\" \"-\"", cases[i].text);
		hx_run_ok(line, 1);
		hx_assert_ts(0, "time_local", oracle_us(cases[i].y, cases[i].mo,
		    cases[i].d, cases[i].h, cases[i].mi, cases[i].s,
		    cases[i].off));
	}
}

/* A value read without the literal scan (digits, a $time_local) ends
 * where the scan would end it: not where a literal whose first byte a
 * time may hold, or a digit, follows. */
static void
test_quick_ends_as_scanned(void **state)
{
	(void)state;
	hx_open_ok(NGINX, "log_format", "$time_local $status:$pid", NULL);
	hx_run_rejected("10/Oct/2000:13:55:36 -0700 200:1",
	    "time_local: \"10/Oct/2000:13:55:36\" is not a time");
	hx_open_ok(NGINX, "log_format", "[$time_local]${status}0$pid.", NULL);
	hx_run_ok("[10/Oct/2000:13:55:36 -0700]2001230.", 1);
	hx_assert_ts(0, "time_local",
	    oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	hx_assert_i64(0, "status", 2);
	hx_assert_i64(0, "pid", 1230);
	hx_run_rejected("[10/Oct/2000:13:55:37 -0700]0077.",
	    "status: \"\" is not an integer");
	hx_run_rejected("[10/Oct/2000:13:55:36 -0700]12a0.",
	    "status: \"12a\" is not an integer");
	hx_run_rejected("[10/Oct/2000:13:55:36 -0700]99999999999999999999"
	    "0.", "status: \"99999999999999999999\" is out of range");
	hx_run_rejected("[10/Oct/2000:13:55:60 -0700]10.",
	    "time_local: \"10/Oct/2000:13:55:60 -0700\" is not a time");
	hx_run_rejected("[10/Oct/2000:13:55:36 -0700x]10.",
	    "time_local: \"10/Oct/2000:13:55:36 -0700x\" is not a time");
}

/* Other formats and escapes. */

static void
test_typed_format(void **state)
{
	(void)state;
	hx_open_ok(NGINX, "log_format", "$time_iso8601|$msec|$request_time|"
	    "$remote_port|$pid|$bytes_sent|$request_length|$connection|"
	    "$connection_requests|$server_port|$upstream_response_time", NULL);
	hx_run_ok("2000-10-10T13:55:36-07:00|1700000000.123|12.345|54321|77|"
	    "-9223372036854775808|9223372036854775807|1|2|443|0.1, 0.2", 1);
	hx_assert_ts(0, "time_iso8601",
	    oracle_us(2000, 10, 10, 13, 55, 36, -7 * 3600));
	hx_assert_ts(0, "msec", 1700000000123000LL);
	hx_assert_double(0, "request_time", 12.345);
	hx_assert_i64(0, "remote_port", 54321);
	hx_assert_i64(0, "pid", 77);
	hx_assert_i64(0, "bytes_sent", INT64_MIN);
	hx_assert_i64(0, "request_length", INT64_MAX);
	hx_assert_i64(0, "connection", 1);
	hx_assert_i64(0, "connection_requests", 2);
	hx_assert_i64(0, "server_port", 443);
	hx_assert_str(0, "upstream_response_time", "0.1, 0.2");
	hx_run_ok("2000-10-10T20:55:36Z|1700000000|0|1|1|1|1|1|1|1|x", 1);
	hx_assert_ts(0, "time_iso8601", oracle_us(2000, 10, 10, 20, 55, 36, 0));
	hx_assert_ts(0, "msec", 1700000000000000LL);
	hx_assert_double(0, "request_time", 0.0);
	hx_run_ok("2000-10-10T20:55:36+0000|-|-|-|-|-|-|-|-|-|-", 1);
	hx_assert_ts(0, "time_iso8601", oracle_us(2000, 10, 10, 20, 55, 36, 0));
	for (size_t i = 1; i < 11; i++)
		hx_assert_null(0, hx.cols[i].name);
	hx_run_rejected("2000-10-10T20:55:36|1|1|1|1|1|1|1|1|1|x",
	    "time_iso8601: \"2000-10-10T20:55:36\" is not a time");
	hx_run_rejected("2000-10-10T20:55:36Z|1.2.3|1|1|1|1|1|1|1|1|x",
	    "msec: \"1.2.3\" is not a time");
	hx_run_rejected("2000-10-10T20:55:36Z|1|1.|1|1|1|1|1|1|1|x",
	    "request_time: \"1.\" is not a number");
	hx_run_rejected("2000-10-10T20:55:36Z|1|1|1|1|9223372036854775808|1|1|"
	    "1|1|x", "bytes_sent: \"9223372036854775808\" is out of range");
	hx_run_rejected("2000-10-10T20:55:36Z|1|1|1|1|1|1|1|1|1",
	    "line ends inside $server_port");
}

static void
test_escape_json(void **state)
{
	(void)state;
	hx_open_ok(NGINX, "log_format", "{\"ua\":\"$http_user_agent\","
	    "\"req\":\"$request\",\"status\":$status}", "escape", "json",
	    NULL);
	hx_run_ok("{\"ua\":\"say \\\"hi\\\", \\\\o/ \\/ \\t\\n\\u00e9\\u20ac"
	    "\\ud83d\\ude00\",\"req\":\"GET /\\\\\",\"status\":200}", 1);
	hx_assert_str(0, "http_user_agent", "say \"hi\", \\o/ / \t\n"
	    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	hx_assert_str(0, "request", "GET /\\");
	hx_assert_i64(0, "status", 200);
	/* Not JSON escapes: kept as written. */
	hx_run_ok("{\"ua\":\"\\q \\u12 \\ud83d \\x22\",\"req\":\"\\u0041\","
	    "\"status\":-}", 1);
	hx_assert_str(0, "http_user_agent", "\\q \\u12 \\ud83d \\x22");
	hx_assert_str(0, "request", "A");
	hx_assert_null(0, "status");
	hx_run_rejected("{\"ua\":\"a\\\",\"req\":\"b\",\"status\":1}",
	    "expected \"\\\",\\\"req\\\":\\\"\" after $http_user_agent");
}

static void
test_escape_none(void **state)
{
	(void)state;
	hx_open_ok(NGINX, "escape", "none", NULL);
	hx_run_ok("10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /\\x22 "
	    "HTTP/1.1\" 200 5 \"-\" \"a\\\\b\"", 1);
	hx_assert_str(0, "request", "GET /\\x22 HTTP/1.1");
	hx_assert_str(0, "http_user_agent", "a\\\\b");
}

/* Several unescaped values in one row stay valid together, and records
 * that grow the scratch buffer do not disturb the next ones. */
static void
test_scratch_reuse(void **state)
{
	char line[1024], ua[600];
	const struct udtf_value *v;

	(void)state;
	hx_open_ok(NGINX, NULL);
	for (int round = 0; round < 3; round++) {
		size_t n = (size_t)(round == 1 ? 500 : 10);

		memset(ua, 'u', n);
		ua[n] = '\0';
		snprintf(line, sizeof line, "10.0.0.1 - \\x41 "
		    "[10/Oct/2000:13:55:36 -0700] \"\\x42\\x43\" 200 5 "
		    "\"\\x44\" \"%s\\x45\"", ua);
		hx_run_ok(line, 1);
		hx_assert_str(0, "remote_user", "A");
		hx_assert_str(0, "request", "BC");
		hx_assert_str(0, "http_referer", "D");
		v = hx_value(0, "http_user_agent");
		assert_int_equal(v->u.s.len, n + 1);
		assert_int_equal(v->u.s.ptr[n], 'E');
	}
}

static void
test_emit_refused(void **state)
{
	(void)state;
	hx_open_ok(NGINX, NULL);
	hx.refuse = -ENOBUFS;
	assert_int_equal(hx_run(LINE_IPV4), -ENOBUFS);
}

/* The raw UDTF. */

static void
test_raw(void **state)
{
	(void)state;
	assert_int_equal(RAW->abi_version, KEDGE_UDTF_ABI_VERSION);
	assert_null(RAW->keys[0].name);
	hx_open_ok(RAW, NULL);
	assert_int_equal(hx.ncols, 1);
	assert_string_equal(hx.cols[0].name, "raw");
	assert_int_equal(hx.cols[0].type, UDTF_STRING);
	assert_int_equal(hx_run_len("any\0thing\r\n", 11), 0);
	assert_int_equal(hx.nrows, 1);
	hx_assert_bytes(0, "raw", "any\0thing\r\n", 11);
	assert_int_equal(hx_run_len("", 0), 0);
	assert_int_equal(hx.nrows, 1);
	hx_assert_str(0, "raw", "");
	hx.refuse = -E2BIG;
	assert_int_equal(hx_run("x"), -E2BIG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_combined_columns, hx_teardown),
		cmocka_unit_test_teardown(test_compile_braces_and_literals,
		    hx_teardown),
		cmocka_unit_test_teardown(test_compile_duplicates, hx_teardown),
		cmocka_unit_test_teardown(test_compile_errors, hx_teardown),
		cmocka_unit_test_teardown(test_init_bad_escape_and_key,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_ipv4, hx_teardown),
		cmocka_unit_test_teardown(test_combined_ipv6, hx_teardown),
		cmocka_unit_test_teardown(test_combined_escaped_quotes,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_empty_and_dash,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_tls_garbage,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_long_line, hx_teardown),
		cmocka_unit_test_teardown(test_combined_truncated, hx_teardown),
		cmocka_unit_test_teardown(test_combined_line_endings,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_bad_values,
		    hx_teardown),
		cmocka_unit_test_teardown(test_combined_time_offsets,
		    hx_teardown),
		cmocka_unit_test_teardown(test_quick_ends_as_scanned,
		    hx_teardown),
		cmocka_unit_test_teardown(test_typed_format, hx_teardown),
		cmocka_unit_test_teardown(test_escape_json, hx_teardown),
		cmocka_unit_test_teardown(test_escape_none, hx_teardown),
		cmocka_unit_test_teardown(test_scratch_reuse, hx_teardown),
		cmocka_unit_test_teardown(test_emit_refused, hx_teardown),
		cmocka_unit_test_teardown(test_raw, hx_teardown),
		cmocka_unit_test_teardown(test_lint, hx_teardown),
		cmocka_unit_test_teardown(test_lint_note, hx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
