#include "agent/parquet/rowlog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/parquet/rle.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/le.h"
#include "lib/utf8.h"

#define ROWLOG_MAGIC "KEDGEROWS\n"
#define ROWLOG_MAGIC_LEN 10
#define ROWLOG_VERSION 1
#define ROWLOG_CHUNK (1u << 20)
/* Of columns and of a name's bytes: far above what a UDTF declares. */
#define ROWLOG_MAX_COLS 4096
#define ROWLOG_MAX_NAME 4096

int
rowlog_header(const struct pq_opts *opts, const struct udtf_column *cols,
    size_t ncols, struct buf *out)
{
	size_t start = out->len;
	int r;

	if ((r = buf_append(out, ROWLOG_MAGIC, ROWLOG_MAGIC_LEN)) < 0 ||
	    (r = rle_uleb128(out, ROWLOG_VERSION)) < 0 ||
	    (r = rle_uleb128(out, (uint64_t)opts->codec)) < 0 ||
	    (r = rle_uleb128(out, rle_zigzag(opts->level))) < 0 ||
	    (r = rle_uleb128(out, opts->row_group_bytes)) < 0 ||
	    (r = rle_uleb128(out, opts->page_bytes)) < 0 ||
	    (r = rle_uleb128(out, opts->dict_bytes)) < 0 ||
	    (r = rle_uleb128(out, ncols)) < 0)
		goto fail;
	for (size_t i = 0; i < ncols; i++) {
		size_t n = strlen(cols[i].name);

		if ((r = rle_uleb128(out, (uint64_t)cols[i].type)) < 0 ||
		    (r = rle_uleb128(out, n)) < 0 ||
		    (r = buf_append(out, cols[i].name, n)) < 0)
			goto fail;
	}
	return 0;
fail:
	out->len = start;
	return r;
}

/* Writes s[0..n) as a Parquet STRING holds it: valid UTF-8, as
 * utf8_fixed_len() measures it. */
static unsigned char *
rowlog_put_utf8(unsigned char *out, const unsigned char *s, size_t n)
{
	size_t i = 0, seq;

	while (i < n) {
		if (s[i] < 0x80) {
			*out++ = s[i++];
		} else if ((seq = utf8_seq_len(s + i, n - i)) > 0) {
			memcpy(out, s + i, seq);
			out += seq;
			i += seq;
		} else {
			out += utf8_put((char *)out, s[i++]);
		}
	}
	return out;
}

int
rowlog_row(const struct udtf_column *cols, const struct udtf_value *vals,
    size_t n, struct buf *out)
{
	size_t need = 0, start = out->len;
	unsigned char *p;
	int fixed = 0;

	for (size_t i = 0; i < n; i++) {
		if (vals[i].type != UDTF_NULL && vals[i].type != cols[i].type)
			return -EINVAL;
		need += 1 + (vals[i].type == UDTF_STRING ? RLE_ULEB128_MAX + 2 * vals[i].u.s.len :
		    vals[i].type == UDTF_BOOL ? 1 : vals[i].type == UDTF_NULL ?
		    0 : 8);
	}
	if (buf_reserve(out, need) < 0)
		return -ENOMEM;
	p = (unsigned char *)out->data + start;
	for (size_t i = 0; i < n; i++) {
		const struct udtf_value *v = &vals[i];

		*p++ = v->type != UDTF_NULL;
		switch (v->type) {
		case UDTF_NULL:
			break;
		case UDTF_STRING: {
			const unsigned char *s = (const unsigned char *)v->u.s.ptr;
			size_t slen = utf8_fixed_len(s, v->u.s.len);

			p += rle_uleb128_put(p, slen);
			if (slen == v->u.s.len) {
				memcpy(p, s, slen);
				p += slen;
			} else {
				p = rowlog_put_utf8(p, s, v->u.s.len);
				fixed = 1;
			}
			break;
		}
		case UDTF_INT64:
			le_put64(p, (uint64_t)v->u.i64);
			p += 8;
			break;
		case UDTF_TIMESTAMP:
			le_put64(p, (uint64_t)v->u.ts_us);
			p += 8;
			break;
		case UDTF_DOUBLE: {
			uint64_t bits;

			memcpy(&bits, &v->u.d, sizeof(bits));
			le_put64(p, bits);
			p += 8;
			break;
		}
		case UDTF_BOOL:
			*p++ = v->u.b != 0;
			break;
		}
	}
	out->len = (size_t)((char *)p - out->data);
	return fixed;
}

/* A cursor over bytes read; short is set when a read ran past end. */
struct rowlog_cur {
	const unsigned char *p, *end;
	int short_;
	int bad;
};

static uint64_t
rowlog_uleb(struct rowlog_cur *c)
{
	uint64_t v = 0;
	int r = rle_uleb128_get(&c->p, c->end, &v);

	if (r == -EAGAIN)
		c->short_ = 1;
	else if (r < 0)
		c->bad = 1;
	return v;
}

static const unsigned char *
rowlog_bytes(struct rowlog_cur *c, uint64_t n)
{
	const unsigned char *p = c->p;

	if ((uint64_t)(c->end - c->p) < n) {
		c->short_ = 1;
		return NULL;
	}
	c->p += n;
	return p;
}

/* The log being read: its bytes [pos, len) of data are read, not used. */
struct rowlog_in {
	int fd;
	uint64_t left;         /* bytes of the log not read yet */
	struct buf data;
	size_t pos;
};

/* Reads more of the log after what is unused, growing the buffer when
 * the unused bytes fill it.  Returns 0, -EINVAL at the log's end, or
 * -errno. */
static int
rowlog_more(struct rowlog_in *in)
{
	size_t room;
	ssize_t n;

	if (in->left == 0)
		return -EINVAL;
	if (in->pos > 0) {
		memmove(in->data.data, in->data.data + in->pos,
		    in->data.len - in->pos);
		in->data.len -= in->pos;
		in->pos = 0;
	}
	if (in->data.cap - in->data.len < ROWLOG_CHUNK / 2 &&
	    buf_reserve(&in->data, in->data.len < ROWLOG_CHUNK ? ROWLOG_CHUNK :
	    in->data.len) < 0)
		return -ENOMEM;
	room = in->data.cap - in->data.len;
	if (room > in->left)
		room = (size_t)in->left;
	do
		n = read(in->fd, in->data.data + in->data.len, room);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EINVAL;
	in->data.len += (size_t)n;
	in->left -= (uint64_t)n;
	return 0;
}

static struct rowlog_cur
rowlog_at(const struct rowlog_in *in)
{
	return (struct rowlog_cur){ (const unsigned char *)in->data.data +
	    in->pos, (const unsigned char *)in->data.data + in->data.len, 0, 0 };
}

/* Parses the header: the options and the columns, their names copied
 * into names[0..nameslen).  Returns 0, 1 for "read more", -EINVAL. */
static int
rowlog_parse_header(struct rowlog_in *in, struct pq_opts *o,
    struct udtf_column *cols, size_t *ncols, char *names, size_t nameslen)
{
	struct rowlog_cur c = rowlog_at(in);
	const unsigned char *magic = rowlog_bytes(&c, ROWLOG_MAGIC_LEN);
	uint64_t v[7], used = 0;

	if (magic != NULL && memcmp(magic, ROWLOG_MAGIC, ROWLOG_MAGIC_LEN) != 0)
		return -EINVAL;
	for (size_t i = 0; i < 7; i++)
		v[i] = rowlog_uleb(&c);
	if (c.bad || (!c.short_ && (v[0] != ROWLOG_VERSION || v[6] == 0 ||
	    v[6] > ROWLOG_MAX_COLS || v[4] > SIZE_MAX || v[3] > SIZE_MAX ||
	    v[5] > SIZE_MAX)))
		return -EINVAL;
	o->codec = (enum pq_codec)v[1];
	o->level = (int)rle_unzigzag(v[2]);
	o->row_group_bytes = (size_t)v[3];
	o->page_bytes = (size_t)v[4];
	o->dict_bytes = (size_t)v[5];
	*ncols = (size_t)v[6];
	for (size_t i = 0; i < *ncols && !c.short_; i++) {
		uint64_t type = rowlog_uleb(&c), n = rowlog_uleb(&c);
		const unsigned char *name = rowlog_bytes(&c, n);

		if (c.bad || (!c.short_ && (type < UDTF_STRING ||
		    type > UDTF_TIMESTAMP || n > ROWLOG_MAX_NAME ||
		    used + n + 1 > nameslen)))
			return -EINVAL;
		if (c.short_)
			break;
		memcpy(names + used, name, n);
		names[used + n] = '\0';
		cols[i] = (struct udtf_column){ names + used,
		    (enum udtf_type)type };
		used += n + 1;
	}
	if (c.short_)
		return 1;
	in->pos = (size_t)((const char *)c.p - in->data.data);
	return 0;
}

/* Parses one row into vals (strings point into in's buffer until the next
 * read).  Returns 0, 1 for "read more", -EINVAL. */
static int
rowlog_parse_row(struct rowlog_in *in, const struct udtf_column *cols,
    size_t ncols, struct udtf_value *vals)
{
	struct rowlog_cur c = rowlog_at(in);

	for (size_t i = 0; i < ncols && !c.short_; i++) {
		const unsigned char *p = rowlog_bytes(&c, 1);
		uint64_t n;

		if (p == NULL)
			break;
		if (*p > 1)
			return -EINVAL;
		vals[i].type = *p ? cols[i].type : UDTF_NULL;
		switch (vals[i].type) {
		case UDTF_NULL:
			break;
		case UDTF_STRING:
			n = rowlog_uleb(&c);
			if ((p = rowlog_bytes(&c, n)) != NULL) {
				vals[i].u.s.ptr = (const char *)p;
				vals[i].u.s.len = (size_t)n;
			}
			break;
		case UDTF_BOOL:
			if ((p = rowlog_bytes(&c, 1)) != NULL && *p > 1)
				return -EINVAL;
			if (p != NULL)
				vals[i].u.b = *p;
			break;
		default:
			if ((p = rowlog_bytes(&c, 8)) == NULL)
				break;
			if (vals[i].type == UDTF_DOUBLE) {
				uint64_t bits = le_get64(p);
				memcpy(&vals[i].u.d, &bits, sizeof(bits));
			} else {
				vals[i].u.i64 = (int64_t)le_get64(p);
			}
		}
		if (c.bad)
			return -EINVAL;
	}
	if (c.short_)
		return 1;
	in->pos = (size_t)((const char *)c.p - in->data.data);
	return 0;
}

int
rowlog_convert(const char *path, uint64_t len, const char *const *kv,
    size_t nkv, pq_sink_fn *sink, void *arg, uint64_t *rows,
    enum pq_codec *codec, char *err, size_t errlen)
{
	struct rowlog_in in = { .fd = -1, .left = len };
	struct udtf_column *cols = NULL;
	struct udtf_value *vals = NULL;
	struct pq_writer *w = NULL;
	struct pq_opts o;
	char *names = NULL;
	size_t ncols = 0;
	int r;

	*rows = 0;
	if ((in.fd = fs_open_file(path, O_RDONLY)) < 0) {
		return err_set(err, errlen, in.fd, "cannot read %s: %s", path,
		    fs_strerror(-in.fd));
	}
	cols = calloc(ROWLOG_MAX_COLS, sizeof(*cols));
	names = malloc(ROWLOG_MAX_COLS * 64);
	if (cols == NULL || names == NULL) {
		r = -ENOMEM;
		goto out;
	}
	/* a log holds its header from its first write on */
	if ((r = rowlog_more(&in)) < 0)
		goto out;
	while ((r = rowlog_parse_header(&in, &o, cols, &ncols, names,
	    ROWLOG_MAX_COLS * 64)) == 1)
		if ((r = rowlog_more(&in)) < 0)
			goto out;
	if (r < 0)
		goto out;
	*codec = o.codec;
	if ((vals = calloc(ncols, sizeof(*vals))) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if ((w = pq_writer_new(cols, ncols, &o, sink, arg, err, errlen)) ==
	    NULL) {
		r = -EINVAL;
		goto fail;
	}
	for (size_t i = 0; i < nkv; i++)
		if ((r = pq_writer_meta(w, kv[2 * i], kv[2 * i + 1])) < 0)
			goto out;
	for (;;) {
		if (in.pos == in.data.len && in.left == 0)
			break;
		if ((r = rowlog_parse_row(&in, cols, ncols, vals)) == 1) {
			if ((r = rowlog_more(&in)) < 0)
				goto out;
			continue;
		}
		if (r < 0 || (r = pq_writer_row(w, vals)) < 0)
			goto out;
		(*rows)++;
	}
	r = pq_writer_finish(w);
out:
	if (r == -EINVAL)
		snprintf(err, errlen, "%s is damaged: not the rows kedge wrote "
		    "(after %" PRIu64 " rows)", path, *rows);
	else if (r < 0)
		snprintf(err, errlen, "cannot convert %s to Parquet: %s", path,
		    fs_strerror(-r));
fail:
	pq_writer_free(w);
	free(vals);
	free(names);
	free(cols);
	buf_clear(&in.data);
	close(in.fd);
	return r;
}
