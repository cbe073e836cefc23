/*
 * utf8: the small pieces every JSON-ish reader and writer needs, shared so
 * that they exist once: a hex digit's value, a code point as UTF-8, and the
 * length of a valid sequence.
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

/* Returns the length of the valid UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF) that starts at p[0] >= 0x80,
 * or 0 when there is none. */
static inline size_t
utf8_seq_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	need = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n < need || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

#endif /* KEDGE_UTF8_H */
