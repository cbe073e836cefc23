/*
 * regex: the built-in UDTF that matches a PCRE2 pattern against each record;
 * the pattern's named groups are the columns.  init() compiles the pattern
 * once, with the JIT when it can, and allocates the match data and the JIT
 * stack that every record reuses.  process() emits one row for the first
 * match, or one per match with match = "all"; a bad typed value in a later
 * match rejects the record after earlier rows went out, and kedge writes no
 * row of a rejected record.
 *
 * The pattern is compiled without PCRE2_UTF, so a record is a string of
 * bytes and any byte is fine; a pattern that opts in with (*UTF) rejects a
 * record that is not valid UTF-8, with PCRE2's reason and the byte.  The
 * record is matched as it is: $ also matches before a final newline.
 */
#include "agent/udtf/udtf.h"

#include "agent/udtf/coltype.h"
#include "agent/udtf/params.h"
#include "lib/err.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that make catastrophic backtracking reject the record instead of
 * hanging the table: calls of PCRE2's internal match function, nesting of
 * backtracking points, and memory of the interpreter and of the JIT. */
#define REGEX_MATCH_LIMIT 1000000
#define REGEX_DEPTH_LIMIT 100000
#define REGEX_HEAP_LIMIT_KIB (64 * 1024)
#define REGEX_JIT_STACK_MIN (32 * 1024)
#define REGEX_JIT_STACK_MAX (1024 * 1024)

/* A named group and the column it fills; a name that several groups share
 * (with (?J)) is one column, filled by the first of them that is set. */
struct regex_group {
	uint32_t number;
	const char *name; /* in the compiled pattern's name table */
	size_t col;
};

struct regex_state {
	pcre2_code *code;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jit_stack;
	pcre2_match_data *md;
	PCRE2_SIZE *ovector;      /* md's, fixed for its lifetime */
	struct regex_group *groups; /* by group number */
	size_t ngroups;
	struct udtf_column *cols; /* names in the name table */
	enum coltype_kind *kinds;
	struct udtf_value *values; /* one per column, refilled per match */
	size_t ncols;
	int all;                  /* match = "all" */
	int jit;                  /* the pattern is JIT-compiled */
	int utf;                  /* the pattern set (*UTF) */
	int crlf;                 /* CRLF is a newline: advance over it whole */
	char note[320];           /* why the JIT is not used; "" if it is */
};

enum {
	REGEX_PATTERN,
	REGEX_TYPES,
	REGEX_MATCH,
	REGEX_JIT,
	REGEX_NKEYS
};

static const struct udtf_key regex_keys[] = {
	[REGEX_PATTERN] = { "pattern", NULL,
	    "a PCRE2 pattern; each named group (?<name>...) is a column, in "
	    "the order of the groups; an unset group is NULL" },
	[REGEX_TYPES] = { "types", "",
	    "the group columns that are not strings, as NAME:TYPE, "
	    "comma-separated (\"status:int64, ts:timestamp\")" },
	[REGEX_MATCH] = { "match", "first",
	    "first: one row from the first match, a record without a match "
	    "is rejected; all: one row per match, none for no match" },
	[REGEX_JIT] = { "jit", "auto",
	    "auto: compile the pattern to machine code, or use the "
	    "interpreter (and say so in the log) when that is not possible; "
	    "off: always the interpreter" },
	[REGEX_NKEYS] = { NULL, NULL, NULL },
};

static void regex_fini(void *state);

static int
regex_group_cmp(const void *a, const void *b)
{
	const struct regex_group *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

/* Compiling the pattern. */

static int
regex_compile(struct regex_state *st, const char *pattern, char *err,
    size_t errlen)
{
	PCRE2_UCHAR msg[128];
	PCRE2_SIZE offset;
	uint32_t options, newline;
	int code;

	st->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0,
	    &code, &offset, NULL);
	if (st->code == NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		return err_set(err, errlen, -EINVAL,
		    "pattern: %s at offset %zu", (char *)msg,
		    (size_t)offset);
	}
	pcre2_pattern_info(st->code, PCRE2_INFO_ALLOPTIONS, &options);
	pcre2_pattern_info(st->code, PCRE2_INFO_NEWLINE, &newline);
	st->utf = (options & PCRE2_UTF) != 0;
	st->crlf = newline == PCRE2_NEWLINE_ANY ||
	    newline == PCRE2_NEWLINE_CRLF || newline == PCRE2_NEWLINE_ANYCRLF;
	return 0;
}

/* Compiles the pattern to machine code; when that fails, leaves st->jit 0
 * and says why in st->note. */
static void
regex_jit_compile(struct regex_state *st)
{
	PCRE2_UCHAR msg[128];
	const char *hint = "";
	uint32_t have_jit = 0;
	int r;

	pcre2_config(PCRE2_CONFIG_JIT, &have_jit);
	if (!have_jit) {
		snprintf((char *)msg, sizeof msg, "this libpcre2-8 was built "
		    "without it");
	} else if ((r = pcre2_jit_compile(st->code, PCRE2_JIT_COMPLETE)) ==
	    0) {
		st->jit = 1;
		return;
	} else {
		pcre2_get_error_message(r, msg, sizeof msg);
		if (r == PCRE2_ERROR_NOMEMORY)
			hint = ": is writable+executable memory forbidden, as "
			    "by systemd's MemoryDenyWriteExecute=yes?";
	}
	snprintf(st->note, sizeof st->note, "PCRE2 JIT unavailable (%s%s); "
	    "using the interpreter, about 2-7x slower", (char *)msg, hint);
}

/* Makes one column per distinct group name, in the order of the groups. */
static int
regex_columns_make(struct regex_state *st, char *err, size_t errlen)
{
	uint32_t count = 0, entry_size = 0;
	PCRE2_SPTR table = NULL;

	pcre2_pattern_info(st->code, PCRE2_INFO_NAMECOUNT, &count);
	if (count == 0) {
		return err_set(err, errlen, -EINVAL,
		    "pattern has no named group "
		    "(?<name>...); only named groups become columns");
	}
	pcre2_pattern_info(st->code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
	pcre2_pattern_info(st->code, PCRE2_INFO_NAMETABLE, &table);
	if ((st->groups = calloc(count, sizeof *st->groups)) == NULL ||
	    (st->cols = calloc(count, sizeof *st->cols)) == NULL ||
	    (st->kinds = calloc(count, sizeof *st->kinds)) == NULL ||
	    (st->values = calloc(count, sizeof *st->values)) == NULL) {
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	/* An entry is the group number, big-endian in two bytes, then the
	 * NUL-terminated name; the table is sorted by name. */
	for (uint32_t i = 0; i < count; i++) {
		PCRE2_SPTR e = table + (size_t)i * entry_size;

		st->groups[i].number = (uint32_t)e[0] << 8 | e[1];
		st->groups[i].name = (const char *)e + 2;
	}
	st->ngroups = count;
	qsort(st->groups, count, sizeof *st->groups, regex_group_cmp);
	for (size_t i = 0; i < count; i++) {
		struct regex_group *g = &st->groups[i];

		for (g->col = 0; g->col < st->ncols; g->col++)
			if (strcmp(st->cols[g->col].name, g->name) == 0)
				break;
		if (g->col == st->ncols) {
			st->cols[st->ncols].name = g->name;
			st->cols[st->ncols].type = UDTF_STRING;
			st->kinds[st->ncols++] = COLTYPE_STRING;
		}
	}
	return 0;
}

/* Applies the types key to the group columns. */
static int
regex_types_apply(struct regex_state *st, const char *types, char *err,
    size_t errlen)
{
	struct coltype_list list;
	int r;

	if (types[strspn(types, " \t")] == '\0')
		return 0;
	if ((r = coltype_parse("types", types, COLTYPE_NO_SOURCE, NULL, &list,
	    err, errlen)) == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; r == 0 && i < list.n; i++) {
		size_t c;

		for (c = 0; c < st->ncols; c++)
			if (strcmp(st->cols[c].name, list.v[i].source) == 0)
				break;
		if (c == st->ncols) {
			snprintf(err, errlen, "types: \"%s\" is not a named "
			    "group of pattern", list.v[i].source);
			r = -EINVAL;
			break;
		}
		st->kinds[c] = list.v[i].kind;
		st->cols[c].type = coltype_udtf_type(list.v[i].kind);
	}
	coltype_list_clear(&list);
	return r;
}

/* Allocates what every match reuses: the match data, the limits and, for
 * JIT code, the JIT stack. */
static int
regex_match_setup(struct regex_state *st, char *err, size_t errlen)
{
	if ((st->md = pcre2_match_data_create_from_pattern(st->code,
	    NULL)) == NULL ||
	    (st->mctx = pcre2_match_context_create(NULL)) == NULL ||
	    (st->jit && (st->jit_stack = pcre2_jit_stack_create(
	    REGEX_JIT_STACK_MIN, REGEX_JIT_STACK_MAX, NULL)) == NULL)) {
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	st->ovector = pcre2_get_ovector_pointer(st->md);
	pcre2_set_match_limit(st->mctx, REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(st->mctx, REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(st->mctx, REGEX_HEAP_LIMIT_KIB);
	if (st->jit)
		pcre2_jit_stack_assign(st->mctx, NULL, st->jit_stack);
	return 0;
}

static void *
regex_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	static const char *const match[] = { "first", "all", NULL };
	static const char *const jit[] = { "auto", "off", NULL };
	const char *vals[REGEX_NKEYS];
	struct regex_state *st = NULL;
	int jit_off;

	if (udtf_params_read("regex", regex_keys, params, nparams, vals, err,
	    errlen) < 0)
		return NULL;
	if ((st = calloc(1, sizeof *st)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (udtf_params_choice("match", vals[REGEX_MATCH], match, &st->all,
	    err, errlen) < 0 ||
	    udtf_params_choice("jit", vals[REGEX_JIT], jit, &jit_off, err,
	    errlen) < 0 ||
	    regex_compile(st, vals[REGEX_PATTERN], err, errlen) < 0 ||
	    regex_columns_make(st, err, errlen) < 0 ||
	    regex_types_apply(st, vals[REGEX_TYPES], err, errlen) < 0)
		goto fail;
	if (!jit_off)
		regex_jit_compile(st);
	if (regex_match_setup(st, err, errlen) < 0)
		goto fail;
	return st;
fail:
	regex_fini(st);
	return NULL;
}

static void
regex_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	struct regex_state *st = state;

	*cols = st->cols;
	*ncols = st->ncols;
}

static const char *
regex_note(void *state)
{
	struct regex_state *st = state;

	return st->note[0] != '\0' ? st->note : NULL;
}

static void
regex_fini(void *state)
{
	struct regex_state *st = state;

	if (st == NULL)
		return;
	pcre2_match_data_free(st->md);
	pcre2_jit_stack_free(st->jit_stack);
	pcre2_match_context_free(st->mctx);
	pcre2_code_free(st->code);
	free(st->values);
	free(st->kinds);
	free(st->cols);
	free(st->groups);
	free(st);
}

/* Matching a record. */

/* Runs one match from start.  pcre2_jit_match() skips the UTF check and
 * ignores PCRE2_ANCHORED; pcre2_match() does both, and still runs the JIT
 * code when the options allow it. */
static int
regex_exec(struct regex_state *st, const char *s, size_t len, size_t start,
    uint32_t options)
{
	if (st->jit && !(options & PCRE2_ANCHORED) &&
	    (!st->utf || (options & PCRE2_NO_UTF_CHECK)))
		return pcre2_jit_match(st->code, (PCRE2_SPTR)s, len, start,
		    options, st->md, st->mctx);
	return pcre2_match(st->code, (PCRE2_SPTR)s, len, start, options,
	    st->md, st->mctx);
}

static int
regex_reject_error(const struct regex_state *st, int rc, size_t start,
    char *err, size_t errlen)
{
	PCRE2_UCHAR msg[128];

	pcre2_get_error_message(rc, msg, sizeof msg);
	/* After a UTF error, the start character is the bad one */
	if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
		snprintf(err, errlen, "byte %zu: %s",
		    (size_t)pcre2_get_startchar(st->md), (char *)msg);
	else
		snprintf(err, errlen, "matching from byte %zu: %s", start,
		    (char *)msg);
	return -EINVAL;
}

/* Emits the row of the match in the ovector; rc is what the match
 * returned, one more than the highest group set. */
static int
regex_emit(struct regex_state *st, const char *s, int rc,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	char why[160];
	int r;

	for (size_t c = 0; c < st->ncols; c++)
		st->values[c].type = UDTF_NULL;
	for (size_t i = 0; i < st->ngroups; i++) {
		const struct regex_group *g = &st->groups[i];
		PCRE2_SIZE from = st->ovector[2 * g->number];
		PCRE2_SIZE to = st->ovector[2 * g->number + 1];

		if (g->number >= (uint32_t)rc || from == PCRE2_UNSET ||
		    st->values[g->col].type != UDTF_NULL)
			continue;
		if (coltype_convert(st->kinds[g->col], st->cols[g->col].name,
		    s + from, to - from, &st->values[g->col], why,
		    sizeof why) < 0) {
			return err_set(err, errlen, -EINVAL, "byte %zu: %s",
			    (size_t)from, why);
		}
	}
	r = out->emit(out, st->values, st->ncols);
	return r < 0 ? r : 0;
}

/* Where to look for the next match after a non-empty one, as pcre2demo.c
 * does: after the match, or one character past where it started when \K
 * in a lookaround (allowed before PCRE2 10.38) ended it there or before. */
static size_t
regex_next_start(const struct regex_state *st, const char *s, size_t len)
{
	size_t start = st->ovector[1];
	size_t startchar = pcre2_get_startchar(st->md);

	if (start > startchar)
		return start;
	start = startchar + 1;
	while (st->utf && start < len && ((unsigned char)s[start] & 0xc0) ==
	    0x80)
		start++;
	return start;
}

/* After an empty match failed to grow at start: one character on, CRLF
 * counting as one when it is a newline. */
static size_t
regex_skip_char(const struct regex_state *st, const char *s, size_t len,
    size_t start)
{
	size_t next = start + 1;

	if (st->crlf && start + 1 < len && s[start] == '\r' &&
	    s[start + 1] == '\n')
		return next + 1;
	while (st->utf && next < len && ((unsigned char)s[next] & 0xc0) == 0x80)
		next++;
	return next;
}

/* One row per match, as pcre2demo.c finds them: after an empty match, try a
 * non-empty one at the same place before moving on. */
static int
regex_match_all(struct regex_state *st, const char *s, size_t len,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	size_t start = 0;
	uint32_t options = 0;
	int rc, r;

	for (;;) {
		rc = regex_exec(st, s, len, start, options);
		if (rc == PCRE2_ERROR_NOMATCH) {
			if (!(options & PCRE2_ANCHORED))
				return 0;
			start = regex_skip_char(st, s, len, start);
			options = PCRE2_NO_UTF_CHECK;
			continue;
		}
		if (rc < 0)
			return regex_reject_error(st, rc, start, err, errlen);
		if ((r = regex_emit(st, s, rc, out, err, errlen)) < 0)
			return r;
		options = PCRE2_NO_UTF_CHECK;
		if (st->ovector[0] == st->ovector[1]) {
			if (st->ovector[1] == len)
				return 0;
			start = st->ovector[1];
			options |= PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED;
		} else {
			start = regex_next_start(st, s, len);
			if (start > len)
				return 0;
		}
	}
}

static int
regex_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct regex_state *st = state;
	const char *s = rec->data != NULL ? rec->data : "";
	int rc;

	if (st->all)
		return regex_match_all(st, s, rec->len, out, err, errlen);
	rc = regex_exec(st, s, rec->len, 0, 0);
	if (rc == PCRE2_ERROR_NOMATCH)
		return err_set(err, errlen, -EINVAL, "no match for pattern");
	if (rc < 0)
		return regex_reject_error(st, rc, 0, err, errlen);
	return regex_emit(st, s, rc, out, err, errlen);
}

/* The descriptor registry.c lists among the built-ins. */
const struct udtf_plugin udtf_regex_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "regex",
	.description = "a PCRE2 pattern: one row for the first match, or one "
	    "per match; one column per named group",
	.keys = regex_keys,
	.init = regex_init,
	.columns = regex_columns,
	.process = regex_process,
	.fini = regex_fini,
	.note = regex_note,
};
