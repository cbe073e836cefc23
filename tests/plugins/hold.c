/*
 * hold: a UDTF plugin that holds kedge's main loop on demand, as a plugin
 * that hangs on a record would, for tests/integration/health_stuck.sh.
 * Build it as
 *
 *   cc -std=c11 -shared -fPIC -I DIR -o hold.so hold.c
 *
 * where DIR holds kedge/udtf.h.  One string column "line", the record.  A
 * record that is exactly "hold" waits, before its row, for as long as the
 * file named by its udtf_config key hold_file exists.
 */
#define _POSIX_C_SOURCE 200809L
#include <kedge/udtf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct udtf_key hold_keys[] = {
	{ "hold_file", NULL, "while this file exists, a record \"hold\" waits" },
	{ NULL, NULL, NULL },
};

static const struct udtf_column hold_schema[] = {
	{ "line", UDTF_STRING },
};

static void *
hold_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	for (size_t i = 0; i < nparams; i++)
		if (strcmp(params[i].key, "hold_file") == 0)
			return strdup(params[i].value);
	snprintf(err, errlen, "no hold_file");
	return NULL;
}

static void
hold_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	(void)state;
	*cols = hold_schema;
	*ncols = 1;
}

static int
hold_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	const struct timespec tenth = { 0, 100000000 };
	struct udtf_value v;
	int r;

	(void)err;
	(void)errlen;
	if (rec->len == 4 && memcmp(rec->data, "hold", 4) == 0)
		while (access(state, F_OK) == 0)
			nanosleep(&tenth, NULL);
	v.type = UDTF_STRING;
	v.u.s.ptr = rec->data;
	v.u.s.len = rec->len;
	r = out->emit(out, &v, 1);
	return r < 0 ? r : 0;
}

static void
hold_fini(void *state)
{
	free(state);
}

const struct udtf_plugin kedge_udtf_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "hold",
	.description = "holds the main loop while a file exists, for kedge's "
	    "tests",
	.keys = hold_keys,
	.init = hold_init,
	.columns = hold_columns,
	.process = hold_process,
	.fini = hold_fini,
};
