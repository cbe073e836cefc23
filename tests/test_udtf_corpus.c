/*
 * Every built-in UDTF over its part of the corpus in tests/data: each line
 * the generator marked "ok" gives its row, each line marked "bad" is
 * rejected with a reason, none is dropped and nothing crashes.  The
 * columns are strings (or json) so that the verdict is the format's alone.
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

extern const struct udtf_plugin udtf_nginx_plugin;
extern const struct udtf_plugin udtf_json_plugin;
extern const struct udtf_plugin udtf_kv_plugin;
extern const struct udtf_plugin udtf_csv_plugin;
extern const struct udtf_plugin udtf_tsv_plugin;
extern const struct udtf_plugin udtf_split_plugin;

/* A whole file, NUL-terminated. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data;
	long n;

	if (f == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc((size_t)n + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	data[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return data;
}

/* Runs every line of data through the open UDTF against its verdict in
 * expect.  Returns the number of "bad" lines. */
static int
check_lines(const char *data_path, const char *expect_path)
{
	size_t dlen, elen;
	char *data = slurp(data_path, &dlen), *expect = slurp(expect_path, &elen);
	const char *line = data, *verdict = expect;
	int lineno = 0, bad = 0;

	while (line < data + dlen) {
		const char *nl = memchr(line, '\n', (size_t)(data + dlen - line));
		size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		int want_ok, r;

		lineno++;
		assert_true(verdict < expect + elen);
		want_ok = strncmp(verdict, "ok\n", 3) == 0;
		if (!want_ok && strncmp(verdict, "bad\n", 4) != 0)
			fail_msg("%s:%d: verdict is neither ok nor bad",
			    expect_path, lineno);
		verdict = strchr(verdict, '\n') + 1;
		r = hx_run_len(line, len);
		if (want_ok && (r != 0 || hx.nrows != 1))
			fail_msg("%s:%d: rejected a good line: %s", data_path,
			    lineno, hx.err);
		if (!want_ok && (r >= 0 || hx.err[0] == '\0'))
			fail_msg("%s:%d: accepted a bad line", data_path,
			    lineno);
		bad += !want_ok;
		line += len + 1;
	}
	assert_true(verdict == expect + elen);
	free(data);
	free(expect);
	return bad;
}

static void
test_nginx(void **state)
{
	(void)state;
	hx_open_ok(&udtf_nginx_plugin, NULL);
	assert_int_equal(check_lines("tests/data/nginx.log",
	    "tests/data/nginx.expect"), 44);
}

static void
test_json(void **state)
{
	(void)state;
	hx_open_ok(&udtf_json_plugin, "fields", "ts, host, level, "
	    "user.id:json, user.name, latency_ms:json, ok:json, tags:json, "
	    "items:json, msg", NULL);
	assert_true(check_lines("tests/data/events.jsonl",
	    "tests/data/events.expect") > 0);
}

static void
test_kv(void **state)
{
	(void)state;
	hx_open_ok(&udtf_kv_plugin, "fields", "ts, level, msg, user_id, "
	    "latency, ok, path, err", NULL);
	assert_true(check_lines("tests/data/app.logfmt",
	    "tests/data/app.expect") > 0);
}

static void
test_csv(void **state)
{
	(void)state;
	hx_open_ok(&udtf_csv_plugin, "columns", "id, ts, customer, amount, "
	    "country, note", NULL);
	assert_true(check_lines("tests/data/orders.csv",
	    "tests/data/orders.expect") > 0);
}

static void
test_tsv(void **state)
{
	(void)state;
	hx_open_ok(&udtf_tsv_plugin, "columns", "id, ts, customer, amount, "
	    "country, note", NULL);
	assert_true(check_lines("tests/data/orders.tsv",
	    "tests/data/orders.tsv.expect") > 0);
}

/* The batches: split gives one row per line, each a good nginx line. */
static void
test_batches(void **state)
{
	const struct udtf_plugin *nginx = &udtf_nginx_plugin;
	size_t len, records = 0, events = 0;
	char *data = slurp("tests/data/batches.bin", &len), err[512];
	void *ng;

	(void)state;
	ng = nginx->init(NULL, 0, err, sizeof(err));
	assert_non_null(ng);
	hx_open_ok(&udtf_split_plugin, NULL);
	for (const char *rec = data; rec < data + len; records++) {
		size_t n = strnlen(rec, (size_t)(data + len - rec));
		static struct hx scratch;

		assert_int_equal(hx_run_len(rec, n), 0);
		assert_true(hx.nrows >= 2);
		for (int i = 0; i < hx.nrows; i++, events++) {
			const struct udtf_value *v = &hx.rows[i].v[0];
			struct udtf_record line = { v->u.s.ptr, v->u.s.len, "t",
			    0, 0, -1 };
			memset(&scratch, 0, sizeof(scratch));
			scratch.em.emit = hx_emit;
			scratch.em.opaque = &scratch;
			scratch.ncols = 8;
			if (nginx->process(ng, &line, &scratch.em, err,
			    sizeof(err)) != 0)
				fail_msg("record %zu line %d: %s", records, i,
				    err);
			assert_int_equal(scratch.nrows, 1);
			for (size_t c = 0; c < scratch.rows[0].ncols; c++)
				free(scratch.rows[0].str[c]);
		}
		rec += n + 1;
	}
	assert_int_equal(records, 50);
	assert_true(events > 100);
	nginx->fini(ng);
	free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_nginx, hx_teardown),
		cmocka_unit_test_teardown(test_json, hx_teardown),
		cmocka_unit_test_teardown(test_kv, hx_teardown),
		cmocka_unit_test_teardown(test_csv, hx_teardown),
		cmocka_unit_test_teardown(test_tsv, hx_teardown),
		cmocka_unit_test_teardown(test_batches, hx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
