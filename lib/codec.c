#include "lib/codec.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define CODEC_GZIP_LEVEL 6
/* zstd's level 1, not its own default 3: each frame kedge writes is one
 * 64 KiB buffer of a text file or one Parquet page (1 MiB), too short for
 * level 3's longer searches to find much more.  On the bench's nginx rows
 * level 1 wrote 1 % more bytes for 13 % less CPU over the whole run, and
 * its context takes 1.3 MiB against 2.5. */
#define CODEC_ZSTD_LEVEL 1
/* Dozens of part files may be open at once.  A zstd context holds a
 * window and two match tables; for inputs of unknown size zstd's level
 * table asks for a 2 MiB window from level 3 on and tables of 2^21 to
 * 2^27 entries from level 9 on (3.5 MiB at level 3, 90 MiB at level 19,
 * 770 MiB at level 22).  Capping them at 2^20 from those levels on keeps
 * level 3 at 2.5 MiB and every level under 11 MiB, and leaves the lower
 * levels as zstd sets them. */
#define CODEC_ZSTD_LOG_CAP 20
#define CODEC_ZSTD_WINDOW_CAP_LEVEL 3
#define CODEC_ZSTD_TABLE_CAP_LEVEL 9
/* Free room made in the output before each call into a compressor. */
#define CODEC_OUT_ROOM 16384
/* zlib counts bytes in uInt. */
#define CODEC_GZIP_IN_MAX (1u << 30)

struct codec {
	enum codec_kind kind;
	int open;       /* bytes went in since the last finish */
	int zs_ready;   /* zs needs deflateEnd() */
	z_stream zs;
	ZSTD_CCtx *zc;
};

static const struct {
	const char *name;
	const char *ext;
	enum codec_kind kind;
} codec_kinds[] = {
	{ "none", "", CODEC_NONE },
	{ "gzip", ".gz", CODEC_GZIP },
	{ "zstd", ".zst", CODEC_ZSTD },
	{ "snappy", "", CODEC_SNAPPY },
};

#define CODEC_NKINDS (sizeof(codec_kinds) / sizeof(codec_kinds[0]))

static int
codec_gzip_init(struct codec *c, int level)
{
	if (level == 0)
		level = CODEC_GZIP_LEVEL;
	else if (level < Z_BEST_SPEED)
		level = Z_BEST_SPEED;
	else if (level > Z_BEST_COMPRESSION)
		level = Z_BEST_COMPRESSION;
	/* windowBits 15 + 16: a gzip wrapper rather than zlib's; with
	 * memLevel 8, deflate holds 256 KiB. */
	if (deflateInit2(&c->zs, level, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	c->zs_ready = 1;
	return 0;
}

static int
codec_zstd_set(struct codec *c, ZSTD_cParameter param, int value)
{
	return ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, param, value)) ?
	    -EINVAL : 0;
}

static int
codec_zstd_init(struct codec *c, int level)
{
	int r;

	if ((c->zc = ZSTD_createCCtx()) == NULL)
		return -ENOMEM;
	if (level == 0)
		level = CODEC_ZSTD_LEVEL;
	/* zstd clamps the level to the range it supports. */
	if ((r = codec_zstd_set(c, ZSTD_c_compressionLevel, level)) < 0 ||
	    (r = codec_zstd_set(c, ZSTD_c_checksumFlag, 1)) < 0)
		return r;
	if (level >= CODEC_ZSTD_WINDOW_CAP_LEVEL &&
	    (r = codec_zstd_set(c, ZSTD_c_windowLog, CODEC_ZSTD_LOG_CAP)) < 0)
		return r;
	if (level >= CODEC_ZSTD_TABLE_CAP_LEVEL &&
	    ((r = codec_zstd_set(c, ZSTD_c_hashLog, CODEC_ZSTD_LOG_CAP)) < 0 ||
	    (r = codec_zstd_set(c, ZSTD_c_chainLog, CODEC_ZSTD_LOG_CAP)) < 0))
		return r;
	return 0;
}

struct codec *
codec_new(enum codec_kind kind, int level)
{
	struct codec *c;
	int r = 0;

	if (kind == CODEC_SNAPPY || (c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->kind = kind;
	if (kind == CODEC_GZIP)
		r = codec_gzip_init(c, level);
	else if (kind == CODEC_ZSTD)
		r = codec_zstd_init(c, level);
	if (r < 0)
		goto fail;
	return c;
fail:
	codec_free(c);
	return NULL;
}

void
codec_free(struct codec *c)
{
	if (c == NULL)
		return;
	if (c->zs_ready)
		deflateEnd(&c->zs);
	ZSTD_freeCCtx(c->zc);
	free(c);
}

/* Runs deflate over what is in zs.next_in with flush Z_NO_FLUSH (until all
 * input is taken) or Z_FINISH (until the member is complete). */
static int
codec_gzip_run(struct codec *c, int flush, struct buf *out)
{
	size_t room;
	int r, zr;

	do {
		if ((r = buf_reserve(out, CODEC_OUT_ROOM)) < 0)
			return r;
		room = out->cap - out->len;
		if (room > UINT_MAX)
			room = UINT_MAX;
		c->zs.next_out = (Bytef *)out->data + out->len;
		c->zs.avail_out = (uInt)room;
		zr = deflate(&c->zs, flush);
		out->len += room - c->zs.avail_out;
		/* Z_BUF_ERROR means no progress was possible: harmless when
		 * the input is used up, fatal while finishing. */
		if (zr == Z_STREAM_ERROR ||
		    (zr == Z_BUF_ERROR && flush == Z_FINISH))
			return -EIO;
	} while (flush == Z_FINISH ? zr != Z_STREAM_END : c->zs.avail_out == 0);
	return 0;
}

static int
codec_gzip_write(struct codec *c, const unsigned char *in, size_t len,
    struct buf *out)
{
	size_t n;
	int r;

	while (len > 0) {
		n = len < CODEC_GZIP_IN_MAX ? len : CODEC_GZIP_IN_MAX;
		c->zs.next_in = in;
		c->zs.avail_in = (uInt)n;
		if ((r = codec_gzip_run(c, Z_NO_FLUSH, out)) < 0)
			return r;
		in += n;
		len -= n;
	}
	return 0;
}

static int
codec_gzip_finish(struct codec *c, struct buf *out)
{
	int r;

	c->zs.next_in = NULL;
	c->zs.avail_in = 0;
	if ((r = codec_gzip_run(c, Z_FINISH, out)) < 0)
		return r;
	/* The next write starts a new member with a new header. */
	return deflateReset(&c->zs) == Z_OK ? 0 : -EIO;
}

/* Runs zstd with directive end: ZSTD_e_continue until all of in is taken,
 * ZSTD_e_end until the frame is complete. */
static int
codec_zstd_run(struct codec *c, ZSTD_inBuffer *in, ZSTD_EndDirective end,
    struct buf *out)
{
	ZSTD_outBuffer o;
	size_t left;
	int r;

	do {
		if ((r = buf_reserve(out, CODEC_OUT_ROOM)) < 0)
			return r;
		o.dst = out->data + out->len;
		o.size = out->cap - out->len;
		o.pos = 0;
		left = ZSTD_compressStream2(c->zc, &o, in, end);
		if (ZSTD_isError(left))
			return ZSTD_getErrorCode(left) ==
			    ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
		out->len += o.pos;
	} while (end == ZSTD_e_end ? left != 0 : in->pos < in->size);
	return 0;
}

int
codec_write(struct codec *c, const void *in, size_t len, struct buf *out)
{
	ZSTD_inBuffer zin = { in, len, 0 };
	int r;

	if (len == 0)
		return 0;
	c->open = 1;
	switch (c->kind) {
	case CODEC_GZIP:
		r = codec_gzip_write(c, in, len, out);
		break;
	case CODEC_ZSTD:
		r = codec_zstd_run(c, &zin, ZSTD_e_continue, out);
		break;
	default: /* CODEC_NONE */
		r = buf_append(out, in, len);
		break;
	}
	return r;
}

int
codec_finish(struct codec *c, struct buf *out)
{
	ZSTD_inBuffer none = { NULL, 0, 0 };
	int r = 0;

	if (!c->open)
		return 0;
	if (c->kind == CODEC_GZIP)
		r = codec_gzip_finish(c, out);
	else if (c->kind == CODEC_ZSTD)
		r = codec_zstd_run(c, &none, ZSTD_e_end, out);
	if (r == 0)
		c->open = 0;
	return r;
}

int
codec_empty(struct codec *c, struct buf *out)
{
	int r;

	if ((r = codec_finish(c, out)) < 0)
		return r;
	c->open = 1;
	return codec_finish(c, out);
}

int
codec_kind_parse(const char *name, enum codec_kind *out)
{
	for (size_t i = 0; i < CODEC_NKINDS; i++) {
		if (strcmp(name, codec_kinds[i].name) == 0) {
			*out = codec_kinds[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
codec_kind_ext(enum codec_kind kind)
{
	for (size_t i = 0; i < CODEC_NKINDS; i++)
		if (codec_kinds[i].kind == kind)
			return codec_kinds[i].ext;
	return "";
}

const char *
codec_kind_name(enum codec_kind kind)
{
	for (size_t i = 0; i < CODEC_NKINDS; i++)
		if (codec_kinds[i].kind == kind)
			return codec_kinds[i].name;
	return "";
}
