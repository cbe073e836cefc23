/*
 * err: the one writer of an error sentence.  A function that knows why it
 * failed takes char *err, size_t errlen from its caller and ends with
 * return err_set(err, errlen, -EINVAL, "...", ...): the sentence is
 * written once, truncated to fit, and the code returned.  A module that
 * prefixes its sentences (a file:line, "verify: ") does so in a thin
 * wrapper that calls err_vset().
 */
#ifndef KEDGE_ERR_H
#define KEDGE_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Writes the sentence fmt makes into err, truncated to len bytes with its
 * NUL, when err is not NULL and len > 0; else writes nothing.  Returns 0. */
int err_write(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int
err_code_(int code, int written)
{
	(void)written;
	return code;
}

/* err_write(), and returns code, so that a failing path can return what
 * it writes.  A macro over an inline function, so that the compiler still
 * sees the code the path returns (and what its caller then knows). */
#define err_set(err, len, code, ...) \
	err_code_((code), err_write((err), (len), __VA_ARGS__))

/* err_set() for a wrapper that holds a va_list; leaves ap to the caller's
 * va_end().  Returns code. */
int err_vset(char *err, size_t len, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif /* KEDGE_ERR_H */
