#include "agent/target/webhdfs_answer.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/escape.h"
#include "lib/jsondoc.h"

/* The memory jansson may take to read an answer, a listing's entries
 * aside: the answers but listings are read whole and are small. */
#define WHA_MEM (1024 * 1024)
/* The memory one entry of a listing may take to read; a FileStatus of
 * HDFS takes about 3 KiB.  A listing is read an entry at a time, so a
 * directory of many costs its answer's bytes, not jansson's values. */
#define WHA_ENTRY_MEM (256 * 1024)

/* The sentence for what jansson refused in je, at offset bytes into the
 * answer when at is set (a listing's entry), else at je's line and
 * column.  Returns -EPROTO. */
static int
wha_refused(const char *what, const json_error_t *je, int at, size_t offset,
    char *err, size_t errlen)
{
	if (je->line < 0) /* jsondoc_load()'s bound */
		return err_set(err, errlen, -EPROTO, "%s: the answer %s", what,
		    je->text);
	if (at)
		return err_set(err, errlen, -EPROTO, "%s: the answer is not the "
		    "JSON expected: %s at byte %zu", what, je->text,
		    offset + (size_t)je->position);
	return err_set(err, errlen, -EPROTO, "%s: the answer is not the JSON "
	    "expected: %s at line %d column %d", what, je->text, je->line,
	    je->column);
}

/* Parses the answer, in WHA_MEM; NULL with the sentence in err when it is
 * no JSON, or would take more. */
static json_t *
wha_load(const char *body, size_t len, const char *what, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *root;

	if ((root = jsondoc_load(body, len, JSON_REJECT_DUPLICATES, WHA_MEM,
	    &je)) == NULL)
		wha_refused(what, &je, 0, 0, err, errlen);
	return root;
}

/* The member name of object o when it is of type type, else NULL. */
static json_t *
wha_member(const json_t *o, const char *name, json_type type)
{
	json_t *v = json_is_object(o) ? json_object_get(o, name) : NULL;

	return v != NULL && json_typeof(v) == type ? v : NULL;
}

/* Reads one FileStatus object: its type and length, and its pathSuffix
 * when name is not NULL. */
static int
wha_file_status(const json_t *fs, const char *what, const char **name,
    int *is_dir, int64_t *length, char *err, size_t errlen)
{
	json_t *type = wha_member(fs, "type", JSON_STRING);
	json_t *len = wha_member(fs, "length", JSON_INTEGER);
	json_t *suffix = wha_member(fs, "pathSuffix", JSON_STRING);

	if (type == NULL || len == NULL || json_integer_value(len) < 0 ||
	    (name != NULL && suffix == NULL)) {
		return err_set(err, errlen, -EPROTO,
		    "%s: a FileStatus in the answer lacks a "
		    "string type, a length >= 0%s", what, name != NULL ?
		    " or a string pathSuffix" : "");
	}
	*is_dir = strcmp(json_string_value(type), "DIRECTORY") == 0;
	*length = *is_dir ? 0 : (int64_t)json_integer_value(len);
	if (name != NULL)
		*name = json_string_value(suffix);
	return 0;
}

int
webhdfs_answer_status(const char *body, size_t len, const char *what,
    int *is_dir, int64_t *length, char *err, size_t errlen)
{
	json_t *root = wha_load(body, len, what, err, errlen);
	int r = -EPROTO;

	if (root == NULL)
		return -EPROTO;
	if (wha_member(root, "FileStatus", JSON_OBJECT) == NULL)
		snprintf(err, errlen, "%s: no FileStatus object in the answer",
		    what);
	else
		r = wha_file_status(json_object_get(root, "FileStatus"), what,
		    NULL, is_dir, length, err, errlen);
	json_decref(root);
	return r;
}

int
webhdfs_answer_boolean(const char *body, size_t len, const char *what,
    char *err, size_t errlen)
{
	json_t *root = wha_load(body, len, what, err, errlen), *v;
	int r = -EPROTO;

	if (root == NULL)
		return -EPROTO;
	if ((v = json_is_object(root) ? json_object_get(root, "boolean") :
	    NULL) == NULL || !json_is_boolean(v))
		snprintf(err, errlen, "%s: no boolean in the answer", what);
	else
		r = json_is_true(v);
	json_decref(root);
	return r;
}

/* Whether name may be an entry of a directory: HDFS never lists "", ".",
 * ".." or a name holding '/'. */
static int
wha_name_ok(const char *name)
{
	return name[0] != '\0' && strcmp(name, ".") != 0 &&
	    strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

/* The offset of the first '[' outside a string in body[0..len), or len:
 * where the list of a listing starts, since the members around it hold no
 * array.  jansson reads a text whole, so this is the one scan of JSON by
 * hand, only for where to start reading entries one at a time. */
static size_t
wha_list_start(const char *body, size_t len)
{
	int quoted = 0;

	for (size_t i = 0; i < len; i++) {
		if (quoted && body[i] == '\\')
			i++;
		else if (body[i] == '"')
			quoted = !quoted;
		else if (!quoted && body[i] == '[')
			return i;
	}
	return len;
}

/* The list of a listing answer, read an entry at a time. */
struct wha_list {
	const char *body;
	size_t len;
	size_t pos;        /* after the '[' or the last entry read */
	int started;       /* an entry was read */
	const char *what;
	char *err;
	size_t errlen;
};

/* Reads the next entry of l (jansson parses it alone, in WHA_ENTRY_MEM).
 * Returns 1 with it in *entry (json_decref() it), 0 at the list's end
 * (l->pos then at its ']'), or -EPROTO with the sentence. */
static int
wha_list_next(struct wha_list *l, json_t **entry)
{
	size_t i = l->pos;
	json_error_t je;

	while (i < l->len && strchr(" \t\r\n", l->body[i]) != NULL)
		i++;
	if (i < l->len && l->body[i] == ']') {
		l->pos = i;
		return 0;
	}
	if (l->started && (i == l->len || l->body[i++] != ',')) {
		return err_set(l->err, l->errlen, -EPROTO,
		    "%s: the answer is not the "
		    "JSON expected: ',' or ']' expected at byte %zu", l->what, i);
	}
	if ((*entry = jsondoc_load(l->body + i, l->len - i,
	    JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, WHA_ENTRY_MEM,
	    &je)) == NULL)
		return wha_refused(l->what, &je, 1, i, l->err, l->errlen);
	l->pos = i + (size_t)je.position;
	l->started = 1;
	return 1;
}

/* Checks what is around the list that starts at body[open] and ends at
 * body[close]: the answer with an empty list in its place, which jansson
 * reads whole (in WHA_MEM), must be a LISTSTATUS answer, or with more not
 * NULL a LISTSTATUS_BATCH one (*more: whether remainingEntries > 0),
 * whose FileStatus list is that empty one. */
static int
wha_list_frame(const char *body, size_t len, size_t open, size_t close,
    const char *what, int *more, char *err, size_t errlen)
{
	size_t n = open + 1 + len - close;
	char *frame = malloc(n);
	json_t *root = NULL, *top, *list, *left = NULL;
	int r = -EPROTO;

	if (frame == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	memcpy(frame, body, open + 1);
	memcpy(frame + open + 1, body + close, len - close);
	if ((root = wha_load(frame, n, what, err, errlen)) == NULL)
		goto out;
	top = more != NULL ? wha_member(root, "DirectoryListing", JSON_OBJECT) :
	    root;
	if (more != NULL)
		left = wha_member(top, "remainingEntries", JSON_INTEGER);
	list = wha_member(wha_member(more != NULL ? wha_member(top,
	    "partialListing", JSON_OBJECT) : top, "FileStatuses",
	    JSON_OBJECT), "FileStatus", JSON_ARRAY);
	if (list == NULL || json_array_size(list) != 0)
		snprintf(err, errlen, "%s: no %sFileStatuses.FileStatus list in "
		    "the answer", what, more != NULL ?
		    "DirectoryListing.partialListing." : "");
	else if (more != NULL && (left == NULL || json_integer_value(left) < 0))
		snprintf(err, errlen, "%s: no DirectoryListing.remainingEntries "
		    ">= 0 in the answer", what);
	else
		r = 0;
	if (r == 0 && more != NULL)
		*more = json_integer_value(left) > 0;
out:
	json_decref(root);
	free(frame);
	return r;
}

/* Checks the entry e, the n-th of its list: a FileStatus whose name may be
 * an entry of a directory that sorts after after (when not NULL), or (*self
 * set then) the one with an empty name that lists a file itself. */
static int
wha_list_entry(const json_t *e, size_t n, const char *after, int *self,
    const char *what, char *err, size_t errlen)
{
	char shown[128];
	const char *name;
	int64_t len;
	int is_dir, r;

	if (n > WEBHDFS_LIST_MAX) {
		return err_set(err, errlen, -E2BIG,
		    "%s: the answer lists more than %d entries", what,
		    WEBHDFS_LIST_MAX);
	}
	if ((r = wha_file_status(e, what, &name, &is_dir, &len, err,
	    errlen)) < 0)
		return r;
	if (after == NULL && n == 1 && name[0] == '\0' && !is_dir) {
		*self = 1;
		return 0;
	}
	escape_bytes(name, strlen(name), shown, sizeof(shown));
	if (!wha_name_ok(name) || *self) {
		return err_set(err, errlen, -EPROTO,
		    "%s: the answer lists the name \"%s\", "
		    "which no entry of a directory has", what, *self ? "" :
		    shown);
	}
	if (after != NULL && strcmp(name, after) <= 0) {
		return err_set(err, errlen, -EPROTO,
		    "%s: the answer lists \"%s\", which does "
		    "not sort after the startAfter of the request", what, shown);
	}
	return 0;
}

int
webhdfs_answer_list(const char *body, size_t len, const char *what,
    const char *after, int *more,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen)
{
	size_t open = wha_list_start(body, len), n = 0;
	struct wha_list l = { body, len, open + 1, 0, what, err, errlen };
	const char *name;
	json_t *e = NULL;
	int64_t length;
	int is_dir, self = 0, r;

	if (open == len) {
		return err_set(err, errlen, -EPROTO,
		    "%s: no FileStatuses.FileStatus list in the answer", what);
	}
	/* every entry checked before fn sees one */
	while ((r = wha_list_next(&l, &e)) == 1) {
		r = wha_list_entry(e, ++n, after, &self, what, err, errlen);
		json_decref(e);
		if (r < 0)
			return r;
	}
	if (r < 0 || (r = wha_list_frame(body, len, open, l.pos, what, more,
	    err, errlen)) < 0)
		return r;
	if (more != NULL && *more && (n == 0 || self)) {
		return err_set(err, errlen, -EPROTO,
		    "%s: the answer says more entries remain, "
		    "after %s", what, n == 0 ? "none" : "a file's own status");
	}
	l = (struct wha_list){ body, len, open + 1, 0, what, err, errlen };
	while (r == 0 && !self && wha_list_next(&l, &e) == 1) {
		wha_file_status(e, what, &name, &is_dir, &length, err, errlen);
		r = fn(name, is_dir, length, arg);
		json_decref(e);
	}
	return r;
}

/* A RemoteException's message as escape_bytes() writes it, but
 * without the Java stack trace Hadoop may end it with ("\n\tat ...") and
 * with its line breaks and tabs as spaces, so that it reads as one
 * sentence. */
static void
wha_message(const char *s, size_t len, char *out, size_t size)
{
	char *flat = malloc(len + 1);
	size_t n = 0;

	if (flat == NULL) {
		escape_bytes(s, len, out, size);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n' && len - i >= 5 && memcmp(s + i, "\n\tat ", 5) == 0)
			break;
		flat[n++] = s[i] == '\n' || s[i] == '\t' || s[i] == '\r' ? ' ' :
		    s[i];
	}
	escape_bytes(flat, n, out, size);
	free(flat);
}

void
webhdfs_answer_exception(const char *body, size_t len, char *exception,
    size_t exceptionlen, char *message, size_t messagelen)
{
	json_error_t je;
	json_t *root = jsondoc_load(body, len, JSON_REJECT_DUPLICATES, WHA_MEM,
	    &je), *re;
	json_t *exc, *msg;

	exception[0] = message[0] = '\0';
	re = wha_member(root, "RemoteException", JSON_OBJECT);
	if ((exc = wha_member(re, "exception", JSON_STRING)) != NULL)
		escape_bytes(json_string_value(exc),
		    json_string_length(exc), exception, exceptionlen);
	if ((msg = wha_member(re, "message", JSON_STRING)) != NULL)
		wha_message(json_string_value(msg), json_string_length(msg),
		    message, messagelen);
	json_decref(root);
}
