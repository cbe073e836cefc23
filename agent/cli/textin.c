#include "agent/cli/textin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "lib/buf.h"
#include "lib/err.h"

#define TEXTIN_CHUNK (128 * 1024)

struct textin {
	int fd;
	enum codec_kind codec;
	char *path;
	unsigned char in[TEXTIN_CHUNK];
	size_t in_pos, in_len;
	int eof;               /* the file is read to its end */
	int in_stream;         /* a member or frame is begun, not ended */
	int pending;           /* the decoder may hold more output */
	z_stream zs;
	int zs_ready;
	ZSTD_DStream *zds;
	struct buf text;       /* decoded bytes; text.data[start..len) unread */
	size_t start;
	size_t lineno;
};

struct textin *
textin_open(int fd, enum codec_kind codec, const char *path)
{
	struct textin *t = calloc(1, sizeof(*t));

	if (t == NULL || (t->path = strdup(path)) == NULL) {
		free(t);
		close(fd);
		return NULL;
	}
	t->fd = fd;
	t->codec = codec;
	return t;
}

void
textin_close(struct textin *t)
{
	if (t == NULL)
		return;
	close(t->fd);
	if (t->zs_ready)
		inflateEnd(&t->zs);
	ZSTD_freeDStream(t->zds);
	buf_clear(&t->text);
	free(t->path);
	free(t);
}

size_t
textin_lineno(const struct textin *t)
{
	return t->lineno;
}

/* Reads the next bytes of the file into t->in.  Returns 0 or -errno. */
static int
textin_fill(struct textin *t, char *err, size_t errlen)
{
	ssize_t n;

	do
		n = read(t->fd, t->in, sizeof(t->in));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(err, errlen, -errno, "%s: cannot read: %s",
		    t->path, strerror(errno));
	t->in_pos = 0;
	t->in_len = (size_t)n;
	t->eof = n == 0;
	return 0;
}

/* Decodes what t->in holds into t->text.  Returns 0 or a negative errno
 * with the sentence. */
static int
textin_decode(struct textin *t, char *err, size_t errlen)
{
	unsigned char out[TEXTIN_CHUNK];
	size_t made;
	int zr;

	if (t->codec == CODEC_NONE) {
		made = t->in_len - t->in_pos;
		t->in_pos = t->in_len;
		return buf_append(&t->text, t->in, made);
	}
	if (t->codec == CODEC_GZIP) {
		if (!t->zs_ready) {
			/* 15 + 32: a 32 KiB window, gzip header detected */
			if (inflateInit2(&t->zs, 15 + 32) != Z_OK)
				return -ENOMEM;
			t->zs_ready = 1;
		}
		t->zs.next_in = t->in + t->in_pos;
		t->zs.avail_in = (uInt)(t->in_len - t->in_pos);
		t->zs.next_out = out;
		t->zs.avail_out = sizeof(out);
		zr = inflate(&t->zs, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return err_set(err, errlen, -EINVAL,
			    "%s: corrupt gzip stream (%s)", t->path,
			    t->zs.msg ? t->zs.msg : zError(zr));
		made = sizeof(out) - t->zs.avail_out;
		t->pending = t->zs.avail_out == 0;
		if (t->in_len - t->in_pos > t->zs.avail_in)
			t->in_stream = 1;
		t->in_pos = t->in_len - t->zs.avail_in;
		if (zr == Z_STREAM_END) {
			/* members are concatenated: the next starts here */
			t->in_stream = 0;
			inflateReset(&t->zs);
		}
		return buf_append(&t->text, out, made);
	}
	{
		ZSTD_inBuffer ib = { t->in, t->in_len, t->in_pos };
		ZSTD_outBuffer ob = { out, sizeof(out), 0 };
		size_t zr2;

		if (t->zds == NULL && (t->zds = ZSTD_createDStream()) == NULL)
			return -ENOMEM;
		zr2 = ZSTD_decompressStream(t->zds, &ob, &ib);
		if (ZSTD_isError(zr2))
			return err_set(err, errlen, -EINVAL,
			    "%s: corrupt zstd stream (%s)", t->path,
			    ZSTD_getErrorName(zr2));
		if (ib.pos > t->in_pos)
			t->in_stream = 1;
		if (zr2 == 0)
			t->in_stream = 0;
		t->in_pos = ib.pos;
		t->pending = ob.pos == ob.size;
		return buf_append(&t->text, out, ob.pos);
	}
}

/* Adds decoded bytes to t->text.  Returns 1, 0 at the end of the file, or
 * a negative errno with the sentence. */
static int
textin_more(struct textin *t, char *err, size_t errlen)
{
	size_t before = t->text.len;
	int r;

	for (;;) {
		if (t->in_pos == t->in_len && !t->eof && !t->pending &&
		    (r = textin_fill(t, err, errlen)) < 0)
			return r;
		if (t->in_pos == t->in_len && t->eof && !t->pending)
			break;
		if ((r = textin_decode(t, err, errlen)) < 0)
			return r == -ENOMEM ? err_set(err, errlen, r,
			    "%s: out of memory", t->path) : r;
		if (t->text.len > before)
			return 1;
	}
	if (t->in_stream)
		return err_set(err, errlen, -EINVAL, "%s: truncated %s stream",
		    t->path, codec_kind_name(t->codec));
	return 0;
}

int
textin_line(struct textin *t, const char **line, size_t *len, char *err,
    size_t errlen)
{
	size_t scanned = t->start;
	char *nl;
	int r;

	for (;;) {
		nl = t->text.len > scanned ? memchr(t->text.data + scanned, '\n',
		    t->text.len - scanned) : NULL;
		if (nl != NULL)
			break;
		scanned = t->text.len;
		if (t->text.len - t->start > TEXTIN_LINE_MAX)
			return err_set(err, errlen, -E2BIG, "%s: line %zu is "
			    "longer than %u bytes", t->path, t->lineno + 1,
			    TEXTIN_LINE_MAX);
		/* keep only the unread bytes before reading more */
		if (t->start > 0) {
			memmove(t->text.data, t->text.data + t->start,
			    t->text.len - t->start);
			t->text.len -= t->start;
			scanned -= t->start;
			t->start = 0;
		}
		if ((r = textin_more(t, err, errlen)) < 0)
			return r;
		if (r == 0) {
			if (t->start == t->text.len)
				return 0;
			/* the last line, without its '\n' */
			*line = t->text.data + t->start;
			*len = t->text.len - t->start;
			t->start = t->text.len;
			t->lineno++;
			return 1;
		}
	}
	*line = t->text.data + t->start;
	*len = (size_t)(nl - (t->text.data + t->start));
	t->start = (size_t)(nl - t->text.data) + 1;
	t->lineno++;
	return 1;
}
