/*
 * webhdfs_answer: the JSON answers of WebHDFS and HttpFS, read with
 * jansson (duplicate members refused, where in every error), so that
 * nothing a server says is taken from the wrong member or the wrong type:
 * FileStatus (GETFILESTATUS), FileStatuses (LISTSTATUS), DirectoryListing
 * (LISTSTATUS_BATCH), boolean (MKDIRS, RENAME, DELETE) and RemoteException
 * (any refusal).  What jansson builds of an answer is bounded
 * (jsondoc_load()): a hostile answer is refused before it is built whole.
 *
 * what names the request in the sentences ("LISTSTATUS /warehouse").  The
 * module does not log.
 */
#ifndef KEDGE_WEBHDFS_ANSWER_H
#define KEDGE_WEBHDFS_ANSWER_H

#include <stddef.h>
#include <stdint.h>

/* How many entries one listing answer may list, and the answers of one
 * directory together. */
#define WEBHDFS_LIST_MAX 1000000

/* Reads a GETFILESTATUS answer {"FileStatus": {"type", "length", ...}}:
 * *is_dir and *len (0 for a directory).  Returns 0 or -EPROTO with the
 * sentence in err. */
int webhdfs_answer_status(const char *body, size_t len, const char *what,
    int *is_dir, int64_t *length, char *err, size_t errlen);

/* Reads an answer {"boolean": true|false}.  Returns 1, 0, or -EPROTO with
 * the sentence in err. */
int webhdfs_answer_boolean(const char *body, size_t len, const char *what,
    char *err, size_t errlen);

/* Reads a LISTSTATUS answer {"FileStatuses": {"FileStatus": [...]}}, or,
 * with more not NULL, a LISTSTATUS_BATCH answer {"DirectoryListing":
 * {"partialListing": {"FileStatuses": ...}, "remainingEntries": N}} and
 * sets *more to whether N > 0; and calls fn for every entry in order,
 * with its pathSuffix, whether it is a DIRECTORY and its length; stops at
 * the first non-zero fn returns and returns it.  The entries are read one
 * at a time, each within a bound of memory, so a long listing costs its
 * answer's bytes, not a tree of its values.  A name that is empty, ".",
 * ".." or holds a '/', or, with after not NULL (the startAfter of the
 * request), that does not sort after after, is refused before fn sees any
 * entry, except the one entry with an empty name that lists a file itself
 * (no call then).  Returns 0, fn's value, or -EPROTO (-E2BIG past
 * WEBHDFS_LIST_MAX entries) with the sentence in err. */
int webhdfs_answer_list(const char *body, size_t len, const char *what,
    const char *after, int *more,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen);

/* The exception and message of a RemoteException answer, each escaped
 * with escape_bytes() and cut to its buffer with "..." at the end; empty
 * strings when the answer is none. */
void webhdfs_answer_exception(const char *body, size_t len, char *exception,
    size_t exceptionlen, char *message, size_t messagelen);

#endif /* KEDGE_WEBHDFS_ANSWER_H */
