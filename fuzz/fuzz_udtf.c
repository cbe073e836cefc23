/*
 * fuzz_udtf: one built-in UDTF, named at compile time by
 * -DFUZZ_UDTF='"name"', opened once with each of its parameter sets below.
 * Every input is one Kafka record, run through process() of each opened
 * state under fuzzkit's contract checks.
 *
 * The first byte also decides whether emit() refuses a row, as kedge does
 * past a table's max_rows_per_record: a first byte whose value % 8 is 6
 * ('&', '.', '6', 'F', 'V', 'f', 'n', 'v', ...) refuses the first row, 7
 * ('\'', '/', '7', '?', 'G', 'W', 'g', 'o', 'w', ...) the second, so that
 * about a quarter of the inputs take the UDTF's refusal path.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/fuzzkit.h"

#ifndef FUZZ_UDTF
#error "compile with -DFUZZ_UDTF='\"name\"'"
#endif

#define FUZZ_MAX_KV 9 /* four keys and the NULL */
#define FUZZ_MAX_STATES 4

struct fuzz_param_set {
	const char *udtf;
	const char *kv[FUZZ_MAX_KV]; /* key, value, ..., NULL */
};

/* Keys a set leaves out take the UDTF's defaults; { NULL } is all of them. */
static const struct fuzz_param_set fuzz_param_sets[] = {
	{ "nginx", { NULL } },
	{ "nginx", { "log_format", "$remote_addr [$time_iso8601] \"$request\" "
	    "$status $request_time $msec $http_x_forwarded_for",
	    "escape", "json", NULL } },
	{ "raw", { NULL } },
	{ "json", { "fields", "a, b:int64, c.d:double, e:bool, t:timestamp, "
	    "arr:json, n=x[1].y", NULL } },
	{ "json", { "explode", "items",
	    "fields", "id:int64, @.name, @.v:double, @:json", NULL } },
	{ "kv", { "fields", "a, b:int64, c:timestamp, d:bool", NULL } },
	{ "kv", { "fields", "a, b:int64, c:double", "pair_separator", ";",
	    "quote", "'", NULL } },
	{ "kv", { "fields", "a, b, c:bool", "pair_separator", "\t", "quote", "",
	    NULL } },
	{ "csv", { "columns", "a, b:int64, c:double, d", NULL } },
	{ "tsv", { "columns", "a, b:int64, c:double, d", NULL } },
	{ "regex", { "pattern", "^(?<ip>\\S+) (?<n>\\d+) (?<rest>.*)$",
	    "types", "n:int64", NULL } },
	{ "regex", { "pattern", "(?<k>\\w+)=(?<v>\\w*)", "match", "all",
	    NULL } },
	{ "split", { NULL } },
	{ "split", { "separator", ";", NULL } },
};

static struct fuzzkit_udtf fuzz_states[FUZZ_MAX_STATES];
static char fuzz_who[FUZZ_MAX_STATES][64];
static size_t fuzz_nstates;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct udtf_plugin *p = fuzzkit_find(FUZZ_UDTF);
	struct udtf_param params[FUZZKIT_MAX_PARAMS];
	char err[512];
	size_t n, set = 0;

	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(fuzz_param_sets) /
	    sizeof(fuzz_param_sets[0]); i++) {
		const struct fuzz_param_set *ps = &fuzz_param_sets[i];
		struct fuzzkit_udtf *u = &fuzz_states[fuzz_nstates];
		char *who = fuzz_who[fuzz_nstates];

		if (strcmp(ps->udtf, FUZZ_UDTF) != 0)
			continue;
		if (fuzz_nstates == FUZZ_MAX_STATES)
			fuzzkit_die(FUZZ_UDTF, "more parameter sets than "
			    "FUZZ_MAX_STATES");
		snprintf(who, sizeof(fuzz_who[0]), "%s[%zu]", FUZZ_UDTF, set++);
		n = fuzzkit_params(p, who, ps->kv, params);
		if (fuzzkit_open(u, p, who, params, n, err, sizeof(err)) < 0)
			fuzzkit_die(who, "init() refused the parameter set: %s",
			    err);
		fuzz_nstates++;
	}
	if (fuzz_nstates == 0)
		fuzzkit_die(FUZZ_UDTF, "no parameter set in fuzz/fuzz_udtf.c");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t refuse_at = FUZZKIT_NEVER;

	if (size > 0 && data[0] % 8 >= 6)
		refuse_at = data[0] % 8 - 6u;
	for (size_t i = 0; i < fuzz_nstates; i++)
		(void)fuzzkit_run(&fuzz_states[i], (const char *)data, size,
		    refuse_at);
	return 0;
}
