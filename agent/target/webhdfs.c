/* The WebHDFS operations (webhdfs.h), over the requests of
 * webhdfs_http.c. */
#include "agent/target/webhdfs.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/target/webhdfs_answer.h"
#include "agent/target/webhdfs_int.h"
#include "lib/crash.h"
#include "lib/err.h"
#include "lib/escape.h"
#include "lib/fsutil.h"

#define WH_MIRROR_DEPTH 32          /* directory levels under base_dir */
#define WH_MIRROR_ENTRIES 1000000   /* files and directories in all */

int
webhdfs_stat(struct webhdfs *w, const char *rel, int64_t *len, char *err,
    size_t errlen)
{
	char what[4200];
	int is_dir, r;

	if ((r = wh_get_json(w, rel, "GETFILESTATUS", what, sizeof(what), err,
	    errlen)) <= 0)
		return r;
	if ((r = webhdfs_answer_status(w->body, w->body_len, what, &is_dir, len,
	    err, errlen)) < 0)
		return r;
	return is_dir ? -EISDIR : 1;
}

/* Rewrites the sentence in err for an upload to the DataNode at url that
 * gave no answer: the NameNode answered, so it is the DataNode to name. */
static void
wh_datanode_silent(struct webhdfs *w, const char *url, const char *what,
    char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *host = NULL;

	if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    (host = wh_host_port(u)) != NULL)
		snprintf(err, errlen, "%s: no answer from the DataNode %s that "
		    "the NameNode sent kedge to: %s; kedge retries", what, host,
		    w->curl_err[0] != '\0' ? w->curl_err :
		    "the connection failed");
	free(host);
	curl_url_cleanup(u);
}

/* Writes src to the HDFS path in CREATE's two steps. */
static int
wh_create(struct webhdfs *w, const char *path, struct wh_src *src,
    char *err, size_t errlen)
{
	struct wh_src none = { -1, "", 0, 0 };
	char *url = NULL, what[4200];
	long st;

	snprintf(what, sizeof(what), "CREATE %s", path);
	if ((st = wh_url(w, path, "CREATE", "overwrite=true", &url, err,
	    errlen)) < 0 ||
	    (st = wh_do(w, "PUT", url, &none, what, err, errlen)) < 0)
		goto out;
	if (st != 307 || w->location == NULL) {
		st = wh_refused(w, st, what, err, errlen);
		goto out;
	}
	curl_free(url);
	if ((st = wh_follow(w, what, &url, err, errlen)) < 0)
		goto out;
	if ((st = wh_do(w, "PUT", url, src, what, err, errlen)) < 0) {
		/* HttpFS sends the bytes to itself: wh_do named it */
		if (strncmp(url, w->url, strlen(w->url)) != 0)
			wh_datanode_silent(w, url, what, err, errlen);
		goto out;
	}
	st = st == 201 || st == 200 ? 0 : wh_refused(w, st, what, err, errlen);
out:
	curl_free(url);
	return (int)st;
}

/* A PUT op whose answer is {"boolean": ...}: 1 for true, 0 for false. */
static int
wh_boolean_op(struct webhdfs *w, const char *method, const char *path,
    const char *op, const char *param, char *err, size_t errlen)
{
	char *url = NULL, what[4200];
	long st;

	snprintf(what, sizeof(what), "%s %s", op, path);
	if ((st = wh_url(w, path, op, param, &url, err, errlen)) < 0 ||
	    (st = wh_do(w, method, url, NULL, what, err, errlen)) < 0)
		goto out;
	st = st != 200 ? wh_refused(w, st, what, err, errlen) :
	    webhdfs_answer_boolean(w->body, w->body_len, what, err, errlen);
out:
	curl_free(url);
	return (int)st;
}

/* Renames from to to; false (the source gone, or the destination there)
 * is an error. */
static int
wh_rename(struct webhdfs *w, const char *from, const char *to, char *err,
    size_t errlen)
{
	char *param;
	int r;

	if (asprintf(&param, "destination=%s", to) < 0)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	r = wh_boolean_op(w, "PUT", from, "RENAME", param, err, errlen);
	free(param);
	if (r != 0)
		return r < 0 ? r : 0;
	return err_set(err, errlen, -EIO,
	    "RENAME %s to %s: HDFS answered false", from, to);
}

/* The hidden temporary name beside rel's final path, malloc'd; NULL when
 * out of memory. */
static char *
wh_temp(const struct webhdfs *w, const char *rel)
{
	const char *name = strrchr(rel, '/');
	int dirlen = name != NULL ? (int)(name - rel) + 1 : 0;
	char *tmp;

	return asprintf(&tmp, "%s/%.*s.%s.tmp", w->base, dirlen, rel,
	    name != NULL ? name + 1 : rel) < 0 ? NULL : tmp;
}

/* Writes src under the temporary name and renames it to rel, deleting
 * what is at rel first when replace is set: RENAME does not replace, so a
 * reader may then briefly find no file, never half of one. */
static int
wh_place(struct webhdfs *w, struct wh_src *src, const char *rel,
    int replace, char *err, size_t errlen)
{
	char *tmp = wh_temp(w, rel), *path = wh_path(w, rel);
	int r;

	if (tmp == NULL || path == NULL) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	if ((r = wh_create(w, tmp, src, err, errlen)) < 0)
		goto out;
	crash_point("webhdfs-before-rename");
	if (replace && (r = wh_boolean_op(w, "DELETE", path, "DELETE", NULL,
	    err, errlen)) < 0)
		goto out;
	r = wh_rename(w, tmp, path, err, errlen);
out:
	free(tmp);
	free(path);
	return r;
}

int
webhdfs_put(struct webhdfs *w, const char *src, const char *rel, char *err,
    size_t errlen)
{
	struct wh_src s = { -1, NULL, 0, 0 };
	struct stat st;
	int64_t len;
	int r;

	/* what the spool holds must be a file, not a FIFO or a link */
	if ((s.fd = fs_open_file(src, O_RDONLY)) < 0) {
		r = err_set(err, errlen, s.fd, "%s: %s", src, fs_strerror(-s.fd));
		goto out;
	}
	if (fstat(s.fd, &st) < 0) {
		r = err_set(err, errlen, -errno, "%s: %s", src, strerror(errno));
		goto out;
	}
	if ((r = webhdfs_stat(w, rel, &len, err, errlen)) < 0)
		goto out;
	if (r == 1 && len == (int64_t)st.st_size) {
		r = 0; /* an earlier try got there; its answer was lost */
		goto out;
	}
	if (r == 1) {
		snprintf(err, errlen, "%s%s exists in HDFS with %" PRId64 " bytes, "
		    "the spool's copy has %lld; keeping both, resolve by hand",
		    w->base, rel, len, (long long)st.st_size);
		r = -EEXIST;
		goto out;
	}
	r = wh_place(w, &s, rel, 0, err, errlen);
	/* a RENAME that was done but whose answer was lost */
	if (r < 0 && r != -EACCES && webhdfs_stat(w, rel, &len, err, errlen) == 1 &&
	    len == (int64_t)st.st_size)
		r = 0;
out:
	if (s.fd >= 0)
		close(s.fd);
	return r;
}

int
webhdfs_write(struct webhdfs *w, const char *rel, const void *data,
    size_t len, char *err, size_t errlen)
{
	struct wh_src s = { -1, data, len, 0 };

	return wh_place(w, &s, rel, 1, err, errlen);
}

int
webhdfs_read(struct webhdfs *w, const char *rel, size_t max, char **data,
    size_t *len, char *err, size_t errlen)
{
	char *url = NULL, what[4200];
	long st;

	*data = NULL;
	*len = 0;
	/* WebHDFS sends the reader to a datanode; HttpFS answers itself */
	w->body_max = max;
	if ((st = wh_get(w, rel, "OPEN", NULL, what, sizeof(what), err,
	    errlen)) == 307 && (st = wh_follow(w, what, &url, err, errlen)) == 0) {
		st = wh_do(w, "GET", url, NULL, what, err, errlen);
		curl_free(url);
	}
	w->body_max = WH_ANSWER_SMALL;
	if (st < 0)
		return (int)st;
	if (st == 404)
		return 0;
	if (st != 200)
		return wh_refused(w, st, what, err, errlen);
	if ((*data = malloc(w->body_len + 1)) == NULL)
		return -ENOMEM;
	memcpy(*data, w->body, w->body_len + 1);
	*len = w->body_len;
	return 1;
}

int
webhdfs_fetch(struct webhdfs *w, const char *rel, int fd, int64_t len,
    char *err, size_t errlen)
{
	char *url = NULL, what[4200];
	long st;

	/* HttpFS answers with the bytes, WebHDFS sends the reader to a
	 * datanode: either way only a 200's body is the file */
	w->sink = fd;
	w->sink_max = len;
	st = wh_get(w, rel, "OPEN", NULL, what, sizeof(what), err, errlen);
	if (st == 307 && (st = wh_follow(w, what, &url, err, errlen)) == 0) {
		st = wh_do(w, "GET", url, NULL, what, err, errlen);
		curl_free(url);
	}
	w->sink = -1;
	if (st < 0)
		return (int)st;
	return st == 200 ? 0 : wh_refused(w, st, what, err, errlen);
}

/* The pages of one directory's listing, as webhdfs_list() hands their
 * entries to fn. */
struct wh_pages {
	int (*fn)(const char *name, int is_dir, int64_t len, void *arg);
	void *arg;
	char *last;                /* the last entry's name: the next
	                            * page's startAfter */
	size_t n;                  /* entries so far */
	const char *what;
	char *err;
	size_t errlen;
};

static int
wh_page_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct wh_pages *pg = arg;
	char *last;

	if (++pg->n > WEBHDFS_LIST_MAX) {
		return err_set(pg->err, pg->errlen, -E2BIG,
		    "%s: the directory's answers list more than %d entries",
		    pg->what, WEBHDFS_LIST_MAX);
	}
	if ((last = strdup(name)) == NULL)
		return err_set(pg->err, pg->errlen, -ENOMEM, "out of memory");
	free(pg->last);
	pg->last = last;
	return pg->fn(name, is_dir, len, pg->arg);
}

/* Whether the 400 in w->body says the server does not know the op: a
 * NameNode or HttpFS older than LISTSTATUS_BATCH (Hadoop 2.8) answers
 * IllegalArgumentException, a gateway UnsupportedOperationException. */
static int
wh_op_unknown(struct webhdfs *w)
{
	char exception[128], message[8];

	webhdfs_answer_exception(w->body, w->body_len, exception,
	    sizeof(exception), message, sizeof(message));
	return strcmp(exception, "IllegalArgumentException") == 0 ||
	    strcmp(exception, "UnsupportedOperationException") == 0;
}

/* Lists rel a page at a time with LISTSTATUS_BATCH (the NameNode answers
 * dfs.ls.limit entries a page; HttpFS all of them), or with LISTSTATUS
 * where the server has no LISTSTATUS_BATCH. */
int
webhdfs_list(struct webhdfs *w, const char *rel,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen)
{
	char what[4200], *param = NULL, *page = NULL;
	struct wh_pages pg = { fn, arg, NULL, 0, what, err, errlen };
	size_t len;
	int more = 1, r = 0;
	long st;

	while (r == 0 && more) {
		if (pg.last != NULL && asprintf(&param, "startAfter=%s",
		    pg.last) < 0) {
			param = NULL;
			r = err_set(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		w->body_max = WH_ANSWER_LIST;
		st = wh_get(w, rel, w->no_batch ? "LISTSTATUS" :
		    "LISTSTATUS_BATCH", param, what, sizeof(what), err, errlen);
		w->body_max = WH_ANSWER_SMALL;
		free(param);
		param = NULL;
		if (st == 404) /* no such directory, or gone since a page */
			break;
		if (st == 400 && !w->no_batch && pg.last == NULL &&
		    wh_op_unknown(w)) {
			w->no_batch = 1;
			continue;
		}
		if (st != 200) {
			r = st < 0 ? (int)st : wh_refused(w, st, what, err, errlen);
			break;
		}
		/* kept apart: fn's requests reuse w->body */
		if ((page = wh_body_take(w, &len)) == NULL) {
			r = err_set(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		more = 0;
		r = webhdfs_answer_list(page, len, what, pg.last, w->no_batch ?
		    NULL : &more, wh_page_entry, &pg, err, errlen);
		free(page);
	}
	free(pg.last);
	return r;
}

int
webhdfs_remove(struct webhdfs *w, const char *rel, char *err, size_t errlen)
{
	char *path = wh_path(w, rel);
	int r;

	if (path == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	r = wh_boolean_op(w, "DELETE", path, "DELETE", NULL, err, errlen);
	free(path);
	return r < 0 ? r : 0;
}

/* A copy of base_dir in progress: each level's listing is one
 * wh_mirror_dir(), whose entries land under the directory fd of that
 * level only, never through a path the server named. */
struct wh_mirror {
	struct webhdfs *w;
	const char *rel;           /* of this level under base_dir */
	int dirfd;                 /* of this level in the copy */
	int depth;                 /* of this level, base_dir's is 0 */
	size_t *entries;           /* made so far, in all */
	char *err;
	size_t errlen;
};

static int wh_mirror_dir(struct wh_mirror *up, const char *rel, int dirfd);

/* Whether name may become a file in the copy: one component, no control
 * byte (webhdfs_answer_list() has refused "", ".", ".." and '/'). */
static int
wh_mirror_name_ok(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static int
wh_mirror_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct wh_mirror *m = arg;
	char shown[128], *rel = NULL;
	int fd = -1, r;

	if (!wh_mirror_name_ok(name)) {
		escape_bytes(name, strlen(name), shown, sizeof(shown));
		return err_set(m->err, m->errlen, -EPROTO,
		    "LISTSTATUS %s%s%s: HDFS listed the "
		    "name \"%s\", which holds a control byte; refusing it",
		    m->w->base, m->rel[0] ? "/" : "", m->rel, shown);
	}
	if (++*m->entries > WH_MIRROR_ENTRIES) {
		return err_set(m->err, m->errlen, -E2BIG,
		    "%s holds more than %d files and "
		    "directories; refusing to copy more", m->w->where,
		    WH_MIRROR_ENTRIES);
	}
	if (asprintf(&rel, "%s%s%s", m->rel, m->rel[0] ? "/" : "", name) < 0)
		return err_set(m->err, m->errlen, -ENOMEM, "out of memory");
	if (is_dir) {
		if ((mkdirat(m->dirfd, name, 0755) < 0 && errno != EEXIST) ||
		    (fd = openat(m->dirfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			goto fail;
		r = wh_mirror_dir(m, rel, fd);
		goto out;
	}
	/* O_EXCL: a name listed twice is not fetched over the first */
	if ((fd = openat(m->dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		goto fail;
	/* a partial copy goes: verify must not read it, nor find it left */
	if ((r = webhdfs_fetch(m->w, rel, fd, len, m->err, m->errlen)) < 0)
		unlinkat(m->dirfd, name, 0);
	goto out;
fail:
	r = -errno;
	escape_bytes(name, strlen(name), shown, sizeof(shown));
	snprintf(m->err, m->errlen, "%s in the copy of %s: %s", shown,
	    m->w->where, strerror(-r));
out:
	if (fd >= 0)
		close(fd);
	free(rel);
	return r;
}

/* Copies the directory rel, one level below up's, into dirfd. */
static int
wh_mirror_dir(struct wh_mirror *up, const char *rel, int dirfd)
{
	struct wh_mirror m = *up;

	m.rel = rel;
	m.dirfd = dirfd;
	if (++m.depth > WH_MIRROR_DEPTH) {
		snprintf(m.err, m.errlen, "%s/%s: deeper than %d directories "
		    "under %s; refusing to copy it", m.w->base, rel,
		    WH_MIRROR_DEPTH, m.w->where);
		return -ELOOP;
	}
	return webhdfs_list(m.w, rel, wh_mirror_entry, &m, m.err, m.errlen);
}

int
webhdfs_mirror(struct webhdfs *w, const char *dir, char *err, size_t errlen)
{
	size_t entries = 0;
	struct wh_mirror top = { w, "", -1, -1, &entries, err, errlen };
	int fd, r;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		return err_set(err, errlen, -errno, "%s: %s", dir,
		    strerror(errno));
	}
	r = wh_mirror_dir(&top, "", fd);
	close(fd);
	return r;
}
