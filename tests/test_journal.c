/*
 * journal: journals written by hand, read back with journal_read() and
 * turned into sidecars with journal_write_sidecar(), which sidecar_parse()
 * must read.  (tests/test_spool.c drives the same through the writer.)
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

#include "agent/parse/rejects.h"
#include "agent/write/journal.h"
#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "lib/fsutil.h"

struct fixture {
	char dir[64];
	char journal[128], sidecar[128];
};

static const char crc[] = "e3069283";

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/kedge-test-journal.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->journal, sizeof(f->journal), "%s/.t+0+0+h.txt.journal",
	    f->dir);
	snprintf(f->sidecar, sizeof(f->sidecar), "%s/.t+0+0+h.txt.json",
	    f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->journal);
	unlink(f->sidecar);
	assert_int_equal(rmdir(f->dir), 0);
	free(f);
	return 0;
}

/* Writes text as the journal, reads it up to every mark and writes the
 * sidecar of a file of table.  Returns what journal_read() or else
 * journal_write_sidecar() returned, the sentence in err. */
static int
sidecar_of(const struct fixture *f, const char *table, const char *text,
    char *err, size_t errlen)
{
	struct journal_file_info info = { table, "top", 0, "h", 0,
	    "hive-text", "none", crc, 0 };
	struct journal_state st;
	int r;

	assert_int_equal(fs_write_atomic(f->journal, text, strlen(text)), 0);
	err[0] = '\0';
	if ((r = journal_read(f->journal, UINT64_MAX, &st, err, errlen)) == 0)
		r = journal_write_sidecar(&st, &info, f->sidecar, err, errlen);
	journal_state_clear(&st);
	return r;
}

/* Reads the sidecar written into sc; fails when sidecar_parse() refuses
 * it. */
static void
read_sidecar(const struct fixture *f, struct sidecar *sc)
{
	struct buf text = { 0 };
	char err[256] = "";

	assert_int_equal(fs_read_all(f->sidecar, &text), 0);
	memset(sc, 0, sizeof(*sc));
	if (sidecar_parse(text.data, text.len, sc, err, sizeof(err)) != 0)
		fail_msg("sidecar_parse() refuses what was written: %s: %.*s",
		    err, (int)text.len, text.data);
	buf_clear(&text);
}

/* Offsets noted out of order (records read again after a seek back) are
 * listed ascending and merged, as a sidecar must list them; once they were
 * listed as noted, and the sidecar was one that no reader takes. */
static void
test_ranges_out_of_order_sorted(void **state)
{
	struct fixture *f = *state;
	struct sidecar sc;
	char err[256];

	assert_int_equal(sidecar_of(f, "t", "o 10 12\nm 1 30 3\no 1 3\n"
	    "o 11 20\no 4 5\nm 2 100 18\n", err, sizeof(err)), 0);
	read_sidecar(f, &sc);
	assert_int_equal(sc.offsets.n, 2);
	assert_int_equal(sc.offsets.v[0].first, 1);
	assert_int_equal(sc.offsets.v[0].last, 5);
	assert_int_equal(sc.offsets.v[1].first, 10);
	assert_int_equal(sc.offsets.v[1].last, 20);
	assert_int_equal(sc.rows, 18);
	assert_int_equal(sc.bytes, 100);
	sidecar_clear(&sc);
}

/* The last offset there is, noted twice (in two seals) and before a
 * smaller one: once the range's end plus one overflowed, and the sidecar
 * listed it twice. */
static void
test_ranges_at_int64_max(void **state)
{
	struct fixture *f = *state;
	struct sidecar sc;
	char err[256];

	assert_int_equal(sidecar_of(f, "t", "o 9223372036854775807 "
	    "9223372036854775807\nm 1 10 1\no 9223372036854775807 "
	    "9223372036854775807\no 0 0\nm 2 20 2\n", err, sizeof(err)), 0);
	read_sidecar(f, &sc);
	assert_int_equal(sc.offsets.n, 2);
	assert_int_equal(sc.offsets.v[0].first, 0);
	assert_int_equal(sc.offsets.v[0].last, 0);
	assert_int_equal(sc.offsets.v[1].first, INT64_MAX);
	assert_int_equal(sc.offsets.v[1].last, INT64_MAX);
	sidecar_clear(&sc);
}

/* INT64_MIN is no event time a sidecar takes (a manifest's "no time"): a
 * t line with it is damage, not a sidecar no reader takes. */
static void
test_event_int64_min_refused(void **state)
{
	struct fixture *f = *state;
	char err[256];

	assert_int_equal(sidecar_of(f, "t", "o 1 1\nt -9223372036854775808 "
	    "5\nm 1 10 1\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2 is damaged"));
	assert_int_equal(access(f->sidecar, F_OK), -1);
	/* the earliest time a sidecar takes still goes through */
	assert_int_equal(sidecar_of(f, "t", "o 1 1\nt -9223372036854775807 "
	    "5\nm 1 10 1\n", err, sizeof(err)), 0);
}

/* A rejects file lists rejected records only, a table's file none: a
 * journal that says otherwise is refused with a sentence, rather than
 * given a sidecar that sidecar_parse() refuses. */
static void
test_kinds_of_the_table(void **state)
{
	struct fixture *f = *state;
	struct sidecar sc;
	char err[256];

	assert_int_equal(sidecar_of(f, REJECTS_TABLE, "r access 3 4\n"
	    "o 5 5\nm 1 10 3\n", err, sizeof(err)), -EINVAL);
	if (strstr(err, "lists accepted records in a file of table "
	    REJECTS_TABLE) == NULL)
		fail_msg("%s", err);
	assert_int_equal(sidecar_of(f, "access", "o 5 5\nr web 3 4\n"
	    "m 1 10 3\n", err, sizeof(err)), -EINVAL);
	if (strstr(err, "lists rejected records in a file of table access") ==
	    NULL)
		fail_msg("%s", err);
	assert_int_equal(access(f->sidecar, F_OK), -1);
	/* each as it should be */
	assert_int_equal(sidecar_of(f, REJECTS_TABLE, "r access 3 4\n"
	    "m 1 10 2\n", err, sizeof(err)), 0);
	read_sidecar(f, &sc);
	assert_int_equal(sc.nrejected, 1);
	sidecar_clear(&sc);
	assert_int_equal(sidecar_of(f, "access", "o 5 5\ne 6 6\nm 1 10 1\n",
	    err, sizeof(err)), 0);
	read_sidecar(f, &sc);
	assert_int_equal(sc.empty.n, 1);
	sidecar_clear(&sc);
}

/* A table name with a NUL was cut there: "a\0b" went under table a, and
 * a's own rejects were lost from the sidecar, which names a key once.  A
 * control byte in a table name is damage. */
static void
test_table_name_with_control_byte(void **state)
{
	static const char nul[] = "r a 17 17\nr a\0b 3 4\nm 1 10 3\n";
	struct fixture *f = *state;
	struct journal_state st;
	char err[256] = "";

	assert_int_equal(fs_write_atomic(f->journal, nul, sizeof(nul) - 1), 0);
	assert_int_equal(journal_read(f->journal, UINT64_MAX, &st, err,
	    sizeof(err)), -EINVAL);
	journal_state_clear(&st);
	assert_non_null(strstr(err, "line 2 is damaged"));
	assert_int_equal(sidecar_of(f, REJECTS_TABLE, "r a 1 1\nr a\tb 3 4\n"
	    "m 1 10 3\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2 is damaged"));
	assert_int_equal(access(f->sidecar, F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ranges_out_of_order_sorted,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_ranges_at_int64_max, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_event_int64_min_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_kinds_of_the_table, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_table_name_with_control_byte,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
