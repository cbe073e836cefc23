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

int
fs_read_all(const char *path, struct buf *b)
{
	char chunk[65536];
	ssize_t n;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
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
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len;
	int fd, r = 0;

	if (slash == NULL)
		return fs_fsync_parent("./.");
	len = slash == path ? 1 : (size_t)(slash - path);
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len);
	dir[len] = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

int
fs_write_replace(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return -errno;
	r = fs_write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int
fs_write_atomic(const char *path, const void *data, size_t len)
{
	int r = fs_write_replace(path, data, len);

	return r < 0 ? r : fs_fsync_parent(path);
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
