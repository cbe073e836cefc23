#include "checkpoint/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/crash.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/le.h"

#define MAGIC       "KEDGECKP"
#define MAGIC_LEN   8
#define HEADER_LEN  28  /* magic, version, id, payload length */
#define TRAILER_LEN 4   /* CRC-32 */
#define TMP_NAME    ".checkpoint.tmp"

static const char *const slot_name[2] = { "checkpoint.a", "checkpoint.b" };

struct ckpt_store {
	char *dir;
	int dirfd;
	/* What the disk held at the last read or successful write.  Only this
	 * process writes the slots, so a write trusts it instead of reading
	 * both records back every time; after a failure it is dropped. */
	int known;
	int newest;             /* slot of the newest valid record, -1: none */
	uint64_t newest_id;
};

/* What a scan learned about one slot. */
struct slot {
	enum { SLOT_ABSENT, SLOT_VALID, SLOT_REFUSED } state;
	uint64_t id;
	char why[160];          /* SLOT_REFUSED: the reason, for the note */
};

static void note_add(char *note, size_t notelen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends to the sentence in note, truncating rather than overflowing;
 * note may be NULL. */
static void
note_add(char *note, size_t notelen, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (note == NULL || notelen == 0)
		return;
	used = strnlen(note, notelen - 1);
	va_start(ap, fmt);
	err_vset(note + used, notelen - used, 0, fmt, ap);
	va_end(ap);
}

static void
clear(char *out, size_t outlen)
{
	if (out != NULL && outlen > 0)
		out[0] = '\0';
}

static uint32_t
record_crc(const unsigned char *p, size_t n)
{
	return (uint32_t)crc32_z(crc32_z(0, NULL, 0), p, n);
}

/* Checks that the n bytes at p are exactly one valid record.  Returns 0
 * with the record id in *id, or -1 with the reason in why.  The version is
 * checked before the length and the CRC because only version 1's layout is
 * known here: a newer record must be named as such, not as damage. */
static int
record_check(const unsigned char *p, size_t n, uint64_t *id, char *why,
    size_t whylen)
{
	uint32_t version;
	uint64_t len;

	if (n == 0)
		return err_set(why, whylen, -1, "is empty (a torn write)");
	if (n < HEADER_LEN + TRAILER_LEN)
		return err_set(why, whylen, -1,
		    "is %zu bytes, shorter than any record "
		    "(a torn write)", n);
	if (memcmp(p, MAGIC, MAGIC_LEN) != 0)
		return err_set(why, whylen, -1,
		    "bad magic (not a kedge checkpoint record, "
		    "or damaged)");
	version = le_get32(p + 8);
	if (version != CKPT_STORE_VERSION)
		return err_set(why, whylen, -1,
		    "format version %" PRIu32 " is unknown "
		    "(written by a newer kedge?)", version);
	len = le_get64(p + 20);
	if (len != n - HEADER_LEN - TRAILER_LEN)
		return err_set(why, whylen, -1,
		    "length mismatch: the file is %zu bytes but "
		    "its header claims a %" PRIu64 "-byte payload (a torn or "
		    "damaged write)", n, len);
	if (record_crc(p, n - TRAILER_LEN) != le_get32(p + n - TRAILER_LEN))
		return err_set(why, whylen, -1,
		    "CRC mismatch (a torn or damaged write)");
	/* ids start at 1, and the next write needs one more */
	*id = le_get64(p + 12);
	if (*id == 0 || *id == UINT64_MAX)
		return err_set(why, whylen, -1,
		    "record id %" PRIu64 " is out of range (not "
		    "written by kedge)", *id);
	return 0;
}

#define RECORD_MAX (HEADER_LEN + CKPT_STORE_MAX_PAYLOAD + TRAILER_LEN)

/* Reads all of fd, size bytes as fstat() saw it, into file.  Returns 0,
 * or -errno (-EFBIG when the file grew past any record meanwhile). */
static int
read_all(int fd, size_t size, struct buf *file)
{
	ssize_t n;
	int r;

	/* one byte more than the size, so that EOF shows on the first pass */
	if ((r = buf_reserve(file, size + 1)) < 0)
		return r;
	for (;;) {
		if (file->len == file->cap && (r = buf_reserve(file, 4096)) < 0)
			return r;
		n = read(fd, file->data + file->len, file->cap - file->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		file->len += (size_t)n;
		if (file->len > RECORD_MAX)
			return -EFBIG;
	}
}

/* Loads slot i into file and judges it into *sl.  A slot that cannot be
 * read at all is an error (-errno, sentence in note), not a refusal: it may
 * hold the newest record, and only a person can tell. */
static int
slot_scan(struct ckpt_store *s, int i, struct buf *file, struct slot *sl,
    char *note, size_t notelen)
{
	struct stat st;
	int fd, r = 0;

	memset(sl, 0, sizeof(*sl));
	buf_reset(file);
	/* something other than a file in the slot's place (a FIFO) is
	 * refused, not waited on; a symbolic link, not followed, is a slot
	 * that cannot be read */
	fd = fs_open_beneath(s->dirfd, slot_name[i], O_RDONLY);
	if (fd == -ENOENT) {
		sl->state = SLOT_ABSENT;
		return 0;
	}
	sl->state = SLOT_REFUSED;
	if (fd == -ENXIO || fd == -EISDIR) {
		err_set(sl->why, sizeof(sl->why), 0, "is not a regular file");
		return 0;
	}
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_size > (off_t)RECORD_MAX)
		err_set(sl->why, sizeof(sl->why), 0, "is %jd bytes, larger "
		    "than any record (not a kedge checkpoint record)",
		    (intmax_t)st.st_size);
	else if ((r = read_all(fd, (size_t)st.st_size, file)) == 0 &&
	    record_check((unsigned char *)file->data, file->len, &sl->id,
	    sl->why, sizeof(sl->why)) == 0)
		sl->state = SLOT_VALID;
out:
	if (fd >= 0)
		close(fd);
	if (r < 0)
		err_set(note, notelen, r, "cannot read %s/%s: %s", s->dir,
		    slot_name[i], strerror(-r));
	return r;
}

/* Scans both slots and remembers in s which holds the newest valid record
 * (s->newest, -1 when neither does).  Returns 0, or -errno with a sentence
 * in note. */
static int
store_scan(struct ckpt_store *s, struct buf file[2], struct slot sl[2],
    char *note, size_t notelen)
{
	int r;

	s->known = 0;
	for (int i = 0; i < 2; i++)
		if ((r = slot_scan(s, i, &file[i], &sl[i], note, notelen)) < 0)
			return r;
	s->newest = -1;
	for (int i = 0; i < 2; i++)
		if (sl[i].state == SLOT_VALID &&
		    (s->newest < 0 || sl[i].id > s->newest_id)) {
			s->newest = i;
			s->newest_id = sl[i].id;
		}
	s->known = 1;
	return 0;
}

int
ckpt_store_read(struct ckpt_store *s, struct buf *payload, uint64_t *id,
    char *note, size_t notelen)
{
	struct buf file[2] = { { 0 }, { 0 } };
	struct slot sl[2];
	int best, refused = 0, r;

	clear(note, notelen);
	if ((r = store_scan(s, file, sl, note, notelen)) < 0)
		goto out;
	best = s->newest;
	for (int i = 0; i < 2; i++)
		if (sl[i].state == SLOT_REFUSED)
			note_add(note, notelen, "%s%s/%s: %s",
			    refused++ ? "; " : "", s->dir, slot_name[i],
			    sl[i].why);
	if (best < 0) {
		if (refused)
			note_add(note, notelen, "; no usable record");
		r = -ENOENT;
		goto out;
	}
	if (refused)
		note_add(note, notelen, "; using %s, record %" PRIu64,
		    slot_name[best], sl[best].id);
	buf_reset(payload);
	if ((r = buf_append(payload, file[best].data + HEADER_LEN,
	    file[best].len - HEADER_LEN - TRAILER_LEN)) < 0) {
		err_set(note, notelen, r, "out of memory reading %s/%s", s->dir,
		    slot_name[best]);
		goto out;
	}
	if (id != NULL)
		*id = sl[best].id;
out:
	buf_clear(&file[0]);
	buf_clear(&file[1]);
	return r;
}

static int
write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len > 0) {
		ssize_t n = write(fd, c, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes rec whole into the temp file and fsyncs it.  Returns 0 or -errno
 * with a sentence; on failure the temp file is gone. */
static int
tmp_write(struct ckpt_store *s, const struct buf *rec, char *err,
    size_t errlen)
{
	const char *step = "write";
	int fd, r = 0;

	/* O_TRUNC: a temp file a crash left behind is simply replaced */
	fd = openat(s->dirfd, TMP_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);
	if (fd < 0) {
		r = -errno;
		return err_set(err, errlen, r, "cannot create %s/%s: %s",
		    s->dir, TMP_NAME, strerror(-r));
	}
	/* in two halves, so that a crash test can stop between them */
	if ((r = write_all(fd, rec->data, rec->len / 2)) == 0) {
		crash_point("store-write-mid");
		r = write_all(fd, rec->data + rec->len / 2,
		    rec->len - rec->len / 2);
	}
	if (r == 0) {
		step = "fsync";
		if (fsync(fd) < 0)
			r = -errno;
	}
	/* some file systems (NFS) report a failed write only at close */
	if (close(fd) < 0 && r == 0) {
		step = "close";
		r = -errno;
	}
	if (r < 0) {
		err_set(err, errlen, r, "cannot %s %s/%s: %s", step, s->dir,
		    TMP_NAME, strerror(-r));
		unlinkat(s->dirfd, TMP_NAME, 0);
	}
	return r;
}

int
ckpt_store_write(struct ckpt_store *s, const void *payload, size_t len,
    uint64_t *id, char *err, size_t errlen)
{
	struct buf rec = { 0 };
	unsigned char *p;
	uint64_t next;
	int target, r;

	clear(err, errlen);
	if (len > CKPT_STORE_MAX_PAYLOAD) {
		return err_set(err, errlen, -EFBIG, "checkpoint record for %s "
		    "is %zu bytes, over the %zu-byte limit", s->dir, len,
		    CKPT_STORE_MAX_PAYLOAD);
	}
	if (!s->known) {
		struct buf file[2] = { { 0 }, { 0 } };
		struct slot sl[2];

		r = store_scan(s, file, sl, err, errlen);
		buf_clear(&file[0]);
		buf_clear(&file[1]);
		if (r < 0)
			return r;
	}
	/* never overwrite the newest valid record: a crash from here on must
	 * leave it readable */
	target = s->newest == 0 ? 1 : 0;
	next = s->newest < 0 ? 1 : s->newest_id + 1;

	if ((r = buf_reserve(&rec, HEADER_LEN + len + TRAILER_LEN)) < 0) {
		err_set(err, errlen, r, "out of memory for a checkpoint record "
		    "of %zu bytes", len);
		goto out;
	}
	p = (unsigned char *)rec.data;
	memcpy(p, MAGIC, MAGIC_LEN);
	le_put32(p + 8, CKPT_STORE_VERSION);
	le_put64(p + 12, next);
	le_put64(p + 20, len);
	if (len > 0)
		memcpy(p + HEADER_LEN, payload, len);
	le_put32(p + HEADER_LEN + len, record_crc(p, HEADER_LEN + len));
	rec.len = HEADER_LEN + len + TRAILER_LEN;

	if ((r = tmp_write(s, &rec, err, errlen)) < 0)
		goto out;
	crash_point("store-before-rename");
	if (renameat(s->dirfd, TMP_NAME, s->dirfd, slot_name[target]) < 0) {
		r = -errno;
		err_set(err, errlen, r, "cannot rename %s/%s to %s: %s", s->dir,
		    TMP_NAME, slot_name[target], strerror(-r));
		unlinkat(s->dirfd, TMP_NAME, 0);
		goto out;
	}
	/* the rename is durable only once the directory is */
	if (fsync(s->dirfd) < 0) {
		r = -errno;
		err_set(err, errlen, r, "cannot fsync directory %s: %s", s->dir,
		    strerror(-r));
		goto out;
	}
	s->newest = target;
	s->newest_id = next;
	if (id != NULL)
		*id = next;
out:
	/* after a failure, what the slots hold is for the next scan to say */
	if (r < 0)
		s->known = 0;
	buf_clear(&rec);
	return r;
}

/* Creates path and its missing parents with mode 0700.  path is the
 * store's own copy: it is cut in place at each '/' and restored. */
static int
mkdirs(char *path)
{
	for (char *p = path + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		int r = mkdir(path, 0700) < 0 && errno != EEXIST ? -errno : 0;
		*p = c;
		if (r < 0)
			return r;
		if (c == '\0')
			return 0;
	}
}

struct ckpt_store *
ckpt_store_open(const char *dir, char *err, size_t errlen)
{
	struct ckpt_store *s;
	size_t len;
	int r;

	clear(err, errlen);
	if (dir[0] == '\0') {
		err_set(err, errlen, 0, "the state directory path is empty");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		err_set(err, errlen, 0, "out of memory opening state "
		    "directory %s", dir);
		return NULL;
	}
	s->dirfd = -1;
	if ((s->dir = strdup(dir)) == NULL) {
		err_set(err, errlen, 0, "out of memory opening state "
		    "directory %s", dir);
		goto fail;
	}
	/* trailing slashes would double up in every path we print */
	for (len = strlen(s->dir); len > 1 && s->dir[len - 1] == '/'; len--)
		s->dir[len - 1] = '\0';
	if ((r = mkdirs(s->dir)) < 0) {
		err_set(err, errlen, 0, "cannot create state directory %s: %s",
		    s->dir, strerror(-r));
		goto fail;
	}
	s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0 && errno == ENOTDIR) {
		err_set(err, errlen, 0, "state directory %s is not a directory",
		    s->dir);
		goto fail;
	}
	if (s->dirfd < 0) {
		err_set(err, errlen, 0, "cannot open state directory %s: %s",
		    s->dir, strerror(errno));
		goto fail;
	}
	return s;
fail:
	ckpt_store_close(s);
	return NULL;
}

void
ckpt_store_close(struct ckpt_store *s)
{
	if (s == NULL)
		return;
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->dir);
	free(s);
}
