/*
 * jsondoc: the small JSON documents kedge writes and reads back itself
 * (sidecars, manifests, progress files), through jansson.  Reading is
 * strict: duplicate keys, unknown keys, a missing key, a value of another
 * type or out of its range are each an error whose sentence names where it
 * is: the line and column for what the parser finds, the key (and the
 * element of an array) for what the checks after it find.  Writing keeps
 * the keys in the order they are added and the text on one line; the
 * answer of a command's --json (jsondoc_print()) is indented instead.
 */
#ifndef KEDGE_JSONDOC_H
#define KEDGE_JSONDOC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/buf.h"

/* Where a value is, for messages: "in" is "" or an element such as
 * "\"files\"[3]: ", key the key whose value is read (NULL: none). */
struct jsondoc {
	char *err;
	size_t errlen;
	const char *in;
	const char *key;
};

#define JSONDOC_INIT(err, errlen) { (err), (errlen), "", NULL }

/* The memory jsondoc_parse() lets a document take: at most about 6 MiB
 * of sidecar ranges, far above what kedge writes. */
#define JSONDOC_MEM_MAX (64 * 1024 * 1024)

/* json_loadb() of text[0..len) with flags, but letting jansson allocate
 * at most max bytes (as it asks for them) for what it builds, so that a
 * text that would take more (a hostile server's answer of millions of
 * empty objects takes 80 times its size) is refused before it is built
 * whole: NULL then, with "takes more than <max> bytes of memory to read"
 * in e's text and its line and column -1.  Otherwise as json_loadb(),
 * e's position included (the bytes read, which JSON_DISABLE_EOF_CHECK
 * makes the end of the value). */
json_t *jsondoc_load(const char *text, size_t len, size_t flags, size_t max,
    json_error_t *e);

/* Parses text[0..len), which must hold one object and nothing else, with
 * jsondoc_load() bounded by JSONDOC_MEM_MAX.  Returns it (the caller
 * json_decref()s it), or NULL with "line L, column C: what" (or only what,
 * for a text refused for its memory) in d's err (control bytes of the
 * text shown as '?'). */
json_t *jsondoc_parse(struct jsondoc *d, const char *text, size_t len);

/* Writes "<in>\"<key>\": <what>" into d's err; returns -EINVAL. */
int jsondoc_fail(struct jsondoc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Checks that v is an object whose keys are all among keys[0..nkeys), and
 * sets vals[i] to the value of keys[i] (NULL when absent; borrowed from
 * v).  Returns 0 or -EINVAL ("unknown key", escaped). */
int jsondoc_object(struct jsondoc *d, const json_t *v,
    const char *const *keys, size_t nkeys, const json_t **vals);

/* Reads the object v, whose keys are all among keys[0..nkeys) (at most
 * JSONDOC_KEYS_MAX): for each key i in turn, with d's key set to it,
 * calls read(d, i, value, arg), value NULL when the key is absent (read()
 * refuses that with jsondoc_missing(), or takes it).  Returns 0, or the
 * first error of jsondoc_object() or read(). */
#define JSONDOC_KEYS_MAX 32
int jsondoc_fields(struct jsondoc *d, const json_t *v,
    const char *const *keys, size_t nkeys,
    int (*read)(struct jsondoc *d, size_t i, const json_t *v, void *arg),
    void *arg);

/* Fails with "no \"<key>\"" (in the element d is in). */
int jsondoc_missing(struct jsondoc *d, const char *key);

/* Reads the integer v, which must be within [min, max], into *out.
 * Returns 0 or -EINVAL. */
int jsondoc_int(struct jsondoc *d, const json_t *v, int64_t min, int64_t max,
    int64_t *out);
/* As jsondoc_int(), but null reads as none. */
int jsondoc_int_or_null(struct jsondoc *d, const json_t *v, int64_t min,
    int64_t max, int64_t none, int64_t *out);
/* Reads the string v into a new *out (the caller frees it).  Returns 0,
 * -EINVAL or -ENOMEM. */
int jsondoc_string(struct jsondoc *d, const json_t *v, char **out);
/* Reads the string v (borrowed from v) into *out.  Returns 0 or -EINVAL. */
int jsondoc_str(struct jsondoc *d, const json_t *v, const char **out);
/* Reads the string v, a name that becomes a path component (not empty,
 * ".", ".." nor holding '/'), into a new *out (the caller frees it, also
 * when it is refused).  Returns 0, -EINVAL or -ENOMEM. */
int jsondoc_name(struct jsondoc *d, const json_t *v, char **out);
/* Checks that v is an array; returns 0 or -EINVAL. */
int jsondoc_array(struct jsondoc *d, const json_t *v);

/* Returns 0 when s is UTF-8 (so can be a string or a key), -EILSEQ when
 * not, or -ENOMEM. */
int jsondoc_utf8(const char *s);
/* Sets key of object o: to the string s, the integer v, or null for
 * v == none.  Return 0, -EILSEQ when s is not UTF-8, or -ENOMEM. */
int jsondoc_set_str(json_t *o, const char *key, const char *s);
int jsondoc_set_int(json_t *o, const char *key, int64_t v);
int jsondoc_set_int_or_null(json_t *o, const char *key, int64_t v,
    int64_t none);
/* A new JSON string of s, text that may hold any bytes (a message quoting
 * a path or a record): s itself when it is UTF-8, else escape_str() of it,
 * every byte outside printable ASCII as \xNN.  NULL when memory runs
 * out. */
json_t *jsondoc_text(const char *s);
/* Sets key of o to v, whose reference it takes (NULL: -ENOMEM). */
int jsondoc_set(json_t *o, const char *key, json_t *v);

/* Appends v as one line of compact JSON and a newline to out.  Returns 0
 * or -ENOMEM. */
int jsondoc_dump(const json_t *v, struct buf *out);

/* Prints v to out as the one JSON document a command answers with
 * (`--json`): indented by two spaces, keys in the order they were added,
 * and a newline.  Returns 0, or -EIO when out refuses it. */
int jsondoc_print(const json_t *v, FILE *out);

#endif /* KEDGE_JSONDOC_H */
