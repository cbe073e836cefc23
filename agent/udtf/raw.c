/*
 * raw: the built-in UDTF that keeps each record whole, as one string
 * column, for topics that are not parsed on the edge.
 */
#include "agent/udtf/udtf.h"

static const struct udtf_key raw_keys[] = {
	{ NULL, NULL, NULL },
};

/* raw keeps no state: its column table stands in for the non-NULL state
 * that init() must return. */
static struct udtf_column raw_schema[] = {
	{ "raw", UDTF_STRING },
};

static void *
raw_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	(void)params;
	(void)nparams;
	(void)err;
	(void)errlen;
	return raw_schema;
}

static void
raw_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	(void)state;
	*cols = raw_schema;
	*ncols = 1;
}

static int
raw_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct udtf_value value;
	int r;

	(void)state;
	(void)err;
	(void)errlen;
	value.type = UDTF_STRING;
	value.u.s.ptr = rec->data != NULL ? rec->data : "";
	value.u.s.len = rec->len;
	r = out->emit(out, &value, 1);
	return r < 0 ? r : 0;
}

static void
raw_fini(void *state)
{
	(void)state;
}

/* The descriptor registry.c lists among the built-ins. */
const struct udtf_plugin udtf_raw_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "raw",
	.description = "the whole record, as is, in one string column",
	.keys = raw_keys,
	.init = raw_init,
	.columns = raw_columns,
	.process = raw_process,
	.fini = raw_fini,
};
