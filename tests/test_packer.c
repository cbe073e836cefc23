/*
 * packer: chunks handed over for two files, more than its slots hold, come
 * out in each file byte for byte as the codec makes them one by one, in the
 * order they were put; done() hears of each, in order, with its length;
 * the files' hashes are of their bytes; an empty chunk is an empty frame; a
 * write that fails is told, with the file's name, at the next call, and
 * nothing after it is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/testlib.h"

#include "agent/write/packer.h"
#include "lib/fsutil.h"

#define CHUNK 4096
#define NREPORTS 64

struct reports {
	void *owner[NREPORTS];
	uint64_t bytes[NREPORTS];
	size_t n;
};

static void
note_done(void *arg, void *owner, uint64_t bytes)
{
	struct reports *r = arg;

	assert_true(r->n < NREPORTS);
	r->owner[r->n] = owner;
	r->bytes[r->n++] = bytes;
}

struct fixture {
	char dir[64];
	char path[2][128];
	int fd[2];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-packer.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	for (int i = 0; i < 2; i++) {
		strcpy(f->path[i], f->dir);
		strcat(f->path[i], i == 0 ? "/f0" : "/f1");
		f->fd[i] = open(f->path[i], O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644);
		assert_true(f->fd[i] >= 0);
	}
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	for (int i = 0; i < 2; i++)
		if (f->fd[i] >= 0)
			close(f->fd[i]);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* Fills rows with chunk i's text: lines that say which chunk they are. */
static void
chunk_text(struct buf *rows, int i)
{
	buf_reset(rows);
	for (int line = 0; rows->len < CHUNK - 64; line++)
		assert_return_code(buf_printf(rows, "chunk %d line %d of some "
		    "rows\n", i, line), 0);
}

static void
read_file(const char *path, struct buf *b)
{
	buf_reset(b);
	assert_return_code(fs_read_all(path, b), 0);
}

static void
hash_of(const void *data, size_t len, struct spool_digest *d)
{
	struct spool_hash *h = spool_hash_new(SPOOL_CRC32C);

	assert_non_null(h);
	spool_hash_update(h, data, len);
	assert_return_code(spool_hash_done(h, d), 0);
	spool_hash_free(h);
}

static void
test_order_reports_and_hashes(void **state)
{
	struct fixture *f = *state;
	struct reports rep = { .n = 0 };
	struct spool_hash *hash[2] = { spool_hash_new(SPOOL_CRC32C),
	    spool_hash_new(SPOOL_CRC32C) };
	struct codec *c = codec_new(CODEC_ZSTD, 1);
	struct buf rows = { 0 }, want[2] = { { 0 }, { 0 } }, got = { 0 };
	struct spool_digest d, dw;
	uint64_t sum[2] = { 0, 0 };
	char err[256];
	struct packer *pk = packer_new(CODEC_ZSTD, 1, CHUNK, note_done, &rep,
	    err, sizeof(err));
	enum { CHUNKS = 40 };

	assert_non_null(pk);
	assert_non_null(c);
	assert_non_null(hash[0]);
	assert_non_null(hash[1]);
	/* five times the slots, never waiting: put waits for room itself */
	for (int i = 0; i < CHUNKS; i++) {
		int file = i % 3 == 0;
		struct packer_file pf = { f->fd[file], hash[file],
		    f->path[file], &f->fd[file] };

		chunk_text(&rows, i);
		assert_return_code(codec_write(c, rows.data, rows.len,
		    &want[file]), 0);
		assert_return_code(codec_finish(c, &want[file]), 0);
		assert_return_code(packer_put(pk, &pf, &rows, err,
		    sizeof(err)), 0);
		/* the chunk's bytes are the packer's; rows is a slot's */
		assert_int_equal(rows.len, 0);
		assert_true(rows.cap >= CHUNK);
	}
	assert_return_code(packer_wait(pk, err, sizeof(err)), 0);
	assert_int_equal(rep.n, CHUNKS);
	for (int i = 0; i < CHUNKS; i++) {
		int file = i % 3 == 0;

		assert_ptr_equal(rep.owner[i], &f->fd[file]);
		assert_true(rep.bytes[i] > 0);
		sum[file] += rep.bytes[i];
	}
	for (int file = 0; file < 2; file++) {
		read_file(f->path[file], &got);
		assert_int_equal(got.len, want[file].len);
		assert_int_equal(sum[file], got.len);
		assert_memory_equal(got.data, want[file].data, got.len);
		assert_return_code(spool_hash_done(hash[file], &d), 0);
		hash_of(got.data, got.len, &dw);
		assert_string_equal(d.crc32c, dw.crc32c);
		buf_clear(&want[file]);
		spool_hash_free(hash[file]);
	}
	packer_free(pk);
	codec_free(c);
	buf_clear(&rows);
	buf_clear(&got);
}

/* An empty chunk is one empty frame with zstd, and nothing with none. */
static void
test_empty_chunk(void **state)
{
	struct fixture *f = *state;
	struct reports rep = { .n = 0 };
	struct codec *c = codec_new(CODEC_ZSTD, 1);
	struct buf rows = { 0 }, want = { 0 }, got = { 0 };
	char err[256];
	struct packer *z = packer_new(CODEC_ZSTD, 1, CHUNK, note_done, &rep,
	    err, sizeof(err));
	struct packer *none = packer_new(CODEC_NONE, 0, CHUNK, note_done, &rep,
	    err, sizeof(err));
	struct packer_file f0 = { f->fd[0], NULL, f->path[0], NULL };
	struct packer_file f1 = { f->fd[1], NULL, f->path[1], NULL };

	assert_non_null(z);
	assert_non_null(none);
	assert_return_code(codec_empty(c, &want), 0);
	assert_true(want.len > 0);
	assert_return_code(packer_put(z, &f0, &rows, err, sizeof(err)), 0);
	assert_return_code(packer_put(none, &f1, &rows, err, sizeof(err)), 0);
	assert_return_code(packer_wait(z, err, sizeof(err)), 0);
	assert_return_code(packer_wait(none, err, sizeof(err)), 0);
	read_file(f->path[0], &got);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.data, want.data, got.len);
	read_file(f->path[1], &got);
	assert_int_equal(got.len, 0);
	assert_int_equal(rep.n, 2);
	assert_int_equal(rep.bytes[0] + rep.bytes[1], want.len);
	packer_free(z);
	packer_free(none);
	codec_free(c);
	buf_clear(&rows);
	buf_clear(&want);
	buf_clear(&got);
}

/* A chunk whose write fails: its error, naming the file, comes at the
 * next call and every one after; the chunks after it are not written. */
static void
test_write_error(void **state)
{
	struct fixture *f = *state;
	struct reports rep = { .n = 0 };
	struct buf rows = { 0 }, got = { 0 };
	char err[256], want[256];
	struct packer *pk = packer_new(CODEC_NONE, 0, CHUNK, note_done, &rep,
	    err, sizeof(err));
	int ro = open(f->path[1], O_RDONLY | O_CLOEXEC);
	struct packer_file bad = { ro, NULL, f->path[1], NULL };
	struct packer_file good = { f->fd[0], NULL, f->path[0], NULL };
	int r;

	assert_non_null(pk);
	assert_true(ro >= 0);
	chunk_text(&rows, 0);
	assert_return_code(packer_put(pk, &bad, &rows, err, sizeof(err)), 0);
	chunk_text(&rows, 1);
	/* put before or after the failure is known: either way unwritten */
	r = packer_put(pk, &good, &rows, err, sizeof(err));
	assert_true(r == 0 || r == -EBADF);
	assert_int_equal(packer_wait(pk, err, sizeof(err)), -EBADF);
	snprintf(want, sizeof(want), "cannot write %s: ", f->path[1]);
	assert_non_null(strstr(err, want));
	err[0] = '\0';
	chunk_text(&rows, 2);
	assert_int_equal(packer_put(pk, &good, &rows, err, sizeof(err)),
	    -EBADF);
	assert_non_null(strstr(err, want));
	assert_int_equal(packer_wait(pk, err, sizeof(err)), -EBADF);
	read_file(f->path[0], &got);
	assert_int_equal(got.len, 0);
	packer_free(pk);
	close(ro);
	buf_clear(&rows);
	buf_clear(&got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_reports_and_hashes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_chunk, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_error, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
