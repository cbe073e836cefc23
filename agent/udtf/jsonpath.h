/*
 * jsonpath: paths into a JSON document ("user.name", "items[0].sku"),
 * compiled into a trie, and the strict single-pass scan (RFC 8259) that
 * finds where their values lie without building the document.  With an
 * explode path, the scan also finds, in each element of that array, the
 * values of the paths relative to the element ("@", "@.sku", "@[0]").
 *
 * A path is member names joined by '.', with [N] (N decimal, below 10^9)
 * for an array element; it may start with [N].  A name holds any byte but
 * '.', '[' and ']' and is matched as the key reads once unescaped.  A path
 * is relative to the explode element when it is "@" or starts with "@." or
 * "@["; "@timestamp" is a member of the root.
 *
 * The scan refuses nesting deeper than JSONPATH_MAX_DEPTH; the first of
 * two members with the same key wins; a path through a value of another
 * kind (a member of a string) or through null finds nothing.
 */
#ifndef KEDGE_UDTF_JSONPATH_H
#define KEDGE_UDTF_JSONPATH_H

#include <stddef.h>

#define JSONPATH_MAX_DEPTH 64

/* The kind of a value; JSONPATH_MISSING (zero) when the path found none. */
enum jsonpath_kind {
	JSONPATH_MISSING = 0,
	JSONPATH_NULL,
	JSONPATH_FALSE,
	JSONPATH_TRUE,
	JSONPATH_NUMBER,
	JSONPATH_STRING,
	JSONPATH_OBJECT,
	JSONPATH_ARRAY
};

/* Where a value lies in the document: its whole JSON text, a string's
 * quotes included. */
struct jsonpath_value {
	const char *p;
	size_t len;
	unsigned char kind;    /* enum jsonpath_kind */
	unsigned char escaped; /* a string holding a backslash */
};

struct jsonpath;

/* Returns an empty set of paths that explodes the array at path explode,
 * or none when explode is "".  Returns NULL with a sentence naming the key
 * "explode" in err. */
struct jsonpath *jsonpath_new(const char *explode, char *err, size_t errlen);
void jsonpath_free(struct jsonpath *jp); /* accepts NULL */

/* Adds path, read from config key `key`, and sets *elem (whether it is
 * relative to the explode element) and *slot: its value's index among the
 * root's values or the element's; a path added twice has one slot.  jp
 * keeps pointers into path, which must outlive it.  Returns 0, -EINVAL
 * with a sentence in err, or -ENOMEM. */
int jsonpath_add(struct jsonpath *jp, const char *key, const char *path,
    int *elem, size_t *slot, char *err, size_t errlen);

/* Ends the adding; returns 0 or -ENOMEM. */
int jsonpath_seal(struct jsonpath *jp);

/* Scans the document doc[0..len), which is not NUL-terminated, recording
 * the values of the first max_elems elements of the explode array at most:
 * later ones are checked and counted, so that the memory a scan takes does
 * not grow with the array.  Returns 0, -EINVAL with "byte N: what" in err
 * (N counting from 0) or a sentence on the explode array not being one, or
 * -ENOMEM.  The values found stay valid until the next scan. */
int jsonpath_scan(struct jsonpath *jp, const char *doc, size_t len,
    size_t max_elems, char *err, size_t errlen);

/* The values of the root's paths, by slot. */
const struct jsonpath_value *jsonpath_root(const struct jsonpath *jp);
/* The number of elements of the explode array (0: missing, null, empty),
 * those past the scan's max_elems included. */
size_t jsonpath_nelems(const struct jsonpath *jp);
/* The values of element e's paths, by slot; e below the scan's max_elems. */
const struct jsonpath_value *jsonpath_elem(const struct jsonpath *jp,
    size_t e);

/* "an object", "a string"...: what a reason calls a kind. */
const char *jsonpath_kind_name(enum jsonpath_kind kind);

/* Decodes the escapes of s[0..len), the text between the quotes of a
 * string the scan accepted, into dst; a \u escape of a lone surrogate
 * becomes U+FFFD.  Returns the length written, at most len. */
size_t jsonpath_unescape(char *dst, const char *s, size_t len);

#endif /* KEDGE_UDTF_JSONPATH_H */
