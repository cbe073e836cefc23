#include "agent/write/format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/parquet/rowlog.h"
#include "lib/utf8.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Room for any "%.17g" double and any int64 in decimal. */
#define FORMAT_NUM_MAX 32

static const struct {
	const char *name;
	const char *ext;
	enum format_kind kind;
} format_kinds[] = {
	{ "hive-text", "txt", FORMAT_HIVE_TEXT },
	{ "jsonl", "jsonl", FORMAT_JSONL },
	{ "parquet", "parquet", FORMAT_PARQUET },
};

#define FORMAT_NKINDS (sizeof(format_kinds) / sizeof(format_kinds[0]))

/* buf_append() without the call when the room is there, as it mostly is:
 * a row makes a dozen small appends.  An empty string may come as NULL,
 * and an empty buffer has no data: memcpy() must see neither. */
static inline int
format_put(struct buf *out, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (out->cap - out->len < n)
		return buf_append(out, p, n);
	memcpy(out->data + out->len, p, n);
	out->len += n;
	return 0;
}

static int
format_puts(struct buf *out, const char *s)
{
	return format_put(out, s, strlen(s));
}

/* Eight bytes at a time: FORMAT_SWAR_HAS(x, c) is nonzero when a byte of
 * x equals c, FORMAT_SWAR_BELOW(x, c) when a byte is below c (c <= 0x80). */
#define FORMAT_ONES UINT64_C(0x0101010101010101)
#define FORMAT_HIGHS UINT64_C(0x8080808080808080)
#define FORMAT_SWAR_BELOW(x, c) \
	(((x) - FORMAT_ONES * (c)) & ~(x) & FORMAT_HIGHS)
#define FORMAT_SWAR_HAS(x, c) FORMAT_SWAR_BELOW((x) ^ (FORMAT_ONES * (c)), 1)

/* Writes u in decimal with a point before its last `decimals` digits. */
static size_t
format_fixed(int neg, uint64_t u, size_t decimals, char *p)
{
	char tmp[FORMAT_NUM_MAX];
	size_t n = sizeof(tmp), digits = 0;

	do {
		if (digits++ == decimals && decimals > 0)
			tmp[--n] = '.';
		tmp[--n] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0 || digits <= decimals);
	if (neg)
		tmp[--n] = '-';
	memcpy(p, tmp + n, sizeof(tmp) - n);
	return sizeof(tmp) - n;
}

/* The common doubles (0.123, 12.5, 200) quickly: when d is the double
 * nearest to m / 10^k for some k <= 6 and m < 10^15, "%.15g" would print
 * exactly m / 10^k in fixed notation, and it reads back as d (the division
 * of two exact doubles rounds as strtod does).  Returns the length, or 0
 * when d is not such a double. */
static size_t
format_double_short(double d, char *p)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
	double a = d < 0 ? -d : d, scaled;
	uint64_t m;

	/* Below 1e-4, and from 1e15 on (scaled), "%g" writes an exponent. */
	if (!(a >= 1e-4))
		return 0;
	for (size_t k = 0; k < sizeof(pow10) / sizeof(pow10[0]); k++) {
		if ((scaled = a * pow10[k]) >= 1e15)
			return 0;
		m = (uint64_t)(scaled + 0.5);
		if ((double)m / pow10[k] == a)
			return format_fixed(d < 0, m, k, p);
	}
	return 0;
}

/* Writes a finite d to p in the fewest significant digits that read back
 * as the same double; returns the length. */
static size_t
format_double(double d, char *p)
{
	size_t n;
	int len = 0;

	if ((n = format_double_short(d, p)) > 0)
		return n;
	for (int prec = 15; prec <= 17; prec++) {
		len = snprintf(p, FORMAT_NUM_MAX, "%.*g", prec, d);
		if (strtod(p, NULL) == d)
			break;
	}
	return (size_t)len;
}

/* Two digits a step, straight into out: a row has a few integers, and a
 * division and a copy for each digit showed. */
int
format_int64(int64_t i, struct buf *out)
{
	static const char pairs[] =
	    "00010203040506070809101112131415161718192021222324"
	    "25262728293031323334353637383940414243444546474849"
	    "50515253545556575859606162636465666768697071727374"
	    "75767778798081828384858687888990919293949596979899";
	uint64_t u = i < 0 ? -(uint64_t)i : (uint64_t)i, t;
	size_t n = 1 + (i < 0);
	char *p;
	int r;

	for (t = u; t >= 10; t /= 10)
		n++;
	if (out->cap - out->len < n && (r = buf_reserve(out, n)) < 0)
		return r;
	p = out->data + out->len + n;
	out->len += n;
	for (; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, pairs + u % 100 * 2, 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + u * 2, 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (i < 0)
		*--p = '-';
	return 0;
}

static int
format_number(const struct udtf_value *v, struct buf *out)
{
	char num[FORMAT_NUM_MAX];

	if (v->type == UDTF_INT64)
		return format_int64(v->u.i64, out);
	return format_put(out, num, format_double(v->u.d, num));
}

/* The bits of x's bytes that are delim, '\\', '\n' or '\r'; its lowest set
 * bit is exact (the borrows of the test only reach bytes above a hit), so
 * on a little-endian machine it says where the first such byte is. */
static inline uint64_t
format_hive_word(uint64_t x, unsigned char delim)
{
	return FORMAT_SWAR_HAS(x, delim) | FORMAT_SWAR_HAS(x, '\\') |
	    FORMAT_SWAR_HAS(x, '\n') | FORMAT_SWAR_HAS(x, '\r');
}

#if defined(__SSE2__)
/* One bit for each of the sixteen bytes at s that needs an escape. */
static inline unsigned
format_hive_mask16(const char *s, __m128i vd)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_or_si128(_mm_cmpeq_epi8(v, vd),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')))));
}
#endif

/* Returns how many bytes from s on need no hive-text escape: sixteen bytes
 * a step with SSE2 (always there on x86-64), then eight, never reading
 * outside s: a string's last step reads its last sixteen (or eight) bytes
 * and ignores those already looked at. */
static size_t
format_hive_span(const char *s, size_t len, unsigned char delim)
{
	size_t i = 0;
	uint64_t x, hit;

#if defined(__SSE2__)
	if (len >= 16) {
		const __m128i vd = _mm_set1_epi8((char)delim);
		unsigned m;

		for (; len - i >= 16; i += 16)
			if ((m = format_hive_mask16(s + i, vd)) != 0)
				return i + (size_t)__builtin_ctz(m);
		if (i == len)
			return len;
		m = format_hive_mask16(s + len - 16, vd) >> (16 - (len - i));
		return m != 0 ? i + (size_t)__builtin_ctz(m) : len;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (len >= 8) {
		for (; len - i >= 8; i += 8) {
			memcpy(&x, s + i, 8);
			if ((hit = format_hive_word(x, delim)) != 0)
				return i + (size_t)(__builtin_ctzll(hit) >> 3);
		}
		if (i == len)
			return len;
		memcpy(&x, s + len - 8, 8);
		hit = format_hive_word(x, delim) >> (8 * (8 - (len - i)));
		return hit != 0 ? i + (size_t)(__builtin_ctzll(hit) >> 3) : len;
	}
#endif
	for (; i + 8 <= len; i += 8) {
		memcpy(&x, s + i, 8);
		if ((hit = format_hive_word(x, delim)) != 0)
			break;
	}
	for (; i < len; i++)
		if (s[i] == (char)delim || s[i] == '\\' || s[i] == '\n' ||
		    s[i] == '\r')
			break;
	return i;
}

int
format_hive_escape(const char *s, size_t len, char delim, struct buf *out)
{
	char esc[2] = { '\\', 0 };
	size_t n;
	int r;

	for (;;) {
		n = format_hive_span(s, len, (unsigned char)delim);
		if ((r = format_put(out, s, n)) < 0 || n == len)
			return r;
		esc[1] = s[n] == '\n' ? 'n' : s[n] == '\r' ? 'r' : s[n];
		if ((r = format_put(out, esc, 2)) < 0)
			return r;
		s += n + 1;
		len -= n + 1;
	}
}

static int
format_hive_value(const struct format *f, const struct udtf_value *v,
    struct buf *out)
{
	char ts[TZ_TEXT_MAX];
	int n;

	switch (v->type) {
	case UDTF_STRING:
		return format_hive_escape(v->u.s.ptr, v->u.s.len, f->delim,
		    out);
	case UDTF_INT64:
		return format_number(v, out);
	case UDTF_DOUBLE:
		if (isnan(v->u.d))
			return format_puts(out, "NaN");
		if (isinf(v->u.d))
			return format_puts(out, v->u.d > 0 ? "Infinity" :
			    "-Infinity");
		return format_number(v, out);
	case UDTF_BOOL:
		return format_puts(out, v->u.b ? "true" : "false");
	case UDTF_TIMESTAMP:
		/* An instant tz cannot render (before 1970, after 9999)
		 * reads as NULL, as Hive reads any timestamp it cannot
		 * parse. */
		if ((n = tz_format(f->tz, v->u.ts_us, 0, ts)) >= 0)
			return format_put(out, ts, (size_t)n);
		break;
	case UDTF_NULL:
		break;
	}
	return format_put(out, "\\N", 2);
}

/* With ends set, notes where each value's text ends, from the row's
 * start. */
static int
format_hive_row(const struct format *f, const struct udtf_value *vals,
    size_t n, struct buf *out, size_t *ends)
{
	size_t start = out->len;
	int r;

	for (size_t i = 0; i < n; i++) {
		if (i > 0 && (r = format_put(out, &f->delim, 1)) < 0)
			return r;
		if ((r = format_hive_value(f, &vals[i], out)) < 0)
			return r;
		if (ends != NULL)
			ends[i] = out->len - start;
	}
	return format_put(out, "\n", 1);
}

int
format_hive_row_ends(const struct format *f, const struct udtf_value *vals,
    size_t n, struct buf *out, size_t *ends)
{
	size_t start = out->len;
	int r;

	if ((r = format_hive_row(f, vals, n, out, ends)) < 0)
		out->len = start;
	return r;
}

/* Writes the JSON escape of byte c to e; returns its length. */
static size_t
format_json_escape_byte(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	e[0] = '\\';
	switch (c) {
	case '"': e[1] = '"'; return 2;
	case '\\': e[1] = '\\'; return 2;
	case '\b': e[1] = 'b'; return 2;
	case '\f': e[1] = 'f'; return 2;
	case '\n': e[1] = 'n'; return 2;
	case '\r': e[1] = 'r'; return 2;
	case '\t': e[1] = 't'; return 2;
	}
	memcpy(e + 1, "u00", 3);
	e[4] = hex[c >> 4];
	e[5] = hex[c & 0xf];
	return 6;
}

/* Returns how many bytes from p on are printable ASCII other than '"' and
 * '\\', the bytes that go into a JSON string as they are. */
static size_t
format_json_span(const unsigned char *p, size_t len)
{
	size_t i = 0;
	uint64_t x;

	for (; i + 8 <= len; i += 8) {
		memcpy(&x, p + i, 8);
		if ((x & FORMAT_HIGHS) | FORMAT_SWAR_BELOW(x, 0x20) |
		    FORMAT_SWAR_HAS(x, '"') | FORMAT_SWAR_HAS(x, '\\'))
			break;
	}
	for (; i < len; i++)
		if (p[i] < 0x20 || p[i] >= 0x80 || p[i] == '"' || p[i] == '\\')
			break;
	return i;
}

int
format_json_string(const char *s, size_t len, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t run = 0, i = 0, seq;
	char esc[6];
	int r;

	if ((r = format_put(out, "\"", 1)) < 0)
		return r;
	while (i < len && (i += format_json_span(p + i, len - i)) < len) {
		if (p[i] >= 0x80 &&
		    (seq = utf8_seq_len(p + i, len - i)) > 0) {
			i += seq;
			continue;
		}
		if ((r = format_put(out, s + run, i - run)) < 0 ||
		    (r = format_put(out, esc,
		    format_json_escape_byte(p[i], esc))) < 0)
			return r;
		run = ++i;
	}
	if ((r = format_put(out, s + run, len - run)) < 0)
		return r;
	return format_put(out, "\"", 1);
}

static int
format_json_value(const struct format *f, const struct udtf_value *v,
    struct buf *out)
{
	char ts[TZ_TEXT_MAX];
	int n;

	switch (v->type) {
	case UDTF_STRING:
		return format_json_string(v->u.s.ptr, v->u.s.len, out);
	case UDTF_INT64:
		return format_number(v, out);
	case UDTF_DOUBLE:
		if (isfinite(v->u.d))
			return format_number(v, out);
		break;
	case UDTF_BOOL:
		return format_puts(out, v->u.b ? "true" : "false");
	case UDTF_TIMESTAMP:
		if ((n = tz_format(f->tz, v->u.ts_us, 1, ts)) >= 0)
			return format_json_string(ts, (size_t)n, out);
		break;
	case UDTF_NULL:
		break;
	}
	return format_put(out, "null", 4);
}

static int
format_json_row(const struct format *f, const struct udtf_column *cols,
    const struct udtf_value *vals, size_t n, struct buf *out)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		if ((r = format_put(out, i == 0 ? "{" : ",", 1)) < 0 ||
		    (r = format_json_string(cols[i].name, strlen(cols[i].name),
		    out)) < 0 ||
		    (r = format_put(out, ":", 1)) < 0 ||
		    (r = format_json_value(f, &vals[i], out)) < 0)
			return r;
	}
	return format_put(out, n == 0 ? "{}\n" : "}\n", n == 0 ? 3 : 2);
}

int
format_row(const struct format *f, const struct udtf_column *cols,
    const struct udtf_value *vals, size_t n, struct buf *out)
{
	size_t start = out->len;
	int r;

	if (f->kind == FORMAT_JSONL)
		r = format_json_row(f, cols, vals, n, out);
	else if (f->kind == FORMAT_PARQUET)
		r = rowlog_row(cols, vals, n, out);
	else
		r = format_hive_row(f, vals, n, out, NULL);
	/* Leave no half row behind. */
	if (r < 0)
		out->len = start;
	return r < 0 ? r : 0;
}

int
format_kind_parse(const char *name, enum format_kind *out)
{
	for (size_t i = 0; i < FORMAT_NKINDS; i++) {
		if (strcmp(name, format_kinds[i].name) == 0) {
			*out = format_kinds[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
format_kind_ext(enum format_kind kind)
{
	for (size_t i = 0; i < FORMAT_NKINDS; i++)
		if (format_kinds[i].kind == kind)
			return format_kinds[i].ext;
	return "";
}

const char *
format_codec_ext(enum format_kind kind, enum codec_kind codec)
{
	return kind == FORMAT_PARQUET ? "" : codec_kind_ext(codec);
}

const char *
format_kind_name(enum format_kind kind)
{
	for (size_t i = 0; i < FORMAT_NKINDS; i++)
		if (format_kinds[i].kind == kind)
			return format_kinds[i].name;
	return "";
}
