/*
 * kedge UDTF ABI: the contract between kedge and a user-defined table
 * function (UDTF).  A UDTF turns one Kafka record into zero or more rows of
 * typed columns.  Built-in UDTFs and plugins (shared objects) use this same
 * header; it is installed as <kedge/udtf.h>.
 *
 * Lifecycle, all on one thread:
 *   state = init(params, nparams, err, errlen)     once per table
 *   columns(state, &cols, &ncols)                  the row schema, fixed after init
 *   process(state, record, emitter, err, errlen)   once per record
 *   fini(state)                                    once
 *
 * A plugin exports one symbol, `kedge_udtf_plugin`, of type
 * `const struct udtf_plugin`, whose abi_version is KEDGE_UDTF_ABI_VERSION.
 */
#ifndef KEDGE_UDTF_H
#define KEDGE_UDTF_H

#include <stddef.h>
#include <stdint.h>

#define KEDGE_UDTF_ABI_VERSION 1

/* Column types.  UDTF_NULL is only a value type: a column of any type may
 * carry a NULL value. */
enum udtf_type {
	UDTF_NULL = 0,
	UDTF_STRING,
	UDTF_INT64,
	UDTF_DOUBLE,
	UDTF_BOOL,
	UDTF_TIMESTAMP /* microseconds since 1970-01-01T00:00:00Z */
};

struct udtf_column {
	const char *name;
	enum udtf_type type;
};

/* One cell.  A string points into the record or into the UDTF's own memory
 * and must stay valid until the next process() or fini() on the same state:
 * kedge writes a record's rows after process() returns. */
struct udtf_value {
	enum udtf_type type;
	union {
		struct {
			const char *ptr;
			size_t len;
		} s;
		int64_t i64;
		double d;
		int b;
		int64_t ts_us;
	} u;
};

/* The record being parsed.  data is not NUL-terminated. */
struct udtf_record {
	const char *data;
	size_t len;
	const char *topic;
	int32_t partition;
	int64_t offset;
	int64_t timestamp_ms; /* Kafka timestamp, -1 if none */
};

/* Where process() sends its rows.  emit() copies nothing: kedge takes the
 * values before process() returns.  It returns 0, or a negative errno when
 * the row was refused (too many rows or bytes for one record); process()
 * should then stop and return that value.
 *
 * max_rows, when not 0, says that emit() refuses row max_rows + 1 of this
 * process() call if not an earlier one: a UDTF that makes its rows before
 * emitting them need make no more than max_rows + 1.  0: no bound is
 * known.  The field came after the first release of ABI 1 at the end of
 * the struct, so a plugin built before it works as it did. */
struct udtf_emitter {
	int (*emit)(struct udtf_emitter *em, const struct udtf_value *values,
	    size_t nvalues);
	void *opaque;
	uint64_t max_rows;
};

/* A configuration key the UDTF accepts in its table's udtf_config group.
 * kedge refuses keys a UDTF does not declare, with file and line. */
struct udtf_key {
	const char *name;
	const char *default_value; /* NULL: required */
	const char *description;
};

/* One configured key and its value, as a string. */
struct udtf_param {
	const char *key;
	const char *value;
};

struct udtf_plugin {
	uint32_t abi_version; /* KEDGE_UDTF_ABI_VERSION */
	const char *name;
	const char *description;
	const struct udtf_key *keys; /* terminated by an entry with name NULL */

	/* Returns the UDTF's state, or NULL with a sentence in err.  Params
	 * hold every declared key, defaults filled in. */
	void *(*init)(const struct udtf_param *params, size_t nparams, char *err,
	    size_t errlen);
	/* Sets *cols to an array of *ncols columns owned by state. */
	void (*columns)(void *state, const struct udtf_column **cols,
	    size_t *ncols);
	/* Returns 0 after emitting zero or more rows, or a negative value with
	 * a short reason in err when the record cannot be parsed: kedge then
	 * sends the record, raw, to the rejects table with that reason. */
	int (*process)(void *state, const struct udtf_record *rec,
	    struct udtf_emitter *out, char *err, size_t errlen);
	void (*fini)(void *state); /* accepts NULL */
	/* Optional, may be NULL: returns one sentence that kedge logs once
	 * after init (why a faster path is unavailable, say), or NULL. */
	const char *(*note)(void *state);
};

#endif /* KEDGE_UDTF_H */
