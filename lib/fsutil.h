/*
 * fsutil: the few file-system steps every durable write needs.
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
/* Appends the whole file at path to b.  Returns 0 or -errno. */
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
 * them.  The text lasts until the thread's next call. */
const char *fs_strerror(int errnum);

#endif /* KEDGE_FSUTIL_H */
