/*
 * status: `kedge status` tells whether the daemon that wrote the status
 * files still runs from the pid in status.json; a pid no process can
 * have (one past a pid_t, which a cast would turn into 0, the caller's own
 * process group) is not taken for a running daemon.  The publisher's
 * lines: while files fail, the failure's sentence; once they publish
 * again, the latest failure is kept with its time.  status.json holds the
 * partitions assigned and the checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agent/config/config.h"
#include "agent/ops/status.h"

/* What status_show() prints, in out[size], for a status.json whose pid is
 * pid (a JSON number as text); returns its exit status. */
static int
show(const char *pid, char *out, size_t size)
{
	char dir[] = "/tmp/kedge-status-XXXXXX", path[64], text[64];
	struct conf c = { 0 };
	FILE *f, *o;
	size_t n;
	int r;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" STATUS_JSON_FILE, dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "{\"pid\":%s,\"at_exit\":false,\"checks\":{}}\n", pid);
	assert_int_equal(fclose(f), 0);
	snprintf(text, sizeof(text), "%s/" STATUS_FILE, dir);
	assert_non_null(f = fopen(text, "w"));
	fprintf(f, "kedge 0.1.0 pid %s started x written y\n", pid);
	assert_int_equal(fclose(f), 0);
	c.output.spool_dir = dir;
	c.path = "kedge.conf";
	c.metrics.stall_timeout = 30;
	assert_non_null(o = tmpfile());
	r = status_show(&c, 0, o);
	rewind(o);
	n = fread(out, 1, size - 1, o);
	out[n] = '\0';
	fclose(o);
	unlink(path);
	unlink(text);
	rmdir(dir);
	return r;
}

static void
test_pid(void **state)
{
	char pid[32], out[4096];

	(void)state;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	assert_int_equal(show(pid, out, sizeof(out)), 0);
	assert_true(strncmp(out, "running (pid ", 13) == 0);
	assert_int_equal(show("4294967296", out, sizeof(out)),
	    STATUS_NOT_RUNNING);
	assert_true(strncmp(out, "not running", 11) == 0);
	/* not a number jansson holds: no status at all */
	assert_int_equal(show("99999999999999999999999", out, sizeof(out)),
	    STATUS_NOT_RUNNING);
	assert_string_equal(out, "");
	assert_int_equal(show("-1", out, sizeof(out)), STATUS_NOT_RUNNING);
	assert_true(strncmp(out, "not running", 11) == 0);
}

/* The status file that status_write() makes of published, in out. */
static void
written(const struct publish_stats *published, char *out, size_t size)
{
	char dir[] = "/tmp/kedge-status-XXXXXX", path[64];
	struct conf c = { 0 };
	struct hist checkpoints = { 0 };
	struct status s = { 0 };
	FILE *f;
	size_t n;

	assert_non_null(mkdtemp(dir));
	c.output.spool_dir = dir;
	s.started = time(NULL);
	s.checkpoints = &checkpoints;
	s.published = published;
	assert_int_equal(status_write(&c, &s), 0);
	snprintf(path, sizeof(path), "%s/" STATUS_FILE, dir);
	assert_non_null(f = fopen(path, "r"));
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" STATUS_JSON_FILE, dir);
	unlink(path);
	rmdir(dir);
}

static void
test_publish_failures(void **state)
{
	struct publish_stats p = { .files = 3, .errors = 0 };
	char out[8192];

	(void)state;
	written(&p, out, sizeof(out));
	assert_non_null(strstr(out, "published 3 files, 0 bytes; 0 publish "
	    "errors\n"));
	assert_null(strstr(out, "publishing failing"));
	assert_null(strstr(out, "last publish error"));

	p.errors = 1;
	strcpy(p.last_error, "CREATE /d/x: HDFS answered 403 SafeModeException");
	strcpy(p.last_failure, p.last_error);
	p.last_failure_at = 1796000000;
	written(&p, out, sizeof(out));
	assert_non_null(strstr(out, "\npublishing failing: CREATE /d/x: HDFS "
	    "answered 403 SafeModeException\n"));
	assert_null(strstr(out, "last publish error"));

	p.last_error[0] = '\0';
	written(&p, out, sizeof(out));
	assert_null(strstr(out, "publishing failing"));
	assert_non_null(strstr(out, "\nlast publish error at "
	    "2026-11-30T00:53:20Z ("));
	assert_non_null(strstr(out, " s ago): CREATE /d/x: HDFS answered 403 "
	    "SafeModeException\n"));
}

/* status.json holds the facts and the checks: with no partition
 * assigned, "assigned" fails and the topics say 0; a JSON reader reads
 * it back. */
static void
test_json(void **state)
{
	char dir[] = "/tmp/kedge-status-XXXXXX", path[64];
	struct metrics_topic topics[] = { { "web", 0 }, { "app", 0 } };
	struct health h = { .started = 1 };
	struct hist checkpoints = { 0 };
	struct conf c = { 0 };
	struct status s = { 0 };
	json_error_t jerr;
	json_t *doc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	c.output.spool_dir = dir;
	s.started = time(NULL);
	s.checkpoints = &checkpoints;
	s.topics = topics;
	s.ntopics = 2;
	s.health = &h;
	snprintf(h.publishing, sizeof(h.publishing), "CREATE /d/x: HDFS "
	    "answered 403");
	assert_int_equal(status_write(&c, &s), 0);
	snprintf(path, sizeof(path), "%s/" STATUS_JSON_FILE, dir);
	assert_non_null(doc = json_load_file(path, JSON_REJECT_DUPLICATES,
	    &jerr));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    doc, "assigned"), "web")), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "pid")),
	    getpid());
	assert_true(json_is_false(json_object_get(json_object_get(
	    json_object_get(doc, "checks"), "assigned"), "ok")));
	assert_true(json_is_true(json_object_get(json_object_get(
	    json_object_get(doc, "checks"), "started"), "ok")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_object_get(doc, "checks"), "publishing"), "detail")),
	    "failing: CREATE /d/x: HDFS answered 403");
	json_decref(doc);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" STATUS_FILE, dir);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_publish_failures),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
