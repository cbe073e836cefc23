#include "lib/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/grow.h"

int
buf_grow(struct buf *b, size_t n)
{
	if (n > SIZE_MAX - b->len)
		return -ENOMEM;
	return grow_array((void **)&b->data, &b->cap, b->len + n, 1);
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	/* room for vsnprintf's NUL, which len does not count */
	if ((r = buf_reserve(b, (size_t)n + 1)) < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void
buf_clear(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
