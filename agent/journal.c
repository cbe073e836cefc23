#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"

static const char journal_letter[] = { 'o', 'e', 's', 'u', 'r' };
#define JOURNAL_KINDS 4          /* the kinds a data file's sidecar lists */
#define JOURNAL_TABLES_MAX 64    /* tables one rejects file can name */

struct journal_range {
	enum journal_kind kind;
	const char *table;
	int64_t a, b;
};

struct journal {
	char *path;
	int fd;
	struct journal_range *pending;   /* noted since the last seal */
	size_t npending, cap;
	int events;                      /* rows since the last seal: */
	int64_t min_event, max_event;    /* their event times */
};

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
		    strerror(errno));
		free(j->path);
		free(j);
		return NULL;
	}
	return j;
}

void
journal_close(struct journal *j)
{
	if (j == NULL)
		return;
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
	if (j->npending == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 8;
		if ((r = realloc(j->pending, cap * sizeof(*r))) == NULL)
			return -ENOMEM;
		j->pending = r;
		j->cap = cap;
	}
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
	char line[96];
	int r = 0;

	for (size_t i = 0; i < j->npending && r == 0; i++) {
		const struct journal_range *p = &j->pending[i];
		int n = snprintf(line, sizeof(line), "%c%s%s %" PRId64 " %" PRId64
		    "\n", journal_letter[p->kind], p->table ? " " : "",
		    p->table ? p->table : "", p->a, p->b);
		r = buf_append(&b, line, (size_t)n);
	}
	if (r == 0 && j->events) {
		int n = snprintf(line, sizeof(line), "t %" PRId64 " %" PRId64
		    "\n", j->min_event, j->max_event);
		r = buf_append(&b, line, (size_t)n);
	}
	if (r == 0) {
		int n = snprintf(line, sizeof(line), "m %" PRIu64 " %" PRIu64 " %"
		    PRIu64 "\n", id, len, rows);
		r = buf_append(&b, line, (size_t)n);
	}
	if (r == 0 && (r = fs_write_all(j->fd, b.data, b.len)) == 0 &&
	    fsync(j->fd) < 0)
		r = -errno;
	buf_free(&b);
	if (r < 0) {
		snprintf(err, errlen, "cannot write %s: %s", j->path, strerror(-r));
		return r;
	}
	j->npending = 0;
	j->events = 0;
	return 0;
}

/* Calls fn for each whole line of b[0..len) with its end offset; stops
 * when fn returns non-zero and returns that. */
static int
journal_lines(const struct buf *b, size_t len,
    int (*fn)(const char *line, size_t end, void *arg), void *arg)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(b->data + pos, '\n', len - pos);
		char line[128];
		size_t n;
		int r;

		if (nl == NULL)
			break; /* cut by a crash: not part of any mark */
		n = (size_t)(nl - (b->data + pos));
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, b->data + pos, n);
		line[n] = '\0';
		pos = (size_t)(nl - b->data) + 1;
		if ((r = fn(line, pos, arg)) != 0)
			return r;
	}
	return 0;
}

struct journal_find {
	uint64_t upto;
	struct journal_state *st;
};

static int
journal_find_mark(const char *line, size_t end, void *arg)
{
	struct journal_find *jf = arg;
	uint64_t id, len, rows;

	if (sscanf(line, "m %" SCNu64 " %" SCNu64 " %" SCNu64, &id, &len,
	    &rows) != 3)
		return 0;
	if (id > jf->upto)
		return 1;
	jf->st->found = 1;
	jf->st->len = len;
	jf->st->rows = rows;
	jf->st->journal_len = end;
	return 0;
}

int
journal_read(const char *path, uint64_t upto, struct journal_state *st,
    char *err, size_t errlen)
{
	struct journal_find jf = { upto, st };
	int r;

	memset(st, 0, sizeof(*st));
	if ((r = fs_read_all(path, &st->text)) < 0)
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-r));
	else
		journal_lines(&st->text, st->text.len, journal_find_mark, &jf);
	return r;
}

void
journal_state_free(struct journal_state *st)
{
	buf_free(&st->text);
}

/* Ranges of one kind, merged as they are read. */
struct journal_ranges {
	struct buf json;      /* "[a,b],[c,d]" */
	int64_t a, b;         /* the open range, not yet in json */
	int open;
};

static int
journal_ranges_flush(struct journal_ranges *jr)
{
	char item[64];
	int n;

	if (!jr->open)
		return 0;
	n = snprintf(item, sizeof(item), "%s[%" PRId64 ",%" PRId64 "]",
	    jr->json.len ? "," : "", jr->a, jr->b);
	jr->open = 0;
	return buf_append(&jr->json, item, (size_t)n);
}

static int
journal_ranges_add(struct journal_ranges *jr, int64_t a, int64_t b)
{
	int r;

	if (jr->open && a <= jr->b + 1 && a >= jr->a) {
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

/* Everything a sidecar lists. */
struct journal_sidecar {
	struct journal_ranges kinds[JOURNAL_KINDS];
	struct {
		char name[64];
		struct journal_ranges ranges;
	} rejected[JOURNAL_TABLES_MAX];
	size_t ntables;
	int events;                   /* a t line was read: */
	int64_t min_event, max_event; /* the range of them all */
};

static struct journal_ranges *
journal_rejected_for(struct journal_sidecar *sc, const char *table)
{
	size_t i;

	for (i = 0; i < sc->ntables; i++)
		if (strcmp(sc->rejected[i].name, table) == 0)
			return &sc->rejected[i].ranges;
	if (sc->ntables == JOURNAL_TABLES_MAX)
		return NULL;
	snprintf(sc->rejected[i].name, sizeof(sc->rejected[i].name), "%s", table);
	sc->ntables++;
	return &sc->rejected[i].ranges;
}

static int
journal_collect(const char *line, size_t end, void *arg)
{
	struct journal_sidecar *sc = arg;
	struct journal_ranges *jr;
	char table[64];
	int64_t a, b;
	char c;

	(void)end;
	if (sscanf(line, "t %" SCNd64 " %" SCNd64, &a, &b) == 2) {
		journal_widen(&sc->events, &sc->min_event, &sc->max_event, a,
		    b);
		return 0;
	}
	if (sscanf(line, "r %63s %" SCNd64 " %" SCNd64, table, &a, &b) == 3) {
		if ((jr = journal_rejected_for(sc, table)) == NULL)
			return -E2BIG;
		return journal_ranges_add(jr, a, b) < 0 ? -ENOMEM : 0;
	}
	if (sscanf(line, "%c %" SCNd64 " %" SCNd64, &c, &a, &b) != 3)
		return 0;
	for (size_t k = 0; k < JOURNAL_KINDS; k++)
		if (c == journal_letter[k])
			return journal_ranges_add(&sc->kinds[k], a, b) < 0 ?
			    -ENOMEM : 0;
	return 0;
}

/* Appends `,"name":[ranges]` to out. */
static int
journal_json_ranges(struct buf *out, const char *name,
    const struct journal_ranges *jr)
{
	char head[96];
	int n = snprintf(head, sizeof(head), "\"%s\":[", name), r;

	if ((r = buf_append(out, head, (size_t)n)) < 0 ||
	    (r = buf_append(out, jr->json.data, jr->json.len)) < 0)
		return r;
	return buf_append(out, "]", 1);
}

/* Appends the event range of the rows, null for no row; nothing when the
 * journal has no t line though rows were written (an earlier kedge's). */
static int
journal_json_events(struct buf *out, uint64_t rows,
    const struct journal_sidecar *sc)
{
	char item[96];
	int n;

	if (rows == 0)
		n = snprintf(item, sizeof(item), ",\"min_event_us\":null,"
		    "\"max_event_us\":null");
	else if (sc->events)
		n = snprintf(item, sizeof(item), ",\"min_event_us\":%" PRId64
		    ",\"max_event_us\":%" PRId64, sc->min_event, sc->max_event);
	else
		return 0;
	return buf_append(out, item, (size_t)n);
}

int
journal_write_sidecar(const struct journal_state *st,
    const struct journal_file_info *info, const char *sidecar_path,
    char *err, size_t errlen)
{
	static const char *const names[] = { "offsets", "empty", "spill",
	    "unread" };
	struct journal_sidecar *sc;
	struct buf out = { 0 };
	char tmp[4096];
	int r;

	if ((sc = calloc(1, sizeof(*sc))) == NULL)
		goto nomem;
	if ((r = journal_lines(&st->text, st->journal_len, journal_collect,
	    sc)) < 0) {
		snprintf(err, errlen, "%s: %s", sidecar_path, r == -E2BIG ?
		    "rejects of too many tables" : "out of memory");
		goto out;
	}
	for (size_t k = 0; k < JOURNAL_KINDS && r == 0; k++)
		r = journal_ranges_flush(&sc->kinds[k]);
	for (size_t t = 0; t < sc->ntables && r == 0; t++)
		r = journal_ranges_flush(&sc->rejected[t].ranges);
	if (r < 0)
		goto nomem;
	r = snprintf(tmp, sizeof(tmp), "{\"kedge\":1,\"table\":\"%s\",\"topic\":"
	    "\"%s\",\"partition\":%" PRId32 ",\"host\":\"%s\",\"first_offset\":%"
	    PRId64 ",\"rows\":%" PRIu64 ",\"bytes\":%" PRIu64 ","
	    "\"sha256\":\"%s\",\"format\":\"%s\",\"codec\":\"%s\"",
	    info->table, info->topic, info->partition, info->host,
	    info->first_offset, st->rows, st->len, info->sha256, info->format,
	    info->codec);
	if ((r = buf_append(&out, tmp, (size_t)r)) < 0 ||
	    (r = journal_json_events(&out, st->rows, sc)) < 0)
		goto nomem;
	for (size_t k = 0; k < JOURNAL_KINDS; k++)
		if ((r = buf_append(&out, ",", 1)) < 0 ||
		    (r = journal_json_ranges(&out, names[k], &sc->kinds[k])) < 0)
			goto nomem;
	if (sc->ntables > 0) {
		if ((r = buf_append(&out, ",\"rejected\":{", 13)) < 0)
			goto nomem;
		for (size_t t = 0; t < sc->ntables; t++)
			if ((t > 0 && (r = buf_append(&out, ",", 1)) < 0) ||
			    (r = journal_json_ranges(&out, sc->rejected[t].name,
			    &sc->rejected[t].ranges)) < 0)
				goto nomem;
		if ((r = buf_append(&out, "}", 1)) < 0)
			goto nomem;
	}
	if ((r = buf_append(&out, "}\n", 2)) < 0)
		goto nomem;
	if ((r = fs_write_atomic(sidecar_path, out.data, out.len)) < 0)
		snprintf(err, errlen, "cannot write %s: %s", sidecar_path,
		    strerror(-r));
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	r = -ENOMEM;
out:
	if (sc != NULL) {
		for (size_t k = 0; k < JOURNAL_KINDS; k++)
			buf_free(&sc->kinds[k].json);
		for (size_t t = 0; t < sc->ntables; t++)
			buf_free(&sc->rejected[t].ranges.json);
		free(sc);
	}
	buf_free(&out);
	return r;
}
