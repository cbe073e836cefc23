/*
 * verify_decode: `kedge verify` reading part files back, the read side of
 * lib/codec.c: plain, gzip and zstd text, decoded in chunks to
 * count its rows and bytes (and take its digests) for the checks of
 * verify.c.
 */
#include "agent/cli/verify_int.h"

#include <stdint.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

static void
lines_count(struct lines *l, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *nl;

	if (len == 0)
		return;
	l->open = end[-1] != '\n';
	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		l->n++;
		p = nl + 1;
	}
}

/* Reads the next chunk of the part file fd into v->in, adding it to the
 * file's digests when they are being taken.  Returns the count or -errno. */
static ssize_t
read_part(struct verify *v, int fd)
{
	ssize_t n = verify_read_some(fd, v->in, CHUNK);

	if (n > 0 && v->hash != NULL)
		spool_hash_update(v->hash, v->in, (size_t)n);
	return n;
}

/* The decoders count the lines and the bytes of the open file fd and
 * return 0, 1 after writing a violation, or a negative errno. */
int
decode_none(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes)
{
	ssize_t n;

	while ((n = read_part(v, fd)) > 0) {
		*bytes += (uint64_t)n;
		if (l != NULL)
			lines_count(l, v->in, (size_t)n);
	}
	return n < 0 ? verify_failure(v, (int)n, "%s: cannot read", path) : 0;
}

/* decode_none() for a gzip file (verify_int.h). */
int
decode_gzip(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes)
{
	z_stream zs;
	ssize_t n = 0;
	int zr, in_member = 0, r = 0;

	memset(&zs, 0, sizeof(zs));
	/* 15 + 32: a 32 KiB window, gzip header detected */
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return verify_nomem(v);
	while (r == 0 && (n = read_part(v, fd)) > 0) {
		*bytes += (uint64_t)n;
		zs.next_in = v->in;
		zs.avail_in = (uInt)n;
		/* until the input is used and inflate holds no more output */
		do {
			uInt before = zs.avail_in;
			zs.next_out = v->out;
			zs.avail_out = CHUNK;
			zr = inflate(&zs, Z_NO_FLUSH);
			if (zr == Z_MEM_ERROR) {
				r = verify_nomem(v);
				break;
			}
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
				r = verify_violation(v,
				    "%s: corrupt gzip stream (%s)",
				    path, zs.msg ? zs.msg : zError(zr));
				break;
			}
			lines_count(l, v->out, CHUNK - zs.avail_out);
			if (zr == Z_STREAM_END) {
				/* members are concatenated: the next starts here */
				in_member = 0;
				inflateReset(&zs);
			} else if (zs.avail_in < before) {
				in_member = 1;
			}
		} while (zs.avail_in > 0 || zs.avail_out == 0);
	}
	if (r == 0 && n < 0)
		r = verify_failure(v, (int)n, "%s: cannot read", path);
	else if (r == 0 && in_member)
		r = verify_violation(v, "%s: truncated gzip stream", path);
	inflateEnd(&zs);
	return r;
}

/* decode_none() for a zstd file (verify_int.h). */
int
decode_zstd(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes)
{
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	ssize_t n = 0;
	size_t zr;
	int in_frame = 0, r = 0;

	if (v->zds == NULL && (v->zds = ZSTD_createDStream()) == NULL)
		return verify_nomem(v);
	if (ZSTD_isError(ZSTD_initDStream(v->zds)))
		return verify_nomem(v);
	while (r == 0 && (n = read_part(v, fd)) > 0) {
		*bytes += (uint64_t)n;
		ib.src = v->in;
		ib.size = (size_t)n;
		ib.pos = 0;
		/* until the input is used and the frame holds no more output;
		 * a call after the end of a frame starts the next one */
		do {
			size_t before = ib.pos;
			ob.dst = v->out;
			ob.size = CHUNK;
			ob.pos = 0;
			zr = ZSTD_decompressStream(v->zds, &ob, &ib);
			if (ZSTD_isError(zr)) {
				r = verify_violation(v,
				    "%s: corrupt zstd stream (%s)",
				    path, ZSTD_getErrorName(zr));
				break;
			}
			lines_count(l, v->out, ob.pos);
			if (zr == 0)
				in_frame = 0;
			else if (ib.pos > before)
				in_frame = 1;
		} while (ib.pos < ib.size || ob.pos == ob.size);
	}
	if (r == 0 && n < 0)
		r = verify_failure(v, (int)n, "%s: cannot read", path);
	else if (r == 0 && in_frame)
		r = verify_violation(v, "%s: truncated zstd stream", path);
	return r;
}
