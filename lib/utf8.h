/*
 * utf8: the small pieces every JSON-ish reader and writer needs, shared so
 * that they exist once: a hex digit's value, a code point as UTF-8, the
 * length of a valid sequence, and the length of a string once its invalid
 * bytes are made characters.
 */
#ifndef KEDGE_UTF8_H
#define KEDGE_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* How many bytes from s on, of n, are ASCII: sixteen a step with SSE2
 * (always there on x86-64), else eight. */
static inline size_t
utf8_ascii_span(const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint64_t x;

#if defined(__SSE2__)
	for (; i + 16 <= n; i += 16) {
		int m = _mm_movemask_epi8(_mm_loadu_si128(
		    (const __m128i *)(const void *)(s + i)));

		if (m != 0)
			return i + (size_t)__builtin_ctz((unsigned)m);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		memcpy(&x, s + i, 8);
		if (x & UINT64_C(0x8080808080808080))
			break;
	}
	while (i < n && s[i] < 0x80)
		i++;
	return i;
}

/* The length of s[0..n) once each byte that is not part of valid UTF-8 (a
 * scanner's binary junk in a request, say) is written as the character
 * U+0080..U+00FF of its value, as jsonl, Parquet and the fingerprint take
 * it: n exactly when s is valid UTF-8. */
static inline size_t
utf8_fixed_len(const unsigned char *s, size_t n)
{
	size_t len = n, i = 0, seq;

	while ((i += utf8_ascii_span(s + i, n - i)) < n) {
		if ((seq = utf8_seq_len(s + i, n - i)) > 0)
			i += seq;
		else
			len++, i++;
	}
	return len;
}

#endif /* KEDGE_UTF8_H */
