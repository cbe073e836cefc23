/*
 * fuzzkit: what the fuzz drivers share.  It opens a UDTF the way kedge's
 * table.c does (every declared key, defaults filled in), runs one record
 * through it with an emitter that holds the UDTF to the ABI of udtf.h, and
 * writes each accepted row the way kedge's writer does (format_row() in
 * hive-text and jsonl, tz_hour_of() for every timestamp).
 *
 * A broken contract is a bug for the fuzzer to report: fuzzkit prints one
 * line "fuzzkit: WHO: what is wrong" and calls abort(), which libFuzzer
 * turns into a crash with its reproducer.
 */
#ifndef KEDGE_FUZZKIT_H
#define KEDGE_FUZZKIT_H

#include <stddef.h>

#include "agent/udtf/udtf.h"

#define FUZZKIT_MAX_PARAMS 16
#define FUZZKIT_NEVER ((size_t)-1) /* refuse_at: accept every row */

/* A UDTF opened for fuzzing.  The fields are the driver's to read. */
struct fuzzkit_udtf {
	const char *who;             /* "json[1]": names it in messages */
	const struct udtf_plugin *plugin;
	void *state;
	const struct udtf_column *cols;
	size_t ncols;
	struct udtf_emitter em;
	/* The current record's rows, kept to check them after process(). */
	struct udtf_value *rows;
	size_t nrows;
	size_t cap;                  /* in rows */
	size_t refuse_at;            /* emit() refuses this row */
	int refused;
	char **names;                /* the schema as init() gave it */
	enum udtf_type *types;
};

/* Aborts with "fuzzkit: WHO: ..." on stderr. */
void fuzzkit_die(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Returns the built-in UDTF called name; aborts when there is none. */
const struct udtf_plugin *fuzzkit_find(const char *name);

/* Fills params with every key plugin declares: the value kv gives
 * (key, value, ..., NULL), else the key's default.  Returns how many;
 * aborts when kv names a key the UDTF does not declare (kedge's config
 * loader refuses it) or leaves out a required one. */
size_t fuzzkit_params(const struct udtf_plugin *plugin, const char *who,
    const char *const *kv, struct udtf_param *params);

/* Calls plugin's init() with params.  Returns 0 with u ready, its schema
 * checked (aborts when it is not a valid one), or -1 with init()'s reason in
 * err (aborts when init() gave none). */
int fuzzkit_open(struct fuzzkit_udtf *u, const struct udtf_plugin *plugin,
    const char *who, const struct udtf_param *params, size_t nparams,
    char *err, size_t errlen);

/* Runs a copy of data[0..len), held in exactly len bytes so that a read
 * past its end shows, as one record through process().  emit() refuses
 * the row numbered refuse_at (0 is the first; FUZZKIT_NEVER: none) with
 * -E2BIG, as kedge refuses too many rows.  Checks every value emit() gets,
 * that a refused process() returns the refusal, that any other failure
 * comes with a reason, and, on success, that every string is still
 * readable after process() returned; then writes the rows.  Returns what
 * process() returned. */
int fuzzkit_run(struct fuzzkit_udtf *u, const char *data, size_t len,
    size_t refuse_at);

/* Calls fini() and frees what u holds.  Accepts a u that never opened. */
void fuzzkit_close(struct fuzzkit_udtf *u);

#endif /* KEDGE_FUZZKIT_H */
