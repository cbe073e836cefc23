#include "lib/err.h"

#include <stdio.h>

int
err_vset(char *err, size_t len, int code, const char *fmt, va_list ap)
{
	if (err != NULL && len > 0)
		vsnprintf(err, len, fmt, ap);
	return code;
}

int
err_write(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, len, 0, fmt, ap);
	va_end(ap);
	return 0;
}
