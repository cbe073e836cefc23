/*
 * nginx: the built-in UDTF for nginx access logs.  init() compiles the
 * log_format once into a program, a literal prefix and then one step per
 * variable: the variable and the literal text that follows it.  process()
 * runs that program over a line: each value ends where the next literal
 * begins, and becomes one typed column (nginx_convert_value(), in
 * nginx_int.h, with nginx_value.c).  One line gives one row.  This file
 * holds the log_format compiler, the line scan and the descriptor.
 */
#include "agent/udtf/udtf.h"

#include "agent/udtf/nginx_int.h"
#include "agent/udtf/params.h"
#include "agent/udtf/timeparse.h"
#include "lib/buf.h"
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define NGINX_COMBINED "$remote_addr - $remote_user [$time_local] " \
	"\"$request\" $status $body_bytes_sent \"$http_referer\" " \
	"\"$http_user_agent\""

static const struct {
	const char *name;
	enum nginx_kind kind;
} nginx_typed_vars[] = {
	{ "status", NGINX_INT },
	{ "body_bytes_sent", NGINX_INT },
	{ "bytes_sent", NGINX_INT },
	{ "request_length", NGINX_INT },
	{ "connection", NGINX_INT },
	{ "connection_requests", NGINX_INT },
	{ "remote_port", NGINX_INT },
	{ "server_port", NGINX_INT },
	{ "pid", NGINX_INT },
	{ "request_time", NGINX_DOUBLE },
	{ "time_local", NGINX_TIME_LOCAL },
	{ "time_iso8601", NGINX_TIME_ISO8601 },
	{ "msec", NGINX_MSEC },
};

enum {
	NGINX_KEY_LOG_FORMAT,
	NGINX_KEY_ESCAPE,
	NGINX_NKEYS
};

static const struct udtf_key nginx_keys[] = {
	[NGINX_KEY_LOG_FORMAT] = { "log_format", NGINX_COMBINED,
	    "the nginx log_format the lines were written with; one column per "
	    "variable.  Its \"[\" and '\"' pair up and its variables are "
	    "nginx's ($http_NAME and the other families too), or else a name "
	    "of your own (map, set), which is noted; one a typo away from one "
	    "of nginx's is refused unless written ${name}" },
	[NGINX_KEY_ESCAPE] = { "escape", "default",
	    "how nginx escaped the values, as in log_format escape=: default, "
	    "json or none" },
	[NGINX_NKEYS] = { NULL, NULL, NULL },
};

static void nginx_fini(void *state);

/* Compiling the log_format. */

static enum nginx_kind
kind_of(const char *var, size_t varlen)
{
	for (size_t i = 0; i < sizeof nginx_typed_vars /
	    sizeof nginx_typed_vars[0]; i++)
		if (strlen(nginx_typed_vars[i].name) == varlen &&
		    memcmp(nginx_typed_vars[i].name, var, varlen) == 0)
			return nginx_typed_vars[i].kind;
	return NGINX_STRING;
}

static enum udtf_type
type_of(enum nginx_kind kind)
{
	switch (kind) {
	case NGINX_INT:
		return UDTF_INT64;
	case NGINX_DOUBLE:
		return UDTF_DOUBLE;
	case NGINX_TIME_LOCAL:
	case NGINX_TIME_ISO8601:
	case NGINX_MSEC:
		return UDTF_TIMESTAMP;
	default:
		return UDTF_STRING;
	}
}

/* Names field i's column: the variable's name, with "_2", "_3"... when the
 * same variable came before.  Returns 0 or -ENOMEM. */
static int
name_column(struct nginx_state *st, size_t i)
{
	const struct nginx_field *f = &st->fields[i];
	size_t seen = 1, size;
	char *name;

	for (size_t j = 0; j < i; j++)
		if (st->fields[j].varlen == f->varlen &&
		    memcmp(st->fields[j].var, f->var, f->varlen) == 0)
			seen++;
	size = f->varlen + 24;
	if ((name = malloc(size)) == NULL)
		return -ENOMEM;
	if (seen == 1)
		snprintf(name, size, "%.*s", (int)f->varlen, f->var);
	else
		snprintf(name, size, "%.*s_%zu", (int)f->varlen, f->var, seen);
	st->cols[i].name = name;
	st->cols[i].type = type_of(f->kind);
	return 0;
}

/* Reads the variable at format[at] (a '$'): sets *var, *varlen and *next,
 * the offset just past it.  Returns 0 or -EINVAL with a sentence in err. */
static int
read_variable(const char *format, size_t at, const char **var, size_t *varlen,
    size_t *next, char *err, size_t errlen)
{
	size_t start = at + 1, end;
	int braced = format[start] == '{';

	if (braced)
		start++;
	for (end = start; nginx_is_name_char(format[end]); end++)
		;
	if (braced && format[end] != '}') {
		return err_set(err, errlen, -EINVAL,
		    "log_format: the \"${\" at offset %zu is "
		    "not closed by \"}\" after a variable name", at);
	}
	if (end == start) {
		return err_set(err, errlen, -EINVAL,
		    "log_format: the \"$\" at offset %zu has "
		    "an empty variable name", at);
	}
	*var = format + start;
	*varlen = end - start;
	*next = braced ? end + 1 : end;
	return 0;
}

/* Whether the end of field f's values can be found without a scan. */
static enum nginx_quick
quick_of(const struct nginx_field *f)
{
	/* the bytes a $time_local that parses may hold */
	static const char time_bytes[] = "0123456789/: +-"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

	if (f->litlen == 0)
		return NGINX_QUICK_NONE;
	if (f->kind == NGINX_INT && !nginx_is_digit(f->lit[0]))
		return NGINX_QUICK_DIGITS;
	if (f->kind == NGINX_TIME_LOCAL && f->lit[0] != '\\' &&
	    memchr(time_bytes, f->lit[0], sizeof(time_bytes)) == NULL)
		return NGINX_QUICK_TIME_LOCAL;
	return NGINX_QUICK_NONE;
}

/* Fills st->prefix and st->fields from st->format.  Returns 0 or -EINVAL
 * with a sentence in err. */
static int
compile_format(struct nginx_state *st, char *err, size_t errlen)
{
	const char *format = st->format;
	size_t at = 0, lit = 0;

	while (format[at] != '\0') {
		struct nginx_field *f = &st->fields[st->nfields];
		size_t next;

		if (format[at] != '$') {
			at++;
			continue;
		}
		if (read_variable(format, at, &f->var, &f->varlen, &next, err,
		    errlen) < 0)
			return -EINVAL;
		if (st->nfields == 0) {
			st->prefix = format + lit;
			st->prefixlen = at - lit;
		} else if (at == lit) {
			return err_set(err, errlen, -EINVAL,
			    "log_format: $%.*s and $%.*s have "
			    "no text between them, so a line cannot be split",
			    (int)f[-1].varlen, f[-1].var, (int)f->varlen, f->var);
		} else {
			f[-1].lit = format + lit;
			f[-1].litlen = at - lit;
		}
		f->kind = kind_of(f->var, f->varlen);
		st->nfields++;
		at = lit = next;
	}
	if (st->nfields == 0) {
		return err_set(err, errlen, -EINVAL,
		    "log_format has no variable, so there is "
		    "nothing to parse");
	}
	st->fields[st->nfields - 1].lit = format + lit;
	st->fields[st->nfields - 1].litlen = at - lit;
	for (size_t i = 0; i < st->nfields; i++) {
		struct nginx_field *f = &st->fields[i];
		size_t n = f->litlen > 9 ? 8 : f->litlen > 0 ? f->litlen - 1 : 0;

		if (f->litlen > 0)
			memset(f->first, f->lit[0], 16);
		f->quick = quick_of(f);
		memcpy(&f->rest, f->lit + (f->litlen > 0), n);
		memset(&f->rest_mask, 0xff, n);
	}
	return 0;
}

/* Names the columns; refuses a format whose names collide ("$a $a $a_2").
 * Returns 0, -ENOMEM or -EINVAL with a sentence in err. */
static int
name_columns(struct nginx_state *st, char *err, size_t errlen)
{
	for (size_t i = 0; i < st->nfields; i++) {
		if (name_column(st, i) < 0)
			return err_set(err, errlen, -ENOMEM, "out of memory");
		for (size_t j = 0; j < i; j++) {
			if (strcmp(st->cols[i].name, st->cols[j].name) == 0) {
				return err_set(err, errlen, -EINVAL,
				    "log_format gives two "
				    "columns the name %s", st->cols[i].name);
			}
		}
	}
	return 0;
}

static void *
nginx_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	/* in the order of enum nginx_escape */
	static const char *const escapes[] = { "default", "json", "none",
	    NULL };
	const char *vals[NGINX_NKEYS], *format;
	struct nginx_state *st = NULL;
	size_t maxfields = 0;
	int escape;

	if (udtf_params_read("nginx", nginx_keys, params, nparams, vals, err,
	    errlen) < 0 ||
	    udtf_params_choice("escape", vals[NGINX_KEY_ESCAPE], escapes,
	    &escape, err, errlen) < 0)
		return NULL;
	format = vals[NGINX_KEY_LOG_FORMAT];
	for (const char *p = format; *p != '\0'; p++)
		maxfields += *p == '$';
	if ((st = calloc(1, sizeof *st)) == NULL ||
	    (st->format = strdup(format)) == NULL ||
	    (st->fields = calloc(maxfields + 1, sizeof *st->fields)) == NULL ||
	    (st->cols = calloc(maxfields + 1, sizeof *st->cols)) == NULL ||
	    (st->values = calloc(maxfields + 1, sizeof *st->values)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	st->escape = (enum nginx_escape)escape;
	if (compile_format(st, err, errlen) < 0 ||
	    name_columns(st, err, errlen) < 0 ||
	    nginx_lint(format, st->note, sizeof(st->note), err, errlen) < 0)
		goto fail;
	return st;
fail:
	nginx_fini(st);
	return NULL;
}

static void
nginx_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct nginx_state *st = state;

	*cols = st->cols;
	*ncols = st->nfields;
}

static const char *
nginx_note(void *state)
{
	struct nginx_state *st = state;

	return st->note[0] != '\0' ? st->note : NULL;
}

static void
nginx_fini(void *state)
{
	struct nginx_state *st = state;

	if (st == NULL)
		return;
	for (size_t i = 0; i < st->nfields; i++)
		free((char *)st->cols[i].name);
	free(st->cols);
	free(st->values);
	free(st->fields);
	free(st->format);
	buf_clear(&st->scratch);
	free(st);
}

/* Parsing a line. */

/* Returns the first byte in [p, end) that is a or b, or end; sixteen bytes
 * a step with SSE2 (always there on x86-64), never reading past end, nor
 * before base, where the line begins: the last step reads the sixteen
 * bytes before end and ignores those before p.  a16 holds a sixteen
 * times. */
static const char *
scan2(const char *base, const char *p, const char *end, const char *a16,
    char b)
{
	const char a = a16[0];
#if defined(__SSE2__)
	const __m128i va = _mm_loadu_si128((const __m128i *)(const void *)a16),
	    vb = _mm_set1_epi8(b);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)));

		if (m != 0)
			return p + __builtin_ctz(m);
		p += 16;
	}
	if (p < end && end - base >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)
		    (end - 16));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb))) >>
		    (16 - (end - p));

		return m != 0 ? p + __builtin_ctz(m) : end;
	}
#else
	(void)base;
#endif
	for (; p < end; p++)
		if (*p == a || *p == b)
			return p;
	return end;
}

static int
same_bytes(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Whether the literal of f goes on at s, its first byte just before s:
 * when eight bytes can be read from s, its next (up to) eight bytes
 * compare as one word, without a loop.  Inlined into both callers, as
 * GCC leaves it out of one. */
static inline __attribute__((always_inline)) int
same_rest(const struct nginx_field *f, const char *s, const char *end)
{
	uint64_t w;

	if (end - s < 8)
		return same_bytes(s, f->lit + 1, f->litlen - 1);
	memcpy(&w, s, 8);
	return (w & f->rest_mask) == f->rest && (f->litlen <= 9 ||
	    same_bytes(s + 8, f->lit + 9, f->litlen - 9));
}

/* Finds where field f's literal begins in [p, end), in one scan that also
 * sees whether the value holds a backslash (*escaped).  With escape=json
 * the byte after a backslash belongs to an escape (\" above all) and cannot
 * begin a literal.  Returns the literal, or NULL with *mismatch set when the
 * literal's first byte was seen with other text after it, left alone when
 * the line simply ran out.  The line begins at base. */
static const char *
find_literal(const struct nginx_state *st, const struct nginx_field *f,
    const char *base, const char *p, const char *end, int *mismatch,
    int *escaped)
{
	const char *from = p, *last, *at;

	if ((size_t)(end - p) < f->litlen)
		return NULL;
	last = end - f->litlen;  /* the last place the literal can begin */
	while ((at = scan2(base, from, last + 1, f->first, '\\')) <= last) {
		from = at + 1;
		if (*at == '\\') {
			*escaped = 1;
			if (f->lit[0] != '\\') {
				if (st->escape == NGINX_ESCAPE_JSON && from <= last)
					from++;
				continue;
			}
		}
		if (same_rest(f, at + 1, end))
			return at;
		*mismatch = 1;
	}
	return NULL;
}

/* Returns where field i's value, from p on, ends when it is one that
 * quick_of() allowed for, its literal following there, after converting
 * it into st->values[i]; NULL when it is not, and find_literal() and
 * nginx_convert_value() must look.  Eighteen digits or fewer cannot
 * overflow. */
static const char *
quick_end(struct nginx_state *st, size_t i, const char *p, const char *end)
{
	const struct nginx_field *f = &st->fields[i];
	struct udtf_value *out = &st->values[i];
	uint64_t v = 0;
	size_t n = 0;

	if (f->quick == NGINX_QUICK_NONE)
		return NULL;
	if (f->quick == NGINX_QUICK_DIGITS) {
		for (; p + n < end && nginx_is_digit(p[n]); n++)
			v = v * 10 + (uint64_t)(p[n] - '0');
		if (n == 0 || n > 18)
			return NULL;
	} else {
		n = TIMEPARSE_LOCAL_LEN;
	}
	if ((size_t)(end - p) < n + f->litlen || p[n] != f->lit[0] ||
	    !same_rest(f, p + n + 1, end))
		return NULL;
	if (f->quick == NGINX_QUICK_DIGITS) {
		out->type = UDTF_INT64;
		out->u.i64 = (int64_t)v;
	} else if (timeparse_local_cached(&st->fields[i].time_cache, p, n,
	    &out->u.ts_us) == 0) {
		out->type = UDTF_TIMESTAMP;
	} else {
		return NULL; /* not a time, so perhaps not its end */
	}
	return p + n;
}

static int
reject_line(const char *why, char *err, size_t errlen)
{
	return err_set(err, errlen, -EINVAL, "%s", why);
}

static int
reject_literal(const struct nginx_state *st, size_t i, int mismatch,
    char *err, size_t errlen)
{
	char quoted[QUOTED_SIZE];

	if (!mismatch) {
		snprintf(err, errlen, "line ends inside $%s", st->cols[i].name);
	} else {
		nginx_quote(quoted, st->fields[i].lit, st->fields[i].litlen);
		snprintf(err, errlen, "expected %s after $%s", quoted,
		    st->cols[i].name);
	}
	return -EINVAL;
}

static int
nginx_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct nginx_state *st = state;
	const char *p = rec->data, *end = rec->data + rec->len;
	int r;

	if (end > p && end[-1] == '\n') {
		end--;
		if (end > p && end[-1] == '\r')
			end--;
	}
	if (p == end)
		return reject_line("empty record", err, errlen);
	if ((size_t)(end - p) < st->prefixlen ||
	    !same_bytes(p, st->prefix, st->prefixlen)) {
		char quoted[QUOTED_SIZE];

		nginx_quote(quoted, st->prefix, st->prefixlen);
		return err_set(err, errlen, -EINVAL,
		    "line does not start with %s", quoted);
	}
	p += st->prefixlen;
	buf_reset(&st->scratch);
	for (size_t i = 0; i < st->nfields; i++) {
		const struct nginx_field *f = &st->fields[i];
		const char *value = p, *at = quick_end(st, i, p, end);
		int mismatch = 0, escaped = f->litlen > 0 ? 0 : -1;

		if (at != NULL) {
			p = at + f->litlen; /* converted */
			continue;
		}
		if (f->litlen > 0 && (at = find_literal(st, f, rec->data, p,
		    end, &mismatch, &escaped)) == NULL)
			return reject_literal(st, i, mismatch, err, errlen);
		if (at == NULL)
			at = end;
		p = at + f->litlen;
		if ((r = nginx_convert_value(st, i, value, (size_t)(at - value),
		    (size_t)(end - value), escaped, err, errlen)) < 0)
			return r;
	}
	if (p != end)
		return reject_line("trailing text after the log format", err,
		    errlen);
	r = out->emit(out, st->values, st->nfields);
	return r < 0 ? r : 0;
}

/* The descriptor registry.c lists among the built-ins. */
const struct udtf_plugin udtf_nginx_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "nginx",
	.description = "nginx access log lines: one row per line, one column "
	    "per log_format variable",
	.keys = nginx_keys,
	.init = nginx_init,
	.columns = nginx_columns,
	.process = nginx_process,
	.fini = nginx_fini,
	.note = nginx_note,
};
