/*
 * nginx_value: the slow side of turning nginx's values into columns, what
 * nginx_convert_value() (nginx_int.h) calls only for a value that holds an
 * escape or is refused: undoing escape=default and escape=json, and
 * writing the reason, with the value quoted.  The per-field fast path is
 * in nginx_int.h, to stay inlined into nginx.c's line scan.
 */
#include "agent/udtf/nginx_int.h"

#include "lib/err.h"
#include "lib/utf8.h"

#include <stdio.h>
#include <string.h>

/* Quoting values for reasons. */

/* Writes s as a short, printable, double-quoted text for a reason. */
void
nginx_quote(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = len > QUOTE_MAX ? QUOTE_MAX : len, o = 0;

	dst[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			dst[o++] = '\\';
			dst[o++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		} else {
			dst[o++] = (char)c;
		}
	}
	if (n < len) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o++] = '"';
	dst[o] = '\0';
}

/* Refuses a value, quoting it in the reason. */
int
nginx_reject_value(const char *column, const char *s, size_t len,
    const char *why, char *err, size_t errlen)
{
	char quoted[QUOTED_SIZE];

	nginx_quote(quoted, s, len);
	return err_set(err, errlen, -EINVAL, "%s: %s %s", column, quoted, why);
}

/* Undoing escapes. */

/* Undoes escape=default: \xHH is the byte 0xHH; any other backslash is
 * itself.  Returns the length written; dst holds at least len bytes. */
size_t
nginx_unescape_default(char *dst, const char *s, size_t len)
{
	size_t o = 0, i = 0;

	while (i < len) {
		const char *bs = memchr(s + i, '\\', len - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : len - i;
		int hi, lo;

		memcpy(dst + o, s + i, run);
		o += run;
		i += run;
		if (i == len)
			break;
		if (i + 3 < len && s[i + 1] == 'x' &&
		    (hi = utf8_hex_value(s[i + 2])) >= 0 &&
		    (lo = utf8_hex_value(s[i + 3])) >= 0) {
			dst[o++] = (char)(hi << 4 | lo);
			i += 4;
		} else {
			dst[o++] = s[i++];
		}
	}
	return o;
}

/* Reads the 4 hex digits of a \uXXXX at s[0..3]; -1 if they are not. */
static long
read_hex4(const char *s, size_t avail)
{
	long v = 0;

	if (avail < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = utf8_hex_value(s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Reads the \uXXXX escape at s[i] (a backslash), with its low surrogate
 * when it is a high one.  Returns the code point and sets *used, or -1 when
 * it is not a valid escape (a lone surrogate included). */
static long
read_json_u(const char *s, size_t len, size_t i, size_t *used)
{
	long cp = read_hex4(s + i + 2, len - i - 2), lo;

	if (cp < 0)
		return -1;
	if (cp < 0xd800 || cp > 0xdfff) {
		*used = 6;
		return cp;
	}
	if (cp > 0xdbff || i + 7 >= len || s[i + 6] != '\\' ||
	    s[i + 7] != 'u')
		return -1;
	lo = read_hex4(s + i + 8, len - i - 8);
	if (lo < 0xdc00 || lo > 0xdfff)
		return -1;
	*used = 12;
	return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
}

/* Undoes escape=json; an escape that is not valid JSON stays as written.
 * Returns the length written; dst holds at least len bytes, as no escape
 * grows when decoded. */
size_t
nginx_unescape_json(char *dst, const char *s, size_t len)
{
	size_t o = 0, i = 0;

	while (i < len) {
		const char *bs = memchr(s + i, '\\', len - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : len - i, used = 2;
		long cp = -1;

		memcpy(dst + o, s + i, run);
		o += run;
		i += run;
		if (i == len)
			break;
		if (i + 1 < len) {
			switch (s[i + 1]) {
			case '"': case '\\': case '/': cp = s[i + 1]; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u': cp = read_json_u(s, len, i, &used); break;
			default: break;
			}
		}
		if (cp < 0) {
			dst[o++] = s[i++];
		} else {
			o += utf8_put(dst + o, cp);
			i += used;
		}
	}
	return o;
}
