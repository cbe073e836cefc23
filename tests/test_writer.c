/*
 * The writer: the roll policy, one Kafka partition and one hour per part
 * file, file names, valid files at every flush, and the move to ready/
 * with a sidecar that has the file's CRC-32C and its rows' event times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/write/writer.h"
#include "tests/testlib.h"

static const struct roll_policy policy = { 1000, 900, 300, 0, 0 };

static void
test_roll_check(void **state)
{
	(void)state;
	assert_int_equal(writer_roll_check(&policy, 0, 100, 100, 100),
	    ROLL_NONE);
	assert_int_equal(writer_roll_check(&policy, 999, 100, 100, 399),
	    ROLL_NONE);
	assert_int_equal(writer_roll_check(&policy, 1000, 100, 100, 100),
	    ROLL_SIZE);
	assert_int_equal(writer_roll_check(&policy, 10, 100, 100, 400),
	    ROLL_INACTIVE);
	assert_int_equal(writer_roll_check(&policy, 10, 100, 950, 1000),
	    ROLL_AGE);
	assert_int_equal(writer_roll_check(&policy, 10, 100, 999, 999),
	    ROLL_NONE);
	/* size wins over age and inactivity */
	assert_int_equal(writer_roll_check(&policy, 5000, 0, 0, 5000),
	    ROLL_SIZE);
}

struct fixture {
	char dir[64];
	struct tz *tz;
	struct writer *w;
};

static const struct udtf_column cols[] = {
	{ "msg", UDTF_STRING },
	{ "n", UDTF_INT64 },
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	strcpy(f->dir, "/tmp/kedge-test-writer.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->tz = tz_open("UTC", err, sizeof(err));
	assert_non_null(f->tz);
	struct writer_opts o = {
		.table = "t", .spool_dir = f->dir, .host = "h1",
		.format = { FORMAT_HIVE_TEXT, '\001', f->tz },
		.codec = CODEC_NONE, .roll = policy,
	};
	f->w = writer_new(&o, cols, 2, err, sizeof(err));
	assert_non_null(f->w);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	writer_free(f->w);
	tz_close(f->tz);
	remove_tree(f->dir);
	free(f);
	return 0;
}

static void
write_row(struct fixture *f, int64_t ts_us, const char *topic, int32_t part,
    int64_t offset, const char *msg)
{
	struct udtf_value v[2] = {
		{ .type = UDTF_STRING, .u.s = { msg, strlen(msg) } },
		{ .type = UDTF_INT64, .u.i64 = offset },
	};
	struct writer_origin o = { topic, part, offset, 1, NULL, ts_us };
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, ts_us, &hour), 0);
	assert_int_equal(writer_write(f->w, &hour, &o, v, err, sizeof(err)), 0);
}

static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *s = calloc(1, 4096);

	assert_non_null(fp);
	assert_true(fread(s, 1, 4095, fp) < 4095);
	fclose(fp);
	return s;
}

/* 2026-11-29 10:00:00 UTC */
#define T10 INT64_C(1795946400000000)

static void
test_one_file_per_partition_and_hour(void **state)
{
	struct fixture *f = *state;
	struct writer_stats st;
	char path[256], err[256];
	char *s;

	write_row(f, T10, "top", 0, 5, "a");
	write_row(f, T10 + 1, "top", 1, 7, "b");
	write_row(f, T10 + 3600 * INT64_C(1000000), "top", 0, 6, "c");
	write_row(f, T10 + 2, "top", 0, 8, "d");
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 3);
	assert_int_equal(st.rows, 4);
	assert_int_equal(writer_seal(f->w, 1, err, sizeof(err)), 0);

	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/top+0+5+h1.txt",
	    f->dir);
	s = slurp(path);
	assert_string_equal(s, "a\0015\nd\0018\n");
	free(s);
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/top+1+7+h1.txt",
	    f->dir);
	s = slurp(path);
	assert_string_equal(s, "b\0017\n");
	free(s);
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=11/top+0+6+h1.txt",
	    f->dir);
	s = slurp(path);
	assert_string_equal(s, "c\0016\n");
	free(s);
}

static void
test_roll_then_release(void **state)
{
	struct fixture *f = *state;
	struct writer_stats st;
	char path[256], err[256], *s;
	struct stat sb;
	time_t now = time(NULL);

	write_row(f, T10 + 7, "top", 0, 1, "x");
	write_row(f, T10 + 9, "top", 0, 2, "w");
	write_row(f, T10 + 3, "top", 0, 3, "v");
	write_row(f, T10, "top", 1, 1, "y");
	/* nothing rolls yet */
	assert_int_equal(writer_tick(f->w, now, err, sizeof(err)), 0);
	/* inactivity rolls both */
	assert_int_equal(writer_tick(f->w, now + 300, err, sizeof(err)), 2);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 0);
	assert_int_equal(st.files_rolled, 2);
	/* rolled but not sealed by a checkpoint: nothing to release */
	snprintf(path, sizeof(path), "%s/ready/t/dt=20261129/hr=10/top+0+1+h1.txt",
	    f->dir);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(writer_seal(f->w, 7, err, sizeof(err)), 0);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 2);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 12);
	/* with its sidecar (the CRC-32C of "x\0011\nw\0012\nv\0013\n"), and
	 * nothing left in open/ */
	snprintf(path, sizeof(path),
	    "%s/ready/t/dt=20261129/hr=10/.top+0+1+h1.txt.json", f->dir);
	s = slurp(path);
	assert_non_null(strstr(s, "\"rows\":3,\"bytes\":12,\"crc32c\":"
	    "\"b19df607\","));
	assert_non_null(strstr(s, "\"min_event_us\":1795946400000003,"
	    "\"max_event_us\":1795946400000009,"));
	assert_non_null(strstr(s, "\"offsets\":[[1,3]]"));
	free(s);
	snprintf(path, sizeof(path),
	    "%s/open/t/dt=20261129/hr=10/.top+0+1+h1.txt.journal", f->dir);
	assert_int_equal(stat(path, &sb), -1);
	/* a new row for the same partition opens a new file */
	write_row(f, T10, "top", 0, 2, "z");
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 1);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 0);
}

static void
test_roll_by_partition(void **state)
{
	struct fixture *f = *state;
	struct writer_stats st;
	char err[256];

	write_row(f, T10, "top", 0, 1, "x");
	write_row(f, T10, "top", 1, 1, "y");
	write_row(f, T10, "other", 0, 1, "z");
	assert_int_equal(writer_roll(f->w, "top", 0, err, sizeof(err)), 1);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 2);
	assert_int_equal(writer_roll(f->w, NULL, 0, err, sizeof(err)), 2);
}

static void
test_roll_by_size(void **state)
{
	struct fixture *f = *state;
	char msg[200], err[256];
	int rolled = 0;

	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	/* ~204 bytes a row: the 1000-byte limit is reached on the 5th */
	for (int i = 0; i < 5; i++) {
		write_row(f, T10, "top", 0, i, msg);
		rolled += writer_tick(f->w, time(NULL), err, sizeof(err));
	}
	assert_int_equal(rolled, 1);
}

/* The descriptors this process holds. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Row `row` of record offset of partition 0, at hour h after T10. */
static void
write_row_of(struct fixture *f, int h, int64_t offset, int row)
{
	struct udtf_value v[2] = {
		{ .type = UDTF_STRING, .u.s = { "r", 1 } },
		{ .type = UDTF_INT64, .u.i64 = offset },
	};
	int64_t ts = T10 + h * 3600 * INT64_C(1000000);
	struct writer_origin o = { "top", 0, offset, row == 0, NULL, ts };
	struct tz_hour hour;
	char err[256];

	assert_int_equal(tz_hour_of(f->tz, ts, &hour), 0);
	if (writer_write(f->w, &hour, &o, v, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static int
exists(const struct fixture *f, const char *rel)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	return stat(path, &sb) == 0;
}

/* At most roll.max_open files (and their journals) are open: a file of a
 * new hour rolls the least recently written one, which the next
 * checkpoint releases like any roll; a later row of its hour opens a new
 * file.  Rolled files hold no descriptor while they wait. */
static void
test_lru_roll_bounds_open_files(void **state)
{
	struct fixture *f = *state;
	struct roll_policy capped = policy;
	struct writer_stats st;
	char err[256];
	int base = open_fds();

	capped.max_open = 3;
	writer_set_roll(f->w, &capped);
	for (int h = 0; h < 10; h++) {
		write_row_of(f, h, h, 0);
		writer_get_stats(f->w, &st);
		assert_true(st.files_open <= 3);
		assert_true(open_fds() - base <= 6);
	}
	/* hour 8 is open: no new file; hour 0 again: hour 7, the least
	 * recently written, rolls */
	write_row_of(f, 9, 10, 0);
	write_row_of(f, 8, 11, 0);
	write_row_of(f, 0, 12, 0);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 3);
	assert_int_equal(st.files_rolled, 8);
	assert_int_equal(open_fds() - base, 6);
	assert_int_equal(writer_seal(f->w, 1, err, sizeof(err)), 0);
	assert_int_equal(open_fds() - base, 6);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 8);
	assert_true(exists(f, "ready/t/dt=20261129/hr=10/top+0+0+h1.txt"));
	assert_true(exists(f, "ready/t/dt=20261129/hr=17/top+0+7+h1.txt"));
	assert_true(exists(f,
	    "ready/t/dt=20261129/hr=17/.top+0+7+h1.txt.json"));
	assert_true(exists(f, "open/t/dt=20261129/hr=18/top+0+8+h1.txt"));
	assert_true(exists(f, "open/t/dt=20261129/hr=10/top+0+12+h1.txt"));
	/* the rest land at the next roll and checkpoint */
	assert_int_equal(writer_roll(f->w, NULL, 0, err, sizeof(err)), 3);
	assert_int_equal(open_fds() - base, 0);
	assert_int_equal(writer_seal(f->w, 2, err, sizeof(err)), 0);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 3);
	assert_int_equal(open_fds() - base, 0);
	assert_true(exists(f, "ready/t/dt=20261129/hr=10/top+0+12+h1.txt"));
}

/* A file the current record opened is not rolled for it: a new file of
 * that hour would take the same name.  Such a record may go past the
 * bound; the next record's file brings it back. */
static void
test_lru_keeps_the_records_own_files(void **state)
{
	struct fixture *f = *state;
	struct roll_policy capped = policy;
	struct writer_stats st;
	char err[256];

	capped.max_open = 3;
	writer_set_roll(f->w, &capped);
	for (int h = 0; h < 3; h++)
		write_row_of(f, h, h, 0);
	/* record 20: rows in hours 3..7, then hour 3 again */
	for (int i = 0; i < 5; i++)
		write_row_of(f, 3 + i, 20, i);
	write_row_of(f, 3, 20, 5);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 5);
	assert_int_equal(st.files_rolled, 3);
	write_row_of(f, 8, 21, 0);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 3);
	assert_int_equal(writer_roll(f->w, NULL, 0, err, sizeof(err)), 3);
	assert_int_equal(writer_seal(f->w, 1, err, sizeof(err)), 0);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 9);
	assert_true(exists(f, "ready/t/dt=20261129/hr=13/top+0+20+h1.txt"));
}

/* Past roll.max_open, the least recently written file is parked: closed,
 * its rows written out as whole gzip members, and opened again to append
 * when its hour has the next row.  Nothing rolls for the bound, so three
 * hours written in turn make three files, each with all its rows in order,
 * sealed and released like any other. */
static void
test_park_reopens_to_append(void **state)
{
	struct fixture *f = *state;
	struct roll_policy capped = { 1 << 30, 900, 300, 2, 8 };
	struct writer_opts o = {
		.table = "g", .spool_dir = f->dir, .host = "h1",
		.format = { FORMAT_HIVE_TEXT, '\001', f->tz },
		.codec = CODEC_GZIP, .roll = capped,
	};
	struct writer_stats st;
	struct writer *w;
	char path[256], err[256], line[64], want[64];
	int base = open_fds();

	w = writer_new(&o, cols, 2, err, sizeof(err));
	assert_non_null(w);
	for (int64_t off = 0; off < 30; off++) {
		int64_t ts = T10 + off % 3 * 3600 * INT64_C(1000000);
		struct udtf_value v[2] = {
			{ .type = UDTF_STRING, .u.s = { "r", 1 } },
			{ .type = UDTF_INT64, .u.i64 = off },
		};
		struct writer_origin origin = { "top", 0, off, 1, NULL, ts };
		struct tz_hour hour;

		assert_int_equal(tz_hour_of(f->tz, ts, &hour), 0);
		if (writer_write(w, &hour, &origin, v, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		writer_get_stats(w, &st);
		assert_true(st.files_open <= 2);
		assert_true(open_fds() - base <= 4);
		/* a seal now and then, of open and parked files alike */
		if (off % 7 == 6)
			assert_int_equal(writer_seal(w, (uint64_t)off, err,
			    sizeof(err)), 0);
	}
	writer_get_stats(w, &st);
	assert_int_equal(st.files_rolled, 0);
	assert_int_equal(st.files_open + st.files_parked, 3);
	assert_int_equal(st.files_reopened, 27);
	assert_int_equal(writer_seal(w, 100, err, sizeof(err)), 0);
	for (int h = 0; h < 3; h++) {
		gzFile gz;
		int64_t n = h;

		snprintf(path, sizeof(path), "%s/open/g/dt=20261129/hr=%d/"
		    "top+0+%d+h1.txt.gz", f->dir, 10 + h, h);
		assert_non_null(gz = gzopen(path, "rb"));
		for (; gzgets(gz, line, sizeof(line)) != NULL; n += 3) {
			snprintf(want, sizeof(want), "r\001%" PRId64 "\n", n);
			assert_string_equal(line, want);
		}
		assert_int_equal(n, 30 + h);
		gzclose(gz);
	}
	assert_int_equal(writer_roll(w, NULL, 0, err, sizeof(err)), 3);
	assert_int_equal(open_fds() - base, 0);
	assert_int_equal(writer_seal(w, 101, err, sizeof(err)), 0);
	assert_int_equal(writer_release(w, err, sizeof(err)), 3);
	assert_true(exists(f, "ready/g/dt=20261129/hr=12/top+0+2+h1.txt.gz"));
	writer_free(w);
}

/* Past roll.max_parked, the least recently written parked file rolls and
 * a later row of its hour opens a new file; a parked file the record
 * being written opened does not roll for it. */
static void
test_parked_past_the_bound_roll(void **state)
{
	struct fixture *f = *state;
	struct roll_policy capped = policy;
	struct writer_stats st;
	char err[256];

	capped.max_open = 1;
	capped.max_parked = 1;
	writer_set_roll(f->w, &capped);
	write_row_of(f, 0, 0, 0);
	write_row_of(f, 1, 1, 0);
	/* hour 1 parks, and hour 0, parked longer, rolls */
	write_row_of(f, 2, 2, 0);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_open, 1);
	assert_int_equal(st.files_parked, 1);
	assert_int_equal(st.files_rolled, 1);
	/* hour 1 opens again and hour 2 parks */
	write_row_of(f, 1, 3, 0);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_rolled, 1);
	assert_int_equal(st.files_reopened, 1);
	assert_true(exists(f, "open/t/dt=20261129/hr=11/top+0+1+h1.txt"));
	/* hour 0 again: a new file; hour 2 rolls */
	write_row_of(f, 0, 4, 0);
	assert_true(exists(f, "open/t/dt=20261129/hr=10/top+0+4+h1.txt"));
	/* record 5: rows in hours 3, 4 and 5: its own files park, none rolls */
	write_row_of(f, 3, 5, 0);
	write_row_of(f, 4, 5, 1);
	write_row_of(f, 5, 5, 2);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_rolled, 4);
	assert_int_equal(st.files_parked, 2);
	write_row_of(f, 3, 5, 3);
	writer_get_stats(f->w, &st);
	assert_int_equal(st.files_rolled, 4);
	assert_int_equal(writer_roll(f->w, NULL, 0, err, sizeof(err)), 3);
	assert_int_equal(writer_seal(f->w, 1, err, sizeof(err)), 0);
	assert_int_equal(writer_release(f->w, err, sizeof(err)), 7);
}

/* A parked file that cannot be opened again (deleted under kedge) stops
 * the write with a sentence that names it. */
static void
test_parked_file_gone_says_so(void **state)
{
	struct fixture *f = *state;
	struct roll_policy capped = policy;
	struct udtf_value v[2] = {
		{ .type = UDTF_STRING, .u.s = { "r", 1 } },
		{ .type = UDTF_INT64, .u.i64 = 2 },
	};
	struct writer_origin o = { "top", 0, 2, 1, NULL, T10 };
	struct tz_hour hour;
	char path[256], err[512] = "";

	capped.max_open = 1;
	capped.max_parked = 4;
	writer_set_roll(f->w, &capped);
	write_row_of(f, 0, 0, 0);
	write_row_of(f, 1, 1, 0);
	snprintf(path, sizeof(path), "%s/open/t/dt=20261129/hr=10/top+0+0+h1.txt",
	    f->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	assert_int_not_equal(writer_write(f->w, &hour, &o, v, err,
	    sizeof(err)), 0);
	if (strstr(err, "cannot open") == NULL || strstr(err, path) == NULL ||
	    strstr(err, "No such file") == NULL)
		fail_msg("the message: %s", err);
}

/* Out of descriptors, the writer says which limit to raise and which key
 * bounds its files, not only "Too many open files". */
static void
test_emfile_names_limit_and_key(void **state)
{
	struct fixture *f = *state;
	struct udtf_value v[2] = {
		{ .type = UDTF_STRING, .u.s = { "r", 1 } },
		{ .type = UDTF_INT64, .u.i64 = 0 },
	};
	struct rlimit was, low;
	char err[512] = "";
	int h, r = 0;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = (rlim_t)open_fds() + 6;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	for (h = 0; h < 20 && r == 0; h++) {
		int64_t ts = T10 + h * 3600 * INT64_C(1000000);
		struct writer_origin o = { "top", 0, h, 1, NULL, ts };
		struct tz_hour hour;

		assert_int_equal(tz_hour_of(f->tz, ts, &hour), 0);
		r = writer_write(f->w, &hour, &o, v, err, sizeof(err));
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_int_not_equal(r, 0);
	if (strstr(err, "too many open files") == NULL ||
	    strstr(err, "LimitNOFILE=") == NULL ||
	    strstr(err, "output.roll.max_open_files") == NULL)
		fail_msg("the message: %s", err);
}

/* A gzip file is a series of members, one per chunk or flush; zlib's gzread
 * reads it whole, and so does every flushed prefix. */
static void
test_gzip_members_valid_at_every_flush(void **state)
{
	struct fixture *f = *state;
	struct writer *w;
	struct writer_opts o = {
		.table = "g", .spool_dir = f->dir, .host = "h1",
		.format = { FORMAT_HIVE_TEXT, '\001', f->tz },
		.codec = CODEC_GZIP, .roll = { 1 << 30, 900, 300, 0, 0 },
	};
	char path[256], err[256], line[64], want[64];
	struct writer_origin origin = { "top", 0, 0, 1, NULL, 0 };
	struct udtf_value v[2];
	struct tz_hour hour;
	gzFile gz;
	int64_t i, n = 0;

	w = writer_new(&o, cols, 2, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	snprintf(path, sizeof(path), "%s/open/g/dt=20261129/hr=10/top+0+0+h1.txt.gz",
	    f->dir);
	for (int round = 1; round <= 3; round++) {
		/* ~120 KiB a round: at least one chunk, then the flush */
		for (i = 0; i < 10000; i++, n++) {
			v[0] = (struct udtf_value){ .type = UDTF_STRING,
			    .u.s = { "row", 3 } };
			v[1] = (struct udtf_value){ .type = UDTF_INT64, .u.i64 = n };
			origin.offset = n;
			assert_int_equal(writer_write(w, &hour, &origin, v, err,
			    sizeof(err)), 0);
		}
		assert_int_equal(writer_seal(w, (uint64_t)round, err,
		    sizeof(err)), 0);
		assert_non_null(gz = gzopen(path, "rb"));
		for (i = 0; gzgets(gz, line, sizeof(line)) != NULL; i++) {
			snprintf(want, sizeof(want), "row\001%" PRId64 "\n", i);
			assert_string_equal(line, want);
		}
		assert_int_equal(i, n);
		gzclose(gz);
	}
	writer_free(w);
}

/* An open file holds one 64 KiB buffer of rows, not the 128 KiB its
 * capacity doubled to when a row took it past 64 KiB. */
static void
test_open_file_buffer_stays_64k(void **state)
{
	struct fixture *f = *state;
	struct writer *w;
	struct writer_opts o = {
		.table = "m", .spool_dir = f->dir, .host = "h1",
		.format = { FORMAT_HIVE_TEXT, '\001', f->tz },
		.codec = CODEC_NONE, .roll = { 1 << 30, 900, 300, 0, 0 },
	};
	char err[256], text[300];
	struct writer_origin origin = { "top", 0, 0, 1, NULL, 0 };
	struct udtf_value v[2];
	struct tz_hour hour;
	enum { FILES = 16 };
	size_t before, per_file;
	int64_t n = 0;

	memset(text, 'x', sizeof(text));
	w = writer_new(&o, cols, 2, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(tz_hour_of(f->tz, T10, &hour), 0);
	/* every file's first chunk, so that its journal and names exist */
	for (int32_t p = 0; p < FILES; p++) {
		origin.partition = p;
		origin.offset = 0;
		v[0] = (struct udtf_value){ .type = UDTF_STRING,
		    .u.s = { text, 1 } };
		v[1] = (struct udtf_value){ .type = UDTF_INT64, .u.i64 = 0 };
		assert_int_equal(writer_write(w, &hour, &origin, v, err,
		    sizeof(err)), 0);
	}
	before = heap_in_use();
	/* rows of about 310 bytes, each file past its chunk three times */
	for (int i = 1; i <= 700; i++)
		for (int32_t p = 0; p < FILES; p++, n++) {
			origin.partition = p;
			origin.offset = i;
			origin.first = 1;
			v[0] = (struct udtf_value){ .type = UDTF_STRING,
			    .u.s = { text, sizeof(text) } };
			v[1] = (struct udtf_value){ .type = UDTF_INT64,
			    .u.i64 = n };
			assert_int_equal(writer_write(w, &hour, &origin, v, err,
			    sizeof(err)), 0);
		}
	per_file = (heap_in_use() - before) / FILES;
	if (per_file > 80 * 1024)
		fail_msg("an open file holds %zu KiB of heap", per_file / 1024);
	writer_free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roll_check),
		cmocka_unit_test_setup_teardown(test_one_file_per_partition_and_hour,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_roll_then_release, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_roll_by_partition, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_roll_by_size, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_gzip_members_valid_at_every_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_roll_bounds_open_files,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_lru_keeps_the_records_own_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_park_reopens_to_append,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_parked_past_the_bound_roll,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_parked_file_gone_says_so,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_emfile_names_limit_and_key,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_file_buffer_stays_64k,
		    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
