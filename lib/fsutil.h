/*
 * fsutil: the few file-system steps every durable write needs, and the
 * opening of files in trees that others may write into (the target, the
 * spool): regular files only, through no symbolic link, never blocking.
 */
#ifndef KEDGE_FSUTIL_H
#define KEDGE_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Creates path and its missing parents with mode.  Returns 0 (path is a
 * directory, made now or before), -ENOTDIR when path is something else,
 * or another -errno. */
int fs_mkdirs(const char *path, mode_t mode);
/* Writes all of buf, retrying short writes and EINTR.  Returns 0 or -errno. */
int fs_write_all(int fd, const void *buf, size_t len);
/* Appends the whole file at path, opened with fs_open_file(), to b.
 * Returns 0 or -errno. */
struct buf;
int fs_read_all(const char *path, struct buf *b);
/* fsyncs the directory that holds path (its parent).  Returns 0 or -errno. */
int fs_fsync_parent(const char *path);
/* Replaces the file at path with data[0..len) so that a crash leaves the
 * old file or the new one, never a part: a temporary file in the same
 * directory, written, fsynced, renamed, and the directory fsynced.
 * Returns 0 or -errno. */
int fs_write_atomic(const char *path, const void *data, size_t len);
/* fs_write_atomic() but for the directory's fsync: for a file moved on
 * at once by a rename that makes its name durable where it lands. */
int fs_write_replace(const char *path, const void *data, size_t len);
/* fs_write_atomic() of the file name in the directory dirfd. */
int fs_write_atomic_at(int dirfd, const char *name, const void *data,
    size_t len);

/* Opens rel, a path beneath the directory dirfd, with flags (O_RDONLY or
 * O_WRONLY; O_CLOEXEC is added) when it is a regular file, following a
 * symbolic link in none of rel's components (dirfd itself may have been
 * reached through one), and without blocking: a FIFO, socket or device is
 * refused, not opened.  Returns the descriptor, or -ELOOP when a component
 * is a symbolic link, -EISDIR for a directory, -ENXIO for anything else
 * that is no regular file, -EINVAL for a rel that is absolute, empty or
 * goes up (".."), or another negative errno.  fs_strerror() says what
 * each means.  The one way kedge opens a file in a tree that others may
 * write into: the target, the spool, the checkpoint store. */
int fs_open_beneath(int dirfd, const char *rel, int flags);
/* As fs_open_beneath(), for the directory rel ("" or "." is dirfd's own):
 * returns its descriptor (O_RDONLY | O_DIRECTORY), or -ENOTDIR for
 * anything else. */
int fs_opendir_beneath(int dirfd, const char *rel);
/* Makes the directory rel beneath dirfd with its missing parents (mode),
 * through no symbolic link, and opens it (O_DIRECTORY; "" is dirfd's
 * own).  Returns the descriptor, or -ELOOP for a link on the way,
 * -ENOTDIR for a file, -EINVAL for a rel that is absolute or goes up, or
 * another negative errno. */
int fs_mkdirs_beneath(int dirfd, const char *rel, mode_t mode);
/* fs_open_beneath() of path's last component, in the directory its other
 * components name (they may be symbolic links): for a file of kedge's own
 * directories. */
int fs_open_file(const char *path, int flags);

/* rename(from, to) after creating to's directory, then fsyncs both
 * directories, so the move survives a crash.  Returns 0 or -errno.  (The
 * publisher removes ready/'s emptied directories: moves into ready/ take
 * spool_ready_lock().) */
int fs_rename_durable(const char *from, const char *to);
/* fs_rename_durable() but for the fsync of from's directory: for a move
 * that another, made durable after it, follows out of that directory. */
int fs_rename_into(const char *from, const char *to);

/* strerror(errnum), except that running out of descriptors (EMFILE,
 * ENFILE) says which limit to raise and which key bounds kedge's use of
 * them, and the refusals of fs_open_beneath() (ELOOP, ENXIO) say what was
 * refused.  The text lasts until the thread's next call. */
const char *fs_strerror(int errnum);

#endif /* KEDGE_FSUTIL_H */
