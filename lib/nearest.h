/*
 * nearest: the name a misspelt one was meant to be, for the sentences
 * that say "did you mean ...?" (config keys, librdkafka properties, nginx
 * variables).  Leaf modules may use it: it only compares.
 */
#ifndef KEDGE_NEAREST_H
#define KEDGE_NEAREST_H

#include <stddef.h>

/* The longest name nearest_distance() measures; past it, SIZE_MAX. */
#define NEAREST_NAME_MAX 256

/* Returns the edits between a[0..alen) and b[0..blen): insertions,
 * deletions, substitutions, and swaps of two neighbours ("statsu" is one
 * from "status"), no byte edited twice; SIZE_MAX when either is longer
 * than NEAREST_NAME_MAX. */
size_t nearest_distance(const char *a, size_t alen, const char *b,
    size_t blen);

/* Returns 1 when a[0..alen) is within max edits of b[0..blen) and nearer
 * than *best (start it at SIZE_MAX), which it then lowers; else 0.  The
 * caller keeps the name that last returned 1. */
int nearest_closer(const char *a, size_t alen, const char *b, size_t blen,
    size_t max, size_t *best);

#endif /* KEDGE_NEAREST_H */
