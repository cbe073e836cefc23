#include "agent/write/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "agent/parquet/rowlog.h"
#include "agent/write/journal.h"
#include "agent/write/spoolcount.h"
#include "lib/crash.h"
#include "lib/err.h"
#include "lib/fsutil.h"

/* The PID written in the lock file fd, or 0 when it holds none yet. */
static long
spool_lock_holder(int fd)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	char *end;
	long pid;

	if (n <= 0)
		return 0;
	text[n] = '\0';
	pid = strtol(text, &end, 10);
	return end != text && (*end == '\n' || *end == '\0') && pid > 0 ?
	    pid : 0;
}

int
spool_lock(const char *spool_dir, char *err, size_t errlen)
{
	char path[PATH_MAX], pid[32];
	long holder;
	int fd, r, n;

	if ((r = fs_mkdirs(spool_dir, 0755)) < 0)
		return err_set(err, errlen, r, "cannot create %s: %s", spool_dir,
		    fs_strerror(-r));
	if ((size_t)snprintf(path, sizeof(path), "%s/" SPOOL_LOCK_FILE,
	    spool_dir) >= sizeof(path))
		return err_set(err, errlen, -ENAMETOOLONG, "%s: path too long",
		    spool_dir);
	/* CLOEXEC: a command kedge runs must not hold the lock past it */
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0644)) < 0)
		return err_set(err, errlen, -errno, "cannot open %s: %s", path,
		    strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		holder = r == -EBUSY ? spool_lock_holder(fd) : 0;
		close(fd);
		if (r != -EBUSY)
			return err_set(err, errlen, r, "cannot lock %s: %s", path,
			    strerror(-r));
		if (holder > 0)
			return err_set(err, errlen, r, "another kedge (PID %ld) "
			    "runs on the spool %s (it holds %s): stop it first, "
			    "or give this one an output.spool_dir of its own",
			    holder, spool_dir, path);
		return err_set(err, errlen, r, "another kedge runs on the "
		    "spool %s (it holds %s): stop it first, or give this one an "
		    "output.spool_dir of its own", spool_dir, path);
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		r = -errno;
		close(fd);
		return err_set(err, errlen, r, "cannot write %s: %s", path,
		    strerror(-r));
	}
	return fd;
}

/* Removes suffix from the end of s when it is there; returns 1 if it was. */
static int
spool_strip(char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n <= m || strcmp(s + n - m, suffix) != 0)
		return 0;
	s[n - m] = '\0';
	return 1;
}

/* Reads the whole of s as journal_decimal() does, a number of at most
 * max: the one spelling the writer gives it, so that the name is the one
 * `kedge verify` expects of the sidecar.  Returns 0 or -EINVAL. */
static int
spool_number(const char *s, int64_t max, int64_t *out)
{
	uint64_t v;

	if (journal_decimal(&s, s + strlen(s), (uint64_t)max, &v) < 0 ||
	    *s != '\0')
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

int
spool_name_parse(const char *name, struct spool_name *out)
{
	char buf[NAME_MAX + 1], *p, *q, *end;
	int64_t partition;

	if (strlen(name) >= sizeof(buf) || name[0] == '.')
		return -EINVAL;
	strcpy(buf, name);
	out->rows = spool_strip(buf, ".parquet" SPOOL_ROWS_EXT);
	out->codec = out->rows ? "none" : spool_strip(buf, ".gz") ? "gzip" :
	    spool_strip(buf, ".zst") ? "zstd" : "none";
	if (out->rows || (strcmp(out->codec, "none") == 0 &&
	    spool_strip(buf, ".parquet")))
		out->format = "parquet";
	else if (spool_strip(buf, ".txt"))
		out->format = "hive-text";
	else if (spool_strip(buf, ".jsonl"))
		out->format = "jsonl";
	else
		return -EINVAL;
	/* topic+partition+first+host: no '+' in topics or hosts */
	if ((p = strchr(buf, '+')) == NULL || (q = strchr(p + 1, '+')) == NULL ||
	    (end = strchr(q + 1, '+')) == NULL || strchr(end + 1, '+') != NULL)
		return -EINVAL;
	*p = *q = *end = '\0';
	if ((size_t)(p - buf) >= sizeof(out->topic) || buf[0] == '\0' ||
	    end[1] == '\0' || strlen(end + 1) >= sizeof(out->host))
		return -EINVAL;
	strcpy(out->topic, buf);
	strcpy(out->host, end + 1);
	if (spool_number(p + 1, INT32_MAX, &partition) < 0 ||
	    spool_number(q + 1, INT64_MAX, &out->first_offset) < 0)
		return -EINVAL;
	out->partition = (int32_t)partition;
	return 0;
}

/* The size of the file at path; 0 when there is none. */
static int64_t
spool_size(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Removes the file at path from the spool, and its bytes from the count. */
static void
spool_remove(const char *spool_dir, const char *path)
{
	int64_t size = spool_size(path);

	if (unlink(path) == 0)
		spoolcount_grow(spool_dir, -size);
}

/* Cuts the file at path to len bytes and makes that durable.  A file of
 * len bytes already is durable as it is: a journal records a length only
 * after the file's fsync (part_sync() comes before journal_seal()), so a
 * second fsync here would only cost one per landed file. */
static int
spool_cut(const char *spool_dir, const char *path, uint64_t len, char *err,
    size_t errlen)
{
	struct stat st;
	int fd, r = 0;

	/* a link in the file's place is not followed: it would cut another */
	if ((fd = fs_open_file(path, O_WRONLY)) < 0) {
		r = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto close;
	}
	if ((uint64_t)st.st_size < len) {
		snprintf(err, errlen, "%s holds %lld bytes, fewer than the %" PRIu64
		    " its checkpoint recorded", path, (long long)st.st_size, len);
		r = -EIO;
		goto close;
	}
	if ((uint64_t)st.st_size > len) {
		if (ftruncate(fd, (off_t)len) < 0) {
			r = -errno;
			goto close;
		}
		spoolcount_grow(spool_dir, (int64_t)len - (int64_t)st.st_size);
		if (fsync(fd) < 0)
			r = -errno;
	}
close:
	close(fd);
out:
	if (r < 0 && r != -EIO)
		snprintf(err, errlen, "cannot cut %s back: %s", path,
		    fs_strerror(-r));
	return r;
}

struct spool_hash {
	unsigned kinds;
	uint32_t crc;
	EVP_MD_CTX *sha;    /* SPOOL_SHA256 only */
	uint64_t len;
	int failed;
};

struct spool_hash *
spool_hash_new(unsigned kinds)
{
	struct spool_hash *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->kinds = kinds;
	if ((kinds & SPOOL_SHA256) && ((h->sha = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(h->sha, EVP_sha256(), NULL) != 1)) {
		spool_hash_free(h);
		return NULL;
	}
	return h;
}

void
spool_hash_update(struct spool_hash *h, const void *data, size_t len)
{
	if (h->kinds & SPOOL_CRC32C)
		h->crc = crc32c_update(h->crc, data, len);
	if (h->sha != NULL && EVP_DigestUpdate(h->sha, data, len) != 1)
		h->failed = 1;
	h->len += len;
}

int
spool_hash_done(struct spool_hash *h, struct spool_digest *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	memset(out, 0, sizeof(*out));
	if (h->failed || (h->sha != NULL &&
	    (EVP_DigestFinal_ex(h->sha, md, &mdlen) != 1 ||
	    2 * mdlen >= sizeof(out->sha256))))
		return -ENOMEM;
	if (h->kinds & SPOOL_CRC32C)
		crc32c_format(h->crc, out->crc32c);
	for (unsigned int i = 0; i < mdlen; i++)
		snprintf(out->sha256 + 2 * i, 3, "%02x", md[i]);
	out->len = h->len;
	return 0;
}

void
spool_hash_free(struct spool_hash *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->sha);
	free(h);
}

/* The CRC-32C of the file at path, read whole. */
static int
spool_crc32c(const char *path, struct spool_digest *out, char *err,
    size_t errlen)
{
	unsigned char chunk[65536];
	struct spool_hash *h;
	ssize_t n = 0;
	int fd, r = 0;

	if ((fd = fs_open_file(path, O_RDONLY)) < 0) {
		return err_set(err, errlen, fd, "cannot read %s: %s", path,
		    fs_strerror(-fd));
	}
	if ((h = spool_hash_new(SPOOL_CRC32C)) == NULL)
		r = -ENOMEM;
	while (r == 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
		spool_hash_update(h, chunk, (size_t)n);
	if (r == 0 && n < 0)
		r = -errno;
	if (r == 0)
		r = spool_hash_done(h, out);
	spool_hash_free(h);
	close(fd);
	if (r < 0)
		snprintf(err, errlen, "cannot hash %s: %s", path,
		    fs_strerror(-r));
	return r;
}

static pthread_mutex_t spool_ready_mutex = PTHREAD_MUTEX_INITIALIZER;

void
spool_ready_lock(void)
{
	pthread_mutex_lock(&spool_ready_mutex);
}

void
spool_ready_unlock(void)
{
	pthread_mutex_unlock(&spool_ready_mutex);
}

/* Where a Parquet file goes while it is written, and its CRC-32C. */
struct spool_sink {
	int fd;
	struct spool_hash *hash;
};

static int
spool_sink_write(void *arg, const void *p, size_t len)
{
	struct spool_sink *s = arg;
	int r;

	crash_point("convert-mid");
	if ((r = fs_write_all(s->fd, p, len)) == 0)
		spool_hash_update(s->hash, p, len);
	return r;
}

/* Converts the log at path, cut back to st->len bytes, into the Parquet
 * file tmp, durably: *digest gets its length and CRC-32C and *codec the
 * name of its pages' codec. */
static int
spool_convert(const char *path, const char *tmp, const struct journal_state *st,
    const struct journal_file_info *info, struct spool_digest *digest,
    const char **codec, char *err, size_t errlen)
{
	char partition[16], first[24], last[24];
	struct spool_sink sink = { -1, NULL };
	enum pq_codec pc = PQ_UNCOMPRESSED;
	int64_t last_offset = info->first_offset;
	uint64_t rows;
	int r;

	if ((r = journal_span(st, &last_offset)) < 0) {
		return err_set(err, errlen, r, "%s: its journal is damaged",
		    path);
	}
	snprintf(partition, sizeof(partition), "%" PRId32, info->partition);
	snprintf(first, sizeof(first), "%" PRId64, info->first_offset);
	snprintf(last, sizeof(last), "%" PRId64, last_offset);
	const char *kv[] = { "kedge.version", KEDGE_VERSION, "kedge.table",
	    info->table, "kedge.topic", info->topic, "kedge.partition",
	    partition, "kedge.first_offset", first, "kedge.last_offset", last };

	if ((sink.hash = spool_hash_new(SPOOL_CRC32C)) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if ((sink.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", tmp,
		    fs_strerror(errno));
		goto out;
	}
	if ((r = rowlog_convert(path, st->len, kv, sizeof(kv) / sizeof(kv[0]) /
	    2, spool_sink_write, &sink, &rows, &pc, err, errlen)) < 0)
		goto out;
	if (rows != st->rows) {
		snprintf(err, errlen, "%s holds %" PRIu64 " rows, not the %"
		    PRIu64 " its checkpoint recorded", path, rows, st->rows);
		r = -EIO;
		goto out;
	}
	if (fsync(sink.fd) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot fsync %s: %s", tmp,
		    fs_strerror(errno));
		goto out;
	}
	if ((r = spool_hash_done(sink.hash, digest)) < 0)
		snprintf(err, errlen, "cannot hash %s: out of memory", tmp);
	*codec = codec_kind_name(pq_codec_kind(pc));
out:
	if (sink.fd >= 0)
		close(sink.fd);
	spool_hash_free(sink.hash);
	if (r < 0)
		unlink(tmp);
	return r;
}

/* Moves the sidecar and then the part file from into ready/, counting the
 * part file there before it can be seen (the publisher counts it out), and
 * uncounting it when it did not go; the bytes stay in the spool.  The
 * names in ready/ are new while the spool is counted: only recovery, which
 * comes before the count starts, moves a file onto one (a Parquet file
 * converted again). */
static int
spool_move(const char *spool_dir, const char *sidecar,
    const char *ready_sidecar, const char *from, const char *ready)
{
	struct stat st;
	int r;

	spool_ready_lock();
	/* the sidecar's name in ready/ is durable before the part file can
	 * be there; its old name's removal from open/ rides on the part
	 * file's move (were both left after a crash, recovery writes it again
	 * and moves it onto the one in ready/) */
	if ((r = fs_rename_into(sidecar, ready_sidecar)) == 0 &&
	    (r = lstat(from, &st) < 0 ? -errno : 0) == 0) {
		spoolcount_ready(spool_dir, st.st_mtime, 1);
		/* an error after the rename leaves the file moved */
		if ((r = fs_rename_durable(from, ready)) < 0 &&
		    access(from, F_OK) == 0)
			spoolcount_ready(spool_dir, st.st_mtime, -1);
	}
	spool_ready_unlock();
	return r;
}

int
spool_finalize(const char *spool_dir, const char *rel, uint64_t upto,
    const struct spool_digest *known, char *err, size_t errlen)
{
	char data[PATH_MAX], journal[PATH_MAX], sidecar[PATH_MAX], tmp[PATH_MAX];
	char ready[PATH_MAX], ready_sidecar[PATH_MAX], *table = NULL;
	char final[NAME_MAX + 1], jname[PATH_MAX];
	struct spool_digest digest;
	const char *name = strrchr(rel, '/'), *slash = strchr(rel, '/');
	int dirlen = name ? (int)(name - rel) : 0;
	struct journal_file_info info;
	struct journal_state st;
	struct spool_name sn;
	int64_t size;
	int r;

	name = name ? name + 1 : rel;
	if (spool_name_parse(name, &sn) < 0 || slash == NULL) {
		return err_set(err, errlen, -EINVAL,
		    "%s/open/%s is not a part file", spool_dir, rel);
	}
	/* the name in ready/: a log's is its Parquet file's */
	snprintf(final, sizeof(final), "%.*s", (int)(strlen(name) -
	    (sn.rows ? strlen(SPOOL_ROWS_EXT) : 0)), name);
	if ((size_t)snprintf(data, sizeof(data), "%s/open/%s", spool_dir, rel) >=
	    sizeof(data) ||
	    (size_t)journal_name(jname, sizeof(jname), name) >= sizeof(jname) ||
	    (size_t)snprintf(journal, sizeof(journal), "%s/open/%.*s/%s",
	    spool_dir, dirlen, rel, jname) >= sizeof(journal) ||
	    (size_t)snprintf(sidecar, sizeof(sidecar), "%s/open/%.*s/.%s.json",
	    spool_dir, dirlen, rel, final) >= sizeof(sidecar) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/open/%.*s/.%s.tmp",
	    spool_dir, dirlen, rel, final) >= sizeof(tmp) ||
	    (size_t)snprintf(ready, sizeof(ready), "%s/ready/%.*s/%s", spool_dir,
	    dirlen, rel, final) >= sizeof(ready) ||
	    (size_t)snprintf(ready_sidecar, sizeof(ready_sidecar),
	    "%s/ready/%.*s/.%s.json", spool_dir, dirlen, rel, final) >=
	    sizeof(ready_sidecar)) {
		return err_set(err, errlen, -ENAMETOOLONG,
		    "%s/open/%s: path too long", spool_dir, rel);
	}
	memset(&st, 0, sizeof(st));
	if ((table = strndup(rel, (size_t)(slash - rel))) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if (access(journal, F_OK) == 0 &&
	    (r = journal_read(journal, upto, &st, err, errlen)) < 0)
		goto out;
	if (!st.found) {
		/* nothing in it was ever decided: its records are read again */
		spool_remove(spool_dir, data);
		spool_remove(spool_dir, journal);
		r = 0;
		goto out;
	}
	info = (struct journal_file_info){ table, sn.topic, sn.partition,
	    sn.host, sn.first_offset, sn.format, sn.codec, digest.crc32c, 0 };
	if ((r = spool_cut(spool_dir, data, st.len, err, errlen)) < 0)
		goto out;
	/* the writer's digest holds when the file is kept whole; a file cut
	 * back is read again */
	if (sn.rows) {
		size = spool_size(tmp);
		r = spool_convert(data, tmp, &st, &info, &digest, &info.codec, err,
		    errlen);
		spoolcount_grow(spool_dir, spool_size(tmp) - size);
		if (r < 0)
			goto out;
		info.bytes = digest.len;
	} else if (known != NULL && known->len == st.len) {
		digest = *known;
	} else if ((r = spool_crc32c(data, &digest, err, errlen)) < 0) {
		goto out;
	}
	size = spool_size(sidecar);
	r = journal_write_sidecar(&st, &info, sidecar, err, errlen);
	spoolcount_grow(spool_dir, spool_size(sidecar) - size);
	if (r < 0)
		goto out;
	if ((r = spool_move(spool_dir, sidecar, ready_sidecar, sn.rows ? tmp :
	    data, ready)) < 0) {
		/* which one is missing says where to look */
		snprintf(err, errlen, "cannot move %s to %s/ready: %s (%s)", data,
		    spool_dir, fs_strerror(-r), access(sidecar, F_OK) == 0 ?
		    "its sidecar is still in open/" : access(data, F_OK) != 0 ?
		    "the part file is gone" : "ready/ kept vanishing");
		goto out;
	}
	if (sn.rows) {
		crash_point("convert-ready");
		spool_remove(spool_dir, data);
	}
	spool_remove(spool_dir, journal);
	r = 1;
out:
	journal_state_clear(&st);
	free(table);
	return r;
}

struct spool_walk {
	const char *spool_dir;
	spool_decide_fn *decide;
	void *arg;
	struct spool_recovery *out;
	int hidden;            /* second pass: remove what is left */
	void (*list)(const char *topic, int32_t partition, void *arg);
	char *err;
	size_t errlen;
};

static int
spool_walk_dir(struct spool_walk *sw, const char *rel)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	snprintf(dir, sizeof(dir), "%s/open%s%s", sw->spool_dir, rel[0] ? "/" : "",
	    rel);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && (de = readdir(d)) != NULL) {
		struct spool_name sn;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
		    rel[0] ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			r = spool_walk_dir(sw, sub);
		} else if (sw->hidden) {
			if (unlinkat(dirfd(d), de->d_name, 0) == 0)
				spoolcount_grow(sw->spool_dir,
				    -(int64_t)st.st_size);
		} else if (sw->list != NULL) {
			if (spool_name_parse(de->d_name, &sn) == 0)
				sw->list(sn.topic, sn.partition, sw->arg);
		} else if (spool_name_parse(de->d_name, &sn) == 0) {
			r = spool_finalize(sw->spool_dir, sub,
			    sw->decide(sn.topic, sn.partition, sw->arg), NULL,
			    sw->err, sw->errlen);
			if (r == 1)
				sw->out->kept++;
			else if (r == 0)
				sw->out->deleted++;
		}
	}
	closedir(d);
	if (r == 0 && sw->hidden && rel[0] != '\0')
		rmdir(dir);
	return r < 0 ? r : 0;
}

int
spool_list(const char *spool_dir,
    void (*fn)(const char *topic, int32_t partition, void *arg), void *arg)
{
	struct spool_walk sw = { spool_dir, NULL, arg, NULL, 0, fn, NULL, 0 };

	return spool_walk_dir(&sw, "");
}

int
spool_recover(const char *spool_dir, spool_decide_fn *decide, void *arg,
    struct spool_recovery *out, char *err, size_t errlen)
{
	struct spool_walk sw = { spool_dir, decide, arg, out, 0, NULL, err,
	    errlen };
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = spool_walk_dir(&sw, "")) < 0) {
		if (err[0] == '\0')
			snprintf(err, errlen, "cannot read %s/open: %s", spool_dir,
			    fs_strerror(-r));
		return r;
	}
	sw.hidden = 1;
	return spool_walk_dir(&sw, "");
}

/* What spool_usage() adds to as it walks. */
struct spool_measure {
	struct spool_usage *u;
	void (*ready)(time_t mtime, void *arg);
	void *arg;
};

/* Adds what is under dir to m; ready says whether it is under ready/. */
static void
spool_usage_dir(const char *dir, int ready, struct spool_measure *m)
{
	struct spool_usage *u = m->u;
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir,
			    de->d_name) < sizeof(sub))
				spool_usage_dir(sub, ready, m);
			continue;
		}
		u->bytes += (uint64_t)st.st_size;
		if (!ready || de->d_name[0] == '.')
			continue;
		u->ready_files++;
		if (u->oldest_ready == 0 || st.st_mtime < u->oldest_ready)
			u->oldest_ready = st.st_mtime;
		if (m->ready != NULL)
			m->ready(st.st_mtime, m->arg);
	}
	closedir(d);
}

int
spool_free(const char *spool_dir, uint64_t *out)
{
	struct statvfs vfs;

	if (statvfs(spool_dir, &vfs) < 0)
		return -errno;
	*out = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	return 0;
}

int
spool_usage(const char *spool_dir, struct spool_usage *out,
    void (*ready)(time_t mtime, void *arg), void *arg)
{
	struct spool_measure m = { out, ready, arg };
	char dir[PATH_MAX];
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = spool_free(spool_dir, &out->free_bytes)) < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/open", spool_dir);
	spool_usage_dir(dir, 0, &m);
	snprintf(dir, sizeof(dir), "%s/ready", spool_dir);
	spool_usage_dir(dir, 1, &m);
	return 0;
}
