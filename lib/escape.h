/*
 * escape: renders bytes kedge did not write (commit metadata, names from
 * the broker, parts of records, server answers) printable, so that a log
 * line or an error sentence quoting them stays one line of plain text.
 * Leaf modules may use it: it only formats.
 */
#ifndef KEDGE_ESCAPE_H
#define KEDGE_ESCAPE_H

#include <stddef.h>

/* A buffer size that quotes a short foreign string in a sentence. */
#define ESCAPE_BUF 256

/* Writes data[0..len) into out[0..outlen) as printable ASCII: '\\' and '"'
 * as \\ and \", newline, carriage return and tab as \n, \r, \t, and every
 * other byte below 0x20 or from 0x7f on as \xNN.  When the rendering does
 * not fit, it ends at a whole escape followed by "...".  Returns out,
 * always NUL-terminated when outlen > 0. */
const char *escape_bytes(const void *data, size_t len, char *out,
    size_t outlen);

/* escape_bytes() of the NUL-terminated s; s may be NULL ("(null)"). */
const char *escape_str(const char *s, char *out, size_t outlen);

/* Like escape_bytes() of the NUL-terminated text, but only the control
 * bytes (below 0x20, and 0x7f) are escaped: text that kedge wrote keeps
 * its backslashes and UTF-8, while nothing in it can end a line.  This is
 * what log.c applies to every message. */
const char *escape_controls(const char *text, char *out, size_t outlen);

#endif /* KEDGE_ESCAPE_H */
