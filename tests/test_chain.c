/*
 * UDTF chains: each UDTF parses the first column of the rows of the one
 * before, the other columns ride along, strings of later UDTFs survive
 * their next call, and a failure anywhere rejects the whole record with a
 * reason that says where.  Also the per-record limits of rows and bytes,
 * and batches: many records' rows kept at once, each record timed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/config/config.h"
#include "agent/parse/chain.h"

#define HEAD "kafka = { brokers = \"k1:9092\"; };\n" \
	"output = { spool_dir = \"/tmp\"; local_dir = \"/tmp/kedge-test-out\"; };\n"

static struct conf *conf;
static struct chain *ch;

static int
teardown(void **state)
{
	(void)state;
	chain_free(ch);
	conf_free(conf);
	ch = NULL;
	conf = NULL;
	return 0;
}

/* Loads a config whose one table has udtf and udtf_config as given (in
 * libconfig syntax) and extra keys; builds its chain, or returns NULL with
 * the error in err. */
static struct chain *
open_chain(const char *udtf, const char *udtf_config, const char *extra,
    char *err, size_t errlen)
{
	char path[] = "/tmp/kedge-test-XXXXXX", text[4096];
	int fd, n;

	n = snprintf(text, sizeof(text), HEAD "tables = ( { name = \"t\"; "
	    "topics = [ \"a\" ];\n udtf = %s;\n udtf_config = %s;\n %s } );\n",
	    udtf, udtf_config, extra);
	assert_true(n > 0 && (size_t)n < sizeof(text));
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, text, (size_t)n), n);
	close(fd);
	conf = conf_load(path, err, errlen);
	unlink(path);
	if (conf == NULL)
		fail_msg("conf_load: %s", err);
	return ch = chain_new(conf, 0, err, errlen);
}

static void
open_chain_ok(const char *udtf, const char *udtf_config, const char *extra)
{
	char err[1024];

	if (open_chain(udtf, udtf_config, extra, err, sizeof(err)) == NULL)
		fail_msg("chain_new: %s", err);
}

static int
run(const char *s, char *reason, size_t reasonlen)
{
	struct udtf_record rec = { s, strlen(s), "a", 0, 7, -1 };
	struct chain_span span;

	assert_int_equal(chain_parse_batch(ch, &rec, 1, &span, NULL), 1);
	snprintf(reason, reasonlen, "%s", span.result < 0 ?
	    chain_reason(ch, &span) : "");
	return span.result;
}

static const struct udtf_value *
run_ok(const char *s, size_t want_rows)
{
	char reason[512];
	size_t nrows;

	if (run(s, reason, sizeof(reason)) != 0)
		fail_msg("rejected: %s", reason);
	const struct udtf_value *rows = chain_rows(ch, &nrows);
	assert_int_equal(nrows, want_rows);
	return rows;
}

static void
assert_col(size_t i, const char *name, enum udtf_type type)
{
	const struct udtf_column *cols;
	size_t ncols;

	chain_columns(ch, &cols, &ncols);
	assert_true(i < ncols);
	assert_string_equal(cols[i].name, name);
	assert_int_equal(cols[i].type, type);
}

static void
assert_str(const struct udtf_value *v, const char *want)
{
	assert_int_equal(v->type, UDTF_STRING);
	assert_int_equal(v->u.s.len, strlen(want));
	assert_memory_equal(v->u.s.ptr, want, v->u.s.len);
}

/* One UDTF: the chain is that UDTF. */
static void
test_single(void **state)
{
	const struct udtf_value *row;

	(void)state;
	open_chain_ok("\"nginx\"", "{ log_format = \"$request $status\"; }", "");
	assert_string_equal(chain_name(ch), "nginx");
	assert_int_equal(chain_length(ch), 1);
	row = run_ok("GET 200", 1);
	assert_str(&row[0], "GET");
	assert_int_equal(row[1].type, UDTF_INT64);
	assert_int_equal(row[1].u.i64, 200);
}

/* nginx → raw: raw takes nginx's first column; status rides along. */
static void
test_carry(void **state)
{
	const struct udtf_value *row;
	const struct udtf_column *cols;
	size_t ncols;

	(void)state;
	open_chain_ok("[ \"nginx\", \"raw\" ]",
	    "( { log_format = \"$request $status\"; }, { } )", "");
	assert_string_equal(chain_name(ch), "nginx,raw");
	chain_columns(ch, &cols, &ncols);
	assert_int_equal(ncols, 2);
	assert_col(0, "raw", UDTF_STRING);
	assert_col(1, "status", UDTF_INT64);
	row = run_ok("GET 404", 1);
	assert_str(&row[0], "GET");
	assert_int_equal(row[1].u.i64, 404);
}

/* nginx → nginx: the later nginx's strings are its own memory, reused on
 * its next call: the chain keeps copies. */
static void
test_nested_strings_survive(void **state)
{
	const struct udtf_value *row;

	(void)state;
	open_chain_ok("[ \"nginx\", \"nginx\" ]",
	    "( { log_format = \"$msg|$host\"; },\n"
	    "  { log_format = \"$request_method $status\"; escape = \"json\"; } )",
	    "");
	assert_col(0, "request_method", UDTF_STRING);
	assert_col(1, "status", UDTF_INT64);
	assert_col(2, "host", UDTF_STRING);
	/* \u0041 is unescaped into the second nginx's own buffer */
	row = run_ok("P\\u0041TCH 201|web-1", 1);
	assert_str(&row[0], "PATCH");
	assert_int_equal(row[1].u.i64, 201);
	assert_str(&row[2], "web-1");
}

/* A failure in a later UDTF rejects the record, saying which and where. */
static void
test_later_failure_rejects(void **state)
{
	char reason[512];

	(void)state;
	open_chain_ok("[ \"nginx\", \"nginx\" ]",
	    "( { log_format = \"$msg|$host\"; }, { log_format = \"$request $status\"; } )",
	    "");
	assert_int_equal(run("GET abc|web-1", reason, sizeof(reason)), -EINVAL);
	assert_string_equal(reason, "nginx, on row 1 of nginx: status: \"abc\" "
	    "is not an integer");
	/* the first UDTF's own reason stays as it is */
	assert_int_equal(run("no bar here", reason, sizeof(reason)), -EINVAL);
	assert_string_equal(reason, "line ends inside $msg");
	/* a NULL first column gives the next UDTF nothing to parse */
	assert_int_equal(run("-|web-1", reason, sizeof(reason)), -EINVAL);
	assert_string_equal(reason, "row 1 of nginx: msg is NULL, nothing for "
	    "nginx to parse");
	/* and the chain goes on with the next record */
	run_ok("GET 200|web-2", 1);
}

static void
test_column_clash_refused(void **state)
{
	char err[1024];

	(void)state;
	assert_null(open_chain("[ \"nginx\", \"nginx\" ]",
	    "( { log_format = \"$msg|$status\"; }, { log_format = \"$status\"; } )",
	    "", err, sizeof(err)));
	assert_non_null(strstr(err, ": tables[0].udtf: two columns named "
	    "\"status\" in the chain nginx,nginx; rename one"));
}

static void
test_feeding_a_non_string_refused(void **state)
{
	char err[1024];

	(void)state;
	assert_null(open_chain("[ \"nginx\", \"raw\" ]",
	    "( { log_format = \"$status $request\"; }, { } )", "", err,
	    sizeof(err)));
	assert_non_null(strstr(err, ":4: tables[0].udtf: UDTF nginx cannot feed "
	    "the next UDTF: its first column is not a string"));
}

static void
test_bytes_limit(void **state)
{
	char reason[512], big[3000];

	(void)state;
	open_chain_ok("\"raw\"", "{ }", "max_bytes_per_record = 2048;");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(run(big, reason, sizeof(reason)), -E2BIG);
	assert_string_equal(reason, "the rows of one record hold more than "
	    "2048 bytes");
	big[2048] = '\0';
	run_ok(big, 1);
}

/* A record that yields more rows than max_rows_per_record is rejected,
 * whichever UDTF of the chain makes them. */
static void
test_rows_limit(void **state)
{
	char reason[512];

	(void)state;
	open_chain_ok("[ \"split\", \"raw\" ]", "( { separator = \";\"; }, { } )",
	    "max_rows_per_record = 3;");
	run_ok("a;b;c", 3);
	assert_int_equal(run("a;b;c;d", reason, sizeof(reason)), -E2BIG);
	assert_string_equal(reason, "more than 3 rows from one record");
	run_ok("a", 1);
}

/* The last UDTF learns how many rows the record may still give: json
 * stops at that many elements and one more, so that an element past them
 * which would not convert is never reached, and the record is refused for
 * its rows, in a chain too, where earlier lines count. */
static void
test_rows_limit_known_to_udtf(void **state)
{
	char reason[512], rec[4096];
	size_t n = 0;

	(void)state;
	open_chain_ok("[ \"split\", \"json\" ]", "( { separator = \";\"; }, "
	    "{ fields = \"i=@:int64\"; explode = \"a\"; } )",
	    "max_rows_per_record = 3;");
	n += (size_t)snprintf(rec + n, sizeof(rec) - n, "{\"a\":[1,2]};"
	    "{\"a\":[3");
	for (int i = 0; i < 500; i++)
		n += (size_t)snprintf(rec + n, sizeof(rec) - n, ",%d", i);
	snprintf(rec + n, sizeof(rec) - n, ",\"x\"]}");
	assert_int_equal(run(rec, reason, sizeof(reason)), -E2BIG);
	assert_string_equal(reason, "more than 3 rows from one record");
	run_ok("{\"a\":[1,2]};{\"a\":[3]}", 3);
}

/* A batch keeps every record's rows: strings a UDTF unescaped into its own
 * memory are copied before its next record reuses it, the others point
 * into their record; a refused record keeps nothing and its reason stays;
 * the limits hold per record; every record is timed once. */
static void
test_batch(void **state)
{
	static const char *lines[] = {
		"P\\u0041TCH 201",        /* escaped: copied */
		"GET 200",                /* plain: into the record */
		"GET two",                /* refused */
		"D\\u0045LETE 204",
	};
	struct udtf_record recs[4];
	struct chain_span spans[4];
	struct latency lat;
	const struct udtf_value *rows;
	size_t nrows;

	(void)state;
	open_chain_ok("\"nginx\"", "{ log_format = \"$request $status\"; "
	    "escape = \"json\"; }", "max_rows_per_record = 1;");
	memset(&lat, 0, sizeof(lat));
	for (size_t i = 0; i < 4; i++)
		recs[i] = (struct udtf_record){ lines[i], strlen(lines[i]), "a",
		    2, (int64_t)(10 + i), -1 };
	assert_int_equal(chain_parse_batch(ch, recs, 4, spans, &lat), 4);
	rows = chain_rows(ch, &nrows);
	assert_int_equal(nrows, 3);
	assert_int_equal(spans[0].result, 0);
	assert_int_equal(spans[0].first, 0);
	assert_int_equal(spans[0].nrows, 1);
	assert_str(&rows[0], "PATCH");
	assert_int_equal(rows[1].u.i64, 201);
	assert_int_equal(spans[1].first, 1);
	assert_str(&rows[2], "GET");
	assert_ptr_equal(rows[2].u.s.ptr, lines[1]);
	assert_int_equal(rows[3].u.i64, 200);
	assert_int_equal(spans[2].result, -EINVAL);
	assert_int_equal(spans[2].nrows, 0);
	assert_string_equal(chain_reason(ch, &spans[2]),
	    "status: \"two\" is not an integer");
	assert_int_equal(spans[3].first, 2);
	assert_str(&rows[4], "DELETE");
	assert_int_equal(lat.hist.count, 4);
	assert_int_equal(lat.nslow, 4);
	/* without a latency nothing is timed; a new batch starts afresh */
	assert_int_equal(chain_parse_batch(ch, recs + 1, 1, spans, NULL), 1);
	chain_rows(ch, &nrows);
	assert_int_equal(nrows, 1);
	assert_int_equal(lat.hist.count, 4);
}

/* A batch ends once it holds CHAIN_BATCH_BYTES; the caller goes on with
 * the rest in the next. */
static void
test_batch_bounded(void **state)
{
	enum { N = 8, LEN = 1 << 20 };
	struct udtf_record recs[N];
	struct chain_span spans[N];
	char *big = malloc(LEN);
	size_t got, nrows;

	(void)state;
	assert_non_null(big);
	open_chain_ok("\"nginx\"", "{ log_format = \"$request\"; "
	    "escape = \"json\"; }", "max_bytes_per_record = 2097152;");
	memset(big, 'x', LEN);
	/* unescaped into nginx's memory: the batch holds a copy of ~1 MiB
	 * a record */
	memcpy(big, "\\u0041", 6);
	for (size_t i = 0; i < N; i++)
		recs[i] = (struct udtf_record){ big, LEN, "a", 0,
		    (int64_t)i, -1 };
	got = chain_parse_batch(ch, recs, N, spans, NULL);
	assert_true(got >= 4 && got < N);
	chain_rows(ch, &nrows);
	assert_int_equal(nrows, got);
	assert_int_equal(chain_parse_batch(ch, recs + got, N - got, spans,
	    NULL), N - got);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_single, teardown),
		cmocka_unit_test_teardown(test_carry, teardown),
		cmocka_unit_test_teardown(test_nested_strings_survive, teardown),
		cmocka_unit_test_teardown(test_later_failure_rejects, teardown),
		cmocka_unit_test_teardown(test_column_clash_refused, teardown),
		cmocka_unit_test_teardown(test_feeding_a_non_string_refused,
		    teardown),
		cmocka_unit_test_teardown(test_bytes_limit, teardown),
		cmocka_unit_test_teardown(test_rows_limit, teardown),
		cmocka_unit_test_teardown(test_rows_limit_known_to_udtf, teardown),
		cmocka_unit_test_teardown(test_batch, teardown),
		cmocka_unit_test_teardown(test_batch_bounded, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
