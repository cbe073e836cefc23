/*
 * webhdfs: the URLs the client builds and the answers it reads, without a
 * server.  A URL for a 6000-byte non-ASCII path with user.name is whole
 * and percent-encoded (it overflowed a fixed buffer once); every query
 * value is encoded, '&' and '=' included.  Hostile JSON answers (an owner
 * or group named after the members kedge reads, duplicate members, wrong
 * types, numbers too big, negative or fractional, members missing, deep
 * nesting, trailing bytes, names that are no entry of a directory) are
 * refused with a sentence naming the request, line and column for what is
 * no JSON; a listing is refused whole, before any entry is seen.  A
 * RemoteException's message reaches the sentence escaped and cut short.
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
#include <curl/curl.h>

#include "agent/target/webhdfs.h"
#include "agent/target/webhdfs_answer.h"
#include "tests/testlib.h"

#define LONG_BYTES 6000

static struct webhdfs *
open_client(const char *url, const char *user)
{
	struct webhdfs_opts o = { url, "/warehouse/ods", user, NULL, 10, 60 };
	char err[512];
	struct webhdfs *w = webhdfs_open(&o, err, sizeof(err));

	if (w == NULL)
		fail_msg("webhdfs_open: %s", err);
	return w;
}

static int
hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..len) percent-decoded ('+' as ' ' when plus), malloc'd; NULL when a
 * '%' is not followed by two hex digits. */
static char *
decode(const char *s, size_t len, int plus)
{
	char *out = malloc(len + 1);
	size_t n = 0;

	assert_non_null(out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%') {
			if (i + 2 >= len || hex(s[i + 1]) < 0 ||
			    hex(s[i + 2]) < 0) {
				free(out);
				return NULL;
			}
			out[n++] = (char)(hex(s[i + 1]) << 4 | hex(s[i + 2]));
			i += 2;
		} else {
			out[n++] = plus && s[i] == '+' ? ' ' : s[i];
		}
	}
	out[n] = '\0';
	return out;
}

/* Whether every byte of s is one a URL may carry unencoded. */
static int
url_safe(const char *s)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("-._~/%?&=:+", *s)))
			return 0;
	return 1;
}

static void
test_url_long_non_ascii(void **state)
{
	struct webhdfs *w = open_client("http://namenode:9870",
	    "kedge ü&x=1");
	char rel[LONG_BYTES + 16], err[512], *url = NULL, *path, *query;
	const char *q;
	size_t n = 0;

	(void)state;
	memcpy(rel, "access/", 7);
	n = 7;
	while (n + 2 <= LONG_BYTES) {
		rel[n++] = (char)0xc3; /* "é" */
		rel[n++] = (char)0xa9;
	}
	memcpy(rel + n, "/a b%#?", 8);
	assert_int_equal(webhdfs_url(w, rel, "GETFILESTATUS", NULL, &url, err,
	    sizeof(err)), 0);
	assert_non_null(url);
	assert_true(url_safe(url));
	assert_int_equal(strncmp(url, "http://namenode:9870/webhdfs/v1/"
	    "warehouse/ods/access/%", 45), 0);
	assert_non_null(q = strchr(url, '?'));
	assert_non_null(path = decode(url + 20, (size_t)(q - url - 20), 0));
	assert_int_equal(strncmp(path, "/webhdfs/v1/warehouse/ods/", 26), 0);
	assert_string_equal(path + 26, rel);
	assert_non_null(query = decode(q + 1, strlen(q + 1), 1));
	/* the '&' and '=' of the user's name are encoded: one parameter */
	assert_string_equal(query, "op=GETFILESTATUS&user.name=kedge ü&x=1");
	assert_null(strstr(q, "x=1"));
	assert_int_equal(strchr(q + 1, '&') - q, (long)strlen("?op="
	    "GETFILESTATUS"));
	free(path);
	free(query);
	curl_free(url);
	webhdfs_close(w);
}

static void
test_url_param_and_base_path(void **state)
{
	struct webhdfs *w = open_client("https://gateway:8443/hdfs/", NULL);
	char err[512], *url = NULL;

	(void)state;
	assert_int_equal(webhdfs_url(w, "t/dt=20261201/.p.gz.tmp", "RENAME",
	    "destination=/warehouse/ods/t/a&b c", &url, err, sizeof(err)), 0);
	/* libcurl writes hex digits in lower or upper case, by version */
	assert_int_equal(strcasecmp(url, "https://gateway:8443/hdfs/webhdfs/v1/"
	    "warehouse/ods/t/dt%3d20261201/.p.gz.tmp?op=RENAME&destination="
	    "%2fwarehouse%2fods%2ft%2fa%26b+c"), 0);
	curl_free(url);
	webhdfs_close(w);
}

static void
test_clear_warning(void **state)
{
	(void)state;
	assert_non_null(webhdfs_clear_warning("http://httpfs:14000"));
	assert_non_null(strstr(webhdfs_clear_warning("http://h:1"),
	    "in the clear"));
	assert_null(webhdfs_clear_warning("https://namenode:9871"));
}

#define ST(fields) "{\"FileStatus\":{" fields "}}"

static void
test_status(void **state)
{
	static const char *const bad[] = {
		ST("\"type\":\"FILE\",\"length\":1,\"length\":2"),
		ST("\"type\":\"FILE\",\"length\":\"5\""),
		ST("\"type\":7,\"length\":5"),
		ST("\"type\":\"FILE\",\"length\":99999999999999999999"),
		ST("\"type\":\"FILE\",\"length\":-1"),
		ST("\"type\":\"FILE\",\"length\":1e30"),
		ST("\"type\":\"FILE\""),
		ST("\"length\":3"),
		"{\"FileStatus\":[{\"type\":\"FILE\",\"length\":3}]}",
		"{\"FileStatuses\":{\"FileStatus\":[]}}",
		"{\"FileStatus\":{\"type\":\"FILE\",\"length\":3}} trailing",
		"{\"FileStatus\":{\"type\":\"FILE\",\"length\":3}",
		"null", "[]", "", "\"length\":3",
	};
	char err[512];
	int64_t len = -7;
	int is_dir = -7;
	const char *ok = ST("\"owner\":\"length\",\"group\":\"DIRECTORY\","
	    "\"pathSuffix\":\"\",\"type\":\"FILE\",\"length\":42");

	(void)state;
	assert_int_equal(webhdfs_answer_status(ok, strlen(ok), "GETFILESTATUS "
	    "/x", &is_dir, &len, err, sizeof(err)), 0);
	assert_int_equal(is_dir, 0);
	assert_int_equal(len, 42);
	ok = ST("\"type\":\"DIRECTORY\",\"length\":0,\"owner\":\"FILE\"");
	assert_int_equal(webhdfs_answer_status(ok, strlen(ok), "S", &is_dir,
	    &len, err, sizeof(err)), 0);
	assert_int_equal(is_dir, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (webhdfs_answer_status(bad[i], strlen(bad[i]), "GETFILESTATUS "
		    "/x", &is_dir, &len, err, sizeof(err)) != -EPROTO)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(strncmp(err, "GETFILESTATUS /x: ", 18), 0);
	}
	/* a duplicate member is named with its place */
	webhdfs_answer_status(bad[0], strlen(bad[0]), "S", &is_dir, &len, err,
	    sizeof(err));
	assert_non_null(strstr(err, "duplicate"));
	assert_non_null(strstr(err, "line 1 column"));
}

static void
test_deep_nesting(void **state)
{
	size_t depth = 200000;
	char *body = malloc(2 * depth + 1), err[512];
	int64_t len;
	int is_dir;

	(void)state;
	assert_non_null(body);
	memset(body, '[', depth);
	memset(body + depth, ']', depth);
	body[2 * depth] = '\0';
	assert_int_equal(webhdfs_answer_status(body, 2 * depth, "S", &is_dir,
	    &len, err, sizeof(err)), -EPROTO);
	for (size_t i = 0; i < depth; i++)
		memcpy(body + 2 * i, "{\"", 2);
	assert_int_equal(webhdfs_answer_status(body, 2 * depth, "S", &is_dir,
	    &len, err, sizeof(err)), -EPROTO);
	free(body);
}

struct seen {
	char names[8][64];
	int is_dir[8];
	int64_t len[8];
	int n;
};

static int
on_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 8);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->is_dir[s->n] = is_dir;
	s->len[s->n++] = len;
	return 0;
}

#define LS(entries) "{\"FileStatuses\":{\"FileStatus\":[" entries "]}}"
#define E(name, type, len) "{\"pathSuffix\":\"" name "\",\"type\":\"" type \
	"\",\"length\":" #len ",\"owner\":\"pathSuffix\",\"group\":\"length\"}"

static void
test_list(void **state)
{
	const char *ok = LS("{\"owner\":\"pathSuffix\",\"group\":\"length\","
	    "\"pathSuffix\":\"part-1.gz\",\"type\":\"FILE\",\"length\":10},"
	    E("dt=20261201", "DIRECTORY", 0) "," E("é \\n", "FILE", 7));
	struct seen s = { .n = 0 };
	char err[512];

	(void)state;
	assert_int_equal(webhdfs_answer_list(ok, strlen(ok), "LISTSTATUS /w",
	    NULL, NULL, on_entry, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "part-1.gz");
	assert_int_equal(s.len[0], 10);
	assert_int_equal(s.is_dir[0], 0);
	assert_string_equal(s.names[1], "dt=20261201");
	assert_int_equal(s.is_dir[1], 1);
	assert_string_equal(s.names[2], "é \n");
	/* LISTSTATUS of a file lists the file itself, with no name */
	ok = LS(E("", "FILE", 3));
	s.n = 0;
	assert_int_equal(webhdfs_answer_list(ok, strlen(ok), "L", NULL, NULL,
	    on_entry, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
}

static void
test_list_hostile(void **state)
{
	static const char *const bad[] = {
		LS(E("a", "FILE", 1) "," E("../x", "FILE", 1)),
		LS(E("a", "FILE", 1) "," E("a/b", "FILE", 1)),
		LS(E("a", "FILE", 1) "," E("..", "DIRECTORY", 0)),
		LS(E("a", "FILE", 1) "," E(".", "DIRECTORY", 0)),
		LS(E("a", "FILE", 1) "," E("", "FILE", 1)),
		LS(E("", "DIRECTORY", 0)),
		LS(E("a", "FILE", 1) "," E("b\\u0000c", "FILE", 1)),
		LS(E("a", "FILE", 1) ",{\"pathSuffix\":\"b\",\"type\":\"FILE\"}"),
		LS(E("a", "FILE", 1) ",{\"pathSuffix\":5,\"type\":\"FILE\","
		    "\"length\":1}"),
		LS(E("a", "FILE", 1) ",{\"pathSuffix\":\"b\",\"pathSuffix\":"
		    "\"../c\",\"type\":\"FILE\",\"length\":1}"),
		LS(E("a", "FILE", 1) ",\"b\""),
		"{\"FileStatuses\":{\"FileStatus\":{}}}",
		"{\"FileStatuses\":[]}",
		"{\"FileStatus\":{\"pathSuffix\":\"a\"}}",
	};
	struct seen s = { .n = 0 };
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (webhdfs_answer_list(bad[i], strlen(bad[i]), "LISTSTATUS /w",
		    NULL, NULL, on_entry, &s, err, sizeof(err)) >= 0)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(strncmp(err, "LISTSTATUS /w: ", 15), 0);
		/* not even the good entry before the bad one */
		assert_int_equal(s.n, 0);
	}
	webhdfs_answer_list(bad[0], strlen(bad[0]), "L", NULL, NULL, on_entry,
	    &s, err, sizeof(err));
	assert_non_null(strstr(err, "\"../x\""));
}

#define LSB(entries, left) "{\"DirectoryListing\":{\"partialListing\":" \
	LS(entries) ",\"remainingEntries\":" #left "}}"

/* LISTSTATUS_BATCH's pages: whether more remain, and every name after the
 * request's startAfter, so that the pages cannot go round for ever. */
static void
test_list_batch(void **state)
{
	static const char *const bad[] = {
		/* more remain, but none listed: the next page is this one */
		LSB("", 3),
		/* not after "b" */
		LSB(E("c", "FILE", 1) "," E("b", "FILE", 1), 0),
		LSB(E("a", "FILE", 1), 0),
		LSB(E("c", "FILE", 1), -1),
		LS(E("c", "FILE", 1)),
		"{\"DirectoryListing\":{\"partialListing\":" LS(E("c", "FILE",
		    1)) "}}",
		"{\"DirectoryListing\":{\"remainingEntries\":0,"
		    "\"partialListing\":{\"FileStatuses\":{\"FileStatus\":["
		    E("c", "FILE", 1) "],\"x\":[]}},\"remainingEntries\":1}}",
	};
	/* the NameNode's member order, and another */
	const char *ok = LSB(E("c", "FILE", 1) "," E("d", "DIRECTORY", 0), 2);
	const char *last = "{\"DirectoryListing\":{\"remainingEntries\":0,"
	    "\"partialListing\":" LS(E("e", "FILE", 4)) "}}";
	struct seen s = { .n = 0 };
	char err[512];
	int more = -1;

	(void)state;
	assert_int_equal(webhdfs_answer_list(ok, strlen(ok), "L", "b", &more,
	    on_entry, &s, err, sizeof(err)), 0);
	assert_int_equal(more, 1);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[1], "d");
	assert_int_equal(webhdfs_answer_list(last, strlen(last), "L", "d",
	    &more, on_entry, &s, err, sizeof(err)), 0);
	assert_int_equal(more, 0);
	assert_int_equal(s.n, 3);
	s.n = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (webhdfs_answer_list(bad[i], strlen(bad[i]), "L", "b", &more,
		    on_entry, &s, err, sizeof(err)) >= 0)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(s.n, 0);
	}
}

/* Counts the entries and notes the most heap in use while one is seen. */
struct heap_seen {
	size_t n, peak;
};

static int
on_entry_heap(const char *name, int is_dir, int64_t len, void *arg)
{
	struct heap_seen *h = arg;
	size_t used = heap_in_use();

	(void)name, (void)is_dir, (void)len;
	if (used > h->peak)
		h->peak = used;
	h->n++;
	return 0;
}

/* A listing of n entries, each e (a JSON object), malloc'd. */
static char *
listing_of(const char *e, size_t n, size_t *len)
{
	size_t el = strlen(e), head = strlen(LS(""));
	char *body = malloc(head + n * (el + 1) + 1), *p;

	assert_non_null(body);
	p = body + sprintf(body, "{\"FileStatuses\":{\"FileStatus\":[");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		memcpy(p, e, el);
		p += el;
	}
	p += sprintf(p, "]}}");
	*len = (size_t)(p - body);
	return body;
}

/* A listing is read an entry at a time: 20,000 entries (jansson's tree of
 * them alone took 50 MiB) cost less than a megabyte beyond the answer's
 * bytes while they are handed on; and an answer a hostile server makes of
 * millions of empty objects, or of one entry that holds them, is refused
 * at its first entry, within the entry's bound, however long it is. */
static void
test_list_one_at_a_time(void **state)
{
	struct heap_seen h = { 0, 0 };
	char err[512], *body;
	size_t len, before;

	(void)state;
	body = listing_of(E("a-name-as-long-as-the-part-files-are.txt.gz",
	    "FILE", 123456), 20000, &len);
	/* the same name 20,000 times: no check of LISTSTATUS refuses that */
	before = heap_in_use();
	assert_int_equal(webhdfs_answer_list(body, len, "L", NULL, NULL,
	    on_entry_heap, &h, err, sizeof(err)), 0);
	assert_int_equal(h.n, 20000);
	assert_true(h.peak < before + 1024 * 1024);
	free(body);

	body = listing_of("{}", 5000000, &len);
	assert_int_equal(webhdfs_answer_list(body, len, "L", NULL, NULL,
	    on_entry_heap, &h, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "lacks a string type"));
	free(body);

	/* one entry that is most of the answer */
	body = listing_of("{}", 1000000, &len);
	memcpy(body + strlen(LS("")) - 3, "{\"x\":[", 6);
	memcpy(body + len - 3, "]}]}}", 5);
	len += 2;
	assert_int_equal(webhdfs_answer_list(body, len, "L", NULL, NULL,
	    on_entry_heap, &h, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "takes more than 262144 bytes of memory"));
	free(body);
}

static void
test_boolean(void **state)
{
	static const char *const bad[] = {
		"{\"boolean\":1}", "{\"boolean\":\"true\"}", "{\"bool\":true}",
		"{\"boolean\":true,\"boolean\":false}", "true", "{\"boolean\":tru}",
	};
	char err[512];

	(void)state;
	assert_int_equal(webhdfs_answer_boolean("{\"boolean\":true}", 16, "B",
	    err, sizeof(err)), 1);
	assert_int_equal(webhdfs_answer_boolean(" {\"boolean\" : false}\n", 21,
	    "B", err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (webhdfs_answer_boolean(bad[i], strlen(bad[i]), "B", err,
		    sizeof(err)) != -EPROTO)
			fail_msg("accepted: %s", bad[i]);
}

static void
test_exception(void **state)
{
	size_t n = 20000;
	char *body = malloc(n + 200), exc[64], msg[256];
	int len;

	(void)state;
	assert_non_null(body);
	len = snprintf(body, n + 200, "{\"RemoteException\":{\"exception\":"
	    "\"Access\\nControl\\\"Exception\",\"message\":\"line\\n<14>"
	    "kedge: forged\\u001b[0m ");
	memset(body + len, 'x', n);
	strcpy(body + len + n, "\"}}");
	webhdfs_answer_exception(body, strlen(body), exc, sizeof(exc), msg,
	    sizeof(msg));
	assert_string_equal(exc, "Access\\nControl\\\"Exception");
	/* a line break reads as a space: the message is one sentence */
	assert_int_equal(strncmp(msg, "line <14>kedge: forged\\x1b[0m xx",
	    32), 0);
	assert_true(strlen(msg) < sizeof(msg));
	assert_string_equal(msg + strlen(msg) - 3, "...");
	assert_null(strchr(msg, '\n'));
	/* Hadoop's Java stack trace is left out */
	webhdfs_answer_exception("{\"RemoteException\":{\"exception\":\"E\","
	    "\"message\":\"Quota exceeded\\n\\tat org.apache.X(X.java:1)\"}}",
	    93, exc, sizeof(exc), msg, sizeof(msg));
	assert_string_equal(msg, "Quota exceeded");
	/* no RemoteException, or one of the wrong shape: empty */
	webhdfs_answer_exception("{\"RemoteException\":{\"exception\":3}}", 35,
	    exc, sizeof(exc), msg, sizeof(msg));
	assert_string_equal(exc, "");
	assert_string_equal(msg, "");
	webhdfs_answer_exception("<html>", 6, exc, sizeof(exc), msg,
	    sizeof(msg));
	assert_string_equal(exc, "");
	free(body);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_long_non_ascii),
		cmocka_unit_test(test_url_param_and_base_path),
		cmocka_unit_test(test_clear_warning),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_hostile),
		cmocka_unit_test(test_list_batch),
		cmocka_unit_test(test_list_one_at_a_time),
		cmocka_unit_test(test_boolean),
		cmocka_unit_test(test_exception),
	};

	if (webhdfs_global_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
