#include "agent/parse/chain.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/udtf/registry.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/grow.h"
#include "lib/tick.h"

#define CHAIN_CHUNK 65536        /* bytes of a chunk of row strings */

/* String bytes of a batch's rows, in chunks that never move: a row points
 * at its strings from the moment it is kept until chain_begin(). */
struct chain_chunk {
	struct chain_chunk *next;
	size_t len;
	size_t cap;
	char data[];
};

struct chain_stage {
	const struct udtf_plugin *udtf;
	void *state;
	const struct udtf_column *cols;
	size_t ncols;
	size_t carry_at;          /* where its columns 1.. go in a row */
	uint64_t emitted;         /* rows of the current record, for reasons */
	int trusted;              /* a built-in: its values match its columns */
	struct udtf_emitter em;   /* to the next UDTF, or into rows */
	struct chain *ch;
};

struct chain {
	struct chain_stage *st;
	size_t n;
	char *name;
	struct udtf_column *cols; /* a row's columns */
	size_t ncols;
	struct udtf_value *carry; /* a row's carried values, at their places */
	struct udtf_value *rows;  /* the rows of the batch */
	size_t nrows;
	size_t rows_cap;          /* in rows */
	size_t rec_first;         /* the current record's first row */
	struct chain_chunk *chunks; /* row strings not in their record */
	struct chain_chunk *cur;  /* the chunk being filled; NULL: none yet */
	size_t held;              /* bytes the batch holds: rows and strings */
	struct buf reasons;       /* why the batch's refused records were */
	uint64_t bytes;           /* in the current record's rows */
	uint64_t max_rows;
	uint64_t max_bytes;
	const struct udtf_record *rec;
	int failed;               /* reason holds why the record is refused */
	char reason[512];
};

static void
chain_fail(struct chain *ch, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
chain_fail(struct chain *ch, const char *fmt, ...)
{
	va_list ap;

	if (ch->failed)
		return;
	ch->failed = 1;
	va_start(ap, fmt);
	err_vset(ch->reason, sizeof(ch->reason), 0, fmt, ap);
	va_end(ap);
}

/* A plugin's values must have its columns' types (or be NULL): the writer
 * formats a value by its column's type. */
static int
chain_types_ok(const struct chain_stage *s, const struct udtf_value *v)
{
	for (size_t i = 0; i < s->ncols; i++)
		if (v[i].type != UDTF_NULL && v[i].type != s->cols[i].type)
			return 0;
	return 1;
}

/* Forced inline: it runs for every row a UDTF gives, and its call cost
 * every UDTF 9 instructions a record (callgrind, bench-udtf.sh). */
static inline __attribute__((always_inline)) int
chain_check_row(struct chain_stage *s, const struct udtf_value *v, size_t n)
{
	if (n != s->ncols) {
		chain_fail(s->ch, "UDTF %s emitted a row of %zu values for its "
		    "%zu columns", s->udtf->name, n, s->ncols);
		return -EINVAL;
	}
	if (!s->trusted && !chain_types_ok(s, v)) {
		chain_fail(s->ch, "UDTF %s emitted a value whose type is not "
		    "its column's", s->udtf->name);
		return -EINVAL;
	}
	s->emitted++;
	return 0;
}

/* Returns room for len string bytes that stay where they are until
 * chain_begin(), or NULL. */
static char *
chain_alloc(struct chain *ch, size_t len)
{
	struct chain_chunk *c = ch->cur, *next;

	if (c == NULL || c->cap - c->len < len) {
		next = c != NULL ? c->next : ch->chunks;
		if (next == NULL || next->cap < len) {
			size_t cap = len > CHAIN_CHUNK ? len : CHAIN_CHUNK;
			struct chain_chunk *n = malloc(sizeof(*n) + cap);

			if (n == NULL)
				return NULL;
			n->cap = cap;
			n->next = next;
			if (c != NULL)
				c->next = n;
			else
				ch->chunks = n;
			next = n;
		}
		next->len = 0;
		ch->cur = c = next;
	}
	c->len += len;
	ch->held += len;
	return c->data + c->len - len;
}

/* Whether s lies in the record the chain was given: then a row may point
 * into it, as the record outlives the batch. */
static int
chain_in_record(const struct chain *ch, const char *s, size_t len)
{
	const char *data = ch->rec->data;

	return s >= data && len <= ch->rec->len &&
	    (size_t)(s - data) <= ch->rec->len - len;
}

/* The last UDTF's emitter: keeps the row with what rode along. */
static int
chain_keep(struct udtf_emitter *em, const struct udtf_value *v, size_t n)
{
	struct chain_stage *s = em->opaque;
	struct chain *ch = s->ch;
	struct udtf_value *row;
	int r;

	if ((r = chain_check_row(s, v, n)) < 0)
		return r;
	if (ch->nrows - ch->rec_first >= ch->max_rows) {
		chain_fail(ch, "more than %llu rows from one record",
		    (unsigned long long)ch->max_rows);
		return -E2BIG;
	}
	/* a row is ncols values */
	if (ch->nrows >= ch->rows_cap && grow_array((void **)&ch->rows,
	    &ch->rows_cap, ch->nrows + 1, ch->ncols * sizeof(*ch->rows)) < 0) {
		chain_fail(ch, "out of memory for the rows of one record");
		return -ENOMEM;
	}
	row = ch->rows + ch->nrows * ch->ncols;
	memcpy(row, v, n * sizeof(*v));
	if (n < ch->ncols)
		memcpy(row + n, ch->carry + n, (ch->ncols - n) * sizeof(*v));
	for (size_t i = 0; i < ch->ncols; i++) {
		size_t len;
		char *copy;

		if (row[i].type != UDTF_STRING)
			continue;
		len = row[i].u.s.len;
		ch->bytes += len;
		if (len == 0) {
			row[i].u.s.ptr = "";
			continue;
		}
		/* a UDTF reuses its own memory on its next record: only what
		 * lies in the record itself lasts the batch */
		if (chain_in_record(ch, row[i].u.s.ptr, len))
			continue;
		if ((copy = chain_alloc(ch, len)) == NULL) {
			chain_fail(ch, "out of memory for the rows of one "
			    "record");
			return -ENOMEM;
		}
		memcpy(copy, row[i].u.s.ptr, len);
		row[i].u.s.ptr = copy;
	}
	if (ch->bytes > ch->max_bytes) {
		chain_fail(ch, "the rows of one record hold more than %llu "
		    "bytes", (unsigned long long)ch->max_bytes);
		return -E2BIG;
	}
	ch->nrows++;
	ch->held += ch->ncols * sizeof(*row);
	return 0;
}

/* Tells stage s, about to parse, how many rows its emitter takes: for the
 * last, what the record may still give (at least 1, as 0 says "no bound");
 * an earlier one's rows are not kept, so nothing bounds them. */
static void
chain_bound(struct chain *ch, struct chain_stage *s)
{
	uint64_t kept = ch->nrows - ch->rec_first;

	s->em.max_rows = 0;
	if (s == &ch->st[ch->n - 1])
		s->em.max_rows = kept < ch->max_rows ? ch->max_rows - kept : 1;
}

/* An earlier UDTF's emitter: the row's first column is the next UDTF's
 * record, the others ride along. */
static int
chain_feed(struct udtf_emitter *em, const struct udtf_value *v, size_t n)
{
	struct chain_stage *s = em->opaque, *next = s + 1;
	struct chain *ch = s->ch;
	struct udtf_record sub = *ch->rec;
	char why[256] = "";
	int r;

	if ((r = chain_check_row(s, v, n)) < 0)
		return r;
	if (v[0].type != UDTF_STRING) {
		chain_fail(ch, "row %llu of %s: %s is NULL, nothing for %s to "
		    "parse", (unsigned long long)s->emitted, s->udtf->name,
		    s->cols[0].name, next->udtf->name);
		return -EINVAL;
	}
	memcpy(ch->carry + s->carry_at, v + 1, (n - 1) * sizeof(*v));
	sub.data = v[0].u.s.ptr;
	sub.len = v[0].u.s.len;
	next->emitted = 0;
	chain_bound(ch, next);
	r = next->udtf->process(next->state, &sub, &next->em, why, sizeof(why));
	if (r < 0)
		chain_fail(ch, "%s, on row %llu of %s: %s", next->udtf->name,
		    (unsigned long long)s->emitted, s->udtf->name,
		    why[0] ? why : "failed without a reason");
	return r < 0 ? r : 0;
}

/* The error of UDTF i of table index, which refused its configuration
 * saying why: at the key its sentence starts with ("log_format: ..."),
 * else at its udtf_config. */
static int
chain_init_error(const struct conf *c, size_t index, size_t i,
    const char *why, char *err, size_t errlen)
{
	const struct conf_table *tc = &c->tables[index];
	const struct conf_stage *cs = &tc->udtf[i];
	const struct conf_kv *blamed = NULL;
	struct conf_loc at = cs->config_at;
	char key[64];

	for (size_t j = 0; j < cs->n_params && blamed == NULL; j++) {
		size_t n = strlen(cs->params[j].key);

		if (strncmp(why, cs->params[j].key, n) != 0 ||
		    (why[n] != ':' && why[n] != ' '))
			continue;
		blamed = &cs->params[j];
		/* "log_format: the ..." says its key, which the error names */
		if (why[n] == ':' && why[n + 1] == ' ')
			why += n + 2;
	}
	if (tc->n_udtf > 1)
		snprintf(key, sizeof(key), "tables[%zu].udtf_config[%zu]",
		    index, i);
	else
		snprintf(key, sizeof(key), "tables[%zu].udtf_config", index);
	if (blamed != NULL && blamed->at.line > 0)
		at = blamed->at;
	return err_set(err, errlen, -EINVAL, "%s:%d: %s%s%s: UDTF %s: %s",
	    at.file, at.line, key, blamed != NULL ? "." : "",
	    blamed != NULL ? blamed->key : "", cs->udtf->name,
	    why[0] != '\0' ? why : "initialisation failed");
}

static int
chain_init_stage(struct chain *ch, size_t i, const struct conf *c,
    size_t index, char *err, size_t errlen)
{
	const struct conf_stage *cs = &c->tables[index].udtf[i];
	struct chain_stage *s = &ch->st[i];
	struct udtf_param *params;
	char why[512] = "";

	s->ch = ch;
	s->udtf = cs->udtf;
	s->trusted = udtf_builtin_find(cs->spec) == cs->udtf;
	s->em.opaque = s;
	s->em.emit = i + 1 == ch->n ? chain_keep : chain_feed;
	if ((params = calloc(cs->n_params + 1, sizeof(*params))) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	for (size_t j = 0; j < cs->n_params; j++) {
		params[j].key = cs->params[j].key;
		params[j].value = cs->params[j].value;
	}
	s->state = s->udtf->init(params, cs->n_params, why, sizeof(why));
	free(params);
	if (s->state == NULL)
		return chain_init_error(c, index, i, why, err, errlen);
	s->udtf->columns(s->state, &s->cols, &s->ncols);
	if (s->ncols == 0 || (i + 1 < ch->n &&
	    s->cols[0].type != UDTF_STRING))
		return err_set(err, errlen, -EINVAL,
		    "%s:%d: tables[%zu].udtf: UDTF %s %s",
		    cs->at.file, cs->at.line, index, s->udtf->name,
		    s->ncols == 0 ? "has no columns" : "cannot feed the next "
		    "UDTF: its first column is not a string");
	return 0;
}

/* Lays out a row: the last UDTF's columns, then what rides along. */
static int
chain_layout(struct chain *ch, const struct conf *c, size_t index,
    char *err, size_t errlen)
{
	const struct chain_stage *last = &ch->st[ch->n - 1];
	size_t at = last->ncols;

	ch->ncols = last->ncols;
	for (size_t i = 0; i + 1 < ch->n; i++)
		ch->ncols += ch->st[i].ncols - 1;
	ch->cols = calloc(ch->ncols, sizeof(*ch->cols));
	ch->carry = calloc(ch->ncols, sizeof(*ch->carry));
	if (ch->cols == NULL || ch->carry == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	memcpy(ch->cols, last->cols, last->ncols * sizeof(*ch->cols));
	for (size_t i = 0; i + 1 < ch->n; i++) {
		ch->st[i].carry_at = at;
		for (size_t j = 1; j < ch->st[i].ncols; j++)
			ch->cols[at++] = ch->st[i].cols[j];
	}
	for (size_t i = 0; i < ch->ncols; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(ch->cols[i].name, ch->cols[j].name) == 0) {
				return err_set(err, errlen, -EINVAL,
				    "%s:%d: tables[%zu].udtf: "
				    "two columns named \"%s\" in the chain %s; "
				    "rename one in its udtf_config",
				    c->tables[index].udtf[0].at.file,
				    c->tables[index].udtf[0].at.line, index,
				    ch->cols[i].name, ch->name);
			}
	return 0;
}

struct chain *
chain_new(const struct conf *c, size_t index, char *err, size_t errlen)
{
	const struct conf_table *tc = &c->tables[index];
	struct chain *ch;
	size_t namelen = 0;

	if ((ch = calloc(1, sizeof(*ch))) == NULL ||
	    (ch->st = calloc(tc->n_udtf, sizeof(*ch->st))) == NULL)
		goto oom;
	ch->n = tc->n_udtf;
	ch->max_rows = (uint64_t)tc->max_rows;
	ch->max_bytes = (uint64_t)tc->max_bytes;
	for (size_t i = 0; i < ch->n; i++)
		namelen += strlen(tc->udtf[i].udtf->name) + 1;
	if ((ch->name = malloc(namelen)) == NULL)
		goto oom;
	for (size_t i = 0, used = 0; i < ch->n; i++)
		used += (size_t)snprintf(ch->name + used, namelen - used, "%s%s",
		    i > 0 ? "," : "", tc->udtf[i].udtf->name);
	for (size_t i = 0; i < ch->n; i++)
		if (chain_init_stage(ch, i, c, index, err, errlen) < 0)
			goto fail;
	if (chain_layout(ch, c, index, err, errlen) < 0)
		goto fail;
	return ch;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	chain_free(ch);
	return NULL;
}

void
chain_free(struct chain *ch)
{
	if (ch == NULL)
		return;
	for (size_t i = 0; ch->st != NULL && i < ch->n; i++)
		if (ch->st[i].state != NULL)
			ch->st[i].udtf->fini(ch->st[i].state);
	free(ch->st);
	free(ch->name);
	free(ch->cols);
	free(ch->carry);
	free(ch->rows);
	while (ch->chunks != NULL) {
		struct chain_chunk *next = ch->chunks->next;

		free(ch->chunks);
		ch->chunks = next;
	}
	buf_clear(&ch->reasons);
	free(ch);
}

const char *
chain_name(const struct chain *ch)
{
	return ch->name;
}

void
chain_columns(const struct chain *ch, const struct udtf_column **cols,
    size_t *ncols)
{
	*cols = ch->cols;
	*ncols = ch->ncols;
}

size_t
chain_length(const struct chain *ch)
{
	return ch->n;
}

const char *
chain_note(const struct chain *ch, size_t i, const char **udtf)
{
	*udtf = ch->st[i].udtf->name;
	return ch->st[i].udtf->note != NULL ?
	    ch->st[i].udtf->note(ch->st[i].state) : NULL;
}

/* Starts a batch: forgets the rows kept so far. */
static void
chain_begin(struct chain *ch)
{
	/* a chunk made for one long string goes; the others serve again */
	for (struct chain_chunk **c = &ch->chunks; *c != NULL;) {
		struct chain_chunk *gone = *c;

		if (gone->cap <= CHAIN_CHUNK) {
			c = &gone->next;
			continue;
		}
		*c = gone->next;
		free(gone);
	}
	ch->nrows = 0;
	ch->cur = NULL;
	ch->held = 0;
	buf_reset(&ch->reasons);
}

/* Runs rec through the chain and keeps its rows after those kept since
 * chain_begin().  Returns 0 (giving no row is fine), or a negative errno
 * with the reason the record is rejected in reason; then it keeps nothing. */
static int
chain_append(struct chain *ch, const struct udtf_record *rec, char *reason,
    size_t reasonlen)
{
	struct chain_stage *first = &ch->st[0];
	struct chain_chunk *cur = ch->cur;
	size_t cur_len = cur != NULL ? cur->len : 0, held = ch->held;
	int r;

	ch->rec = rec;
	ch->rec_first = ch->nrows;
	ch->bytes = 0;
	ch->failed = 0;
	first->emitted = 0;
	chain_bound(ch, first);
	reason[0] = '\0';
	r = first->udtf->process(first->state, rec, &first->em, reason,
	    reasonlen);
	if (ch->failed) {
		snprintf(reason, reasonlen, "%s", ch->reason);
		r = r < 0 ? r : -EINVAL;
	} else if (r < 0 && reason[0] == '\0') {
		snprintf(reason, reasonlen, "UDTF %s failed without a reason",
		    first->udtf->name);
	}
	if (r < 0) {
		/* the record keeps nothing */
		ch->nrows = ch->rec_first;
		ch->cur = cur;
		if (cur != NULL)
			cur->len = cur_len;
		ch->held = held;
		return r;
	}
	return 0;
}

size_t
chain_parse_batch(struct chain *ch, const struct udtf_record *recs, size_t n,
    struct chain_span *spans, struct latency *lat)
{
	char reason[512];
	uint64_t ticks[CHAIN_BATCH_MAX], t0, t1;
	size_t i;

	chain_begin(ch);
	if (n > CHAIN_BATCH_MAX)
		n = CHAIN_BATCH_MAX;
	t0 = lat != NULL ? tick_now() : 0;
	for (i = 0; i < n && ch->held < CHAIN_BATCH_BYTES; i++) {
		size_t first = ch->nrows;
		int r = chain_append(ch, &recs[i], reason, sizeof(reason));

		/* one reading a record: where one ends the next begins */
		if (lat != NULL) {
			t1 = tick_now();
			ticks[i] = t1 - t0;
			t0 = t1;
		}
		spans[i].first = first;
		spans[i].nrows = ch->nrows - first;
		spans[i].result = r;
		spans[i].reason = ch->reasons.len;
		if (r < 0 && buf_append(&ch->reasons, reason,
		    strlen(reason) + 1) < 0)
			spans[i].reason = SIZE_MAX;
	}
	/* counted after the batch, so that no record's time holds it */
	for (size_t j = 0; lat != NULL && j < i; j++)
		latency_record(lat, tick_ns(ticks[j]), &recs[j]);
	return i;
}

const char *
chain_reason(const struct chain *ch, const struct chain_span *span)
{
	return span->reason == SIZE_MAX ? "refused; no memory was left for "
	    "the reason" : ch->reasons.data + span->reason;
}

const struct udtf_value *
chain_rows(const struct chain *ch, size_t *nrows)
{
	*nrows = ch->nrows;
	return ch->rows;
}
