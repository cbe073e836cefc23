/*
 * jsonread: a strict reader of the small JSON documents kedge writes
 * itself (sidecars, manifests): a cursor, and functions that each read one
 * value and, on a problem, write "\"key\": what at column N" into the
 * cursor's err and return -EINVAL (or -ENOMEM).
 */
#ifndef KEDGE_JSONREAD_H
#define KEDGE_JSONREAD_H

#include <stddef.h>
#include <stdint.h>

/* A cursor over text; key names the value being read, for messages. */
struct jr {
	const char *start, *p, *end;
	const char *key;
	char *err;
	size_t errlen;
};

#define JR_INIT(text, len, err, errlen) \
	{ (text), (text), (text) + (len), NULL, (err), (errlen) }

/* Writes the problem and where it is into err; returns -EINVAL. */
int jr_fail(struct jr *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void jr_ws(struct jr *j);
/* Skips whitespace; true when the next byte is c, which it then consumes. */
int jr_accept(struct jr *j, char c);
int jr_expect(struct jr *j, char c);
/* Reads a string into a new NUL-terminated *out (the caller frees it). */
int jr_string(struct jr *j, char **out);
/* Reads a JSON integer (no fraction, no exponent) that fits in int64. */
int jr_int(struct jr *j, int64_t *out);
/* Consumes null and returns 1 when it comes next, else returns 0. */
int jr_null(struct jr *j);

/* Reads an object whose keys are among keys[0..nkeys) (at most 64), each
 * at most once, calling value(j, i, arg) for the value of keys[i] with j
 * after the colon.  Sets bit i of *seen for each key read.  Returns 0 or
 * the first error. */
typedef int (jr_value_fn)(struct jr *j, size_t i, void *arg);
int jr_object(struct jr *j, const char *const *keys, size_t nkeys,
    jr_value_fn *value, void *arg, uint64_t *seen);

/* Fails unless only whitespace is left. */
int jr_end(struct jr *j);

#endif /* KEDGE_JSONREAD_H */
