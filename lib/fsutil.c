#include "lib/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"

int
fs_mkdirs(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;

	if (len == 0 || len >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* mostly the directory is there, which one mkdir() tells: a part
	 * file's directory is made for each file */
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno == EEXIST) { /* a file of that name is no directory */
		if (stat(path, &st) < 0)
			return -errno;
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	}
	if (errno != ENOENT)
		return -errno;
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -errno;
		if (c == '\0')
			break;
		*p = c;
	}
	return 0;
}

int
fs_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Opens the directory that holds path ("." for a bare name) and sets
 * *name to path's last component.  Returns the descriptor or -errno. */
static int
fs_open_parent(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t len;
	int fd;

	*name = slash != NULL ? slash + 1 : path;
	len = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, slash != NULL ? path : ".", slash != NULL ? len : 1);
	dir[slash != NULL ? len : 1] = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	return fd;
}

/* What fs_open_beneath() returns for a file of mode, which is no regular
 * file. */
static int
fs_not_regular(mode_t mode)
{
	if (S_ISLNK(mode))
		return -ELOOP;
	return S_ISDIR(mode) ? -EISDIR : -ENXIO;
}

/* r, the failure of opening the directory name in dirfd with O_NOFOLLOW,
 * or -ELOOP when name is a symbolic link (O_DIRECTORY says ENOTDIR). */
static int
fs_dir_refused(int dirfd, const char *name, int r)
{
	struct stat st;

	if (r == -ENOTDIR && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return S_ISLNK(st.st_mode) ? -ELOOP : r;
	return r;
}

/* Opens the directory name in dirfd with O_NOFOLLOW, made first with mode
 * when mode is not 0; "" and "." are dirfd's own (a new descriptor).
 * Returns the descriptor or a negative errno. */
static int
fs_dir_at(int dirfd, const char *name, mode_t mode)
{
	int fd;

	if (strcmp(name, "..") == 0)
		return -EINVAL;
	if (name[0] == '\0' || strcmp(name, ".") == 0)
		fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else if (mode != 0 && mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return -errno;
	else
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	return fd < 0 ? fs_dir_refused(dirfd, name, -errno) : fd;
}

/* Walks rel's directories from dirfd with fs_dir_at() (mode: as there) and
 * sets *last to rel's last component (empty when rel ends with '/').
 * Returns a descriptor of the directory that holds it (dirfd itself when
 * rel has one component: close it only when it is not), or a negative
 * errno. */
static int
fs_walk(int dirfd, const char *rel, mode_t mode, const char **last)
{
	char name[NAME_MAX + 1];
	const char *p = rel, *slash;
	int fd = dirfd, next, r = -EINVAL;

	if (rel[0] == '/')
		goto fail;
	while ((slash = strchr(p, '/')) != NULL) {
		size_t n = (size_t)(slash - p);

		if (n > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p = slash + 1;
		if (n == 0 || strcmp(name, ".") == 0)
			continue;
		if ((next = fs_dir_at(fd, name, mode)) < 0) {
			r = next;
			goto fail;
		}
		if (fd != dirfd)
			close(fd);
		fd = next;
	}
	*last = p;
	return fd;
fail:
	if (fd != dirfd)
		close(fd);
	return r;
}

/* fs_opendir_beneath(), making what is missing when mode is not 0. */
static int
fs_dir_beneath(int dirfd, const char *rel, mode_t mode)
{
	const char *name;
	int dfd, fd;

	if ((dfd = fs_walk(dirfd, rel, mode, &name)) < 0)
		return dfd;
	fd = fs_dir_at(dfd, name, mode);
	if (dfd != dirfd)
		close(dfd);
	return fd;
}

int
fs_open_beneath(int dirfd, const char *rel, int flags)
{
	const char *name;
	struct stat st;
	int dfd, fd = -1, r;

	if ((dfd = fs_walk(dirfd, rel, 0, &name)) < 0)
		return dfd;
	/* looked at before it is opened, since opening a FIFO or a device
	 * may wait or act; and again after, in case it was replaced */
	if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		r = -EINVAL;
	else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = fs_not_regular(st.st_mode);
	/* O_NONBLOCK, which a regular file's reads and writes ignore */
	else if ((fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else
		r = S_ISREG(st.st_mode) ? fd : fs_not_regular(st.st_mode);
	if (r < 0 && fd >= 0)
		close(fd);
	if (dfd != dirfd)
		close(dfd);
	return r;
}

int
fs_opendir_beneath(int dirfd, const char *rel)
{
	return fs_dir_beneath(dirfd, rel, 0);
}

int
fs_mkdirs_beneath(int dirfd, const char *rel, mode_t mode)
{
	return fs_dir_beneath(dirfd, rel, mode);
}

int
fs_open_file(const char *path, int flags)
{
	const char *name;
	int dfd, fd;

	if ((dfd = fs_open_parent(path, &name)) < 0)
		return dfd;
	fd = fs_open_beneath(dfd, name, flags);
	close(dfd);
	return fd;
}

int
fs_read_all(const char *path, struct buf *b)
{
	char chunk[65536];
	ssize_t n;
	int fd, r = 0;

	if ((fd = fs_open_file(path, O_RDONLY)) < 0)
		return fd;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if ((r = buf_append(b, chunk, (size_t)n)) < 0)
			break;
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

int
fs_fsync_parent(const char *path)
{
	const char *name;
	int fd, r = 0;

	if ((fd = fs_open_parent(path, &name)) < 0)
		return fd;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Replaces name in the directory dirfd with data[0..len) through
 * "<name>.tmp" (opened with O_NOFOLLOW), fsyncing the file and, when
 * sync_dir, dirfd. */
static int
fs_replace_at(int dirfd, const char *name, const void *data, size_t len,
    int sync_dir)
{
	char tmp[NAME_MAX + 1];
	int fd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) < 0)
		return -errno;
	r = fs_write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	else if (sync_dir && fsync(dirfd) < 0)
		r = -errno;
	return r;
}

int
fs_write_atomic_at(int dirfd, const char *name, const void *data, size_t len)
{
	return fs_replace_at(dirfd, name, data, len, 1);
}

/* fs_replace_at() of path's last component in its directory. */
static int
fs_replace(const char *path, const void *data, size_t len, int sync_dir)
{
	const char *name;
	int dfd, r;

	if ((dfd = fs_open_parent(path, &name)) < 0)
		return dfd;
	r = fs_replace_at(dfd, name, data, len, sync_dir);
	close(dfd);
	return r;
}

int
fs_write_replace(const char *path, const void *data, size_t len)
{
	return fs_replace(path, data, len, 0);
}

int
fs_write_atomic(const char *path, const void *data, size_t len)
{
	return fs_replace(path, data, len, 1);
}

int
fs_rename_into(const char *from, const char *to)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(to, '/');
	int r;

	if (slash != NULL && slash != to) {
		if ((size_t)(slash - to) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, to, (size_t)(slash - to));
		dir[slash - to] = '\0';
	} else {
		dir[0] = '\0';
	}
	if ((dir[0] != '\0' && (r = fs_mkdirs(dir, 0755)) < 0) ||
	    (r = rename(from, to) < 0 ? -errno : 0) < 0)
		return r;
	return fs_fsync_parent(to);
}

int
fs_rename_durable(const char *from, const char *to)
{
	int r = fs_rename_into(from, to);

	return r < 0 ? r : fs_fsync_parent(from);
}

const char *
fs_strerror(int errnum)
{
	static _Thread_local char text[320];
	struct rlimit rl;

	if (errnum == ELOOP)
		return "a symbolic link is on its path, and kedge follows none "
		    "there";
	if (errnum == ENXIO)
		return "not a regular file (a FIFO, socket or device), which "
		    "kedge does not read";
	if (errnum == ENFILE)
		return "the system's table of open files is full: raise "
		    "fs.file-max, or lower output.roll.max_open_files";
	if (errnum != EMFILE)
		return strerror(errnum);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 0;
	snprintf(text, sizeof(text), "too many open files: kedge may hold "
	    "%llu (RLIMIT_NOFILE: LimitNOFILE= in its unit, ulimit -n); raise "
	    "it or lower output.roll.max_open_files",
	    (unsigned long long)rl.rlim_cur);
	return text;
}
