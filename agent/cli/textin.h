/*
 * textin: the lines of a plain, gzip (members concatenated) or zstd
 * (frames concatenated) file, decompressed as they are read, for `kedge
 * reconcile`'s two sides.  A line is handed over without its '\n'; the last
 * one may lack it.  Lines of any length are read whole, up to
 * TEXTIN_LINE_MAX bytes.
 */
#ifndef KEDGE_TEXTIN_H
#define KEDGE_TEXTIN_H

#include <stddef.h>

#include "lib/codec.h"

#define TEXTIN_LINE_MAX (64u << 20)

struct textin;

/* Reads fd (which it takes over and closes) as codec says; path names the
 * file in messages.  Returns NULL when out of memory (fd closed). */
struct textin *textin_open(int fd, enum codec_kind codec, const char *path);
void textin_close(struct textin *t); /* accepts NULL */

/* The next line in *line (valid until the next call) and its length.
 * Returns 1, 0 at the end, or a negative errno with the sentence, naming
 * the file, in err: unreadable, a damaged or cut stream, a line too long. */
int textin_line(struct textin *t, const char **line, size_t *len, char *err,
    size_t errlen);

/* The lines handed over so far: the number of the last one. */
size_t textin_lineno(const struct textin *t);

#endif /* KEDGE_TEXTIN_H */
