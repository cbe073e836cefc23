/*
 * target: where landed files go, behind one contract: a local directory
 * (output.target "local", output.local_dir) or HDFS (output.target
 * "webhdfs", through webhdfs.h under output.webhdfs.base_dir).  Paths are
 * relative to that root: "<table>/dt=../hr=../<name>", "_kedge/...".
 *
 * Everything a reader of the target can see appears whole: files are
 * written under a hidden temporary name beside their final one and renamed.
 * The hosts of one consumer group share the target, so it also carries
 * what they tell each other (takeover markers, completion progress).
 *
 * In a local directory nothing is read, written or removed through a
 * symbolic link below output.local_dir, and only regular files are read
 * (fs_open_beneath()): a link or a FIFO there is an error naming it.
 *
 * A handle is used by one thread at a time; open one per thread.  The
 * module does not log: every failure is one sentence in err.
 */
#ifndef KEDGE_TARGET_H
#define KEDGE_TARGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/config/config.h"
#include "agent/target/webhdfs.h"

struct target;

/* The WebHDFS client options of c's output.webhdfs. */
struct webhdfs_opts target_webhdfs_opts(const struct conf *c);

/* Opens c's target.  Returns NULL with the sentence in err. */
struct target *target_open(const struct conf *c, char *err, size_t errlen);
void target_close(struct target *t); /* accepts NULL */

/* Opens the tree at where, to read it: a local directory, which must be
 * there, or a WebHDFS or HttpFS URL ("http[s]://host:port/dir"), reached
 * with o's user (NULL: SPNEGO), CAs and timeouts (o's url and base_dir are
 * where's).  Returns NULL with the sentence, naming where, in err. */
struct target *target_open_at(const char *where,
    const struct webhdfs_opts *o, char *err, size_t errlen);

/* Returns 1 when where is a WebHDFS URL (http:// or https://). */
int target_is_url(const char *where);

/* Opens the file rel to read it: a local file as it is, a file of HDFS
 * copied first into an unlinked temporary file under $TMPDIR.  Returns
 * the descriptor (the caller closes it), -ENOENT when there is no such
 * file, or another negative errno, each with the sentence in err. */
int target_open_file(struct target *t, const char *rel, char *err,
    size_t errlen);

/* Copies the tree of t, opened at a WebHDFS URL, into the existing local
 * directory dir.  Returns 0 or a negative errno with the sentence in err
 * (-EINVAL for a local tree). */
int target_mirror(struct target *t, const char *dir, char *err,
    size_t errlen);

/* Whether the target answers: the local directory is writable, or HDFS
 * answers for base_dir (which need not exist yet).  Returns 0 or a
 * negative errno with the sentence in err. */
int target_check(struct target *t, char *err, size_t errlen);

/* The warning sentence, in buf, for an output whose bytes and credentials
 * travel in the clear (an http:// output.webhdfs.url).  Returns 1 when
 * there is one, else 0. */
int target_warning(const struct conf *c, char *buf, size_t size);

/* Once *cancel is non-zero, every request t makes of HDFS fails with
 * -ECANCELED: one not sent yet at once, one in flight within about a
 * second (webhdfs_set_cancel()); a local target's work is bounded by its
 * disk and goes on.  cancel must outlive t; another thread may set it. */
void target_set_cancel(struct target *t, const atomic_int *cancel);

/* "/srv/kedge" or "https://namenode:9871/warehouse": for messages. */
const char *target_where(const struct target *t);

/* Puts the local file src (a regular file, not a link) at rel, unless a
 * file of the same length is there already (an earlier try got there).
 * Returns 0, -EEXIST with the sentence when a file of another length, or
 * anything but a file, is there, or another negative errno.  src is left
 * in place. */
int target_put(struct target *t, const char *src, const char *rel,
    char *err, size_t errlen);

/* Replaces rel with len bytes of data, creating its directories.  Returns
 * 0 or a negative errno. */
int target_write(struct target *t, const char *rel, const void *data,
    size_t len, char *err, size_t errlen);

/* Reads rel, at most max bytes, into *data (malloc'd, NUL-terminated; the
 * caller frees it).  Returns 1, 0 when there is no such file (*data NULL),
 * or a negative errno. */
int target_read(struct target *t, const char *rel, size_t max, char **data,
    size_t *len, char *err, size_t errlen);

/* Calls fn for every entry of directory rel but "." and "..", in no
 * particular order; fn returns 0 to go on.  A missing directory has no
 * entries.  Returns 0, what fn returned, or a negative errno. */
typedef int (target_entry_fn)(const char *name, int is_dir, int64_t len,
    void *arg);
int target_list(struct target *t, const char *rel, target_entry_fn *fn,
    void *arg, char *err, size_t errlen);

/* Removes the file rel; a missing one is no error.  Returns 0 or a
 * negative errno. */
int target_remove(struct target *t, const char *rel, char *err,
    size_t errlen);

#endif /* KEDGE_TARGET_H */
