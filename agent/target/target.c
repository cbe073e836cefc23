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
	int dirfd;            /* of dir: what is read is beneath it */
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
	return err_set(err, errlen, r, "%s %s: %s", what, path,
	    fs_strerror(-r));
}

/* Opens the directory that holds rel beneath local_dir, through no link,
 * making it and its missing parents when make is set, and sets *name to
 * rel's last component.  Returns the descriptor or a negative errno. */
static int
target_parent(const struct target *t, const char *rel, int make,
    const char **name)
{
	const char *slash = strrchr(rel, '/');
	size_t len = slash != NULL ? (size_t)(slash - rel) : 0;
	char dir[PATH_MAX];

	*name = slash != NULL ? slash + 1 : rel;
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, len);
	dir[len] = '\0';
	return make ? fs_mkdirs_beneath(t->dirfd, dir, 0755) :
	    fs_opendir_beneath(t->dirfd, dir);
}

/* Copies the open file in to name in the directory dirfd, through a
 * hidden temporary name beside it. */
static int
target_copy(int in, int dirfd, const char *name)
{
	char tmp[NAME_MAX + 1], buf[65536];
	int out = -1, r = 0;
	ssize_t n;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) < 0) {
		r = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if ((r = fs_write_all(out, buf, (size_t)n)) < 0)
			goto out;
	if (n < 0 || fsync(out) < 0 || renameat(dirfd, tmp, dirfd, name) < 0 ||
	    fsync(dirfd) < 0)
		r = -errno;
out:
	if (out >= 0)
		close(out);
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

int
target_put(struct target *t, const char *src, const char *rel, char *err,
    size_t errlen)
{
	char dst[PATH_MAX];
	const char *name;
	struct stat ss, ds;
	int in, dfd = -1, r;

	if (t->wh != NULL)
		return webhdfs_put(t->wh, src, rel, err, errlen);
	if ((r = target_path(t, rel, dst, sizeof(dst))) < 0)
		return target_fail(err, errlen, r, "publish", rel);
	/* what the spool holds must be a file, not a FIFO or a link */
	if ((in = fs_open_file(src, O_RDONLY)) < 0)
		return target_fail(err, errlen, in, "publish", src);
	if (fstat(in, &ss) < 0) {
		r = -errno;
		goto out;
	}
	if ((dfd = r = target_parent(t, rel, 1, &name)) < 0)
		goto out;
	if (fstatat(dfd, name, &ds, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(ds.st_mode) || ds.st_size != ss.st_size)
			r = err_set(err, errlen, -EEXIST,
			    "%s exists with %lld bytes%s, the spool's "
			    "copy has %lld; keeping both, resolve by hand", dst,
			    (long long)ds.st_size, S_ISREG(ds.st_mode) ? "" :
			    " and is no regular file", (long long)ss.st_size);
		else
			r = 0; /* a previous try got there */
		goto out;
	}
	/* a link, not a rename: the caller removes src once it is there */
	r = linkat(AT_FDCWD, src, dfd, name, 0) < 0 ? -errno :
	    fsync(dfd) < 0 ? -errno : 0;
	if (r == -EXDEV)
		r = target_copy(in, dfd, name);
out:
	close(in);
	if (dfd >= 0)
		close(dfd);
	if (r < 0 && r != -EEXIST)
		return target_fail(err, errlen, r, "publish", dst);
	return r;
}

int
target_write(struct target *t, const char *rel, const void *data,
    size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *name;
	int dfd, r;

	if (t->wh != NULL)
		return webhdfs_write(t->wh, rel, data, len, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "write", rel);
	if ((dfd = target_parent(t, rel, 1, &name)) < 0)
		return target_fail(err, errlen, dfd, "write", path);
	r = fs_write_atomic_at(dfd, name, data, len);
	close(dfd);
	return r < 0 ? target_fail(err, errlen, r, "write", path) : 0;
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
	if ((fd = fs_open_beneath(t->dirfd, rel, O_RDONLY)) < 0)
		return fd == -ENOENT ? 0 : target_fail(err, errlen, fd, "read",
		    path);
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
	int fd, r = 0;

	if (t->wh != NULL)
		return webhdfs_list(t->wh, rel, fn, arg, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "list", rel);
	if ((fd = fs_opendir_beneath(t->dirfd, rel)) < 0)
		return fd == -ENOENT ? 0 : target_fail(err, errlen, fd, "list",
		    path);
	if ((d = fdopendir(fd)) == NULL) {
		r = -errno;
		close(fd);
		return target_fail(err, errlen, r, "list", path);
	}
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
	const char *name;
	int dfd, r;

	if (t->wh != NULL)
		return webhdfs_remove(t->wh, rel, err, errlen);
	if ((r = target_path(t, rel, path, sizeof(path))) < 0)
		return target_fail(err, errlen, r, "remove", rel);
	if ((dfd = target_parent(t, rel, 0, &name)) < 0)
		return dfd == -ENOENT ? 0 : target_fail(err, errlen, dfd,
		    "remove", path);
	r = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	close(dfd);
	if (r < 0)
		return target_fail(err, errlen, r, "remove", path);
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
	t->dirfd = -1;
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
	if ((t->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open %s: %s", t->dir,
		    fs_strerror(errno));
		goto fail;
	}
	return t;
fail:
	target_close(t);
	return NULL;
}

int
target_is_url(const char *where)
{
	return strncmp(where, "http://", 7) == 0 ||
	    strncmp(where, "https://", 8) == 0;
}

struct target *
target_open_at(const char *where, const struct webhdfs_opts *o, char *err,
    size_t errlen)
{
	struct webhdfs_opts wo = *o;
	struct target *t;
	const char *host, *slash;
	char *root = NULL, why[512];

	if ((t = calloc(1, sizeof(*t))) == NULL)
		goto nomem;
	t->dirfd = -1;
	if (!target_is_url(where)) {
		if ((t->dir = strdup(where)) == NULL)
			goto nomem;
		/* what is read is beneath it, through no link */
		if ((t->dirfd = open(where, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "%s: %s", where, errno == ENOTDIR ?
			    "not a directory" : fs_strerror(errno));
			goto fail;
		}
		return t;
	}
	host = strstr(where, "://") + 3;
	slash = strchr(host, '/');
	if ((root = strndup(where, slash ? (size_t)(slash - where) :
	    strlen(where))) == NULL)
		goto nomem;
	wo.url = root;
	wo.base_dir = slash ? slash : "/";
	if (webhdfs_global_init() < 0 ||
	    (t->wh = webhdfs_open(&wo, why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "%s: %s", where, why);
		goto fail;
	}
	free(root);
	return t;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	free(root);
	target_close(t);
	return NULL;
}

int
target_open_file(struct target *t, const char *rel, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	int64_t len;
	int fd, r;

	if (t->wh == NULL) {
		if ((r = target_path(t, rel, path, sizeof(path))) < 0)
			return target_fail(err, errlen, r, "read", rel);
		/* a FIFO, a link or anything but a file is refused */
		if ((fd = fs_open_beneath(t->dirfd, rel, O_RDONLY)) < 0)
			return target_fail(err, errlen, fd, "read", path);
		return fd;
	}
	/* the copy stops at the length HDFS lists */
	if ((r = webhdfs_stat(t->wh, rel, &len, err, errlen)) <= 0)
		return r < 0 ? r : err_set(err, errlen, -ENOENT, "read %s: no "
		    "such file", rel);
	if ((fd = open(tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC,
	    0600)) < 0)
		return target_fail(err, errlen, -errno, "make a temporary file "
		    "in", tmp ? tmp : "/tmp");
	if ((r = webhdfs_fetch(t->wh, rel, fd, len, err, errlen)) < 0 ||
	    (lseek(fd, 0, SEEK_SET) < 0 && (r = target_fail(err, errlen,
	    -errno, "rewind the copy of", rel)) < 0)) {
		close(fd);
		return r;
	}
	return fd;
}

int
target_mirror(struct target *t, const char *dir, char *err, size_t errlen)
{
	if (t->wh == NULL)
		return err_set(err, errlen, -EINVAL, "%s: a local directory, "
		    "not a copy to make", t->dir);
	return webhdfs_mirror(t->wh, dir, err, errlen);
}

void
target_close(struct target *t)
{
	if (t == NULL)
		return;
	webhdfs_close(t->wh);
	if (t->dirfd >= 0)
		close(t->dirfd);
	free(t->dir);
	free(t);
}
