/*
 * health: the checks behind /health, /ready and kedge status.  "alive"
 * passes up to metrics.stall_timeout and fails past it, saying the loop
 * is stuck; each other check fails alone for its own fact, with its
 * sentence; the body is one line of JSON that a reader parses back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ops/health.h"

/* check's "ok" in checks: 1, 0, or -1 when it is not there. */
static int
ok_of(json_t *checks, const char *check)
{
	json_t *c = json_object_get(checks, check);

	return c == NULL ? -1 : json_is_true(json_object_get(c, "ok"));
}

static const char *
detail_of(json_t *checks, const char *check)
{
	return json_string_value(json_object_get(json_object_get(checks, check),
	    "detail"));
}

static void
test_alive(void **state)
{
	json_t *checks = json_object();

	(void)state;
	assert_int_equal(health_check_alive(checks, 30.0, 1, 30), 1);
	assert_string_equal(detail_of(checks, "alive"),
	    "the main loop turned 30 s ago");
	assert_int_equal(health_check_alive(checks, 31.0, 1, 30), 0);
	assert_string_equal(detail_of(checks, "alive"), "the main loop has "
	    "not turned for 31 s, over metrics.stall_timeout (30 s): it is "
	    "stuck");
	assert_int_equal(health_check_alive(checks, 2.0, 0, 30), 1);
	assert_non_null(strstr(detail_of(checks, "alive"), "starting"));
	assert_int_equal(json_object_size(checks), 1);
	json_decref(checks);
}

static void
test_each_check(void **state)
{
	static const char *names[] = { "started", "brokers", "assigned",
	    "consuming", "publishing", "running" };
	const struct health good = { .started = 1, .assigned = 3 };

	(void)state;
	for (size_t bad = 0; bad <= 6; bad++) {
		struct health h = good;
		json_t *checks = json_object();

		if (bad == 0)
			h.started = 0;
		else if (bad == 1)
			h.brokers_down = 940;
		else if (bad == 2)
			h.assigned = 0;
		else if (bad == 3)
			strcpy(h.paused, "the spool is full");
		else if (bad == 4)
			strcpy(h.publishing, "PUT x: 403");
		else if (bad == 5)
			strcpy(h.stopping, "told to stop");
		assert_int_equal(health_check(checks, &h, 1000), bad == 6);
		for (size_t i = 0; i < 6; i++)
			assert_int_equal(ok_of(checks, names[i]), i != bad);
		json_decref(checks);
	}
}

static void
test_details(void **state)
{
	struct health h = { .brokers_down = 940, .assigned = 1 };
	json_t *checks = json_object();

	(void)state;
	strcpy(h.waiting, "the brokers b:9092 have not answered for topic t "
	    "yet");
	strcpy(h.publishing, "PUT x: 403");
	assert_int_equal(health_check(checks, &h, 1000), 0);
	assert_string_equal(detail_of(checks, "started"), h.waiting);
	assert_string_equal(detail_of(checks, "brokers"),
	    "no broker has answered for 60 s");
	assert_string_equal(detail_of(checks, "assigned"),
	    "1 partition assigned");
	assert_string_equal(detail_of(checks, "publishing"),
	    "failing: PUT x: 403");
	json_decref(checks);
}

static void
test_body(void **state)
{
	json_t *checks = json_object(), *doc;
	json_error_t jerr;
	char *body;

	(void)state;
	assert_int_equal(health_check_alive(checks, 0, 1, 30), 1);
	assert_non_null(body = health_body(checks, 1));
	assert_int_equal(body[strlen(body) - 1], '\n');
	/* one line */
	assert_ptr_equal(strchr(body, '\n'), body + strlen(body) - 1);
	assert_non_null(doc = json_loads(body, 0, &jerr));
	assert_true(json_is_true(json_object_get(doc, "ok")));
	assert_int_equal(ok_of(json_object_get(doc, "checks"), "alive"), 1);
	json_decref(doc);
	free(body);
	assert_null(health_body(NULL, 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alive),
		cmocka_unit_test(test_each_check),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
