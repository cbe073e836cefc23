#include "agent/target/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/target/webhdfs.h"
#include "lib/err.h"
#include "lib/fsutil.h"

struct target {
	char *dir;            /* target "local" */
	struct webhdfs *wh;   /* target "webhdfs" */
};

/* The local path of rel. */
static int
target_path(const struct target *t, const char *rel, char *buf, size_t size)
{
	return (size_t)snprintf(buf, size, "%s/%s", t->dir, rel) < size ? 0 :
	    -ENAMETOOLONG;
}

static int
target_fail(char *err, size_t errlen, int r, const char *what,
    const char *path)
{
	return err_set(err, errlen, r, "%s %s: %s", what, path, strerror(-r));
}

/* Makes the directories above path. */
static int
target_mkparent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return fs_mkdirs(dir, 0755);
}

/* Copies src to dst through a hidden temporary name in dst's directory. */
static int
target_copy(const char *src, const char *dst)
{
	char tmp[PATH_MAX], buf[65536];
	const char *base = strrchr(dst, '/') + 1;
	int in = -1, out = -1, r = 0;
	ssize_t n;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp", (int)(base - dst),
	    dst, base) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		r = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if ((r = fs_write_all(out, buf, (size_t)n)) < 0)
			goto out;
	if (n < 0 || fsync(out) < 0) {
		r = -errno;
		goto out;
	}
	if (rename(tmp, dst) < 0) {
		r = -errno;
		goto out;
	}
	r = fs_fsync_parent(dst);
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (r < 0)
		unlink(tmp);
	return r;
}

int
target_put(struct target *t, const char *src, const char *rel, char *err,
    size_t errlen)
{
	char dst[PATH_MAX];
	struct stat ss, ds;
	int r;

	if (t->wh != NULL)
		return webhdfs_put(t->wh, src, rel, err, errlen);
	if ((r = target_path(t, rel, dst, sizeof(dst))) < 0)
		return target_fail(err, errlen, r, "publish", rel);
	if (stat(src, &ss) < 0)
		return target_fail(err, errlen, -errno, "publish", src);
	if (stat(dst, &ds) == 0) {
		if (ds.st_size == ss.st_size)
			return 0; /* a previous try got there */
		return err_set(err, errlen, -EEXIST,
		    "%s exists with %lld bytes, the spool's "
		    "copy has %lld; keeping both, resolve by hand", dst,
		    (long long)ds.st_size, (long long)ss.st_size);
	}
	/* a link, not a rename: the caller removes src once it is there */
	if ((r = target_mkparent(dst)) == 0) {
		r = link(src, dst) < 0 ? -errno : fs_fsync_parent(dst);
		if (r == -EXDEV)
			r = target_copy(src, dst);
	}
	return r < 0 ? target_fail(err, errlen, r, "publish", dst) : 0;
}

int
target_write(struct target *t, const char *rel, const void *data,
    size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r;

	if (t->wh != NULL)
		return webhdfs_write(t->wh, rel, data, len, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0 ||
	    (r = target_mkparent(path)) < 0 ||
	    (r = fs_write_atomic(path, data, len)) < 0)
		return target_fail(err, errlen, r, "write", path);
	return 0;
}

int
target_read(struct target *t, const char *rel, size_t max, char **data,
    size_t *len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, r;

	*data = NULL;
	*len = 0;
	if (t->wh != NULL)
		return webhdfs_read(t->wh, rel, max, data, len, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "read", rel);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 :
		    target_fail(err, errlen, -errno, "read", path);
	r = fstat(fd, &st) < 0 ? -errno : (size_t)st.st_size > max ? -EFBIG : 0;
	if (r == 0 && (*data = malloc((size_t)st.st_size + 1)) == NULL)
		r = -ENOMEM;
	if (r == 0 && (n = read(fd, *data, (size_t)st.st_size)) >= 0) {
		(*data)[n] = '\0';
		*len = (size_t)n;
		r = 1;
	} else if (r == 0) {
		r = -errno;
	}
	close(fd);
	if (r < 0) {
		free(*data);
		*data = NULL;
		return target_fail(err, errlen, r, "read", path);
	}
	return r;
}

int
target_list(struct target *t, const char *rel, target_entry_fn *fn,
    void *arg, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (t->wh != NULL)
		return webhdfs_list(t->wh, rel, fn, arg, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "list", rel);
	if ((d = opendir(path)) == NULL)
		return errno == ENOENT ? 0 :
		    target_fail(err, errlen, -errno, "list", path);
	while (r == 0 && (de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		r = fn(de->d_name, S_ISDIR(st.st_mode), (int64_t)st.st_size, arg);
	}
	closedir(d);
	return r;
}

int
target_remove(struct target *t, const char *rel, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r;

	if (t->wh != NULL)
		return webhdfs_remove(t->wh, rel, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "remove", rel);
	if (unlink(path) < 0 && errno != ENOENT)
		return target_fail(err, errlen, -errno, "remove", path);
	return 0;
}

int
target_check(struct target *t, char *err, size_t errlen)
{
	int64_t len;
	int r;

	if (t->wh == NULL) {
		if (access(t->dir, W_OK | X_OK) < 0)
			return target_fail(err, errlen, -errno, "write into",
			    t->dir);
		return 0;
	}
	if ((r = webhdfs_stat(t->wh, "", &len, err, errlen)) == 1) {
		return err_set(err, errlen, -ENOTDIR,
		    "%s is a file, not a directory",
		    webhdfs_where(t->wh));
	}
	return r == 0 || r == -EISDIR ? 0 : r;
}

void
target_set_cancel(struct target *t, const atomic_int *cancel)
{
	if (t->wh != NULL)
		webhdfs_set_cancel(t->wh, cancel);
}

const char *
target_where(const struct target *t)
{
	return t->wh != NULL ? webhdfs_where(t->wh) : t->dir;
}

int
target_warning(const struct conf *c, char *buf, size_t size)
{
	const char *why;

	if (strcmp(c->output.target, "webhdfs") != 0 ||
	    (why = webhdfs_clear_warning(c->output.webhdfs.url)) == NULL)
		return 0;
	snprintf(buf, size, "output.webhdfs.url %s %s", c->output.webhdfs.url,
	    why);
	return 1;
}

struct webhdfs_opts
target_webhdfs_opts(const struct conf *c)
{
	struct webhdfs_opts o = {
		.url = c->output.webhdfs.url,
		.base_dir = c->output.webhdfs.base_dir,
		.user = strcmp(c->output.webhdfs.auth, "simple") == 0 ?
		    c->output.webhdfs.user : NULL,
		.ca_file = c->output.webhdfs.ca_file,
		.connect_timeout = c->output.webhdfs.connect_timeout,
		.timeout = c->output.webhdfs.timeout,
	};

	return o;
}

struct target *
target_open(const struct conf *c, char *err, size_t errlen)
{
	struct target *t;
	int r;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (strcmp(c->output.target, "webhdfs") == 0) {
		struct webhdfs_opts wo = target_webhdfs_opts(c);
		char why[512];

		if ((t->wh = webhdfs_open(&wo, why, sizeof(why))) == NULL) {
			snprintf(err, errlen, "webhdfs: %s", why);
			goto fail;
		}
		return t;
	}
	if ((t->dir = strdup(c->output.local_dir)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if ((r = fs_mkdirs(t->dir, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", t->dir, strerror(-r));
		goto fail;
	}
	return t;
fail:
	target_close(t);
	return NULL;
}

void
target_close(struct target *t)
{
	if (t == NULL)
		return;
	webhdfs_close(t->wh);
	free(t->dir);
	free(t);
}
