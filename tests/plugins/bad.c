/*
 * bad: UDTF plugins that break the ABI, one per -D flag, for
 * tests/integration/udtf_plugin.sh.  Build one with
 *
 *   cc -std=c11 -shared -fPIC -I DIR -D NAME -o bad-NAME.so bad.c
 *
 * where DIR holds kedge/udtf.h, and NAME is one of
 *
 *   GOOD         a UDTF that works: one string column "line", the record
 *   WRONG_ABI    abi_version 999
 *   NO_SYMBOL    exports kedge_udtf_plugin_v2, not kedge_udtf_plugin
 *   NO_PROCESS   process is NULL
 *   INIT_FAILS   init() refuses, with a sentence
 *   NO_COLUMNS   columns() gives none
 *   WRONG_TYPE   column "n" is int64, but process() emits a string in it
 *   WRONG_COUNT  emits one value for its two columns
 *
 * Each is GOOD but for its one fault, so that what kedge says is about
 * that fault alone.
 */
#include <kedge/udtf.h>

#include <stdio.h>

#if defined(GOOD) + defined(WRONG_ABI) + defined(NO_SYMBOL) + \
    defined(NO_PROCESS) + defined(INIT_FAILS) + defined(NO_COLUMNS) + \
    defined(WRONG_TYPE) + defined(WRONG_COUNT) != 1
#error "define exactly one of GOOD, WRONG_ABI, NO_SYMBOL, NO_PROCESS, INIT_FAILS, NO_COLUMNS, WRONG_TYPE, WRONG_COUNT"
#endif

#ifdef WRONG_ABI
#define BAD_ABI_VERSION 999
#else
#define BAD_ABI_VERSION KEDGE_UDTF_ABI_VERSION
#endif

#ifdef NO_SYMBOL
#define BAD_SYMBOL kedge_udtf_plugin_v2
#else
#define BAD_SYMBOL kedge_udtf_plugin
#endif

#ifdef NO_PROCESS
#define BAD_PROCESS NULL
#else
#define BAD_PROCESS bad_process
#endif

static const struct udtf_key bad_keys[] = {
	{ NULL, NULL, NULL },
};

#if defined(WRONG_TYPE) || defined(WRONG_COUNT)
static const struct udtf_column bad_schema[] = {
	{ "line", UDTF_STRING },
	{ "n", UDTF_INT64 },
};
#else
static const struct udtf_column bad_schema[] = {
	{ "line", UDTF_STRING },
};
#endif

static void *
bad_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	(void)params;
	(void)nparams;
#ifdef INIT_FAILS
	snprintf(err, errlen, "this plugin always refuses: for testing");
	return NULL;
#else
	(void)err;
	(void)errlen;
	return (void *)bad_schema; /* no state: any non-NULL pointer */
#endif
}

static void
bad_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	(void)state;
	*cols = bad_schema;
#ifdef NO_COLUMNS
	*ncols = 0;
#else
	*ncols = sizeof bad_schema / sizeof bad_schema[0];
#endif
}

#ifndef NO_PROCESS
static int
bad_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct udtf_value v[2];
	size_t n = sizeof bad_schema / sizeof bad_schema[0];
	int r;

	(void)state;
	(void)err;
	(void)errlen;
	v[0].type = UDTF_STRING;
	v[0].u.s.ptr = rec->data;
	v[0].u.s.len = rec->len;
	v[1] = v[0]; /* WRONG_TYPE: a string in the int64 column */
#ifdef WRONG_COUNT
	n = 1;
#endif
	r = out->emit(out, v, n);
	return r < 0 ? r : 0;
}
#endif

static void
bad_fini(void *state)
{
	(void)state;
}

const struct udtf_plugin BAD_SYMBOL = {
	.abi_version = BAD_ABI_VERSION,
	.name = "bad",
	.description = "a UDTF plugin with one fault, for kedge's tests",
	.keys = bad_keys,
	.init = bad_init,
	.columns = bad_columns,
	.process = BAD_PROCESS,
	.fini = bad_fini,
};
