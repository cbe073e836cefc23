/*
 * webhdfs: a client of HDFS's WebHDFS REST API, or of HttpFS, which speaks
 * the same API (https://hadoop.apache.org/docs/stable/hadoop-project-dist/
 * hadoop-hdfs/WebHDFS.html), with libcurl.
 *
 * A file is written in two steps: CREATE without data is answered with a
 * 307 whose Location is where the bytes go (a datanode for WebHDFS; for
 * HttpFS the same URL with data=true), and the bytes are PUT there.  It is
 * written under a hidden temporary name in its final directory and then
 * RENAMEd into place, so a reader never sees half a file.  Authentication
 * is SPNEGO with the process's Kerberos tickets (KRB5CCNAME), or Hadoop's
 * "simple" user.name.
 *
 * The module does not log; every failure is one sentence in err.  A handle
 * is used by one thread at a time.
 */
#ifndef KEDGE_WEBHDFS_H
#define KEDGE_WEBHDFS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct webhdfs;

struct webhdfs_opts {
	const char *url;            /* http[s]://namenode:port */
	const char *base_dir;       /* the HDFS directory tables land under */
	const char *user;           /* NULL: SPNEGO; else simple auth as user */
	const char *ca_file;        /* NULL: the system's CAs */
	long connect_timeout;       /* seconds */
	long timeout;               /* seconds, a whole request */
};

/* Call once, before any thread starts (libcurl's global init). */
int webhdfs_global_init(void);

/* Returns a client, or NULL with the sentence in err. */
struct webhdfs *webhdfs_open(const struct webhdfs_opts *o, char *err,
    size_t errlen);
void webhdfs_close(struct webhdfs *w); /* accepts NULL */

/* The length of base_dir/rel in *len.  Returns 1 when it is a file, 0 when
 * nothing is there, or a negative errno with the sentence in err. */
int webhdfs_stat(struct webhdfs *w, const char *rel, int64_t *len, char *err,
    size_t errlen);

/* Puts the local file src at base_dir/rel, through a temporary name and a
 * RENAME, unless a file of the same length is there already (an earlier
 * try whose answer was lost).  Returns 0, -EEXIST (with the sentence) when
 * a file of another length is there, or another negative errno. */
int webhdfs_put(struct webhdfs *w, const char *src, const char *rel,
    char *err, size_t errlen);

/* Replaces base_dir/rel with len bytes of data, through a temporary name
 * and a RENAME (the old one deleted first).  Returns 0 or a negative errno
 * with the sentence in err. */
int webhdfs_write(struct webhdfs *w, const char *rel, const void *data,
    size_t len, char *err, size_t errlen);

/* Reads base_dir/rel, at most max bytes, into *data (malloc'd and
 * NUL-terminated).  Returns 1, 0 when there is no such file, or a negative
 * errno with the sentence in err. */
int webhdfs_read(struct webhdfs *w, const char *rel, size_t max,
    char **data, size_t *len, char *err, size_t errlen);

/* Writes the file base_dir/rel, listed with len bytes, to fd: a server
 * that sends more is refused at len bytes (-EFBIG).  Returns 0 or a
 * negative errno with the sentence in err. */
int webhdfs_fetch(struct webhdfs *w, const char *rel, int fd, int64_t len,
    char *err, size_t errlen);

/* Copies the tree under base_dir into the existing local directory dir.
 * Returns 0 or a negative errno with the sentence in err. */
int webhdfs_mirror(struct webhdfs *w, const char *dir, char *err,
    size_t errlen);

/* Calls fn for every entry of directory base_dir/rel (none when it is not
 * there), a page of the listing at a time (LISTSTATUS_BATCH, or
 * LISTSTATUS where the server has none); stops at the first non-zero fn
 * returns, and returns it.  fn may make requests of w.  Returns 0, that,
 * or a negative errno with the sentence in err. */
int webhdfs_list(struct webhdfs *w, const char *rel,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen);

/* Deletes the file base_dir/rel; one not there is no error.  Returns 0 or
 * a negative errno with the sentence in err. */
int webhdfs_remove(struct webhdfs *w, const char *rel, char *err,
    size_t errlen);

/* The URL of op on base_dir/rel in *url (curl_free() it): the path and
 * every query value percent-encoded by libcurl, user.name for simple
 * authentication, and param ("name=value", the value as it is) when it is
 * not NULL.  Returns 0 or a negative errno with the sentence in err. */
int webhdfs_url(const struct webhdfs *w, const char *rel, const char *op,
    const char *param, char **url, char *err, size_t errlen);

/* For a URL that is not https://, the end of a warning sentence that
 * starts with the URL or the key naming it; NULL for https://. */
const char *webhdfs_clear_warning(const char *url);

/* Once *cancel is non-zero, every request of w fails with -ECANCELED: one
 * not sent yet at once, one in flight within about a second, as a request
 * whose answer was lost.  cancel must outlive w; another thread may set
 * it.  NULL: no cancelling (the default). */
void webhdfs_set_cancel(struct webhdfs *w, const atomic_int *cancel);

/* "https://namenode:9871/warehouse": for messages. */
const char *webhdfs_where(const struct webhdfs *w);

#endif /* KEDGE_WEBHDFS_H */
