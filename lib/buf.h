/*
 * buf: a growable byte buffer.  The one place the agent grows memory for
 * bytes (through grow.h); everything that builds output appends here.
 */
#ifndef KEDGE_BUF_H
#define KEDGE_BUF_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

/* buf_reserve() when the room is not there: grows the buffer. */
int buf_grow(struct buf *b, size_t n);

/* Makes room for n more bytes; returns 0 or -ENOMEM.  Inline, as rows are
 * built of many small appends: only growing is a call. */
static inline int
buf_reserve(struct buf *b, size_t n)
{
	return n <= b->cap - b->len ? 0 : buf_grow(b, n);
}

/* Appends n bytes; returns 0 or -ENOMEM. */
static inline int
buf_append(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}
/* Appends printf(fmt, ...), of any length (no NUL is kept); returns 0 or
 * -ENOMEM. */
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Frees the memory; leaves an empty buffer.  Accepts a zeroed buffer. */
void buf_clear(struct buf *b);

static inline void
buf_reset(struct buf *b)
{
	b->len = 0;
}

/* Appends one byte; the caller has reserved room for it. */
static inline void
buf_putc_unchecked(struct buf *b, char c)
{
	b->data[b->len++] = c;
}

#endif /* KEDGE_BUF_H */
