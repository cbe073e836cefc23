#include "agent/write/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/parquet/rowlog.h"
#include "agent/write/convert.h"
#include "agent/write/fingerprint.h"
#include "agent/write/journal.h"
#include "agent/write/packer.h"
#include "agent/write/spool.h"
#include "agent/write/spoolcount.h"
#include "lib/err.h"
#include "lib/fsutil.h"

/* Formatted rows are written, each chunk compressed as one gzip member or
 * zstd frame, once a file has this many bytes of them: large enough for few
 * syscalls and a good ratio, small enough that dozens of open files cost
 * little memory.  Because every chunk ends its member, one compressor per
 * writer serves all its files, and every length a file has between writes
 * is a valid compressed file.  The writer's packer (packer.h) compresses
 * and writes the chunks on a thread of its own. */
#define WRITER_CHUNK (64 * 1024)
/* A file's rows are written once they pass WRITER_CHUNK less this much, so
 * that a row up to this long still fits the buffer's 64 KiB: its capacity
 * doubles, and a drain at 64 KiB made every open file's buffer 128 KiB. */
#define WRITER_ROW_ROOM (8 * 1024)

struct part {
	struct part *next;
	int64_t hour_key;
	char *topic;
	int32_t partition;
	int64_t first_offset;
	int64_t last_first;     /* the last record whose first row is here */
	uint64_t rows;
	int fd;                 /* -1: parked (on the open list) or rolled */
	int unsynced;           /* bytes written since its last fsync */
	struct journal *journal;
	struct buf rows_buf;    /* formatted rows not yet written */
	uint64_t chunks;        /* chunks handed to the packer */
	uint64_t file_bytes;    /* bytes written to fd, as the packer reported */
	struct spool_hash *hash; /* of those bytes; NULL: short of memory */
	int dirty;              /* rows since the last flush */
	int sealed;             /* rolled, and sealed since: ready to release */
	time_t opened;
	time_t last_write;
	uint64_t used;          /* the writer's use count at its last row */
	int64_t min_event_us;   /* of its rows; INT64_MAX: none yet */
	char *open_path;        /* <spool>/open/<rel> */
	char *rel;              /* <table>/dt=../hr=../<name> */
};

struct writer {
	char *table;
	char *spool_dir;
	char *host;
	struct format format;
	enum codec_kind codec_kind;
	struct packer *packer;
	struct convert *convert; /* format parquet: finalizes released files */
	struct roll_policy roll;
	struct pq_opts parquet;  /* format parquet: a log's options */
	const struct udtf_column *cols;
	size_t ncols;
	struct part *open;      /* files being written */
	struct part *rolled;    /* closed, waiting for writer_release() */
	struct part *converting; /* released, with convert, oldest first */
	struct part **converting_end;
	struct part *last;      /* the file the previous row went to */
	uint64_t uses;          /* rows written and files opened, in order */
	struct buf fp_text;     /* the canonical text of the row being written */
	size_t *hive_ends;      /* hive-text with the fingerprint's delimiter:
	                         * where the row's values end, for
	                         * fingerprint_text_hive(); else NULL */
	struct writer_stats stats;
};

enum roll_reason
writer_roll_check(const struct roll_policy *p, uint64_t bytes,
    time_t opened, time_t last_write, time_t now)
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
	journal_close(p->journal);
	spool_hash_free(p->hash);
	buf_clear(&p->rows_buf);
	free(p->topic);
	free(p->open_path);
	free(p->rel);
	free(p);
}

/* Whether the writer's files are gzip or zstd: a Parquet file's log is not
 * (the Parquet file is compressed page by page). */
static int
writer_compressed(const struct writer *w)
{
	return w->format.kind != FORMAT_PARQUET && w->codec_kind != CODEC_NONE;
}

/* The packer's report of a chunk written to p's file. */
static void
writer_done(void *arg, void *owner, uint64_t bytes)
{
	struct writer *w = arg;
	struct part *p = owner;

	p->file_bytes += bytes;
	w->stats.bytes_flushed += bytes;
	spoolcount_grow(w->spool_dir, (int64_t)bytes);
}

struct writer *
writer_new(const struct writer_opts *o, const struct udtf_column *cols,
    size_t ncols, char *err, size_t errlen)
{
	struct writer *w;
	char why[256];

	if ((w = calloc(1, sizeof(*w))) == NULL)
		goto nomem;
	w->table = strdup(o->table);
	w->spool_dir = strdup(o->spool_dir);
	w->host = strdup(o->host);
	if (w->table == NULL || w->spool_dir == NULL || w->host == NULL)
		goto nomem;
	w->format = o->format;
	w->codec_kind = o->codec;
	if (o->format.kind == FORMAT_PARQUET) {
		/* the log is not compressed: its Parquet file is, page by page */
		w->parquet = o->parquet;
		w->parquet.codec = pq_codec_of(o->codec);
		w->parquet.level = o->codec_level;
	}
	if ((w->packer = packer_new(writer_compressed(w) ? o->codec : CODEC_NONE,
	    o->codec_level, WRITER_CHUNK, writer_done, w, why,
	    sizeof(why))) == NULL)
		goto fail;
	w->converting_end = &w->converting;
	if (o->format.kind == FORMAT_PARQUET &&
	    (w->convert = convert_new(o->spool_dir, why, sizeof(why))) == NULL)
		goto fail;
	if (o->format.kind == FORMAT_HIVE_TEXT &&
	    o->format.delim == FINGERPRINT_SEP &&
	    (w->hive_ends = calloc(ncols + 1, sizeof(*w->hive_ends))) == NULL)
		goto nomem;
	w->roll = o->roll;
	w->cols = cols;
	w->ncols = ncols;
	return w;
nomem:
	snprintf(why, sizeof(why), "out of memory");
fail:
	snprintf(err, errlen, "table %s: %s", o->table, why);
	writer_free(w);
	return NULL;
}

void
writer_free(struct writer *w)
{
	struct part *p, *next;

	if (w == NULL)
		return;
	/* the packer's thread writes to the files' descriptors: it stops
	 * first; the converter's files not yet in ready/ are recovery's */
	packer_free(w->packer);
	convert_free(w->convert);
	for (p = w->open; p != NULL; p = next) {
		next = p->next;
		part_free(p);
	}
	for (p = w->rolled; p != NULL; p = next) {
		next = p->next;
		part_free(p);
	}
	for (p = w->converting; p != NULL; p = next) {
		next = p->next;
		part_free(p);
	}
	free(w->table);
	free(w->spool_dir);
	free(w->host);
	buf_clear(&w->fp_text);
	free(w->hive_ends);
	free(w);
}

static int part_roll(struct writer *w, struct part **link, char *err,
    size_t errlen);

static int part_park(struct writer *w, struct part *p, char *err,
    size_t errlen);

/* Closes p's descriptor and counts it out: as open when it held one, as
 * parked when it is on the open list without one (open_list set). */
static void
part_close(struct writer *w, struct part *p, int open_list)
{
	if (p->fd >= 0)
		w->stats.files_open--;
	else if (open_list)
		w->stats.files_parked--;
	close(p->fd);
	p->fd = -1;
}

/* The link to the least recently written file on the open list that
 * holds a descriptor (parked 0) or is parked (parked 1), or NULL.  With
 * own set, a file the record at offset of the partition opened is passed
 * over: it may not roll, as a new file of its hour would take its name. */
static struct part **
writer_lru(struct writer *w, int parked, int own, const char *topic,
    int32_t partition, int64_t offset)
{
	struct part **lru = NULL;

	for (struct part **l = &w->open; *l != NULL; l = &(*l)->next) {
		const struct part *p = *l;

		if ((p->fd < 0) != parked || (own &&
		    p->first_offset == offset && p->partition == partition &&
		    strcmp(p->topic, topic) == 0))
			continue;
		if (lru == NULL || p->used < (*lru)->used)
			lru = l;
	}
	return lru;
}

/* Parks the least recently written files holding a descriptor until room
 * more are within roll.max_open (rolls them when roll.max_parked is 0),
 * then rolls the least recently written parked files past max_parked.  A
 * file rolls as writer_lru() allows; when none may (a record with rows in
 * more hours than the bounds, which max_rows_per_record bounds), the bound
 * is passed all the same. */
static int
writer_make_room(struct writer *w, unsigned room, const char *topic,
    int32_t partition, int64_t offset, char *err, size_t errlen)
{
	const struct roll_policy *rp = &w->roll;
	struct part **l;
	int r;

	while (rp->max_open > 0 && w->stats.files_open + room > rp->max_open &&
	    (l = writer_lru(w, 0, rp->max_parked == 0, topic, partition,
	    offset)) != NULL) {
		if ((r = rp->max_parked == 0 ? part_roll(w, l, err, errlen) :
		    part_park(w, *l, err, errlen)) < 0)
			return r;
	}
	while (w->stats.files_parked > rp->max_parked &&
	    (l = writer_lru(w, 1, 1, topic, partition, offset)) != NULL) {
		if ((r = part_roll(w, l, err, errlen)) < 0)
			return r;
	}
	return 0;
}

int
writer_part_name(char *buf, size_t len, const char *topic, int32_t partition,
    int64_t first_offset, const char *host, enum format_kind format,
    enum codec_kind codec, int open)
{
	return snprintf(buf, len, "%s+%" PRId32 "+%" PRId64 "+%s.%s%s%s", topic,
	    partition, first_offset, host, format_kind_ext(format),
	    format_codec_ext(format, codec),
	    open && format == FORMAT_PARQUET ? SPOOL_ROWS_EXT : "");
}

size_t
writer_name_longest(const char *topic, const char *host,
    enum format_kind format, enum codec_kind codec)
{
	char name[PATH_MAX], jname[PATH_MAX];
	int n;

	/* the journal's name holds the open file's, which holds every other
	 * name's: the sidecar's ".<name>.json" and the temporary
	 * ".<name>.tmp" are shorter than ".<name>.journal" */
	n = writer_part_name(name, sizeof(name), topic, INT32_MAX, INT64_MAX,
	    host, format, codec, 1);
	if (n < 0 || (size_t)n >= sizeof(name))
		return SIZE_MAX;
	n = journal_name(jname, sizeof(jname), name);
	return n < 0 ? SIZE_MAX : (size_t)n;
}

static struct part *
part_open(struct writer *w, const struct tz_hour *hour, const char *topic,
    int32_t partition, int64_t offset, time_t now, char *err, size_t errlen)
{
	char rel[PATH_MAX], path[PATH_MAX], jpath[PATH_MAX], name[PATH_MAX];
	char jname[PATH_MAX];
	struct part *p;
	int r;

	r = writer_part_name(name, sizeof(name), topic, partition, offset,
	    w->host, w->format.kind, w->codec_kind, 1);
	if (r < 0 || (size_t)r >= sizeof(name) ||
	    (size_t)(r = snprintf(rel, sizeof(rel), "%s/dt=%s/hr=%s/%s",
	    w->table, hour->dt, hour->hr, name)) >= sizeof(rel) ||
	    (size_t)snprintf(path, sizeof(path), "%s/open/%s", w->spool_dir, rel) >=
	    sizeof(path)) {
		snprintf(err, errlen, "table %s: part file name too long", w->table);
		return NULL;
	}
	if (writer_make_room(w, 1, topic, partition, offset, err, errlen) < 0)
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		goto nomem;
	p->fd = -1;
	p->hour_key = hour->key;
	p->partition = partition;
	p->first_offset = offset;
	p->last_first = -1;
	p->min_event_us = INT64_MAX;
	/* NULL: the release reads the file; a log is converted, not hashed */
	p->hash = w->format.kind == FORMAT_PARQUET ? NULL :
	    spool_hash_new(SPOOL_CRC32C);
	p->opened = p->last_write = now;
	p->used = ++w->uses;
	p->topic = strdup(topic);
	p->rel = strdup(rel);
	p->open_path = strdup(path);
	if (p->topic == NULL || p->rel == NULL || p->open_path == NULL)
		goto nomem;
	*strrchr(path, '/') = '\0';
	if ((r = fs_mkdirs(path, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    fs_strerror(-r));
		goto fail;
	}
	/* O_TRUNC: a name comes back only for a file that recovery deleted
	 * because nothing in it was decided. */
	p->fd = open(p->open_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", p->open_path,
		    fs_strerror(errno));
		goto fail;
	}
	p->unsynced = 1;
	if ((size_t)journal_name(jname, sizeof(jname), name) >= sizeof(jname) ||
	    (size_t)snprintf(jpath, sizeof(jpath), "%s/%s", path, jname) >=
	    sizeof(jpath)) {
		snprintf(err, errlen, "table %s: part file name too long", w->table);
		goto fail;
	}
	if ((p->journal = journal_create(jpath, err, errlen)) == NULL)
		goto fail;
	if (w->format.kind == FORMAT_PARQUET &&
	    rowlog_header(&w->parquet, w->cols, w->ncols, &p->rows_buf) < 0)
		goto nomem;
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

/* Hands the formatted rows to the packer, to be written out compressed
 * as one member or frame. */
static int
part_drain(struct writer *w, struct part *p, char *err, size_t errlen)
{
	const struct packer_file f = { p->fd, p->hash, p->open_path, p };

	/* a compressed file of no row is one empty member: it must still
	 * decode */
	if (p->rows_buf.len == 0 && (!writer_compressed(w) || p->chunks > 0))
		return 0;
	p->chunks++;
	p->unsynced = 1;
	return packer_put(w->packer, &f, &p->rows_buf, err, errlen);
}

/* part_drain(), then waits until the packer has written every chunk it was
 * handed, this file's last among them. */
static int
part_write_out(struct writer *w, struct part *p, char *err, size_t errlen)
{
	int r;

	if ((r = part_drain(w, p, err, errlen)) < 0)
		return r;
	return packer_wait(w->packer, err, errlen);
}

/* Makes the file's rows durable: for rolling, and for every seal.  A
 * parked file's rows are written already; a descriptor of its own fsyncs
 * them. */
static int
part_sync(struct writer *w, struct part *p, char *err, size_t errlen)
{
	int fd = p->fd, r = 0;

	if (fd >= 0 && (r = part_write_out(w, p, err, errlen)) < 0)
		return r;
	if (!p->unsynced)
		return 0;
	if (fd < 0 && (fd = open(p->open_path, O_RDONLY | O_CLOEXEC)) < 0)
		r = -errno;
	else if (fsync(fd) < 0)
		r = -errno;
	if (fd >= 0 && fd != p->fd)
		close(fd);
	if (r < 0) {
		return err_set(err, errlen, r, "cannot fsync %s: %s",
		    p->open_path, fs_strerror(-r));
	}
	p->unsynced = 0;
	return 0;
}

/* Parks the open file p: writes its rows out (every length between writes
 * is a whole file, see WRITER_CHUNK), closes its descriptors and frees its
 * buffer; it stays on the open list for the rows of its hour. */
static int
part_park(struct writer *w, struct part *p, char *err, size_t errlen)
{
	int r;

	if ((r = part_write_out(w, p, err, errlen)) < 0)
		return r;
	part_close(w, p, 1);
	journal_park(p->journal);
	buf_clear(&p->rows_buf);
	if (w->last == p)
		w->last = NULL;
	w->stats.files_parked++;
	return 0;
}

/* Opens the parked file p again to append a row of the record at offset,
 * then parks or rolls others as the bounds say. */
static int
part_unpark(struct writer *w, struct part *p, int64_t offset, char *err,
    size_t errlen)
{
	if ((p->fd = open(p->open_path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0) {
		return err_set(err, errlen, -errno, "cannot open %s again: %s",
		    p->open_path, fs_strerror(errno));
	}
	p->used = ++w->uses;    /* the newest: not parked again for room */
	w->stats.files_parked--;
	w->stats.files_open++;
	w->stats.files_reopened++;
	return writer_make_room(w, 0, p->topic, p->partition, offset, err,
	    errlen);
}

/* Makes the file's rows durable and marks the journal with checkpoint
 * id. */
static int
part_seal(struct writer *w, struct part *p, uint64_t id, char *err,
    size_t errlen)
{
	uint64_t journal_was = journal_size(p->journal);
	int r;

	if (!p->dirty)
		return 0;
	if ((r = part_sync(w, p, err, errlen)) < 0)
		return r;
	r = journal_seal(p->journal, id, p->file_bytes, p->rows, err, errlen);
	spoolcount_grow(w->spool_dir, (int64_t)(journal_size(p->journal) -
	    journal_was));
	if (r < 0)
		return r;
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

/* Notes in the file's journal which record the row belongs to, and its
 * event time. */
static int
part_note(struct part *p, const struct writer_origin *o)
{
	journal_add_event(p->journal, o->event_us);
	if (o->event_us < p->min_event_us)
		p->min_event_us = o->event_us;
	if (o->rejected_for != NULL)
		return journal_add(p->journal, JOURNAL_REJECTED, o->rejected_for,
		    o->offset);
	if (o->first) {
		p->last_first = o->offset;
		return journal_add(p->journal, JOURNAL_OFFSETS, NULL, o->offset);
	}
	if (o->offset == p->last_first)
		return 0;
	return journal_add(p->journal, JOURNAL_SPILL, NULL, o->offset);
}

/* Appends the row to p's rows, and its canonical text to w->fp_text:
 * most of it the row's own bytes when hive-text has the fingerprint's
 * delimiter. */
static int
writer_format(struct writer *w, struct part *p, const struct udtf_value *vals)
{
	size_t start = p->rows_buf.len;
	int r;

	buf_reset(&w->fp_text);
	if (w->format.kind == FORMAT_PARQUET) {
		/* the log checked every string's UTF-8 */
		if ((r = rowlog_row(w->cols, vals, w->ncols,
		    &p->rows_buf)) < 0)
			return r;
		return r == 0 ? fingerprint_text_utf8(w->format.tz, vals,
		    w->ncols, &w->fp_text) : fingerprint_text(w->format.tz,
		    vals, NULL, w->ncols, &w->fp_text);
	}
	if (w->hive_ends == NULL) {
		if ((r = format_row(&w->format, w->cols, vals, w->ncols,
		    &p->rows_buf)) < 0)
			return r;
		return fingerprint_text(w->format.tz, vals, NULL, w->ncols,
		    &w->fp_text);
	}
	if ((r = format_hive_row_ends(&w->format, vals, w->ncols,
	    &p->rows_buf, w->hive_ends)) < 0)
		return r;
	return fingerprint_text_hive(vals, w->ncols, p->rows_buf.data + start,
	    w->hive_ends, &w->fp_text);
}

int
writer_write(struct writer *w, const struct tz_hour *hour,
    const struct writer_origin *o, const struct udtf_value *vals, char *err,
    size_t errlen)
{
	struct part *p;
	time_t now = time(NULL);
	int r;

	if ((p = part_find(w, hour->key, o->topic, o->partition)) == NULL &&
	    (p = part_open(w, hour, o->topic, o->partition, o->offset, now, err,
	    errlen)) == NULL)
		return -EIO;
	if (p->fd < 0 && (r = part_unpark(w, p, o->offset, err, errlen)) < 0)
		return r;
	w->last = p;
	if ((r = writer_format(w, p, vals)) < 0 || (r = part_note(p, o)) < 0) {
		return err_set(err, errlen, r, "table %s: out of memory",
		    w->table);
	}
	journal_add_fingerprint(p->journal,
	    fingerprint_hash(w->fp_text.data, w->fp_text.len));
	p->rows++;
	p->last_write = now;
	p->used = ++w->uses;
	p->dirty = 1;
	w->stats.rows++;
	if (p->rows_buf.len >= WRITER_CHUNK - WRITER_ROW_ROOM)
		return part_drain(w, p, err, errlen);
	return 0;
}

/* The most recently written file of a partition, open or rolled and not
 * yet released, or NULL. */
static struct part *
part_latest(struct part *list, struct part *best, const char *topic,
    int32_t partition)
{
	for (struct part *p = list; p != NULL; p = p->next)
		if (p->partition == partition && strcmp(p->topic, topic) == 0 &&
		    (best == NULL || p->last_write >= best->last_write))
			best = p;
	return best;
}

int
writer_note_empty(struct writer *w, const struct tz_hour *hour,
    const char *topic, int32_t partition, int64_t offset, char *err,
    size_t errlen)
{
	return writer_note_skipped(w, hour, topic, partition, offset, offset,
	    0, err, errlen);
}

int
writer_note_skipped(struct writer *w, const struct tz_hour *hour,
    const char *topic, int32_t partition, int64_t offset, int64_t last,
    int unread, char *err, size_t errlen)
{
	struct part *p = part_latest(w->rolled, part_latest(w->open, NULL, topic,
	    partition), topic, partition);

	/* no file of the partition to take the note: one of its own, with no
	 * row, so that the target still accounts for the offset */
	if (p == NULL && (p = part_open(w, hour, topic, partition, offset,
	    time(NULL), err, errlen)) == NULL)
		return -EIO;
	/* a sealed file takes the note at the next seal */
	p->dirty = 1;
	p->sealed = 0;
	if (journal_add_range(p->journal, unread ? JOURNAL_UNREAD :
	    JOURNAL_EMPTY, NULL, offset, last) < 0) {
		return err_set(err, errlen, -ENOMEM, "table %s: out of memory",
		    w->table);
	}
	return 0;
}

/* Closes the file and moves it from the open list to the rolled list. */
static int
part_roll(struct writer *w, struct part **link, char *err, size_t errlen)
{
	struct part *p = *link;
	int r;

	if ((r = part_sync(w, p, err, errlen)) < 0)
		return r;
	part_close(w, p, 1);
	journal_park(p->journal);
	buf_clear(&p->rows_buf);
	p->dirty = 1;           /* its last mark comes with the next seal */
	*link = p->next;
	p->next = w->rolled;
	w->rolled = p;
	if (w->last == p)
		w->last = NULL;
	w->stats.files_rolled++;
	return 0;
}

/* convert_reap()'s word that the file of the part owner is finalized:
 * the part goes. */
static void
writer_converted(void *arg, void *owner, int ready)
{
	struct writer *w = arg;
	struct part **link = &w->converting;

	while (*link != owner)
		link = &(*link)->next;
	if ((*link = (*link)->next) == NULL)
		w->converting_end = link;
	w->stats.files_converted += (uint64_t)ready;
	part_free(owner);
}

/* Frees the parts whose files the converter has finalized; with wait,
 * once it has finalized them all.  Returns the number moved to ready/, or
 * the converter's failure. */
static int
writer_reap(struct writer *w, int wait, char *err, size_t errlen)
{
	if (w->convert == NULL)
		return 0;
	return convert_reap(w->convert, wait, writer_converted, w, err,
	    errlen);
}

/* Hands the released Parquet file p, off the rolled list at link, to the
 * converter. */
static int
part_convert(struct writer *w, struct part **link, char *err, size_t errlen)
{
	struct part *p = *link;

	if (convert_put(w->convert, p->rel, p) < 0) {
		return err_set(err, errlen, -ENOMEM, "table %s: out of memory",
		    w->table);
	}
	*link = p->next;
	p->next = NULL;
	*w->converting_end = p;
	w->converting_end = &p->next;
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
	return writer_roll_check(&w->roll, part_bytes(p), p->opened,
	    p->last_write, *(const time_t *)now) != ROLL_NONE;
}

int
writer_tick(struct writer *w, time_t now, char *err, size_t errlen)
{
	int r;

	/* the files' sizes as written; a failed conversion told at once */
	if ((r = packer_wait(w->packer, err, errlen)) < 0 ||
	    (r = writer_reap(w, 0, err, errlen)) < 0)
		return r;
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
writer_seal(struct writer *w, uint64_t id, char *err, size_t errlen)
{
	int r;

	for (struct part *p = w->open; p != NULL; p = p->next)
		if ((r = part_seal(w, p, id, err, errlen)) < 0)
			return r;
	for (struct part *p = w->rolled; p != NULL; p = p->next) {
		if ((r = part_seal(w, p, id, err, errlen)) < 0)
			return r;
		p->sealed = 1;
	}
	return 0;
}

static uint64_t
writer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* spool_finalize() of p's file at checkpoint upto, on the caller's thread;
 * a Parquet file's log is converted, and the time counted. */
static int
part_finalize(struct writer *w, struct part *p, uint64_t upto,
    const struct spool_digest *known, char *err, size_t errlen)
{
	uint64_t t0 = writer_now_ns();
	int r;

	r = spool_finalize(w->spool_dir, p->rel, upto, known, err, errlen);
	if (w->format.kind == FORMAT_PARQUET) {
		w->stats.files_converted += r == 1;
		w->stats.convert_held_ns += writer_now_ns() - t0;
	}
	return r;
}

int
writer_release(struct writer *w, char *err, size_t errlen)
{
	struct part **link = &w->rolled;
	int n = 0, r;

	while (*link != NULL) {
		struct part *p = *link;
		struct spool_digest d;
		int known;

		if (!p->sealed) {
			link = &p->next;
			continue;
		}
		journal_close(p->journal);
		p->journal = NULL;
		if (w->convert != NULL) {
			if ((r = part_convert(w, link, err, errlen)) < 0)
				return r;
			continue;
		}
		known = p->hash != NULL && spool_hash_done(p->hash, &d) == 0;
		if ((r = part_finalize(w, p, UINT64_MAX, known ? &d : NULL, err,
		    errlen)) < 0)
			return r;
		*link = p->next;
		part_free(p);
		n++;
	}
	if ((r = writer_reap(w, 0, err, errlen)) < 0)
		return r;
	return n + r;
}

int
writer_settle(struct writer *w, char *err, size_t errlen)
{
	return writer_reap(w, 1, err, errlen);
}

/* Closes every file of the partition and cuts it back to checkpoint upto. */
static int
writer_cut_list(struct writer *w, struct part **link, int open_list,
    const char *topic, int32_t partition, uint64_t upto, char *err,
    size_t errlen)
{
	int r;

	while (*link != NULL) {
		struct part *p = *link;
		if (p->partition != partition || strcmp(p->topic, topic) != 0) {
			link = &p->next;
			continue;
		}
		*link = p->next;
		if (w->last == p)
			w->last = NULL;
		part_close(w, p, open_list);
		journal_close(p->journal);
		p->journal = NULL;
		r = part_finalize(w, p, upto, NULL, err, errlen);
		part_free(p);
		if (r < 0)
			return r;
	}
	return 0;
}

int
writer_discard(struct writer *w, const char *topic, int32_t partition,
    uint64_t upto, char *err, size_t errlen)
{
	int r;

	/* the packer may still write to the files to be closed; a write of
	 * theirs that failed is cut back with them (and told at the next
	 * hand-over, as the packer keeps its error) */
	(void)packer_wait(w->packer, err, errlen);
	if ((r = writer_cut_list(w, &w->open, 1, topic, partition, upto, err,
	    errlen)) < 0)
		return r;
	return writer_cut_list(w, &w->rolled, 0, topic, partition, upto, err,
	    errlen);
}

int
writer_changed(const struct writer *w)
{
	for (const struct part *p = w->open; p != NULL; p = p->next)
		if (p->dirty)
			return 1;
	for (const struct part *p = w->rolled; p != NULL; p = p->next)
		if (p->dirty || p->sealed)
			return 1;
	return 0;
}

/* The least of the rows' event times in the files of the list at p. */
static int64_t
writer_list_min(const struct part *p, const char *topic, int32_t partition)
{
	int64_t min = INT64_MAX;

	for (; p != NULL; p = p->next)
		if (p->partition == partition && p->min_event_us < min &&
		    strcmp(p->topic, topic) == 0)
			min = p->min_event_us;
	return min;
}

int64_t
writer_pending_min(const struct writer *w, const char *topic,
    int32_t partition)
{
	int64_t a = writer_list_min(w->open, topic, partition);
	int64_t b = writer_list_min(w->rolled, topic, partition);
	int64_t c = writer_list_min(w->converting, topic, partition);

	return a < b && a < c ? a : b < c ? b : c;
}

void
writer_set_roll(struct writer *w, const struct roll_policy *p)
{
	w->roll = *p;
}

void
writer_set_columns(struct writer *w, const struct udtf_column *cols)
{
	w->cols = cols;
}

void
writer_get_stats(const struct writer *w, struct writer_stats *out)
{
	*out = w->stats;
}
