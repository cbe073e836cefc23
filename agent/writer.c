#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

/* Formatted rows are written, each chunk compressed as one gzip member or
 * zstd frame, once a file has this many bytes of them: large enough for few
 * syscalls and a good ratio, small enough that dozens of open files cost
 * little memory.  Because every chunk ends its member, one compressor per
 * writer serves all its files, and every length a file has between writes
 * is a valid compressed file. */
#define WRITER_CHUNK (64 * 1024)

struct part {
	struct part *next;
	int64_t hour_key;
	char *topic;
	int32_t partition;
	int64_t first_offset;
	int64_t last_offset;
	uint64_t rows;
	int fd;
	struct buf rows_buf;    /* formatted rows not yet written */
	uint64_t file_bytes;    /* bytes written to fd */
	int dirty;              /* rows since the last flush */
	time_t opened;
	time_t last_write;
	char *open_path;        /* <spool>/open/<rel> */
	char *rel;              /* <table>/dt=../hr=../<name> */
};

struct writer {
	char *table;
	char *spool_dir;
	char *host;
	struct format format;
	enum codec_kind codec_kind;
	struct codec *codec;    /* NULL for CODEC_NONE */
	struct buf out;         /* compressed bytes on their way to a file */
	struct roll_policy roll;
	const struct udtf_column *cols;
	size_t ncols;
	struct part *open;      /* files being written */
	struct part *rolled;    /* closed, waiting for writer_release() */
	struct part *last;      /* the file the previous row went to */
	struct writer_stats stats;
};

enum roll_reason
roll_check(const struct roll_policy *p, uint64_t bytes, time_t opened,
    time_t last_write, time_t now)
{
	if (bytes >= p->max_bytes)
		return ROLL_SIZE;
	if (now - opened >= p->max_age)
		return ROLL_AGE;
	if (now - last_write >= p->inactive)
		return ROLL_INACTIVE;
	return ROLL_NONE;
}

static void
part_free(struct part *p)
{
	if (p == NULL)
		return;
	if (p->fd >= 0)
		close(p->fd);
	buf_free(&p->rows_buf);
	free(p->topic);
	free(p->open_path);
	free(p->rel);
	free(p);
}

struct writer *
writer_new(const struct writer_opts *o, const struct udtf_column *cols,
    size_t ncols, char *err, size_t errlen)
{
	struct writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		goto nomem;
	w->table = strdup(o->table);
	w->spool_dir = strdup(o->spool_dir);
	w->host = strdup(o->host);
	if (w->table == NULL || w->spool_dir == NULL || w->host == NULL)
		goto nomem;
	w->format = o->format;
	w->codec_kind = o->codec;
	if (o->codec != CODEC_NONE &&
	    (w->codec = codec_new(o->codec, o->codec_level)) == NULL)
		goto nomem;
	w->roll = o->roll;
	w->cols = cols;
	w->ncols = ncols;
	return w;
nomem:
	snprintf(err, errlen, "table %s: out of memory", o->table);
	writer_free(w);
	return NULL;
}

void
writer_free(struct writer *w)
{
	struct part *p, *next;

	if (w == NULL)
		return;
	for (p = w->open; p != NULL; p = next) {
		next = p->next;
		part_free(p);
	}
	for (p = w->rolled; p != NULL; p = next) {
		next = p->next;
		part_free(p);
	}
	codec_free(w->codec);
	buf_free(&w->out);
	free(w->table);
	free(w->spool_dir);
	free(w->host);
	free(w);
}

static struct part *
part_open(struct writer *w, const struct tz_hour *hour, const char *topic,
    int32_t partition, int64_t offset, time_t now, char *err, size_t errlen)
{
	char rel[PATH_MAX], path[PATH_MAX];
	struct part *p;
	int r;

	r = snprintf(rel, sizeof(rel), "%s/dt=%s/hr=%s/%s+%" PRId32 "+%" PRId64
	    "+%s.%s%s", w->table, hour->dt, hour->hr, topic, partition, offset,
	    w->host, format_kind_ext(w->format.kind), codec_kind_ext(w->codec_kind));
	if (r < 0 || (size_t)r >= sizeof(rel) ||
	    (size_t)snprintf(path, sizeof(path), "%s/open/%s", w->spool_dir, rel) >=
	    sizeof(path)) {
		snprintf(err, errlen, "table %s: part file name too long", w->table);
		return NULL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		goto nomem;
	p->fd = -1;
	p->hour_key = hour->key;
	p->partition = partition;
	p->first_offset = p->last_offset = offset;
	p->opened = p->last_write = now;
	p->topic = strdup(topic);
	p->rel = strdup(rel);
	p->open_path = strdup(path);
	if (p->topic == NULL || p->rel == NULL || p->open_path == NULL)
		goto nomem;
	*strrchr(path, '/') = '\0';
	if ((r = fs_mkdirs(path, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(-r));
		goto fail;
	}
	/* O_TRUNC: a file of this name left by a run that died holds rows
	 * whose offsets were never committed, and they are being read again. */
	p->fd = open(p->open_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", p->open_path,
		    strerror(errno));
		goto fail;
	}
	p->next = w->open;
	w->open = p;
	w->stats.files_open++;
	return p;
nomem:
	snprintf(err, errlen, "table %s: out of memory", w->table);
fail:
	part_free(p);
	return NULL;
}

/* Writes the formatted rows out, compressed as one member or frame. */
static int
part_drain(struct writer *w, struct part *p, char *err, size_t errlen)
{
	struct buf *src = &p->rows_buf;
	int r;

	if (p->rows_buf.len == 0)
		return 0;
	if (w->codec != NULL) {
		buf_reset(&w->out);
		if ((r = codec_write(w->codec, p->rows_buf.data, p->rows_buf.len,
		    &w->out)) < 0 || (r = codec_finish(w->codec, &w->out)) < 0) {
			snprintf(err, errlen, "table %s: compression failed: %s",
			    w->table, strerror(-r));
			return r;
		}
		src = &w->out;
	}
	if ((r = fs_write_all(p->fd, src->data, src->len)) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", p->open_path,
		    strerror(-r));
		return r;
	}
	p->file_bytes += src->len;
	w->stats.bytes_flushed += src->len;
	buf_reset(&p->rows_buf);
	return 0;
}

static int
part_flush(struct writer *w, struct part *p, char *err, size_t errlen)
{
	int r;

	if (!p->dirty)
		return 0;
	if ((r = part_drain(w, p, err, errlen)) < 0)
		return r;
	if (fsync(p->fd) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot fsync %s: %s", p->open_path,
		    strerror(errno));
		return r;
	}
	p->dirty = 0;
	return 0;
}

static struct part *
part_find(struct writer *w, int64_t hour_key, const char *topic,
    int32_t partition)
{
	struct part *p = w->last;

	if (p != NULL && p->hour_key == hour_key && p->partition == partition &&
	    strcmp(p->topic, topic) == 0)
		return p;
	for (p = w->open; p != NULL; p = p->next)
		if (p->hour_key == hour_key && p->partition == partition &&
		    strcmp(p->topic, topic) == 0)
			return p;
	return NULL;
}

int
writer_write(struct writer *w, const struct tz_hour *hour, const char *topic,
    int32_t partition, int64_t offset, const struct udtf_value *vals,
    char *err, size_t errlen)
{
	struct part *p;
	time_t now = time(NULL);
	int r;

	if ((p = part_find(w, hour->key, topic, partition)) == NULL &&
	    (p = part_open(w, hour, topic, partition, offset, now, err,
	    errlen)) == NULL)
		return -EIO;
	w->last = p;
	if ((r = format_row(&w->format, w->cols, vals, w->ncols,
	    &p->rows_buf)) < 0) {
		snprintf(err, errlen, "table %s: out of memory", w->table);
		return r;
	}
	p->rows++;
	p->last_offset = offset;
	p->last_write = now;
	p->dirty = 1;
	w->stats.rows++;
	if (p->rows_buf.len >= WRITER_CHUNK)
		return part_drain(w, p, err, errlen);
	return 0;
}

/* Closes the file and moves it from the open list to the rolled list. */
static int
part_roll(struct writer *w, struct part **link, char *err, size_t errlen)
{
	struct part *p = *link;
	int r;

	if ((r = part_flush(w, p, err, errlen)) < 0)
		return r;
	close(p->fd);
	p->fd = -1;
	buf_free(&p->rows_buf);
	*link = p->next;
	p->next = w->rolled;
	w->rolled = p;
	if (w->last == p)
		w->last = NULL;
	w->stats.files_open--;
	w->stats.files_rolled++;
	return 0;
}

/* The file's size, counting rows not yet written as they are: an estimate
 * above the truth for compressed files by at most one chunk. */
static uint64_t
part_bytes(const struct part *p)
{
	return p->file_bytes + p->rows_buf.len;
}

/* Rolls every open file that want() picks; returns the number rolled or a
 * negative errno. */
static int
writer_roll_where(struct writer *w, int (*want)(const struct writer *,
    const struct part *, const void *), const void *arg, char *err,
    size_t errlen)
{
	struct part **link = &w->open;
	int n = 0, r;

	while (*link != NULL) {
		if (!want(w, *link, arg)) {
			link = &(*link)->next;
			continue;
		}
		if ((r = part_roll(w, link, err, errlen)) < 0)
			return r;
		n++;
	}
	return n;
}

static int
part_is_done(const struct writer *w, const struct part *p, const void *now)
{
	return roll_check(&w->roll, part_bytes(p), p->opened, p->last_write,
	    *(const time_t *)now) != ROLL_NONE;
}

int
writer_tick(struct writer *w, time_t now, char *err, size_t errlen)
{
	return writer_roll_where(w, part_is_done, &now, err, errlen);
}

struct part_key {
	const char *topic;     /* NULL: every partition */
	int32_t partition;
};

static int
part_is_of(const struct writer *w, const struct part *p, const void *arg)
{
	const struct part_key *k = arg;

	(void)w;
	return k->topic == NULL || (p->partition == k->partition &&
	    strcmp(p->topic, k->topic) == 0);
}

int
writer_roll(struct writer *w, const char *topic, int32_t partition, char *err,
    size_t errlen)
{
	struct part_key k = { topic, partition };

	return writer_roll_where(w, part_is_of, &k, err, errlen);
}

int
writer_flush(struct writer *w, char *err, size_t errlen)
{
	int r;

	for (struct part *p = w->open; p != NULL; p = p->next)
		if ((r = part_flush(w, p, err, errlen)) < 0)
			return r;
	return 0;
}

int
writer_release(struct writer *w, char *err, size_t errlen)
{
	char ready[PATH_MAX];
	int n = 0, r;

	while (w->rolled != NULL) {
		struct part *p = w->rolled;
		if ((size_t)snprintf(ready, sizeof(ready), "%s/ready/%s",
		    w->spool_dir, p->rel) >= sizeof(ready)) {
			snprintf(err, errlen, "%s/ready/%s: name too long",
			    w->spool_dir, p->rel);
			return -ENAMETOOLONG;
		}
		if ((r = fs_rename_durable(p->open_path, ready)) < 0) {
			snprintf(err, errlen, "cannot move %s to %s: %s",
			    p->open_path, ready, strerror(-r));
			return r;
		}
		w->rolled = p->next;
		part_free(p);
		n++;
	}
	return n;
}

void
writer_get_stats(const struct writer *w, struct writer_stats *out)
{
	*out = w->stats;
}
