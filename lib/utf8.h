/*
 * utf8: the two small pieces every JSON-ish reader needs, shared so that
 * they exist once: a hex digit's value, and a code point as UTF-8.
 */
#ifndef KEDGE_UTF8_H
#define KEDGE_UTF8_H

#include <stddef.h>

/* The value of hex digit c, or -1. */
static inline int
utf8_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Writes code point cp (at most 0x10FFFF) as UTF-8 into out, which has
 * room for 4 bytes; returns the bytes written. */
static inline size_t
utf8_put(char *out, long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

#endif /* KEDGE_UTF8_H */
