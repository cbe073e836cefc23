/*
 * The checkpoint store: records round-trip with increasing ids, the store
 * never grows, and no torn, flipped, truncated, foreign or crashed write is
 * ever taken for a record, while the previous good record stays readable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint/store.h"
#include "lib/crash.h"
#include "tests/testlib.h"

struct fixture {
	char tmp[64];           /* the mkdtemp directory, removed at the end */
	char dir[96];           /* the store's directory inside it */
	struct ckpt_store *s;
	struct buf payload;
	char note[512];
	char err[512];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->tmp, "/tmp/kedge-test-ckpt-store.XXXXXX");
	assert_non_null(mkdtemp(f->tmp));
	/* two levels down: open must create the parents too */
	snprintf(f->dir, sizeof(f->dir), "%s/var/state", f->tmp);
	f->s = ckpt_store_open(f->dir, f->err, sizeof(f->err));
	assert_non_null(f->s);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	ckpt_store_close(f->s);
	buf_clear(&f->payload);
	remove_tree(f->tmp);
	free(f);
	return 0;
}

static void
path_of(const struct fixture *f, const char *name, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s/%s", f->dir, name);
}

static void
file_get(const struct fixture *f, const char *name, struct buf *b)
{
	char path[160], chunk[4096];
	size_t n;
	FILE *fp;

	path_of(f, name, path, sizeof(path));
	assert_non_null(fp = fopen(path, "rb"));
	buf_reset(b);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		assert_int_equal(buf_append(b, chunk, n), 0);
	fclose(fp);
}

static void
file_put(const struct fixture *f, const char *name, const void *p, size_t n)
{
	char path[160];
	FILE *fp;

	path_of(f, name, path, sizeof(path));
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

static int
file_exists(const struct fixture *f, const char *name)
{
	char path[160];

	path_of(f, name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* The record format, encoded independently of the store, so that the test
 * pins the format on disk rather than echoing the code. */
static void
rec_make(struct buf *b, uint32_t version, uint64_t id, const void *payload,
    size_t len)
{
	unsigned char h[28];
	uint32_t crc;
	unsigned char c[4];

	memcpy(h, "KEDGECKP", 8);
	for (int i = 0; i < 4; i++)
		h[8 + i] = (unsigned char)(version >> (8 * i));
	for (int i = 0; i < 8; i++) {
		h[12 + i] = (unsigned char)(id >> (8 * i));
		h[20 + i] = (unsigned char)((uint64_t)len >> (8 * i));
	}
	buf_reset(b);
	assert_int_equal(buf_append(b, h, sizeof(h)), 0);
	assert_int_equal(buf_append(b, payload, len), 0);
	crc = (uint32_t)crc32(0, (const Bytef *)b->data, (uInt)b->len);
	for (int i = 0; i < 4; i++)
		c[i] = (unsigned char)(crc >> (8 * i));
	assert_int_equal(buf_append(b, c, 4), 0);
}

static void
write_ok(struct fixture *f, const char *payload, uint64_t want_id)
{
	uint64_t id = 0;

	assert_int_equal(ckpt_store_write(f->s, payload, strlen(payload), &id,
	    f->err, sizeof(f->err)), 0);
	assert_int_equal(id, want_id);
	assert_string_equal(f->err, "");
}

/* Reads and expects the record (id, payload) with a note that contains
 * note_has (or is empty when note_has is NULL). */
static void
read_expect(struct fixture *f, uint64_t want_id, const char *want,
    const char *note_has)
{
	uint64_t id = 0;

	assert_int_equal(ckpt_store_read(f->s, &f->payload, &id, f->note,
	    sizeof(f->note)), 0);
	assert_int_equal(id, want_id);
	assert_int_equal(f->payload.len, strlen(want));
	assert_memory_equal(f->payload.data, want, f->payload.len);
	if (note_has == NULL)
		assert_string_equal(f->note, "");
	else if (strstr(f->note, note_has) == NULL)
		fail_msg("note \"%s\" lacks \"%s\"", f->note, note_has);
}

static int
dir_entries(const struct fixture *f)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	assert_non_null(d = opendir(f->dir));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, "checkpoint.a") != 0 &&
		    strcmp(de->d_name, "checkpoint.b") != 0)
			fail_msg("unexpected file %s in the store", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void
test_empty_store(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	uint64_t id = 99;

	assert_int_equal(stat(f->dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	strcpy(f->note, "stale");
	assert_int_equal(ckpt_store_read(f->s, &f->payload, &id, f->note,
	    sizeof(f->note)), -ENOENT);
	assert_string_equal(f->note, "");
	assert_int_equal(id, 99);
	assert_int_equal(dir_entries(f), 0);
}

static void
test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct buf want = { 0 };

	write_ok(f, "one", 1);
	write_ok(f, "two", 2);
	write_ok(f, "three", 3);
	read_expect(f, 3, "three", NULL);
	read_expect(f, 3, "three", NULL);

	/* ids continue across a restart */
	ckpt_store_close(f->s);
	f->s = ckpt_store_open(f->dir, f->err, sizeof(f->err));
	assert_non_null(f->s);
	read_expect(f, 3, "three", NULL);
	write_ok(f, "", 4);
	read_expect(f, 4, "", NULL);

	/* a fresh store writes without a read first */
	ckpt_store_close(f->s);
	f->s = ckpt_store_open(f->dir, f->err, sizeof(f->err));
	assert_non_null(f->s);
	write_ok(f, "five", 5);
	read_expect(f, 5, "five", NULL);

	/* the bytes on disk are the documented format: 5 is in slot a */
	file_get(f, "checkpoint.a", &f->payload);
	rec_make(&want, 1, 5, "five", 4);
	assert_int_equal(f->payload.len, want.len);
	assert_memory_equal(f->payload.data, want.data, want.len);
	buf_clear(&want);
}

static void
test_no_growth(void **state)
{
	struct fixture *f = *state;
	char p[32];

	for (uint64_t i = 1; i <= 200; i++) {
		snprintf(p, sizeof(p), "record %" PRIu64, i);
		write_ok(f, p, i);
	}
	assert_int_equal(dir_entries(f), 2);
	read_expect(f, 200, "record 200", NULL);
}

/* Writes records 1 and 2 (slots a and b), then cuts the newer one's file at
 * every length: the older record must come back, with a note naming the
 * cut file. */
static void
test_torn_write(void **state)
{
	struct fixture *f = *state;
	struct buf rec = { 0 };
	char payload[300];

	for (size_t i = 0; i < sizeof(payload) - 1; i++)
		payload[i] = (char)('a' + i % 26);
	payload[sizeof(payload) - 1] = '\0';
	write_ok(f, "older", 1);
	write_ok(f, payload, 2);
	file_get(f, "checkpoint.b", &rec);
	for (size_t cut = 0; cut < rec.len; cut++) {
		file_put(f, "checkpoint.b", rec.data, cut);
		read_expect(f, 1, "older", "checkpoint.b: ");
		read_expect(f, 1, "older", "; using checkpoint.a, record 1");
	}
	/* and the next write goes over the torn file, never over record 1 */
	write_ok(f, "newer", 2);
	read_expect(f, 2, "newer", NULL);
	file_get(f, "checkpoint.a", &rec);
	rec_make(&f->payload, 1, 1, "older", 5);
	assert_int_equal(rec.len, f->payload.len);
	assert_memory_equal(rec.data, f->payload.data, rec.len);
	buf_clear(&rec);
}

/* A record with bytes after it is not a record, even where the bytes it
 * claims would check out: a file holds exactly one record. */
static void
test_grown_file(void **state)
{
	struct fixture *f = *state;
	struct buf rec = { 0 };
	char path[160];

	write_ok(f, "older", 1);
	write_ok(f, "newer", 2);
	file_get(f, "checkpoint.b", &rec);
	assert_int_equal(buf_append(&rec, "x", 1), 0);
	file_put(f, "checkpoint.b", rec.data, rec.len);
	read_expect(f, 1, "older", "/checkpoint.b: length mismatch: the file "
	    "is 38 bytes but its header claims a 5-byte payload");

	/* a huge file is refused by its size, not read into memory */
	path_of(f, "checkpoint.b", path, sizeof(path));
	assert_int_equal(truncate(path, (off_t)CKPT_STORE_MAX_PAYLOAD + 33),
	    0);
	read_expect(f, 1, "older", "larger than any record");
	buf_clear(&rec);
}

static void
test_every_bit_flip(void **state)
{
	struct fixture *f = *state;
	static const char *const reasons[] = {
		"CRC mismatch", "bad magic", "format version", "length mismatch",
	};
	struct buf rec = { 0 };

	write_ok(f, "older", 1);
	write_ok(f, "a payload of forty bytes, give or take.", 2);
	file_get(f, "checkpoint.b", &rec);
	for (size_t bit = 0; bit < rec.len * 8; bit++) {
		int known = 0;

		rec.data[bit / 8] ^= (char)(1 << bit % 8);
		file_put(f, "checkpoint.b", rec.data, rec.len);
		rec.data[bit / 8] ^= (char)(1 << bit % 8);
		read_expect(f, 1, "older", "/checkpoint.b: ");
		for (size_t i = 0; i < sizeof(reasons) / sizeof(*reasons); i++)
			known |= strstr(f->note, reasons[i]) != NULL;
		if (!known)
			fail_msg("bit %zu: note \"%s\" gives no reason", bit,
			    f->note);
	}
	buf_clear(&rec);
}

static void
test_unknown_version(void **state)
{
	struct fixture *f = *state;
	struct buf rec = { 0 };
	char path[160];

	write_ok(f, "version one", 1);
	/* a newer kedge's record: intact, and newer, yet never used */
	rec_make(&rec, 7, 2, "from the future", 15);
	file_put(f, "checkpoint.b", rec.data, rec.len);
	read_expect(f, 1, "version one",
	    "/checkpoint.b: format version 7 is unknown (written by a newer "
	    "kedge?); using checkpoint.a, record 1");

	path_of(f, "checkpoint.a", path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(ckpt_store_read(f->s, &f->payload, NULL, f->note,
	    sizeof(f->note)), -ENOENT);
	assert_non_null(strstr(f->note, "format version 7 is unknown"));
	assert_non_null(strstr(f->note, "no usable record"));
	buf_clear(&rec);
}

/* A record intact by its CRC whose id is out of range (0, or the last id,
 * after which no write could be newer) is refused: with it, every later
 * write would lose to it and checkpoints would stand still.  A length
 * field past any size is refused as damage, not allocated. */
static void
test_id_out_of_range(void **state)
{
	struct fixture *f = *state;
	struct buf rec = { 0 };
	char path[160];

	write_ok(f, "one", 1);
	rec_make(&rec, 1, UINT64_MAX, "last", 4);
	file_put(f, "checkpoint.b", rec.data, rec.len);
	read_expect(f, 1, "one", "/checkpoint.b: record id "
	    "18446744073709551615 is out of range");
	write_ok(f, "two", 2);
	read_expect(f, 2, "two", NULL);

	rec_make(&rec, 1, 0, "zero", 4);
	file_put(f, "checkpoint.a", rec.data, rec.len);
	read_expect(f, 2, "two", "/checkpoint.a: record id 0 is out of range");

	/* a header claiming a 2^64-1 byte payload */
	rec_make(&rec, 1, 3, "x", 1);
	memset(rec.data + 20, 0xff, 8);
	file_put(f, "checkpoint.a", rec.data, rec.len);
	read_expect(f, 2, "two", "/checkpoint.a: length mismatch");
	path_of(f, "checkpoint.b", path, sizeof(path));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(ckpt_store_read(f->s, &f->payload, NULL, f->note,
	    sizeof(f->note)), -ENOENT);
	buf_clear(&rec);
}

static void
test_both_damaged(void **state)
{
	struct fixture *f = *state;
	const char *junk = "garbage, long enough to be a record header";

	write_ok(f, "one", 1);
	write_ok(f, "two", 2);
	file_put(f, "checkpoint.a", "KEDGECKP", 8);
	file_put(f, "checkpoint.b", junk, strlen(junk));
	assert_int_equal(ckpt_store_read(f->s, &f->payload, NULL, f->note,
	    sizeof(f->note)), -ENOENT);
	assert_non_null(strstr(f->note, "/checkpoint.a: is 8 bytes, shorter "
	    "than any record (a torn write); "));
	assert_non_null(strstr(f->note, "/checkpoint.b: bad magic"));
	assert_non_null(strstr(f->note, "; no usable record"));

	/* with nothing valid left, numbering starts again */
	write_ok(f, "fresh", 1);
	read_expect(f, 1, "fresh", "checkpoint.b: bad magic");
}

static void
test_slot_not_a_file(void **state)
{
	struct fixture *f = *state;
	char path[160];

	write_ok(f, "one", 1);
	path_of(f, "checkpoint.b", path, sizeof(path));
	assert_int_equal(mkfifo(path, 0600), 0);
	read_expect(f, 1, "one", "checkpoint.b: is not a regular file");
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	read_expect(f, 1, "one", "checkpoint.b: is not a regular file");
	/* a directory in a slot's place stops writes, and the sentence
	 * names it */
	assert_true(ckpt_store_write(f->s, "x", 1, NULL, f->err,
	    sizeof(f->err)) < 0);
	assert_non_null(strstr(f->err, "checkpoint.b"));
	read_expect(f, 1, "one", "checkpoint.b: is not a regular file");
}

/* Random bytes, mutated records, lying length fields and cut files in
 * both slots: read must never crash (valgrind watches for reads out of
 * bounds), must return a record only if the test wrote exactly that
 * record, and must return one whenever an intact record is there. */
static void
test_fuzz(void **state)
{
	struct fixture *f = *state;
	struct buf rec = { 0 }, orig[2] = { { 0 }, { 0 } };
	unsigned char junk[512];
	uint64_t seed = 42, orig_id[2], id;
	int intact[2], r;

	for (int iter = 0; iter < 3000; iter++) {
		for (int i = 0; i < 2; i++) {
			size_t len = (size_t)(splitmix64(&seed) % sizeof(junk));
			uint64_t how = splitmix64(&seed) % 5;

			for (size_t k = 0; k < len; k++)
				junk[k] = (unsigned char)splitmix64(&seed);
			/* ids collide on purpose: a tie must not confuse read */
			orig_id[i] = splitmix64(&seed) % 3 + 1;
			buf_reset(&orig[i]);
			assert_int_equal(buf_append(&orig[i], junk, len), 0);
			rec_make(&rec, 1, orig_id[i], junk, len);
			intact[i] = how == 0;
			if (how == 1) {                 /* random bytes */
				buf_reset(&rec);
				assert_int_equal(buf_append(&rec, junk, len), 0);
			} else if (how == 2) {          /* a lying length */
				for (int k = 0; k < 8; k++)
					rec.data[20 + k] = (char)splitmix64(&seed);
			} else if (how == 3) {          /* bytes overwritten */
				for (int k = 0; k < 3; k++)
					rec.data[splitmix64(&seed) % rec.len] =
					    (char)splitmix64(&seed);
			} else if (how == 4) {          /* cut short */
				rec.len = (size_t)(splitmix64(&seed) % rec.len);
			}
			file_put(f, i ? "checkpoint.b" : "checkpoint.a",
			    rec.data, rec.len);
		}
		id = 0;
		r = ckpt_store_read(f->s, &f->payload, &id, f->note,
		    sizeof(f->note));
		assert_true(r == 0 || r == -ENOENT);
		for (int i = 0; i < 2; i++)
			if (intact[i]) {
				assert_int_equal(r, 0);
				assert_true(id >= orig_id[i]);
			}
		if (r == 0) {
			int found = 0;

			for (int i = 0; i < 2; i++)
				found |= id == orig_id[i] &&
				    f->payload.len == orig[i].len &&
				    memcmp(f->payload.data, orig[i].data,
				    orig[i].len) == 0;
			assert_true(found);
		}
		assert_true(strlen(f->note) < sizeof(f->note));
	}
	buf_clear(&rec);
	buf_clear(&orig[0]);
	buf_clear(&orig[1]);
}

/* A child process writes with KEDGE_CRASH_AT set and dies in abort(); the
 * parent must still read the previous record, and a later write must
 * replace the temp file the crash left. */
static void
crash_at(struct fixture *f, const char *point)
{
	int status;
	pid_t pid;

	write_ok(f, "one", 1);
	write_ok(f, "two", 2);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit nocore = { 0, 0 };
		struct ckpt_store *s;
		char err[256];

		setrlimit(RLIMIT_CORE, &nocore);
		setenv("KEDGE_CRASH_AT", point, 1);
		crash_init();
		if ((s = ckpt_store_open(f->dir, err, sizeof(err))) == NULL)
			_exit(2);
		ckpt_store_write(s, "three, never landed", 19, NULL, err,
		    sizeof(err));
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
#ifdef KEDGE_NO_CRASH_POINTS
	/* a release build has no crash points: the write lands */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	read_expect(f, 3, "three, never landed", NULL);
	return;
#endif
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);

	assert_true(file_exists(f, ".checkpoint.tmp"));
	read_expect(f, 2, "two", NULL);

	ckpt_store_close(f->s);
	f->s = ckpt_store_open(f->dir, f->err, sizeof(f->err));
	assert_non_null(f->s);
	read_expect(f, 2, "two", NULL);
	write_ok(f, "three", 3);
	assert_false(file_exists(f, ".checkpoint.tmp"));
	assert_int_equal(dir_entries(f), 2);
	read_expect(f, 3, "three", NULL);
}

static void
test_crash_write_mid(void **state)
{
	crash_at(*state, "store-write-mid");
}

static void
test_crash_before_rename(void **state)
{
	crash_at(*state, "store-before-rename");
}

static void
test_leftover_tmp(void **state)
{
	struct fixture *f = *state;
	char big[4096];

	memset(big, 'x', sizeof(big));
	file_put(f, ".checkpoint.tmp", big, sizeof(big));
	assert_int_equal(ckpt_store_read(f->s, &f->payload, NULL, f->note,
	    sizeof(f->note)), -ENOENT);
	assert_string_equal(f->note, "");
	/* a complete record under the temp name was never renamed in: it is
	 * not a checkpoint either */
	rec_make(&f->payload, 1, 9, "orphan", 6);
	file_put(f, ".checkpoint.tmp", f->payload.data, f->payload.len);
	write_ok(f, "one", 1);
	assert_false(file_exists(f, ".checkpoint.tmp"));
	read_expect(f, 1, "one", NULL);
}

static void
test_open_not_a_directory(void **state)
{
	struct fixture *f = *state;
	char path[160];

	file_put(f, "plain", "x", 1);
	path_of(f, "plain", path, sizeof(path));
	assert_null(ckpt_store_open(path, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, path));
	assert_non_null(strstr(f->err, "is not a directory"));

	/* a regular file where a parent should be */
	strcat(path, "/state");
	assert_null(ckpt_store_open(path, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, path));

	assert_null(ckpt_store_open("", f->err, sizeof(f->err)));
	assert_string_not_equal(f->err, "");
}

static void
test_write_fails(void **state)
{
	struct fixture *f = *state;
	int r;

	write_ok(f, "one", 1);
	/* the directory vanishes under an open store: the write fails, and
	 * says where */
	remove_tree(f->dir);
	r = ckpt_store_write(f->s, "two", 3, NULL, f->err, sizeof(f->err));
	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(f->err, f->dir));

	/* too big to be a record: refused before anything touches the disk */
	r = ckpt_store_write(f->s, "", CKPT_STORE_MAX_PAYLOAD + 1, NULL,
	    f->err, sizeof(f->err));
	assert_int_equal(r, -EFBIG);
	assert_non_null(strstr(f->err, "limit"));
}

/* The child's part of test_enospc: 0 when the full disk came back as
 * -ENOSPC with the path and left record 1 readable; 77 when this host
 * allows no private mount. */
static int
enospc_child(const char *mnt)
{
	static char big[200000];
	char err[256], dir[200];
	struct buf b = { 0 };
	struct ckpt_store *s;
	uint64_t id = 0;
	int ok;

	/* a private mount namespace: the small file system dies with us */
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=64k") < 0)
		return 77;
	snprintf(dir, sizeof(dir), "%s/state", mnt);
	if ((s = ckpt_store_open(dir, err, sizeof(err))) == NULL ||
	    ckpt_store_write(s, "one", 3, NULL, err, sizeof(err)) != 0)
		return 1;
	if (ckpt_store_write(s, big, sizeof(big), NULL, err,
	    sizeof(err)) != -ENOSPC || strstr(err, dir) == NULL)
		return 2;
	ok = ckpt_store_read(s, &b, &id, err, sizeof(err)) == 0 && id == 1 &&
	    b.len == 3 && access(strcat(dir, "/.checkpoint.tmp"), F_OK) < 0;
	buf_clear(&b);
	ckpt_store_close(s);
	return ok ? 0 : 3;
}

static void
test_enospc(void **state)
{
	struct fixture *f = *state;
	char mnt[160];
	int status;
	pid_t pid;

	path_of(f, "full", mnt, sizeof(mnt));
	assert_int_equal(mkdir(mnt, 0700), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(enospc_child(mnt));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		fail_msg("cannot mount a private tmpfs: the tests run as root");
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grown_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_bit_flip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_version, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_id_out_of_range, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_both_damaged, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_slot_not_a_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_fuzz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_write_mid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_crash_before_rename, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_leftover_tmp, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_open_not_a_directory, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_enospc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
