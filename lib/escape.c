#include "lib/escape.h"

#include <stdio.h>
#include <string.h>

#define ESCAPE_ELLIPSIS "..."

/* Renders one byte as escape_bytes() (all) or escape_controls() (only
 * control bytes) does into e, which holds 5 bytes; returns its length. */
static size_t
escape_one(unsigned char c, int all, char e[5])
{
	const char *named = NULL;

	switch (c) {
	case '\n': named = "\\n"; break;
	case '\r': named = "\\r"; break;
	case '\t': named = "\\t"; break;
	case '\\': named = all ? "\\\\" : NULL; break;
	case '"': named = all ? "\\\"" : NULL; break;
	default: break;
	}
	if (named != NULL) {
		memcpy(e, named, 3);
		return 2;
	}
	if (c < 0x20 || c == 0x7f || (all && c > 0x7f)) {
		snprintf(e, 5, "\\x%02x", c);
		return 4;
	}
	e[0] = (char)c;
	e[1] = '\0';
	return 1;
}

static const char *
escape_run(const unsigned char *p, size_t len, int all, char *out,
    size_t outlen)
{
	size_t used = 0, keep = 0;
	char e[5];

	if (outlen == 0)
		return out;
	for (size_t i = 0; i < len; i++) {
		size_t n = escape_one(p[i], all, e);

		/* where to cut, should what follows not fit */
		if (used + n + sizeof(ESCAPE_ELLIPSIS) <= outlen)
			keep = used + n;
		if (used + n >= outlen) {
			used = keep;
			snprintf(out + used, outlen - used, "%s", ESCAPE_ELLIPSIS);
			return out;
		}
		memcpy(out + used, e, n);
		used += n;
	}
	out[used] = '\0';
	return out;
}

const char *
escape_bytes(const void *data, size_t len, char *out, size_t outlen)
{
	return escape_run(data, len, 1, out, outlen);
}

const char *
escape_str(const char *s, char *out, size_t outlen)
{
	if (s == NULL)
		s = "(null)";
	return escape_run((const unsigned char *)s, strlen(s), 1, out, outlen);
}

const char *
escape_controls(const char *text, char *out, size_t outlen)
{
	return escape_run((const unsigned char *)text, strlen(text), 0, out,
	    outlen);
}
