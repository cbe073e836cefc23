/*
 * textin: the lines of a plain, gzip and zstd file come back as written,
 * across chunk boundaries, members and frames concatenated (as kedge's
 * codec writes a file, a member or frame per 64 KiB), a line longer than a
 * chunk, an empty line, a last line without its '\n', an empty file; a
 * stream cut short or damaged and a line past TEXTIN_LINE_MAX are
 * refused with a sentence naming the file.
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
#include <zlib.h>
#include <zstd.h>

#include "agent/cli/textin.h"
#include "lib/buf.h"
#include "tests/testlib.h"

#define LONG_LINE (300 * 1024)   /* over textin's 128 KiB chunk */

/* The text the files hold: short lines, an empty one, a long one, and a
 * last line without its '\n'. */
static void
sample(struct buf *b)
{
	buf_reset(b);
	for (int i = 0; i < 5000; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "line %d\t\001x\n", i);

		assert_int_equal(buf_append(b, line, (size_t)n), 0);
		if (i == 2500) {
			assert_int_equal(buf_append(b, "\n", 1), 0);
			for (int k = 0; k < LONG_LINE; k++)
				assert_int_equal(buf_append(b, "y", 1), 0);
			assert_int_equal(buf_append(b, "\n", 1), 0);
		}
	}
	assert_int_equal(buf_append(b, "no newline", 10), 0);
}

/* text as one gzip member (or zstd frame) per 64 KiB, into out. */
static void
compress_chunks(enum codec_kind codec, const struct buf *text,
    struct buf *out)
{
	size_t chunk = 64 * 1024;

	buf_reset(out);
	for (size_t at = 0; at < text->len; at += chunk) {
		size_t n = text->len - at < chunk ? text->len - at : chunk;
		size_t cap = ZSTD_compressBound(n) + 64;
		unsigned char *dst = malloc(cap);
		size_t made;

		assert_non_null(dst);
		if (codec == CODEC_ZSTD) {
			made = ZSTD_compress(dst, cap, text->data + at, n, 1);
			assert_false(ZSTD_isError(made));
		} else {
			z_stream zs = { 0 };

			/* 15 + 16: a gzip member */
			assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16,
			    8, Z_DEFAULT_STRATEGY), Z_OK);
			zs.next_in = (unsigned char *)text->data + at;
			zs.avail_in = (uInt)n;
			zs.next_out = dst;
			zs.avail_out = (uInt)cap;
			assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
			made = cap - zs.avail_out;
			deflateEnd(&zs);
		}
		assert_int_equal(buf_append(out, dst, made), 0);
		free(dst);
	}
}

/* A textin over a file of bytes data[0..len). */
static struct textin *
open_bytes(const char *dir, const void *data, size_t len,
    enum codec_kind codec)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return textin_open(fd, codec, "the/file");
}

/* Reads every line of t back into got, each with its '\n' but the last. */
static int
read_all(struct textin *t, struct buf *got, char *err, size_t errlen)
{
	const char *line;
	size_t len, n = 0;
	int r;

	buf_reset(got);
	while ((r = textin_line(t, &line, &len, err, errlen)) == 1) {
		if (n++ > 0)
			assert_int_equal(buf_append(got, "\n", 1), 0);
		assert_int_equal(buf_append(got, line, len), 0);
		assert_int_equal(textin_lineno(t), n);
	}
	return r;
}

static void
assert_reads_back(enum codec_kind codec)
{
	struct buf text = { 0 }, file = { 0 }, got = { 0 };
	char dir[] = "/tmp/kedge-test-textin.XXXXXX", err[256] = "";
	struct textin *t;

	assert_non_null(mkdtemp(dir));
	sample(&text);
	if (codec == CODEC_NONE)
		assert_int_equal(buf_append(&file, text.data, text.len), 0);
	else
		compress_chunks(codec, &text, &file);
	assert_non_null(t = open_bytes(dir, file.data, file.len, codec));
	if (read_all(t, &got, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(got.len, text.len);
	assert_memory_equal(got.data, text.data, text.len);
	assert_int_equal(textin_lineno(t), 5003);
	textin_close(t);
	remove_tree(dir);
	buf_clear(&text);
	buf_clear(&file);
	buf_clear(&got);
}

static void
test_plain(void **state)
{
	(void)state;
	assert_reads_back(CODEC_NONE);
}

static void
test_gzip(void **state)
{
	(void)state;
	assert_reads_back(CODEC_GZIP);
}

static void
test_zstd(void **state)
{
	(void)state;
	assert_reads_back(CODEC_ZSTD);
}

static void
test_empty(void **state)
{
	char dir[] = "/tmp/kedge-test-textin.XXXXXX", err[256] = "";
	struct buf got = { 0 };
	struct textin *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int c = CODEC_NONE; c <= CODEC_ZSTD; c++) {
		assert_non_null(t = open_bytes(dir, "", 0, (enum codec_kind)c));
		assert_int_equal(read_all(t, &got, err, sizeof(err)), 0);
		assert_int_equal(textin_lineno(t), 0);
		textin_close(t);
	}
	remove_tree(dir);
}

/* A stream cut short by cut bytes, or with its byte flip damaged (none:
 * SIZE_MAX): refused, naming the file, after the lines before the damage
 * at most. */
static void
assert_refused(enum codec_kind codec, size_t cut, size_t flip,
    const char *want)
{
	struct buf text = { 0 }, file = { 0 }, got = { 0 };
	char dir[] = "/tmp/kedge-test-textin.XXXXXX", err[256] = "";
	struct textin *t;

	assert_non_null(mkdtemp(dir));
	sample(&text);
	compress_chunks(codec, &text, &file);
	if (flip != SIZE_MAX)
		file.data[flip] ^= 0x55;
	assert_non_null(t = open_bytes(dir, file.data, file.len - cut, codec));
	assert_int_equal(read_all(t, &got, err, sizeof(err)), -EINVAL);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("\"%s\", want \"%s...\"", err, want);
	assert_true(got.len < text.len);
	textin_close(t);
	remove_tree(dir);
	buf_clear(&text);
	buf_clear(&file);
	buf_clear(&got);
}

static void
test_damaged(void **state)
{
	(void)state;
	assert_refused(CODEC_GZIP, 100, SIZE_MAX,
	    "the/file: truncated gzip stream");
	assert_refused(CODEC_ZSTD, 100, SIZE_MAX,
	    "the/file: truncated zstd stream");
	assert_refused(CODEC_GZIP, 0, 200, "the/file: corrupt gzip stream");
	/* a frame's magic number (zstd frames carry no checksum here) */
	assert_refused(CODEC_ZSTD, 0, 0, "the/file: corrupt zstd stream");
}

static void
test_too_long(void **state)
{
	char dir[] = "/tmp/kedge-test-textin.XXXXXX", err[256] = "";
	size_t len = TEXTIN_LINE_MAX + 2;
	char *line = malloc(len);
	struct buf got = { 0 };
	struct textin *t;

	(void)state;
	assert_non_null(line);
	assert_non_null(mkdtemp(dir));
	memset(line, 'z', len);
	assert_non_null(t = open_bytes(dir, line, len, CODEC_NONE));
	assert_int_equal(read_all(t, &got, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, "the/file: line 1 is longer than 67108864 "
	    "bytes");
	textin_close(t);
	remove_tree(dir);
	free(line);
	buf_clear(&got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
