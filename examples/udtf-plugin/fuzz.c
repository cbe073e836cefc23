/*
 * fuzz: a libFuzzer target for a kedge UDTF plugin, built by `make fuzz`
 * with the plugin's source (clang -fsanitize=fuzzer,address,undefined).
 * It knows the UDTF only by its descriptor, kedge_udtf_plugin, so it serves
 * any plugin as is: it initialises the UDTF with its keys' defaults, then
 * runs every input as one record, held in a buffer of exactly its length,
 * and checks the contract kedge relies on:
 *
 *   - every row has the UDTF's number of columns, each value of its
 *     column's type or NULL;
 *   - every string can be read whole (AddressSanitizer checks it);
 *   - a negative return comes with a reason that fits in err.
 *
 * A crash, a sanitizer report or a broken contract stops the fuzzer with
 * the input that caused it.  Set FUZZ_PARAMS below when a key is required
 * or a non-default value takes another path.
 */
#include <kedge/udtf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Key/value pairs given to init() before the keys' defaults. */
#define FUZZ_PARAMS { "min_severity", "notice" },

#define FUZZ_MAX_PARAMS 64

/* The UDTF under test, from its own source file. */
extern const struct udtf_plugin kedge_udtf_plugin;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *fuzz_state;
static const struct udtf_column *fuzz_cols;
static size_t fuzz_ncols;

static void
fuzz_fail(const char *what)
{
	fprintf(stderr, "contract broken: %s\n", what);
	abort();
}

/* The UDTF with FUZZ_PARAMS, then every other key at its default. */
static void
fuzz_init(void)
{
	static const struct udtf_param given[] = { FUZZ_PARAMS };
	struct udtf_param params[FUZZ_MAX_PARAMS];
	size_t n = 0;
	char err[512] = "";

	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
		params[n++] = given[i];
	for (const struct udtf_key *k = kedge_udtf_plugin.keys;
	    k != NULL && k->name != NULL && n < FUZZ_MAX_PARAMS; k++) {
		size_t i;

		for (i = 0; i < n && strcmp(params[i].key, k->name) != 0; i++)
			;
		if (i < n)
			continue;
		if (k->default_value == NULL) {
			fprintf(stderr, "key %s is required: add it to "
			    "FUZZ_PARAMS\n", k->name);
			exit(1);
		}
		params[n].key = k->name;
		params[n++].value = k->default_value;
	}
	fuzz_state = kedge_udtf_plugin.init(params, n, err, sizeof err);
	if (fuzz_state == NULL) {
		fprintf(stderr, "init: %s\n", err);
		exit(1);
	}
	kedge_udtf_plugin.columns(fuzz_state, &fuzz_cols, &fuzz_ncols);
}

static int
fuzz_emit(struct udtf_emitter *em, const struct udtf_value *v, size_t n)
{
	volatile unsigned char sink = 0;

	(void)em;
	if (n != fuzz_ncols)
		fuzz_fail("a row without one value per column");
	for (size_t i = 0; i < n; i++) {
		if (v[i].type != UDTF_NULL && v[i].type != fuzz_cols[i].type)
			fuzz_fail("a value whose type is not its column's");
		if (v[i].type != UDTF_STRING)
			continue;
		if (v[i].u.s.len > 0 && v[i].u.s.ptr == NULL)
			fuzz_fail("a string with a length and no bytes");
		for (size_t j = 0; j < v[i].u.s.len; j++)
			sink ^= (unsigned char)v[i].u.s.ptr[j];
	}
	(void)sink;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct udtf_emitter em = { fuzz_emit, NULL };
	struct udtf_record rec = { NULL, size, "fuzz", 0, 0, -1 };
	char *copy, err[512];
	int r;

	if (fuzz_state == NULL)
		fuzz_init();
	/* exactly size bytes, so that a read past the end is caught */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	if (size > 0)
		memcpy(copy, data, size);
	rec.data = copy;
	err[0] = '\0';
	r = kedge_udtf_plugin.process(fuzz_state, &rec, &em, err, sizeof err);
	if (r < 0 && (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL))
		fuzz_fail("a negative return without a reason");
	free(copy);
	return 0;
}
