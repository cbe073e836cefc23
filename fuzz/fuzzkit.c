/*
 * fuzzkit: the UDTF contract checks and the row writing the fuzz drivers
 * share.  See fuzzkit.h.
 */
#include "fuzz/fuzzkit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/udtf/registry.h"
#include "agent/write/format.h"
#include "agent/write/tz.h"
#include "lib/buf.h"

/* As agent/parse/table.c: kedge refuses a record's rows past this many. */
#define FUZZKIT_MAX_ROWS 10000
/* A zone with daylight saving time, so that rows take tz.c's slow paths. */
#define FUZZKIT_ZONE "Europe/Paris"

void
fuzzkit_die(const char *who, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzzkit: %s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static volatile unsigned char fuzzkit_sink;

/* Reads every byte of p[0..len), so that AddressSanitizer sees a string
 * that is not all there. */
static void
fuzzkit_touch(const char *p, size_t len)
{
	unsigned char x = 0;

	for (size_t i = 0; i < len; i++)
		x ^= (unsigned char)p[i];
	fuzzkit_sink = x;
}

const struct udtf_plugin *
fuzzkit_find(const char *name)
{
	const struct udtf_plugin *p = udtf_builtin_find(name);

	if (p == NULL)
		fuzzkit_die(name, "no built-in UDTF of that name in "
		    "agent/udtf/registry.c");
	if (p->abi_version != KEDGE_UDTF_ABI_VERSION || p->init == NULL ||
	    p->columns == NULL || p->process == NULL || p->fini == NULL)
		fuzzkit_die(name, "the descriptor is incomplete or of another "
		    "ABI version");
	return p;
}

static const char *
fuzzkit_kv_value(const char *const *kv, const char *key)
{
	for (; kv != NULL && kv[0] != NULL; kv += 2)
		if (strcmp(kv[0], key) == 0)
			return kv[1];
	return NULL;
}

size_t
fuzzkit_params(const struct udtf_plugin *plugin, const char *who,
    const char *const *kv, struct udtf_param *params)
{
	const struct udtf_key *k;
	size_t n = 0;

	for (const char *const *p = kv; p != NULL && p[0] != NULL; p += 2) {
		for (k = plugin->keys; k != NULL && k->name != NULL; k++)
			if (strcmp(k->name, p[0]) == 0)
				break;
		if (k == NULL || k->name == NULL)
			fuzzkit_die(who, "the parameter set names \"%s\", a key "
			    "UDTF %s does not declare", p[0], plugin->name);
	}
	for (k = plugin->keys; k != NULL && k->name != NULL; k++) {
		const char *v = fuzzkit_kv_value(kv, k->name);

		if (v == NULL && (v = k->default_value) == NULL)
			fuzzkit_die(who, "the parameter set leaves out \"%s\", "
			    "which UDTF %s requires", k->name, plugin->name);
		if (n == FUZZKIT_MAX_PARAMS)
			fuzzkit_die(who, "more than %d keys; raise "
			    "FUZZKIT_MAX_PARAMS", FUZZKIT_MAX_PARAMS);
		params[n++] = (struct udtf_param){ k->name, v };
	}
	return n;
}

/* Checks the schema init() gave and keeps a copy of it, to check later
 * that it stays as it was. */
static void
fuzzkit_take_schema(struct fuzzkit_udtf *u)
{
	u->plugin->columns(u->state, &u->cols, &u->ncols);
	if (u->ncols == 0 || u->cols == NULL)
		fuzzkit_die(u->who, "columns() gave no column");
	if ((u->names = calloc(u->ncols, sizeof(*u->names))) == NULL ||
	    (u->types = calloc(u->ncols, sizeof(*u->types))) == NULL)
		fuzzkit_die(u->who, "out of memory");
	for (size_t i = 0; i < u->ncols; i++) {
		const struct udtf_column *c = &u->cols[i];

		if (c->name == NULL || c->name[0] == '\0')
			fuzzkit_die(u->who, "column %zu has no name", i);
		if (c->type <= UDTF_NULL || c->type > UDTF_TIMESTAMP)
			fuzzkit_die(u->who, "column %s has type %d", c->name,
			    (int)c->type);
		for (size_t j = 0; j < i; j++)
			if (strcmp(u->cols[j].name, c->name) == 0)
				fuzzkit_die(u->who, "two columns are named %s",
				    c->name);
		if ((u->names[i] = strdup(c->name)) == NULL)
			fuzzkit_die(u->who, "out of memory");
		u->types[i] = c->type;
	}
}

/* kedge keeps the array columns() gave for the table's life. */
static void
fuzzkit_check_schema(const struct fuzzkit_udtf *u)
{
	const struct udtf_column *cols;
	size_t ncols;

	u->plugin->columns(u->state, &cols, &ncols);
	if (cols != u->cols || ncols != u->ncols)
		fuzzkit_die(u->who, "columns() changed after init()");
	for (size_t i = 0; i < u->ncols; i++)
		if (u->cols[i].type != u->types[i] ||
		    strcmp(u->cols[i].name, u->names[i]) != 0)
			fuzzkit_die(u->who, "column %zu (%s) changed after "
			    "init()", i, u->names[i]);
}

static void
fuzzkit_check_value(const struct fuzzkit_udtf *u, size_t row, size_t i,
    const struct udtf_value *v)
{
	if (v->type != UDTF_NULL && v->type != u->types[i])
		fuzzkit_die(u->who, "row %zu column %s: a value of type %d in "
		    "a column of type %d", row, u->names[i], (int)v->type,
		    (int)u->types[i]);
	if (v->type != UDTF_STRING)
		return;
	if (v->u.s.ptr == NULL)
		fuzzkit_die(u->who, "row %zu column %s: a string with a NULL "
		    "pointer", row, u->names[i]);
	fuzzkit_touch(v->u.s.ptr, v->u.s.len);
}

static int
fuzzkit_emit(struct udtf_emitter *em, const struct udtf_value *values,
    size_t nvalues)
{
	struct fuzzkit_udtf *u = em->opaque;
	struct udtf_value *grown;
	size_t cap;

	if (u->refused)
		fuzzkit_die(u->who, "emit() was called again after it refused "
		    "a row");
	if (nvalues != u->ncols)
		fuzzkit_die(u->who, "emit() got %zu values for %zu columns",
		    nvalues, u->ncols);
	if (values == NULL)
		fuzzkit_die(u->who, "emit() got no values");
	for (size_t i = 0; i < nvalues; i++)
		fuzzkit_check_value(u, u->nrows, i, &values[i]);
	if (u->nrows == u->refuse_at || u->nrows == FUZZKIT_MAX_ROWS) {
		u->refused = 1;
		return -E2BIG;
	}
	if (u->nrows == u->cap) {
		cap = u->cap ? u->cap * 2 : 4;
		grown = realloc(u->rows, cap * u->ncols * sizeof(*grown));
		if (grown == NULL)
			fuzzkit_die(u->who, "out of memory");
		u->rows = grown;
		u->cap = cap;
	}
	memcpy(u->rows + u->nrows * u->ncols, values,
	    u->ncols * sizeof(*values));
	u->nrows++;
	return 0;
}

int
fuzzkit_open(struct fuzzkit_udtf *u, const struct udtf_plugin *plugin,
    const char *who, const struct udtf_param *params, size_t nparams,
    char *err, size_t errlen)
{
	const char *note;

	memset(u, 0, sizeof(*u));
	u->who = who;
	u->plugin = plugin;
	u->em.emit = fuzzkit_emit;
	u->em.opaque = u;
	err[0] = '\0';
	u->state = plugin->init(params, nparams, err, errlen);
	if (memchr(err, '\0', errlen) == NULL)
		fuzzkit_die(who, "init() left err without its NUL");
	if (u->state == NULL) {
		if (err[0] == '\0')
			fuzzkit_die(who, "init() failed without a reason");
		return -1;
	}
	fuzzkit_take_schema(u);
	if (plugin->note != NULL && (note = plugin->note(u->state)) != NULL)
		fuzzkit_touch(note, strlen(note));
	return 0;
}

/* Writes the rows as kedge's writer would: both formats, and the hour of
 * every timestamp. */
static void
fuzzkit_write_rows(const struct fuzzkit_udtf *u)
{
	static struct tz *tz;
	static struct buf out;
	char err[256];
	struct format hive = { FORMAT_HIVE_TEXT, '\001', NULL };
	struct format jsonl = { FORMAT_JSONL, '\001', NULL };
	struct tz_hour hour;

	if (tz == NULL && (tz = tz_open(FUZZKIT_ZONE, err, sizeof(err))) == NULL)
		fuzzkit_die(u->who, "tz_open(%s): %s", FUZZKIT_ZONE, err);
	hive.tz = jsonl.tz = tz;
	for (size_t r = 0; r < u->nrows; r++) {
		const struct udtf_value *row = u->rows + r * u->ncols;

		buf_reset(&out);
		if (format_row(&hive, u->cols, row, u->ncols, &out) < 0 ||
		    format_row(&jsonl, u->cols, row, u->ncols, &out) < 0)
			fuzzkit_die(u->who, "format_row() failed");
		fuzzkit_touch(out.data, out.len);
		for (size_t i = 0; i < u->ncols; i++)
			if (row[i].type == UDTF_TIMESTAMP)
				(void)tz_hour_of(tz, row[i].u.ts_us, &hour);
	}
}

int
fuzzkit_run(struct fuzzkit_udtf *u, const char *data, size_t len,
    size_t refuse_at)
{
	struct udtf_record rec = {
		.len = len,
		.topic = "fuzz",
		.partition = 0,
		.offset = 42,
		.timestamp_ms = 1700000000000,
	};
	char err[256]; /* as agent/parse/table.c's reason */
	char *copy;
	int r;

	/* Exactly len bytes, so that a read past the end is caught. */
	if ((copy = malloc(len)) == NULL && len > 0)
		fuzzkit_die(u->who, "out of memory");
	if (len > 0)
		memcpy(copy, data, len);
	rec.data = copy;
	u->nrows = 0;
	u->refused = 0;
	u->refuse_at = refuse_at;
	/* the bound kedge announces; 0 says none, so refusing the first
	 * row goes unannounced, as a plugin's host may leave it */
	u->em.max_rows = refuse_at < FUZZKIT_MAX_ROWS ? refuse_at :
	    FUZZKIT_MAX_ROWS;
	err[0] = '\0';
	r = u->plugin->process(u->state, &rec, &u->em, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die(u->who, "process() left err without its NUL");
	fuzzkit_check_schema(u);
	if (r > 0)
		fuzzkit_die(u->who, "process() returned %d", r);
	if (u->refused && r != -E2BIG)
		fuzzkit_die(u->who, "emit() refused a row with -E2BIG, then "
		    "process() returned %d (\"%s\")", r, err);
	if (r < 0 && !u->refused && err[0] == '\0')
		fuzzkit_die(u->who, "process() returned %d without a reason",
		    r);
	if (r < 0)
		goto out;
	/* kedge writes the rows after process() returned: every string must
	 * still be there. */
	for (size_t row = 0; row < u->nrows; row++)
		for (size_t i = 0; i < u->ncols; i++)
			fuzzkit_check_value(u, row, i,
			    &u->rows[row * u->ncols + i]);
	fuzzkit_write_rows(u);
out:
	free(copy);
	return r;
}

void
fuzzkit_close(struct fuzzkit_udtf *u)
{
	if (u->plugin != NULL)
		u->plugin->fini(u->state);
	for (size_t i = 0; u->names != NULL && i < u->ncols; i++)
		free(u->names[i]);
	free(u->names);
	free(u->types);
	free(u->rows);
	memset(u, 0, sizeof(*u));
}
