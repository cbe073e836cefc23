#include "agent/target/webhdfs_answer.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/escape.h"

/* Parses the answer; NULL with the sentence in err when it is no JSON. */
static json_t *
wha_load(const char *body, size_t len, const char *what, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *root;

	if ((root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je)) == NULL)
		snprintf(err, errlen, "%s: the answer is not the JSON expected: %s "
		    "at line %d column %d", what, je.text, je.line, je.column);
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

/* Checks every entry of list, so that fn sees none of a bad answer. */
static int
wha_list_check(const json_t *list, const char *what, char *err,
    size_t errlen)
{
	size_t n = json_array_size(list);
	char shown[128];
	const char *name;
	int64_t len;
	int is_dir, r;

	if (n > WEBHDFS_LIST_MAX) {
		return err_set(err, errlen, -E2BIG,
		    "%s: the answer lists %zu entries, more "
		    "than %d", what, n, WEBHDFS_LIST_MAX);
	}
	for (size_t i = 0; i < n; i++) {
		if ((r = wha_file_status(json_array_get(list, i), what, &name,
		    &is_dir, &len, err, errlen)) < 0)
			return r;
		if (wha_name_ok(name) || (n == 1 && name[0] == '\0' && !is_dir))
			continue;
		escape_bytes(name, strlen(name), shown, sizeof(shown));
		return err_set(err, errlen, -EPROTO,
		    "%s: the answer lists the name \"%s\", "
		    "which no entry of a directory has", what, shown);
	}
	return 0;
}

int
webhdfs_answer_list(const char *body, size_t len, const char *what,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen)
{
	json_t *root = wha_load(body, len, what, err, errlen), *list;
	const char *name;
	int64_t length;
	int is_dir, r;

	if (root == NULL)
		return -EPROTO;
	list = wha_member(wha_member(root, "FileStatuses", JSON_OBJECT),
	    "FileStatus", JSON_ARRAY);
	if (list == NULL) {
		snprintf(err, errlen, "%s: no FileStatuses.FileStatus list in the "
		    "answer", what);
		r = -EPROTO;
		goto out;
	}
	if ((r = wha_list_check(list, what, err, errlen)) < 0)
		goto out;
	for (size_t i = 0; r == 0 && i < json_array_size(list); i++) {
		wha_file_status(json_array_get(list, i), what, &name, &is_dir,
		    &length, err, errlen);
		if (name[0] != '\0')
			r = fn(name, is_dir, length, arg);
	}
out:
	json_decref(root);
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
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je), *re;
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
