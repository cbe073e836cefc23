#include "agent/write/fingerprint.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xxhash.h>

#include "agent/write/format.h"
#include "lib/utf8.h"

/* Java's Double.toHexString(d) for a finite d. */
static int
fingerprint_hex_double(double d, struct buf *out)
{
	uint64_t bits, frac;
	int exp, digits = 13;
	char text[40];
	int n;

	memcpy(&bits, &d, sizeof(bits));
	frac = bits & ((UINT64_C(1) << 52) - 1);
	exp = (int)(bits >> 52 & 0x7ff);
	/* the fraction's trailing zero digits go, one digit stays */
	while (digits > 1 && (frac & 0xf) == 0) {
		frac >>= 4;
		digits--;
	}
	if (exp == 0 && frac == 0)
		n = snprintf(text, sizeof(text), "%s0x0.0p0", bits >> 63 ?
		    "-" : "");
	else
		n = snprintf(text, sizeof(text), "%s0x%d.%0*" PRIx64 "p%d",
		    bits >> 63 ? "-" : "", exp != 0, digits, frac,
		    exp != 0 ? exp - 1023 : -1022);
	return buf_append(out, text, (size_t)n);
}

int
fingerprint_double(double d, struct buf *out)
{
	if (isnan(d))
		return buf_append(out, "NaN", 3);
	if (isinf(d))
		return d > 0 ? buf_append(out, "Infinity", 8) :
		    buf_append(out, "-Infinity", 9);
	return fingerprint_hex_double(d, out);
}

/* Appends s[0..len) with every byte that is not part of valid UTF-8 as
 * the UTF-8 of U+0080..U+00FF, then escaped; utf8 says s is known to be
 * valid UTF-8. */
static int
fingerprint_string(const char *s, size_t len, int utf8, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf fixed = { 0 };
	size_t i = 0, seq;
	char two[4];
	int r = 0;

	if (utf8 || utf8_fixed_len(p, len) == len)
		return format_hive_escape(s, len, FINGERPRINT_SEP, out);
	while (i < len && r == 0) {
		if (p[i] < 0x80) {
			r = buf_append(&fixed, s + i++, 1);
		} else if ((seq = utf8_seq_len(p + i, len - i)) > 0) {
			r = buf_append(&fixed, s + i, seq);
			i += seq;
		} else {
			r = buf_append(&fixed, two, utf8_put(two, p[i++]));
		}
	}
	if (r == 0)
		r = format_hive_escape(fixed.data, fixed.len, FINGERPRINT_SEP,
		    out);
	buf_clear(&fixed);
	return r;
}

/* "yyyy-MM-dd HH:mm:ss.SSSSSS" in tz's local time, or \N. */
static int
fingerprint_time(struct tz *tz, int64_t ts_us, struct buf *out)
{
	static const char zeros[] = ".000000";
	char text[TZ_TEXT_MAX];
	int n = tz_format(tz, ts_us, 0, text);

	if (n < 0)
		return buf_append(out, "\\N", 2);
	/* tz_format() leaves out a fraction of zeros and writes
	 * milliseconds as three digits */
	if (n == 19)
		return buf_append(out, text, 19) < 0 ? -ENOMEM :
		    buf_append(out, zeros, 7);
	if (buf_append(out, text, (size_t)n) < 0)
		return -ENOMEM;
	return n == 23 ? buf_append(out, zeros + 4, 3) : 0;
}

static int
fingerprint_value(struct tz *tz, const struct udtf_value *v, int utf8,
    struct buf *out)
{
	switch (v->type) {
	case UDTF_STRING:
		return fingerprint_string(v->u.s.ptr, v->u.s.len, utf8, out);
	case UDTF_INT64:
		return format_int64(v->u.i64, out);
	case UDTF_DOUBLE:
		return fingerprint_double(v->u.d, out);
	case UDTF_BOOL:
		return v->u.b ? buf_append(out, "true", 4) :
		    buf_append(out, "false", 5);
	case UDTF_TIMESTAMP:
		return fingerprint_time(tz, v->u.ts_us, out);
	case UDTF_NULL:
		break;
	}
	return buf_append(out, "\\N", 2);
}

/* fingerprint_text(), or fingerprint_text_utf8() when utf8 is set. */
static int
fingerprint_text_of(struct tz *tz, const struct udtf_value *vals,
    const size_t *pick, size_t n, int utf8, struct buf *out)
{
	static const char sep = FINGERPRINT_SEP;
	int r;

	for (size_t i = 0; i < n; i++) {
		if (i > 0 && (r = buf_append(out, &sep, 1)) < 0)
			return r;
		if ((r = fingerprint_value(tz, &vals[pick ? pick[i] : i], utf8,
		    out)) < 0)
			return r;
	}
	return 0;
}

int
fingerprint_text(struct tz *tz, const struct udtf_value *vals,
    const size_t *pick, size_t n, struct buf *out)
{
	return fingerprint_text_of(tz, vals, pick, n, 0, out);
}

int
fingerprint_text_utf8(struct tz *tz, const struct udtf_value *vals, size_t n,
    struct buf *out)
{
	return fingerprint_text_of(tz, vals, NULL, n, 1, out);
}

/* Whether v's canonical text is not its hive-text (delimiter
 * FINGERPRINT_SEP) as it stands: a double's, and a string's that is not
 * valid UTF-8 (none is when its row is ASCII).  A timestamp's differs by
 * its fraction only. */
static int
fingerprint_hive_differs(const struct udtf_value *v, int ascii)
{
	return v->type == UDTF_DOUBLE || (v->type == UDTF_STRING && !ascii &&
	    utf8_fixed_len((const unsigned char *)v->u.s.ptr, v->u.s.len) !=
	    v->u.s.len);
}

int
fingerprint_text_hive(const struct udtf_value *vals, size_t n,
    const char *row, const size_t *ends, struct buf *out)
{
	static const char zeros[] = ".000000";
	size_t copied = 0, start = 0, len, end = n > 0 ? ends[n - 1] : 0;
	int ascii = utf8_ascii_span((const unsigned char *)row, end) == end;
	int r;

	/* row[0..copied) is in out: the values whose text is the same in
	 * both go over in runs */
	for (size_t i = 0; i < n; start = ends[i++] + 1) {
		const struct udtf_value *v = &vals[i];

		len = ends[i] - start;
		if (v->type == UDTF_TIMESTAMP && (len == 19 || len == 23)) {
			/* hive-text leaves out a fraction of zeros and
			 * writes milliseconds as three digits */
			if ((r = buf_append(out, row + copied,
			    ends[i] - copied)) < 0 ||
			    (r = buf_append(out, zeros + (len == 19 ? 0 : 4),
			    len == 19 ? 7 : 3)) < 0)
				return r;
			copied = ends[i];
		} else if (fingerprint_hive_differs(v, ascii)) {
			if ((r = buf_append(out, row + copied,
			    start - copied)) < 0 ||
			    (r = v->type == UDTF_DOUBLE ?
			    fingerprint_double(v->u.d, out) :
			    fingerprint_string(v->u.s.ptr, v->u.s.len, 0,
			    out)) < 0)
				return r;
			copied = ends[i];
		}
	}
	return buf_append(out, row + copied, end - copied);
}

uint64_t
fingerprint_hash(const void *text, size_t len)
{
	return XXH64(text, len, FINGERPRINT_SEED);
}

char *
fingerprint_format(uint64_t fp, char *buf)
{
	snprintf(buf, FINGERPRINT_HEX + 1, "%016" PRIx64, fp);
	return buf;
}

int
fingerprint_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (strlen(s) != FINGERPRINT_HEX ||
	    strspn(s, "0123456789abcdef") != FINGERPRINT_HEX)
		return -EINVAL;
	for (size_t i = 0; i < FINGERPRINT_HEX; i++)
		v = v << 4 | (uint64_t)utf8_hex_value(s[i]);
	*out = v;
	return 0;
}
