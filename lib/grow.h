/*
 * grow: the one way the agent grows an array, over reallocarray(3).
 * Capacity doubles, from room for at least GROW_MIN_BYTES; a size that
 * overflows size_t is refused.
 */
#ifndef KEDGE_GROW_H
#define KEDGE_GROW_H

#include <stddef.h>

#define GROW_MIN_BYTES 256

/* Makes the array *p of *cap elements of size bytes (size > 0) hold at
 * least need elements, moving it and raising *cap when it must.  Returns
 * 0, or -ENOMEM with *p and *cap as they were (the caller still owns and
 * frees *p). */
int grow_array(void **p, size_t *cap, size_t need, size_t size);

#endif /* KEDGE_GROW_H */
