/*
 * codec: output decompressed by zlib and libzstd themselves.  The whole
 * output, and the output cut at every finish, must give back exactly the
 * bytes written up to there; an empty finish adds nothing; level 0 is the
 * codec's default level.
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

#include "tests/testlib.h"
#include <zlib.h>
#include <zstd.h>

#include "lib/codec.h"

#define MiB (1024 * 1024)

/* Fills a buffer with len bytes of access-log-like lines: random, but
 * from a small vocabulary, so that they compress. */
static void
make_text(struct buf *b, size_t len, uint64_t seed)
{
	static const char *const paths[] = {
		"/", "/api/v1/items", "/api/v1/users/me", "/static/app.js",
		"/login", "/search?q=kafka", "/health",
	};
	char line[256];

	while (b->len < len) {
		uint64_t r = splitmix64(&seed);
		int n = snprintf(line, sizeof(line),
		    "10.0.%u.%u - - [04/May/2026:12:%02u:%02u +0800] \"GET %s "
		    "HTTP/1.1\" %u %u %u.%03u\n", (unsigned)(r & 0xff),
		    (unsigned)(r >> 8 & 0xff), (unsigned)(r >> 16 & 0x3f) % 60,
		    (unsigned)(r >> 22 & 0x3f) % 60,
		    paths[(r >> 28) % (sizeof(paths) / sizeof(paths[0]))],
		    r >> 32 & 1 ? 200 : 404, (unsigned)(r >> 33 & 0xffff),
		    (unsigned)(r >> 49 & 0x3),
		    (unsigned)(r >> 51 & 0x3ff) % 1000);

		assert_return_code(buf_append(b, line, (size_t)n), 0);
	}
	b->len = len;
}

/* Inflates every gzip member in in[0..len); returns the number of members,
 * or -1 when the data is not whole gzip members. */
static int
gunzip_all(const unsigned char *in, size_t len, struct buf *out)
{
	unsigned char chunk[65536];
	z_stream zs;
	int members = 0, zr = Z_OK;

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, 15 + 32), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	while (zs.avail_in > 0) {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zr = inflate(&zs, Z_NO_FLUSH);
		assert_return_code(buf_append(out, chunk,
		    sizeof(chunk) - zs.avail_out), 0);
		if (zr == Z_STREAM_END) {
			members++;
			assert_int_equal(inflateReset(&zs), Z_OK);
		} else if (zr != Z_OK) {
			break;
		}
	}
	inflateEnd(&zs);
	return zr == Z_STREAM_END ? members : -1;
}

/* Decompresses every zstd frame in in[0..len); returns the number of
 * frames, or -1 when the data is not whole frames. */
static int
unzstd_all(const unsigned char *in, size_t len, struct buf *out)
{
	unsigned char chunk[65536];
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer zin = { in, len, 0 };
	size_t left = 0;
	int frames = 0;

	assert_non_null(dc);
	while (zin.pos < zin.size) {
		ZSTD_outBuffer zout = { chunk, sizeof(chunk), 0 };
		size_t before = zin.pos;

		left = ZSTD_decompressStream(dc, &zout, &zin);
		if (ZSTD_isError(left))
			break;
		assert_return_code(buf_append(out, chunk, zout.pos), 0);
		if (left == 0)
			frames++;
		/* Input used up but the frame still wants bytes. */
		if (zin.pos == before && zout.pos == 0)
			break;
	}
	ZSTD_freeDCtx(dc);
	return !ZSTD_isError(left) && left == 0 && zin.pos == zin.size ?
	    frames : -1;
}

/* Decompresses in[0..len) whole; returns the number of members/frames
 * (-1 when incomplete).  CODEC_NONE copies and counts 0. */
static int
decompress(enum codec_kind kind, const char *in, size_t len, struct buf *out)
{
	buf_reset(out);
	if (kind == CODEC_GZIP)
		return gunzip_all((const unsigned char *)in, len, out);
	if (kind == CODEC_ZSTD)
		return unzstd_all((const unsigned char *)in, len, out);
	assert_return_code(buf_append(out, in, len), 0);
	return 0;
}

static void
expect_same(const struct buf *got, const char *want, size_t len)
{
	assert_int_equal(got->len, len);
	if (len > 0)
		assert_memory_equal(got->data, want, len);
}

/* Writes text in chunks of random sizes with a finish after the first
 * write and then about every twelfth of the text;
 * checks that each finished prefix of the output decompresses to exactly
 * the input up to that finish, and that it holds one member or frame per
 * finish. */
static void
check_finish_points(enum codec_kind kind, int level, size_t total,
    size_t max_chunk, uint64_t seed)
{
	struct codec *c = codec_new(kind, level);
	struct buf text = { 0 }, out = { 0 }, back = { 0 };
	size_t in_at[64], out_at[64], nfin = 0, pos = 0, before, next_fin = 0;
	int finished;

	assert_non_null(c);
	make_text(&text, total, seed);
	/* Nothing written yet: nothing to finish. */
	assert_int_equal(codec_finish(c, &out), 0);
	assert_int_equal(out.len, 0);
	while (pos < total) {
		size_t n = 1 + splitmix64(&seed) % max_chunk;

		if (n > total - pos)
			n = total - pos;
		assert_int_equal(codec_write(c, text.data + pos, n, &out), 0);
		pos += n;
		if (pos < next_fin && pos < total)
			continue;
		next_fin = pos + 1 + splitmix64(&seed) % (total / 6);
		assert_true(nfin < 64);
		assert_int_equal(codec_finish(c, &out), 0);
		in_at[nfin] = pos;
		out_at[nfin++] = out.len;
		/* A second finish, and an empty write, add nothing. */
		before = out.len;
		assert_int_equal(codec_write(c, "", 0, &out), 0);
		assert_int_equal(codec_finish(c, &out), 0);
		assert_int_equal(out.len, before);
	}
	assert_true(nfin >= 2);
	for (size_t k = 0; k < nfin; k++) {
		finished = decompress(kind, out.data, out_at[k], &back);
		assert_int_equal(finished, kind == CODEC_NONE ? 0 : (int)k + 1);
		expect_same(&back, text.data, in_at[k]);
	}
	/* An empty member: a valid file of no byte, and one member more. */
	before = out.len;
	assert_int_equal(codec_empty(c, &out), 0);
	if (kind != CODEC_NONE) {
		assert_true(out.len > before);
		finished = decompress(kind, out.data, out.len, &back);
		assert_int_equal(finished, (int)nfin + 1);
		expect_same(&back, text.data, total);
		out.len = before;
	}
	/* Cut anywhere inside the last member, it is not a whole file. */
	if (kind != CODEC_NONE)
		assert_int_equal(decompress(kind, out.data, out.len - 1, &back),
		    -1);
	codec_free(c);
	buf_clear(&text);
	buf_clear(&out);
	buf_clear(&back);
}

static void
test_none(void **state)
{
	(void)state;
	check_finish_points(CODEC_NONE, 0, 300000, 5000, 1);
}

static void
test_gzip_members(void **state)
{
	(void)state;
	check_finish_points(CODEC_GZIP, 0, 300000, 5000, 2);
	/* Single bytes, and chunks far larger than the output room. */
	check_finish_points(CODEC_GZIP, 1, 20000, 3, 3);
	check_finish_points(CODEC_GZIP, 9, 3 * MiB, 400000, 4);
}

static void
test_zstd_frames(void **state)
{
	(void)state;
	check_finish_points(CODEC_ZSTD, 0, 300000, 5000, 5);
	check_finish_points(CODEC_ZSTD, 1, 20000, 3, 6);
	check_finish_points(CODEC_ZSTD, 19, MiB, 400000, 7);
	check_finish_points(CODEC_ZSTD, -5, 300000, 70000, 8);
}

/* 8 MiB in 64 KiB writes, finished once: comes back whole and smaller. */
static void
check_large(enum codec_kind kind)
{
	const size_t total = 8 * MiB;
	struct codec *c = codec_new(kind, 0);
	struct buf text = { 0 }, out = { 0 }, back = { 0 };

	assert_non_null(c);
	make_text(&text, total, 42);
	for (size_t pos = 0; pos < total; pos += 65536)
		assert_int_equal(codec_write(c, text.data + pos, 65536, &out),
		    0);
	assert_int_equal(codec_finish(c, &out), 0);
	assert_int_equal(decompress(kind, out.data, out.len, &back), 1);
	expect_same(&back, text.data, total);
	assert_true(out.len < total / 3);
	codec_free(c);
	buf_clear(&text);
	buf_clear(&out);
	buf_clear(&back);
}

static void
test_large(void **state)
{
	(void)state;
	check_large(CODEC_GZIP);
	check_large(CODEC_ZSTD);
}

/* Finishing must go on until the member or frame is complete even when
 * the output has little room: incompressible bytes, still held by the
 * compressor, finished into a buffer with exactly 16 KiB free. */
static void
check_finish_in_little_room(enum codec_kind kind)
{
	struct codec *c = codec_new(kind, 0);
	struct buf noise = { 0 }, out = { 0 }, back = { 0 };
	uint64_t seed = 12;
	size_t start;

	assert_non_null(c);
	while (noise.len < 120000) {
		uint64_t r = splitmix64(&seed);

		assert_return_code(buf_append(&noise, &r, sizeof(r)), 0);
	}
	assert_return_code(buf_reserve(&out, 32768), 0);
	out.len = start = out.cap - 16384;
	memset(out.data, 0, out.len);
	assert_int_equal(codec_write(c, noise.data, noise.len, &out), 0);
	assert_int_equal(codec_finish(c, &out), 0);
	assert_int_equal(decompress(kind, out.data + start, out.len - start,
	    &back), 1);
	expect_same(&back, noise.data, noise.len);
	codec_free(c);
	buf_clear(&noise);
	buf_clear(&out);
	buf_clear(&back);
}

static void
test_finish_in_little_room(void **state)
{
	(void)state;
	check_finish_in_little_room(CODEC_GZIP);
	check_finish_in_little_room(CODEC_ZSTD);
}

/* One member or frame of text at level. */
static void
compress_once(enum codec_kind kind, int level, const struct buf *text,
    struct buf *out)
{
	struct codec *c = codec_new(kind, level);

	assert_non_null(c);
	buf_reset(out);
	assert_int_equal(codec_write(c, text->data, text->len, out), 0);
	assert_int_equal(codec_finish(c, out), 0);
	codec_free(c);
}

static int
same_bytes(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static void
test_gzip_levels(void **state)
{
	struct buf text = { 0 }, dflt = { 0 }, other = { 0 }, ref = { 0 };
	z_stream zs;

	(void)state;
	make_text(&text, 500000, 9);
	compress_once(CODEC_GZIP, 0, &text, &dflt);

	/* zlib at level 6, memLevel 8, gzip wrapper makes the same bytes. */
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	assert_return_code(buf_reserve(&ref, deflateBound(&zs, text.len)), 0);
	zs.next_in = (Bytef *)text.data;
	zs.avail_in = (uInt)text.len;
	zs.next_out = (Bytef *)ref.data;
	zs.avail_out = (uInt)ref.cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	ref.len = ref.cap - zs.avail_out;
	deflateEnd(&zs);
	assert_true(same_bytes(&dflt, &ref));

	compress_once(CODEC_GZIP, 6, &text, &other);
	assert_true(same_bytes(&dflt, &other));
	compress_once(CODEC_GZIP, 1, &text, &other);
	assert_false(same_bytes(&dflt, &other));
	/* Out of range: the nearest level. */
	compress_once(CODEC_GZIP, 9, &text, &ref);
	compress_once(CODEC_GZIP, 42, &text, &other);
	assert_true(same_bytes(&ref, &other));
	compress_once(CODEC_GZIP, -3, &text, &ref);
	compress_once(CODEC_GZIP, 1, &text, &other);
	assert_true(same_bytes(&ref, &other));
	buf_clear(&text);
	buf_clear(&dflt);
	buf_clear(&other);
	buf_clear(&ref);
}

/* Reads a zstd frame header: the checksum flag and the window size. */
static void
zstd_frame_header(const struct buf *frame, int *checksum, int *window_log)
{
	const unsigned char *p = (const unsigned char *)frame->data;
	unsigned char fhd;

	assert_true(frame->len > 6);
	assert_memory_equal(p, "\x28\xb5\x2f\xfd", 4);
	fhd = p[4];
	*checksum = fhd >> 2 & 1;
	/* No window descriptor in a single-segment frame. */
	assert_int_equal(fhd >> 5 & 1, 0);
	*window_log = 10 + (p[5] >> 3);
}

static void
test_zstd_levels(void **state)
{
	struct buf text = { 0 }, dflt = { 0 }, other = { 0 }, back = { 0 };
	int checksum, wlog;

	(void)state;
	make_text(&text, 500000, 10);
	compress_once(CODEC_ZSTD, 0, &text, &dflt);
	compress_once(CODEC_ZSTD, 1, &text, &other);
	assert_true(same_bytes(&dflt, &other));
	zstd_frame_header(&dflt, &checksum, &wlog);
	assert_int_equal(checksum, 1);
	assert_true(wlog <= 20);
	/* zstd's own default, level 3, asks for a 2 MiB window. */
	compress_once(CODEC_ZSTD, 3, &text, &other);
	assert_false(same_bytes(&dflt, &other));
	zstd_frame_header(&other, &checksum, &wlog);
	assert_int_equal(checksum, 1);
	assert_true(wlog <= 20);
	/* Level 22's own window is 128 MiB. */
	compress_once(CODEC_ZSTD, 22, &text, &other);
	zstd_frame_header(&other, &checksum, &wlog);
	assert_true(wlog <= 20);
	compress_once(CODEC_ZSTD, 99, &text, &other);
	assert_int_equal(decompress(CODEC_ZSTD, other.data, other.len, &back),
	    1);
	expect_same(&back, text.data, text.len);
	/* A corrupted byte fails the checksum. */
	other.data[other.len - 2] ^= 1;
	assert_int_equal(decompress(CODEC_ZSTD, other.data, other.len, &back),
	    -1);
	buf_clear(&text);
	buf_clear(&dflt);
	buf_clear(&other);
	buf_clear(&back);
}

/* What one codec holds once it has compressed a few MiB: dozens of them
 * live at once. */
static void
test_memory(void **state)
{
	static const struct {
		enum codec_kind kind;
		int level;
		size_t max_kib;
	} cases[] = {
		{ CODEC_NONE, 0, 1 },
		{ CODEC_GZIP, 0, 300 }, { CODEC_GZIP, 9, 300 },
		{ CODEC_ZSTD, 0, 2 * 1024 }, { CODEC_ZSTD, 1, 2 * 1024 },
		{ CODEC_ZSTD, 3, 3 * 1024 },
		{ CODEC_ZSTD, 19, 12 * 1024 }, { CODEC_ZSTD, 22, 12 * 1024 },
	};
	struct buf text = { 0 }, out = { 0 };

	(void)state;
	make_text(&text, 300000, 11);
	assert_return_code(buf_reserve(&out, 2 * text.len), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t before = heap_in_use(), used;
		struct codec *c = codec_new(cases[i].kind, cases[i].level);

		assert_non_null(c);
		buf_reset(&out);
		assert_int_equal(codec_write(c, text.data, text.len, &out), 0);
		assert_int_equal(codec_finish(c, &out), 0);
		used = (heap_in_use() - before) / 1024;
		if (used > cases[i].max_kib)
			fail_msg("codec %d level %d holds %zu KiB, at most %zu",
			    cases[i].kind, cases[i].level, used,
			    cases[i].max_kib);
		codec_free(c);
	}
	buf_clear(&text);
	buf_clear(&out);
}

static void
test_kind_names(void **state)
{
	enum codec_kind k = CODEC_ZSTD;

	(void)state;
	assert_int_equal(codec_kind_parse("none", &k), 0);
	assert_int_equal(k, CODEC_NONE);
	assert_int_equal(codec_kind_parse("gzip", &k), 0);
	assert_int_equal(k, CODEC_GZIP);
	assert_int_equal(codec_kind_parse("zstd", &k), 0);
	assert_int_equal(k, CODEC_ZSTD);
	k = CODEC_GZIP;
	assert_int_equal(codec_kind_parse("gz", &k), -EINVAL);
	assert_int_equal(codec_kind_parse("ZSTD", &k), -EINVAL);
	assert_int_equal(codec_kind_parse("", &k), -EINVAL);
	assert_int_equal(k, CODEC_GZIP);
	assert_string_equal(codec_kind_ext(CODEC_NONE), "");
	assert_string_equal(codec_kind_ext(CODEC_GZIP), ".gz");
	assert_string_equal(codec_kind_ext(CODEC_ZSTD), ".zst");
	codec_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_gzip_members),
		cmocka_unit_test(test_zstd_frames),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_finish_in_little_room),
		cmocka_unit_test(test_gzip_levels),
		cmocka_unit_test(test_zstd_levels),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
