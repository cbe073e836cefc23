/*
 * confsrc: the text libconfig reads.  libconfig 1.5 (Debian 12's) resolves
 * an @include against the working directory (config_set_include_dir()
 * names one directory for every file; the include hook came in 1.7), cuts
 * an integer past 32 bits written without its L suffix to 32 bits, and
 * lets a string left open swallow the rest of the file, so that its error
 * lands on the last line.  So kedge reads the files itself, and hands
 * libconfig one text: each @include spliced in, resolved against the
 * directory of the file that names it; nginx's single-quoted strings (a
 * log_format pasted as nginx.conf writes it, in one piece or several)
 * turned into libconfig's double-quoted ones holding the same bytes; an
 * integer past 32 bits given its L.  A string, comment or bracket left
 * open, and a number with a unit glued on, are errors at the line where
 * they are.  No line of a file is added or removed, and conf_src_where()
 * maps each line of the text back to its file and line.
 *
 * Hand-written: a lexer of libconfig's tokens (strings, comments, names,
 * numbers, brackets), which no library offers for libconfig 1.5.
 */
#include "agent/config/config_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"

#define CONF_SRC_MAX (16u << 20)  /* bytes of text, @includes and all */
#define CONF_INCLUDE_DEPTH 10     /* libconfig's own bound */
#define CONF_INCLUDE "@include"

/* A bracket not closed yet, or a file being read (for @include loops). */
struct conf_open {
	char ch;
	struct conf_loc at;
	dev_t dev;
	ino_t ino;
};

/* One reading: the text's current line, the brackets open and the files
 * being read, across every file. */
struct conf_scan {
	struct conf_loader *ld;
	int tline;                   /* the text's line being written */
	struct conf_open *brackets;
	size_t nbrackets, brackets_cap;
	struct conf_open files[CONF_INCLUDE_DEPTH + 1];
	size_t nfiles;
};

/* A file's text, being read. */
struct conf_lex {
	struct conf_scan *sc;
	const char *file;            /* one of the config's files */
	const char *p, *end;
	int line;                    /* of the file, at p */
};

static int
conf_src_put(struct conf_lex *lx, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lx->sc->tline += s[i] == '\n';
	if (buf_append(&lx->sc->ld->src.text, s, n) < 0)
		return conf_oom(lx->sc->ld);
	return 0;
}

/* Copies n bytes from lx->p on, counting the file's lines. */
static int
conf_src_copy(struct conf_lex *lx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lx->line += lx->p[i] == '\n';
	lx->p += n;
	return conf_src_put(lx, lx->p - n, n);
}

/* Starts a run of the text's lines that are file's from line from on. */
static int
conf_src_seg(struct conf_scan *sc, const char *file, int from)
{
	struct conf_src *s = &sc->ld->src;

	if (grow_array((void **)&s->segs, &s->segs_cap, s->nsegs + 1,
	    sizeof(*s->segs)) < 0)
		return conf_oom(sc->ld);
	s->segs[s->nsegs++] = (struct conf_seg){ file, sc->tline, from };
	return 0;
}

struct conf_loc
conf_src_where(const struct conf_loader *ld, int line)
{
	const struct conf_src *s = &ld->src;
	size_t i = s->nsegs;

	while (i > 0 && s->segs[i - 1].first > line)
		i--;
	if (i == 0)
		return (struct conf_loc){ ld->c->path, line };
	return (struct conf_loc){ s->segs[i - 1].file,
	    s->segs[i - 1].from + (line - s->segs[i - 1].first) };
}

void
conf_src_clear(struct conf_src *s)
{
	buf_clear(&s->text);
	free(s->segs);
	memset(s, 0, sizeof(*s));
}

static int
conf_is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*';
}

static int
conf_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* libconfig's {name}: [A-Za-z*][-A-Za-z0-9_*]* */
static int
conf_is_name_char(char c)
{
	return conf_is_name_start(c) || conf_is_digit(c) || c == '-' ||
	    c == '_';
}

int
conf_src_syntax(struct conf_loader *ld, struct conf_loc at,
    const char *what, const char *hint)
{
	struct conf_loc on = ld->src.runs_on;
	struct conf_at where = { at.file, at.line, "" };
	char then[64] = "";

	if (on.line == 0 || (on.file == at.file && on.line >= at.line))
		return conf_fail(ld, &where, "syntax error: %s%s%s", what,
		    hint != NULL ? "; " : "", hint != NULL ? hint : "");
	if (on.file != at.file)
		snprintf(then, sizeof(then), "%.40s:", at.file);
	where = (struct conf_at){ on.file, on.line, "" };
	return conf_fail(ld, &where, "syntax error: this string runs on past "
	    "its line, and then %sline %d: %s: is a quote missing here (a \" "
	    "inside a string is written \\\")?", then, at.line, what);
}

static int
conf_src_syntax_at(struct conf_lex *lx, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A syntax error at line of the file being read. */
static int
conf_src_syntax_at(struct conf_lex *lx, int line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return conf_src_syntax(lx->sc->ld, (struct conf_loc){ lx->file, line },
	    what, NULL);
}

#define CONF_QUOTE_HINT "a \" inside a string is written \\\""

/* Notes the first string that ran on past the line it opened on. */
static void
conf_src_ran_on(struct conf_lex *lx, int line)
{
	if (lx->line > line && lx->sc->ld->src.runs_on.line == 0)
		lx->sc->ld->src.runs_on = (struct conf_loc){ lx->file, line };
}

/* A double-quoted string, its escapes as libconfig reads them. */
static int
conf_src_string(struct conf_lex *lx)
{
	const char *q = lx->p + 1;
	int line = lx->line, r;

	while (q < lx->end && *q != '"')
		q += *q == '\\' && q + 1 < lx->end ? 2 : 1;
	if (q >= lx->end)
		return conf_src_syntax(lx->sc->ld, (struct conf_loc){ lx->file,
		    line }, "this string is never closed", CONF_QUOTE_HINT);
	if ((r = conf_src_copy(lx, (size_t)(q + 1 - lx->p))) == 0)
		conf_src_ran_on(lx, line);
	return r;
}

/* nginx's single-quoted string, as nginx reads it (\' \" \\ are the
 * character, \t \r \n the control, any other backslash itself), written
 * as libconfig's double-quoted string of the same bytes. */
static int
conf_src_nginx_string(struct conf_lex *lx)
{
	static const char from[] = "'\"\\trn", *to[] = { "'", "\\\"", "\\\\",
	    "\\t", "\\r", "\\n" };
	int line = lx->line, r;
	const char *q, *esc;

	if ((r = conf_src_put(lx, "\"", 1)) != 0)
		return r;
	for (q = lx->p + 1; q < lx->end && *q != '\''; q++) {
		if (*q == '\\' && q + 1 < lx->end && q[1] != '\0' &&
		    (esc = strchr(from, q[1])) != NULL) {
			r = conf_src_put(lx, to[esc - from], strlen(to[esc - from]));
			q++;
		} else if (*q == '\\' || *q == '"')
			r = conf_src_put(lx, *q == '"' ? "\\\"" : "\\\\", 2);
		else {
			lx->line += *q == '\n';
			r = conf_src_put(lx, q, 1);
		}
		if (r != 0)
			return r;
	}
	if (q >= lx->end)
		return conf_src_syntax_at(lx, line, "this '...' string is never "
		    "closed");
	conf_src_ran_on(lx, line);
	lx->p = q + 1;
	return conf_src_put(lx, "\"", 1);
}

/* Copies a comment: # or // to the end of the line, or /<star> to its
 * end. */
static int
conf_src_comment(struct conf_lex *lx)
{
	const char *q;

	if (lx->p[0] != '/' || lx->p[1] != '*') {
		q = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
		return conf_src_copy(lx, (size_t)((q ? q : lx->end) - lx->p));
	}
	for (q = lx->p + 2; q + 1 < lx->end; q++)
		if (q[0] == '*' && q[1] == '/')
			return conf_src_copy(lx, (size_t)(q + 2 - lx->p));
	return conf_src_syntax_at(lx, lx->line, "this /* comment is never "
	    "closed by */");
}

/* A number: a decimal integer that 32 bits cannot hold gets libconfig's
 * L suffix; a whole number with a unit glued on (10G, 30s) becomes the
 * string a size or duration is read from; a unit after anything else is
 * refused, where libconfig would say a bare "syntax error". */
static int
conf_src_number(struct conf_lex *lx)
{
	const char *q = lx->p + (*lx->p == '+' || *lx->p == '-');
	const char *digits = q, *unit;
	int is_int = 1;
	long long v;

	if (q[0] == '0' && q + 1 < lx->end && (q[1] == 'x' || q[1] == 'X')) {
		for (q += 2; q < lx->end && *q != '\0' &&
		    strchr("0123456789abcdefABCDEF", *q) != NULL; q++)
			;
		is_int = 0;
	}
	while (q < lx->end && conf_is_digit(*q))
		q++;
	if (q < lx->end && (*q == '.' || *q == 'e' || *q == 'E')) {
		is_int = 0; /* a float: digits, '.', an exponent */
		while (q < lx->end && (conf_is_digit(*q) || *q == '.' ||
		    ((*q == 'e' || *q == 'E') && q + 1 < lx->end) ||
		    ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E'))))
			q++;
	}
	if (q < lx->end && *q == 'L') {
		is_int = 0;
		q += 1 + (q + 1 < lx->end && q[1] == 'L');
	}
	unit = q;
	if (q < lx->end && (conf_is_name_start(*q) || *q == '_'))
		while (unit < lx->end && conf_is_name_char(*unit))
			unit++;
	/* 10G, 512MiB, 30s, 1h30m: the string the key's parser reads */
	if (unit > q && is_int && q > digits && digits == lx->p)
		return conf_src_put(lx, "\"", 1) != 0 ||
		    conf_src_copy(lx, (size_t)(unit - lx->p)) != 0 ? -ENOMEM :
		    conf_src_put(lx, "\"", 1);
	if (unit > q)
		return conf_src_syntax_at(lx, lx->line, "%.*s: a size or "
		    "duration has a whole number before its unit, as 10G, "
		    "512MiB, 30s or 1h30m", (int)(unit - lx->p), lx->p);
	if (is_int) {
		char num[32];

		errno = 0;
		snprintf(num, sizeof(num), "%.*s", (int)(q - lx->p), lx->p);
		v = strtoll(num, NULL, 10);
		if (errno == ERANGE || q - digits > 19)
			return conf_src_syntax_at(lx, lx->line, "%.*s is past "
			    "the largest integer, %lld", (int)(q - lx->p), lx->p,
			    LLONG_MAX);
		if (v < INT_MIN || v > INT_MAX)
			return conf_src_copy(lx, (size_t)(q - lx->p)) != 0 ?
			    -ENOMEM : conf_src_put(lx, "L", 1);
	}
	return conf_src_copy(lx, (size_t)(q - lx->p));
}

/* An opening or closing bracket: closings must match. */
static int
conf_src_bracket(struct conf_lex *lx)
{
	static const char opens[] = "{([", closes[] = "})]";
	struct conf_scan *sc = lx->sc;
	const char *o = strchr(opens, *lx->p);
	struct conf_open *top;

	if (o != NULL) {
		if (grow_array((void **)&sc->brackets, &sc->brackets_cap,
		    sc->nbrackets + 1, sizeof(*sc->brackets)) < 0)
			return conf_oom(sc->ld);
		sc->brackets[sc->nbrackets++] = (struct conf_open){ *lx->p,
		    { lx->file, lx->line }, 0, 0 };
		return conf_src_copy(lx, 1);
	}
	if (sc->nbrackets == 0)
		return conf_src_syntax_at(lx, lx->line, "this %c closes nothing",
		    *lx->p);
	top = &sc->brackets[sc->nbrackets - 1];
	if (closes[strchr(opens, top->ch) - opens] != *lx->p) {
		if (top->at.file == lx->file)
			return conf_src_syntax_at(lx, lx->line, "this %c does "
			    "not close the %c of line %d", *lx->p, top->ch,
			    top->at.line);
		return conf_src_syntax_at(lx, lx->line, "this %c does not "
		    "close the %c of %s:%d", *lx->p, top->ch, top->at.file,
		    top->at.line);
	}
	sc->nbrackets--;
	return conf_src_copy(lx, 1);
}

static int conf_src_file(struct conf_scan *sc, const char *path,
    const struct conf_loc *from);

/* At the start of a line: when it is "@include "FILE"", reads FILE there
 * (relative to the directory of the file being read) and leaves lx->p
 * after it; returns 1 then, 0 when the line is no @include. */
static int
conf_src_include(struct conf_lex *lx)
{
	const char *q = lx->p + strspn(lx->p, " \t"), *dir;
	struct conf_loc here = { lx->file, lx->line };
	size_t n = sizeof(CONF_INCLUDE) - 1;
	struct buf path = { 0 };
	int r;

	if ((size_t)(lx->end - q) <= n || memcmp(q, CONF_INCLUDE, n) != 0 ||
	    (q[n] != ' ' && q[n] != '\t'))
		return 0;
	q += n + strspn(q + n, " \t");
	if (q >= lx->end || *q != '"')
		return 0;
	if ((dir = strrchr(lx->file, '/')) != NULL && q[1] != '/' &&
	    buf_append(&path, lx->file, (size_t)(dir + 1 - lx->file)) < 0)
		goto oom;
	for (q++; q < lx->end && *q != '"' && *q != '\n'; q++) {
		if (*q == '\\' && q + 1 < lx->end && (q[1] == '"' ||
		    q[1] == '\\'))
			q++;
		if (buf_append(&path, q, 1) < 0)
			goto oom;
	}
	if (q >= lx->end || *q != '"') {
		buf_clear(&path);
		conf_report_add(lx->sc->ld->rep, 0, &here, CONF_INCLUDE,
		    "syntax error: the file name is never closed by \"");
		return -EINVAL;
	}
	if (buf_append(&path, "", 1) < 0)
		goto oom;
	if ((r = conf_src_file(lx->sc, path.data, &here)) != 0) {
		buf_clear(&path);
		return r;
	}
	buf_clear(&path);
	/* the rest of the @include's line follows the file, as libconfig
	 * reads it */
	lx->p = q + 1;
	if (conf_src_seg(lx->sc, lx->file, lx->line) != 0)
		return -ENOMEM;
	return 1;
oom:
	buf_clear(&path);
	return conf_oom(lx->sc->ld);
}

/* Writes the text of one file, from its first byte to its last. */
static int
conf_src_lex(struct conf_lex *lx)
{
	int bol = 1, r = 0;
	char c;

	while (lx->p < lx->end && r >= 0) {
		if (bol && (r = conf_src_include(lx)) != 0) {
			bol = 0;
			continue;
		}
		bol = 0;
		c = *lx->p;
		if (c == '\n') {
			bol = 1;
			r = conf_src_copy(lx, 1);
		} else if (c == '#' || (c == '/' && lx->p + 1 < lx->end &&
		    (lx->p[1] == '/' || lx->p[1] == '*')))
			r = conf_src_comment(lx);
		else if (c == '"')
			r = conf_src_string(lx);
		else if (c == '\'')
			r = conf_src_nginx_string(lx);
		else if (c != '\0' && strchr("{([])}", c) != NULL)
			r = conf_src_bracket(lx);
		else if (conf_is_name_start(c)) {
			const char *q = lx->p;

			while (q < lx->end && conf_is_name_char(*q))
				q++;
			r = conf_src_copy(lx, (size_t)(q - lx->p));
		} else if (conf_is_digit(c) || ((c == '-' || c == '+') &&
		    lx->p + 1 < lx->end && conf_is_digit(lx->p[1])))
			r = conf_src_number(lx);
		else
			r = conf_src_copy(lx, 1);
	}
	return r < 0 ? r : 0;
}

/* Reads the file at path into *text (a new buffer the caller frees).
 * Returns 0 or a negative errno. */
static int
conf_src_slurp(int fd, size_t room, struct buf *text)
{
	char chunk[65536];
	ssize_t got;

	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if ((size_t)got > room - text->len)
			return -EFBIG;
		if (buf_append(text, chunk, (size_t)got) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Reads the file at path, @included at from (NULL: the main file), into
 * the text. */
static int
conf_src_file(struct conf_scan *sc, const char *path,
    const struct conf_loc *from)
{
	struct conf_loader *ld = sc->ld;
	struct buf text = { 0 };
	struct conf_lex lx;
	struct stat st;
	int fd = -1, r;
	char why[64];

	if (sc->nfiles > CONF_INCLUDE_DEPTH) {
		conf_report_add(ld->rep, 0, from, CONF_INCLUDE, "%s: more than "
		    "%d files deep", path, CONF_INCLUDE_DEPTH);
		return -EINVAL;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else
		r = conf_src_slurp(fd, CONF_SRC_MAX - ld->src.text.len, &text);
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; r == 0 && i < sc->nfiles; i++)
		if (sc->files[i].dev == st.st_dev && sc->files[i].ino == st.st_ino)
			r = -ELOOP;
	if (r == -ENOMEM)
		goto done;
	if (r != 0) {
		snprintf(why, sizeof(why), "%s", r == -EFBIG ? "the configuration "
		    "is over 16 MiB" : r == -ELOOP ? "it includes itself" :
		    strerror(-r));
		if (from == NULL)
			conf_report_add(ld->rep, 0, &(struct conf_loc){ path, 0 },
			    "", "cannot read: %s", why);
		else
			conf_report_add(ld->rep, 0, from, CONF_INCLUDE, "cannot "
			    "read %s: %s", path, why);
		r = -EINVAL;
		goto done;
	}
	if (conf_strv_add(&ld->c->files, path) != 0 ||
	    conf_src_seg(sc, ld->c->files.v[ld->c->files.n - 1], 1) != 0) {
		r = -ENOMEM;
		goto done;
	}
	sc->files[sc->nfiles++] = (struct conf_open){ 0, { path, 0 },
	    st.st_dev, st.st_ino };
	/* an empty file has no buffer */
	lx = (struct conf_lex){ sc, ld->c->files.v[ld->c->files.n - 1],
	    text.len > 0 ? text.data : "", NULL, 1 };
	lx.end = lx.p + text.len;
	r = conf_src_lex(&lx);
	sc->nfiles--;
	/* the includer's next line starts a line of the text */
	if (r == 0 && from != NULL && text.len > 0 &&
	    text.data[text.len - 1] != '\n')
		r = conf_src_put(&lx, "\n", 1);
done:
	if (r == -ENOMEM)
		conf_oom(ld);
	buf_clear(&text);
	return r;
}

int
conf_src_read(struct conf_loader *ld)
{
	struct conf_scan sc = { .ld = ld, .tline = 1 };
	struct conf_open *top;
	char what[64];
	int r;

	r = conf_src_file(&sc, ld->c->path, NULL);
	if (r == 0 && sc.nbrackets > 0) {
		top = &sc.brackets[sc.nbrackets - 1];
		snprintf(what, sizeof(what), "this %c is never closed by %c",
		    top->ch, top->ch == '{' ? '}' : top->ch == '(' ? ')' : ']');
		r = conf_src_syntax(ld, top->at, what, NULL);
	}
	if (r == 0 && buf_append(&ld->src.text, "", 1) < 0)
		r = conf_oom(ld);
	free(sc.brackets);
	return r;
}
