/*
 * json_names: a table, topic, host or rejected table's name holding a
 * quote, a backslash, a newline, a control byte or letters beyond ASCII
 * reads back as it was from every JSON file kedge writes: a part file's
 * sidecar (from its journal), a manifest, a progress file.  Each file is
 * also parsed by jansson on its own, so that what one of kedge's writers
 * gets wrong its own reader cannot hide.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/complete/complete.h"
#include "agent/complete/manifest.h"
#include "agent/config/config.h"
#include "agent/parse/rejects.h"
#include "agent/target/target.h"
#include "agent/write/journal.h"
#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "lib/fsutil.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Every byte JSON must escape, and some it must not. */
#define NASTY "a\"b\\c\nd\te\x01\x1f\x7f \xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80"
/* What a journal's "r TABLE A B" line can carry: no white space and no
 * control byte (a journal refuses those as damage). */
#define NASTY_WORD "r\"e\\j\xc3\xa9"

struct fixture {
	char dir[64];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/kedge-json-names-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Reads path whole, or fails the test. */
static void
slurp(const char *path, struct buf *b)
{
	int r = fs_read_all(path, b);

	if (r < 0)
		fail_msg("%s: %s", path, strerror(-r));
}

/* jansson's own reading of text: an object, or the test fails. */
static json_t *
jansson_object(const char *text, size_t len)
{
	json_error_t e;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);

	if (v == NULL || !json_is_object(v))
		fail_msg("not a JSON object: line %d, column %d: %s: %.*s",
		    e.line, e.column, e.text, (int)len, text);
	return v;
}

static void
assert_member(const json_t *o, const char *key, const char *want)
{
	const json_t *v = json_object_get(o, key);

	assert_non_null(v);
	assert_true(json_is_string(v));
	assert_string_equal(json_string_value(v), want);
}

/* A sidecar written from a journal, for a data file and for a rejects
 * file. */
static void
write_sidecar(const struct fixture *f, const char *table, int rejects,
    struct buf *text, struct sidecar *sc)
{
	char jpath[128], spath[128], err[512];
	struct journal_file_info info = { table, NASTY, 7, NASTY, 100,
	    "jsonl", "none", SHA, 0 };
	struct journal_state st;
	struct journal *j;

	snprintf(jpath, sizeof(jpath), "%s/.part.journal", f->dir);
	snprintf(spath, sizeof(spath), "%s/.part.json", f->dir);
	assert_non_null(j = journal_create(jpath, err, sizeof(err)));
	if (rejects) {
		assert_int_equal(journal_add(j, JOURNAL_REJECTED, NASTY_WORD,
		    100), 0);
		assert_int_equal(journal_add(j, JOURNAL_REJECTED, NASTY_WORD,
		    101), 0);
	} else {
		assert_int_equal(journal_add(j, JOURNAL_OFFSETS, NULL, 100), 0);
		assert_int_equal(journal_add(j, JOURNAL_OFFSETS, NULL, 101), 0);
	}
	journal_add_event(j, 1000);
	journal_add_event(j, 2000);
	if (journal_seal(j, 1, 10, 2, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	journal_close(j);
	if (journal_read(jpath, 1, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	if (journal_write_sidecar(&st, &info, spath, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	journal_state_clear(&st);
	slurp(spath, text);
	memset(sc, 0, sizeof(*sc));
	if (sidecar_parse(text->data, text->len, sc, err, sizeof(err)) != 0)
		fail_msg("%s: %.*s", err, (int)text->len, text->data);
}

static void
test_sidecar_names(void **state)
{
	struct fixture *f = *state;
	struct buf text = { 0 };
	struct sidecar sc;
	json_t *o;

	write_sidecar(f, NASTY, 0, &text, &sc);
	assert_string_equal(sc.table, NASTY);
	assert_string_equal(sc.topic, NASTY);
	assert_string_equal(sc.host, NASTY);
	assert_int_equal(sc.offsets.n, 1);
	assert_int_equal(sc.offsets.v[0].last, 101);
	assert_true(sc.has_event_range);
	assert_int_equal(sc.max_event_us, 2000);
	o = jansson_object(text.data, text.len);
	assert_member(o, "table", NASTY);
	assert_member(o, "host", NASTY);
	/* one line, as the format says */
	assert_null(memchr(text.data, '\n', text.len - 1));
	json_decref(o);
	sidecar_clear(&sc);
	buf_clear(&text);
}

static void
test_rejects_sidecar_names(void **state)
{
	struct fixture *f = *state;
	struct buf text = { 0 };
	struct sidecar sc;
	json_t *o;

	write_sidecar(f, REJECTS_TABLE, 1, &text, &sc);
	assert_int_equal(sc.nrejected, 1);
	assert_string_equal(sc.rejected[0].table, NASTY_WORD);
	assert_int_equal(sidecar_ranges_count(&sc.rejected[0].ranges), 2);
	o = jansson_object(text.data, text.len);
	assert_non_null(json_object_get(json_object_get(o, "rejected"),
	    NASTY_WORD));
	json_decref(o);
	sidecar_clear(&sc);
	buf_clear(&text);
}

static void
test_manifest_names(void **state)
{
	struct sidecar_range r0[] = { { 0, 9 } };
	struct manifest_file files[] = {
		{ "p" NASTY, 100, 20, "0123abcd", SHA, NASTY, 0, { r0, 1, 1 }, 1000, 2000,
		    1 },
	};
	struct manifest_partition parts[] = { { NASTY, 0, { r0, 1, 1 }, 20 } };
	struct manifest m = {
		NASTY, "20261129", "23", 1, NASTY, "2026-11-30T00:05:00Z", 0,
		20, 100, 0, 0, 1000, 2000, files, 1, parts, 1, 1, 1, 7,
	}, back;
	struct buf text = { 0 };
	char err[512];
	json_t *o;

	(void)state;
	assert_int_equal(manifest_format(&m, &text), 0);
	o = jansson_object(text.data, text.len);
	assert_member(o, "table", NASTY);
	assert_member(json_array_get(json_object_get(o, "files"), 0), "name",
	    "p" NASTY);
	json_decref(o);
	if (manifest_parse(text.data, text.len, &back, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(back.table, NASTY);
	assert_string_equal(back.host, NASTY);
	assert_string_equal(back.files[0].name, "p" NASTY);
	assert_string_equal(back.parts[0].topic, NASTY);
	manifest_clear(&back);
	buf_clear(&text);
}

static void
test_progress_names(void **state)
{
	struct fixture *f = *state;
	char *topics[] = { "web" }, path[256], err[512];
	struct conf_table table = { 0 };
	struct conf c = { 0 };
	struct target *t;
	struct buf text = { 0 };
	json_t *o;

	table.name = "access";
	table.topics = (struct conf_strv){ topics, 1 };
	c.tables = &table;
	c.n_tables = 1;
	c.output.target = "local";
	c.output.local_dir = f->dir;
	c.output.host = NASTY;
	c.completion.enabled = 1;
	assert_non_null(t = target_open(&c, err, sizeof(err)));
	if (complete_hold(t, &c, "web", 3, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	target_close(t);
	snprintf(path, sizeof(path), "%s/_kedge/progress/access/web+3.json",
	    f->dir);
	slurp(path, &text);
	o = jansson_object(text.data, text.len);
	assert_member(o, "host", NASTY);
	assert_int_equal(json_integer_value(json_object_get(o, "pending_us")),
	    0);
	assert_true(json_is_null(json_object_get(o, "max_event_us")));
	json_decref(o);
	buf_clear(&text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sidecar_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rejects_sidecar_names,
		    setup, teardown),
		cmocka_unit_test(test_manifest_names),
		cmocka_unit_test_setup_teardown(test_progress_names, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
