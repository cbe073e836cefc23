#include "agent/write/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/write/format.h"
#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "lib/codec.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/grow.h"

static const char journal_letter[] = { 'o', 'e', 's', 'u', 'r' };
#define JOURNAL_KINDS 4          /* the kinds a data file's sidecar lists */

struct journal_range {
	enum journal_kind kind;
	const char *table;
	int64_t a, b;
};

struct journal {
	char *path;
	int fd;                          /* -1: parked, opened by each seal */
	struct journal_range *pending;   /* noted since the last seal */
	size_t npending, cap;
	int events;                      /* rows since the last seal: */
	int64_t min_event, max_event;    /* their event times */
	uint64_t fingerprint;            /* and the sum of their fingerprints */
	uint64_t size;                   /* bytes written to it */
};

int
journal_name(char *buf, size_t len, const char *part)
{
	return snprintf(buf, len, ".%s.journal", part);
}

struct journal *
journal_create(const char *path, char *err, size_t errlen)
{
	struct journal *j = calloc(1, sizeof(*j));

	if (j == NULL || (j->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(j);
		return NULL;
	}
	j->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
	    0644);
	if (j->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    fs_strerror(errno));
		free(j->path);
		free(j);
		return NULL;
	}
	return j;
}

void
journal_park(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

void
journal_close(struct journal *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j->pending);
	free(j->path);
	free(j);
}

int
journal_add(struct journal *j, enum journal_kind kind, const char *table,
    int64_t offset)
{
	struct journal_range *r;

	if (j->npending > 0) {
		r = &j->pending[j->npending - 1];
		if (r->kind == kind && r->table == table && r->b + 1 == offset) {
			r->b = offset;
			return 0;
		}
		if (r->kind == kind && r->table == table && r->b == offset)
			return 0;
	}
	if (grow_array((void **)&j->pending, &j->cap, j->npending + 1,
	    sizeof(*j->pending)) < 0)
		return -ENOMEM;
	j->pending[j->npending++] = (struct journal_range){ kind, table, offset,
	    offset };
	return 0;
}

int
journal_add_range(struct journal *j, enum journal_kind kind,
    const char *table, int64_t from, int64_t to)
{
	int r;

	if ((r = journal_add(j, kind, table, from)) < 0)
		return r;
	if (to > j->pending[j->npending - 1].b)
		j->pending[j->npending - 1].b = to;
	return 0;
}

/* Widens the range [*min, *max], empty while *have is 0, to take in
 * [lo, hi]. */
static void
journal_widen(int *have, int64_t *min, int64_t *max, int64_t lo, int64_t hi)
{
	if (!*have || lo < *min)
		*min = lo;
	if (!*have || hi > *max)
		*max = hi;
	*have = 1;
}

void
journal_add_event(struct journal *j, int64_t event_us)
{
	journal_widen(&j->events, &j->min_event, &j->max_event, event_us,
	    event_us);
}

void
journal_add_fingerprint(struct journal *j, uint64_t fp)
{
	j->fingerprint += fp;
}

int
journal_dirty(const struct journal *j)
{
	return j->npending > 0;
}

int
journal_seal(struct journal *j, uint64_t id, uint64_t len, uint64_t rows,
    char *err, size_t errlen)
{
	struct buf b = { 0 };
	int parked = j->fd < 0, r = 0;

	for (size_t i = 0; i < j->npending && r == 0; i++) {
		const struct journal_range *p = &j->pending[i];
		r = buf_printf(&b, "%c%s%s %" PRId64 " %" PRId64 "\n",
		    journal_letter[p->kind], p->table ? " " : "",
		    p->table ? p->table : "", p->a, p->b);
	}
	if (r == 0 && j->events)
		r = buf_printf(&b, "t %" PRId64 " %" PRId64 "\n", j->min_event,
		    j->max_event);
	if (r == 0 && j->events)
		r = buf_printf(&b, "f %" PRIu64 "\n", j->fingerprint);
	if (r == 0)
		r = buf_printf(&b, "m %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", id,
		    len, rows);
	if (r == 0 && parked &&
	    (j->fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		r = -errno;
	if (r == 0 && (r = fs_write_all(j->fd, b.data, b.len)) == 0) {
		j->size += b.len;
		if (fsync(j->fd) < 0)
			r = -errno;
	}
	if (parked)
		journal_park(j);
	buf_clear(&b);
	if (r < 0) {
		return err_set(err, errlen, r, "cannot write %s: %s", j->path,
		    fs_strerror(-r));
	}
	j->npending = 0;
	j->events = 0;
	j->fingerprint = 0;
	return 0;
}

uint64_t
journal_size(const struct journal *j)
{
	return j->size;
}

/* One line of a journal, as read. */
struct journal_line {
	char kind;             /* o e s r t f m */
	const char *table;     /* r: not NUL-terminated */
	size_t tablelen;
	int64_t a, b;          /* o e s r: offsets; t: event times */
	uint64_t id, len, rows; /* m; f: rows is the sum */
};

int
journal_decimal(const char **s, const char *end, uint64_t max, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (p == end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* one spelling per number, as the reader reads what kedge wrote */
	if (**s == '0' && p - *s > 1)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

/* Reads a decimal number of at most max at *s (before end), with a '-'
 * when neg, then a space or the end of the line.  Returns 0, or -EINVAL
 * for anything else: no digit, too large, other bytes, a spelling that
 * journal_seal() does not write (a leading zero, "-0"). */
static int
journal_number(const char **s, const char *end, int neg, uint64_t max,
    uint64_t *out, int *negative)
{
	const char *p = *s;
	uint64_t v;

	*negative = 0;
	if (neg && p < end && *p == '-') {
		*negative = 1;
		p++;
	}
	if (journal_decimal(&p, end, max, &v) < 0 || (*negative && v == 0))
		return -EINVAL;
	if (p < end && *p++ != ' ')
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

static int
journal_u64(const char **s, const char *end, uint64_t *out)
{
	int negative;

	return journal_number(s, end, 0, UINT64_MAX, out, &negative);
}

/* An offset (>= 0), or with neg an event time (any int64 but INT64_MIN,
 * which a sidecar does not take: a manifest's "no time"). */
static int
journal_i64(const char **s, const char *end, int neg, int64_t *out)
{
	uint64_t v;
	int negative, r;

	if ((r = journal_number(s, end, neg, INT64_MAX, &v, &negative)) < 0)
		return r;
	*out = negative ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Parses one line (without its newline).  Returns 0, or -EINVAL when it
 * is none that journal_seal() writes. */
static int
journal_parse_line(const char *s, size_t n, struct journal_line *jl)
{
	const char *end = s + n, *sp;

	memset(jl, 0, sizeof(*jl));
	if (n < 2 || s[1] != ' ')
		return -EINVAL;
	jl->kind = s[0];
	s += 2;
	switch (jl->kind) {
	case 'm':
		if (journal_u64(&s, end, &jl->id) < 0 ||
		    journal_u64(&s, end, &jl->len) < 0 ||
		    journal_u64(&s, end, &jl->rows) < 0)
			return -EINVAL;
		break;
	case 'f':
		if (journal_u64(&s, end, &jl->rows) < 0)
			return -EINVAL;
		break;
	case 'r':
		if ((sp = memchr(s, ' ', (size_t)(end - s))) == NULL || sp == s)
			return -EINVAL;
		jl->table = s;
		jl->tablelen = (size_t)(sp - s);
		/* a table name holds no control byte; a NUL would cut it,
		 * and two tables' rejects would go under one name */
		for (; s < sp; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				return -EINVAL;
		s = sp + 1;
		/* fall through */
	case 'o':
	case 'e':
	case 's':
	case 'u':
	case 't':
		if (journal_i64(&s, end, jl->kind == 't', &jl->a) < 0 ||
		    journal_i64(&s, end, jl->kind == 't', &jl->b) < 0 ||
		    jl->a > jl->b)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* each number took its space: one at the end is one too many */
	return s == end && end[-1] != ' ' ? 0 : -EINVAL;
}

/* Calls fn for each whole line of b[0..len) with its number, its end
 * offset, and what it says (NULL: the line is damaged); stops when fn
 * returns non-zero and returns that. */
static int
journal_lines(const struct buf *b, size_t len,
    int (*fn)(const struct journal_line *jl, size_t lineno, size_t end,
    void *arg), void *arg)
{
	size_t pos = 0, lineno = 0;

	while (pos < len) {
		const char *line = b->data + pos;
		const char *nl = memchr(line, '\n', len - pos);
		struct journal_line jl;
		int r;

		if (nl == NULL)
			break; /* cut by a crash: not part of any mark */
		pos = (size_t)(nl - b->data) + 1;
		lineno++;
		r = journal_parse_line(line, (size_t)(nl - line), &jl);
		if ((r = fn(r < 0 ? NULL : &jl, lineno, pos, arg)) != 0)
			return r;
	}
	return 0;
}

struct journal_find {
	uint64_t upto;
	struct journal_state *st;
	size_t damaged;        /* the first damaged line; 0: none */
	size_t damaged_end;
};

static int
journal_find_mark(const struct journal_line *jl, size_t lineno, size_t end,
    void *arg)
{
	struct journal_find *jf = arg;

	if (jl == NULL) {
		if (jf->damaged == 0) {
			jf->damaged = lineno;
			jf->damaged_end = end;
		}
		return 0;
	}
	if (jl->kind != 'm')
		return 0;
	if (jl->id > jf->upto)
		return 1;
	jf->st->found = 1;
	jf->st->len = jl->len;
	jf->st->rows = jl->rows;
	jf->st->journal_len = end;
	return 0;
}

int
journal_read(const char *path, uint64_t upto, struct journal_state *st,
    char *err, size_t errlen)
{
	struct journal_find jf = { upto, st, 0, 0 };
	int r;

	memset(st, 0, sizeof(*st));
	if ((r = fs_read_all(path, &st->text)) < 0) {
		return err_set(err, errlen, r, "cannot read %s: %s", path,
		    fs_strerror(-r));
	}
	journal_lines(&st->text, st->text.len, journal_find_mark, &jf);
	/* what follows the mark kept is dropped, damaged or not; a damaged
	 * line before it would make the file's description a guess */
	if (jf.damaged != 0 && st->found && jf.damaged_end <= st->journal_len) {
		return err_set(err, errlen, -EINVAL,
		    "%s: line %zu is damaged: it is none that "
		    "kedge writes", path, jf.damaged);
	}
	return 0;
}

void
journal_state_clear(struct journal_state *st)
{
	buf_clear(&st->text);
}

/* Ranges of one kind, merged as they are read. */
struct journal_ranges {
	struct sidecar_ranges done;
	int64_t a, b;         /* the open range, not yet in done */
	int open;
};

static int
journal_ranges_flush(struct journal_ranges *jr)
{
	if (!jr->open)
		return 0;
	jr->open = 0;
	return sidecar_ranges_push(&jr->done, jr->a, jr->b);
}

static int
journal_ranges_add(struct journal_ranges *jr, int64_t a, int64_t b)
{
	int r;

	/* a - 1: jr->b may be INT64_MAX, and a >= 0 */
	if (jr->open && a >= jr->a && a - 1 <= jr->b) {
		if (b > jr->b)
			jr->b = b;
		return 0;
	}
	if ((r = journal_ranges_flush(jr)) < 0)
		return r;
	jr->a = a;
	jr->b = b;
	jr->open = 1;
	return 0;
}

static int
journal_range_cmp(const void *x, const void *y)
{
	const struct sidecar_range *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* Closes the open range, then sorts the ranges and merges those that
 * overlap or touch, as a sidecar lists them: records noted out of order
 * (read again after a seek back) are in the file all the same. */
static int
journal_ranges_done(struct journal_ranges *jr)
{
	struct sidecar_ranges *d = &jr->done;
	size_t n = 0;
	int r;

	if ((r = journal_ranges_flush(jr)) < 0 || d->n < 2)
		return r;
	qsort(d->v, d->n, sizeof(d->v[0]), journal_range_cmp);
	for (size_t i = 1; i < d->n; i++) {
		if (d->v[i].first - 1 <= d->v[n].last) {
			if (d->v[i].last > d->v[n].last)
				d->v[n].last = d->v[i].last;
		} else {
			d->v[++n] = d->v[i];
		}
	}
	d->n = n + 1;
	return 0;
}

/* The rejects of one table. */
struct journal_rejected {
	char *name;
	struct journal_ranges ranges;
};

/* Everything a sidecar lists. */
struct journal_sidecar {
	struct journal_ranges kinds[JOURNAL_KINDS];
	struct journal_rejected *rejected;
	size_t ntables, cap;
	int events;                   /* a t line was read: */
	int64_t min_event, max_event; /* the range of them all */
	int fingerprints;             /* an f line was read: */
	uint64_t fingerprint;         /* the sum of them all */
};

static struct journal_ranges *
journal_rejected_for(struct journal_sidecar *sc, const char *table,
    size_t len)
{
	struct journal_rejected *r;
	size_t i;

	for (i = 0; i < sc->ntables; i++)
		if (strlen(sc->rejected[i].name) == len &&
		    memcmp(sc->rejected[i].name, table, len) == 0)
			return &sc->rejected[i].ranges;
	if (grow_array((void **)&sc->rejected, &sc->cap, sc->ntables + 1,
	    sizeof(*sc->rejected)) < 0)
		return NULL;
	r = &sc->rejected[i];
	memset(r, 0, sizeof(*r));
	if ((r->name = strndup(table, len)) == NULL)
		return NULL;
	sc->ntables++;
	return &r->ranges;
}

static int
journal_collect(const struct journal_line *jl, size_t lineno, size_t end,
    void *arg)
{
	struct journal_sidecar *sc = arg;
	struct journal_ranges *jr;

	(void)lineno;
	(void)end;
	if (jl == NULL)     /* journal_read() refused any before the mark */
		return -EINVAL;
	switch (jl->kind) {
	case 't':
		journal_widen(&sc->events, &sc->min_event, &sc->max_event,
		    jl->a, jl->b);
		return 0;
	case 'f':
		sc->fingerprints = 1;
		sc->fingerprint += jl->rows;
		return 0;
	case 'r':
		if ((jr = journal_rejected_for(sc, jl->table,
		    jl->tablelen)) == NULL)
			return -ENOMEM;
		return journal_ranges_add(jr, jl->a, jl->b) < 0 ? -ENOMEM : 0;
	case 'm':
		return 0;
	}
	for (size_t k = 0; k < JOURNAL_KINDS; k++)
		if (jl->kind == journal_letter[k])
			return journal_ranges_add(&sc->kinds[k], jl->a, jl->b) <
			    0 ? -ENOMEM : 0;
	return 0;
}

static int
journal_last(const struct journal_line *jl, size_t lineno, size_t end,
    void *arg)
{
	int64_t *last = arg;

	(void)lineno;
	(void)end;
	if (jl == NULL)
		return -EINVAL;
	if (jl->kind != 't' && jl->kind != 'f' && jl->kind != 'm' &&
	    jl->b > *last)
		*last = jl->b;
	return 0;
}

int
journal_span(const struct journal_state *st, int64_t *last)
{
	return journal_lines(&st->text, st->journal_len, journal_last, last);
}

/* A rejects file lists rejected records only (r lines), a table's file
 * none (o, e, s, u lines).  Returns 0 or -EINVAL. */
static int
journal_check_kinds(const struct journal_sidecar *sc, const char *table)
{
	int rejects = strcmp(table, REJECTS_TABLE) == 0, others = 0;

	for (size_t k = 0; k < JOURNAL_KINDS; k++)
		others |= sc->kinds[k].done.n > 0;
	/* no table rejects records for the rejects table */
	for (size_t t = 0; t < sc->ntables; t++)
		others |= strcmp(sc->rejected[t].name, REJECTS_TABLE) == 0;
	return (rejects && others) || (!rejects && sc->ntables > 0) ?
	    -EINVAL : 0;
}

/* Moves what the journal collected into out, with the descriptive fields
 * of info.  Returns 0, -EINVAL for a format or codec kedge does not know,
 * -ERANGE for a mark's length or rows past INT64_MAX, or -ENOMEM; out
 * holds what was moved either way. */
static int
journal_to_sidecar(const struct journal_state *st,
    const struct journal_file_info *info, struct journal_sidecar *sc,
    struct sidecar *out)
{
	struct sidecar_ranges *kinds[JOURNAL_KINDS] = { &out->offsets,
	    &out->empty, &out->spill, &out->unread };

	if (st->rows > INT64_MAX || st->len > INT64_MAX ||
	    info->bytes > INT64_MAX)
		return -ERANGE;
	out->version = SIDECAR_VERSION;
	out->partition = info->partition;
	out->first_offset = info->first_offset;
	out->rows = (int64_t)st->rows;
	out->bytes = (int64_t)(info->bytes ? info->bytes : st->len);
	snprintf(out->crc32c, sizeof(out->crc32c), "%s", info->crc32c);
	/* a file of no row has its event range null; one whose journal has
	 * no t line (an earlier kedge's) none */
	out->has_event_range = st->rows > 0 && sc->events;
	out->min_event_us = sc->min_event;
	out->max_event_us = sc->max_event;
	/* the rows of a journal without f lines (an earlier kedge's) have
	 * none; a file of no row has 0 */
	out->has_fingerprint = st->rows == 0 || sc->fingerprints;
	out->fingerprint = sc->fingerprint;
	for (size_t k = 0; k < JOURNAL_KINDS; k++) {
		*kinds[k] = sc->kinds[k].done;
		memset(&sc->kinds[k].done, 0, sizeof(sc->kinds[k].done));
	}
	if ((out->table = strdup(info->table)) == NULL ||
	    (out->topic = strdup(info->topic)) == NULL ||
	    (out->host = strdup(info->host)) == NULL ||
	    (sc->ntables > 0 && (out->rejected = calloc(sc->ntables,
	    sizeof(*out->rejected))) == NULL))
		return -ENOMEM;
	for (size_t t = 0; t < sc->ntables; t++) {
		struct sidecar_rejected *rj = &out->rejected[out->nrejected];

		if ((rj->table = strdup(sc->rejected[t].name)) == NULL)
			return -ENOMEM;
		rj->ranges = sc->rejected[t].ranges.done;
		memset(&sc->rejected[t].ranges.done, 0,
		    sizeof(sc->rejected[t].ranges.done));
		out->nrejected++;
	}
	if (format_kind_parse(info->format, &out->format) < 0 ||
	    codec_kind_parse(info->codec, &out->codec) < 0)
		return -EINVAL;
	return 0;
}

int
journal_write_sidecar(const struct journal_state *st,
    const struct journal_file_info *info, const char *sidecar_path,
    char *err, size_t errlen)
{
	struct journal_sidecar *sc;
	struct sidecar out = { 0 };
	struct buf text = { 0 };
	int r;

	if ((sc = calloc(1, sizeof(*sc))) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = journal_lines(&st->text, st->journal_len, journal_collect,
	    sc)) < 0) {
		snprintf(err, errlen, "%s: %s", sidecar_path, r == -EINVAL ?
		    "its journal is damaged" : "out of memory");
		goto out;
	}
	for (size_t k = 0; k < JOURNAL_KINDS && r == 0; k++)
		r = journal_ranges_done(&sc->kinds[k]);
	for (size_t t = 0; t < sc->ntables && r == 0; t++)
		r = journal_ranges_done(&sc->rejected[t].ranges);
	if (r == 0 && (r = journal_check_kinds(sc, info->table)) < 0) {
		snprintf(err, errlen, "%s: its journal lists %s records in a "
		    "file of table %s", sidecar_path, sc->ntables > 0 &&
		    strcmp(info->table, REJECTS_TABLE) != 0 ? "rejected" :
		    "accepted", info->table);
		goto out;
	}
	if (r == 0)
		r = journal_to_sidecar(st, info, sc, &out);
	if (r == 0)
		r = sidecar_format(&out, &text);
	/* spool_move() makes its name durable in ready/; one lost from
	 * open/ in a crash is written again by recovery */
	if (r == 0 && (r = fs_write_replace(sidecar_path, text.data,
	    text.len)) < 0)
		snprintf(err, errlen, "cannot write %s: %s", sidecar_path,
		    fs_strerror(-r));
	else if (r == -EINVAL)
		snprintf(err, errlen, "%s: format %s or codec %s unknown",
		    sidecar_path, info->format, info->codec);
	else if (r == -EILSEQ)
		snprintf(err, errlen, "%s: the table, topic or host name is "
		    "not UTF-8", sidecar_path);
	else if (r == -ERANGE)
		snprintf(err, errlen, "%s: the journal's mark says %" PRIu64
		    " bytes, %" PRIu64 " rows", sidecar_path, st->len, st->rows);
out:
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (sc != NULL) {
		for (size_t k = 0; k < JOURNAL_KINDS; k++)
			sidecar_ranges_clear(&sc->kinds[k].done);
		for (size_t t = 0; t < sc->ntables; t++) {
			sidecar_ranges_clear(&sc->rejected[t].ranges.done);
			free(sc->rejected[t].name);
		}
		free(sc->rejected);
		free(sc);
	}
	sidecar_clear(&out);
	buf_clear(&text);
	return r;
}
