#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crash.h"
#include "fsutil.h"
#include "log.h"

#define PUBLISH_BACKOFF_MAX 30 /* seconds between retries, at most */

struct publisher {
	char *ready_dir;
	char *target_dir;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	uint64_t kicks;       /* requests so far */
	uint64_t served;      /* requests seen by a finished pass */
	size_t left;          /* files the last pass could not publish */
	struct publish_stats stats;
};

/* Copies src to dst through a hidden temporary name in dst's directory. */
static int
publish_copy(const char *src, const char *dst)
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

/* Puts one file into the target at rel, unless a copy of the same length
 * is there already.  Returns 0 or -errno. */
static int
publish_one(struct publisher *p, const char *src, const char *rel,
    off_t *size)
{
	char dst[PATH_MAX];
	struct stat ss, ds;
	int r;

	if ((size_t)snprintf(dst, sizeof(dst), "%s/%s", p->target_dir, rel) >=
	    sizeof(dst))
		return -ENAMETOOLONG;
	if (stat(src, &ss) < 0)
		return -errno;
	*size = ss.st_size;
	if (stat(dst, &ds) == 0) {
		if (ds.st_size != ss.st_size) {
			log_errx("publish: %s exists with %lld bytes, the spool's "
			    "copy has %lld; keeping both, resolve by hand", dst,
			    (long long)ds.st_size, (long long)ss.st_size);
			return -EEXIST;
		}
		/* a previous copy got there; only the spool copy is left */
		return unlink(src) < 0 ? -errno : 0;
	}
	r = fs_rename_durable(src, dst);
	if (r == -EXDEV && (r = publish_copy(src, dst)) == 0 && unlink(src) < 0)
		r = -errno;
	return r;
}

/* Moves one ready part file into the target, its sidecar first, so that a
 * part file in the target always has its sidecar.  Returns 0 or -errno. */
static int
publish_file(struct publisher *p, const char *src, const char *rel)
{
	char side_src[PATH_MAX], side_rel[PATH_MAX];
	const char *name = strrchr(rel, '/');
	int dirlen = name ? (int)(name - rel) + 1 : 0;
	off_t size;
	int r;

	name = name ? name + 1 : rel;
	if ((size_t)snprintf(side_rel, sizeof(side_rel), "%.*s.%s.json", dirlen,
	    rel, name) >= sizeof(side_rel) ||
	    (size_t)snprintf(side_src, sizeof(side_src), "%s/%s", p->ready_dir,
	    side_rel) >= sizeof(side_src))
		return -ENAMETOOLONG;
	/* gone when a run before this one moved it and then stopped */
	if (access(side_src, F_OK) == 0 &&
	    (r = publish_one(p, side_src, side_rel, &size)) < 0)
		return r;
	crash_point("publish-mid");
	if ((r = publish_one(p, src, rel, &size)) < 0)
		return r;
	pthread_mutex_lock(&p->lock);
	p->stats.files++;
	p->stats.bytes += (uint64_t)size;
	pthread_mutex_unlock(&p->lock);
	log_debug("publish: %s", rel);
	return 0;
}

/* Publishes every file under ready_dir/rel; returns the number that failed.
 * Directories emptied on the way are removed. */
static size_t
publish_walk(struct publisher *p, const char *rel)
{
	char dir[PATH_MAX], path[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	size_t failed = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s%s%s", p->ready_dir, rel[0] ? "/" : "", rel);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : 1;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		int r;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
		    rel[0] ? "/" : "", de->d_name) >= sizeof(sub) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", p->ready_dir,
		    sub) >= sizeof(path) || lstat(path, &st) < 0) {
			failed++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			failed += publish_walk(p, sub);
			continue;
		}
		if ((r = publish_file(p, path, sub)) < 0) {
			if (r != -EEXIST)
				log_warnx("publish: %s: %s", sub, strerror(-r));
			pthread_mutex_lock(&p->lock);
			p->stats.errors++;
			pthread_mutex_unlock(&p->lock);
			failed++;
		}
	}
	closedir(d);
	if (rel[0] != '\0')
		rmdir(dir); /* fails harmlessly while not empty */
	return failed;
}

static void *
publish_main(void *arg)
{
	struct publisher *p = arg;
	int backoff = 1;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		uint64_t kicks = p->kicks;
		struct timespec until;
		size_t left;

		pthread_mutex_unlock(&p->lock);
		left = publish_walk(p, "");
		pthread_mutex_lock(&p->lock);
		p->left = left;
		p->served = kicks;
		pthread_cond_broadcast(&p->cond);
		backoff = left ? (backoff * 2 > PUBLISH_BACKOFF_MAX ?
		    PUBLISH_BACKOFF_MAX : backoff * 2) : 1;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += backoff;
		while (!p->stop && p->kicks == kicks &&
		    pthread_cond_timedwait(&p->cond, &p->lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void
publisher_free(struct publisher *p)
{
	free(p->ready_dir);
	free(p->target_dir);
	free(p);
}

struct publisher *
publisher_start(const struct conf *c, char *err, size_t errlen)
{
	struct publisher *p;
	int r;

	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    asprintf(&p->ready_dir, "%s/ready", c->output.spool_dir) < 0 ||
	    (p->target_dir = strdup(c->output.local_dir)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if ((r = fs_mkdirs(p->ready_dir, 0755)) < 0 ||
	    (r = fs_mkdirs(p->target_dir, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s or %s: %s", p->ready_dir,
		    p->target_dir, strerror(-r));
		goto fail;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if ((r = pthread_create(&p->thread, NULL, publish_main, p)) != 0) {
		snprintf(err, errlen, "cannot start the publisher: %s", strerror(r));
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		goto fail;
	}
	return p;
fail:
	if (p != NULL)
		publisher_free(p);
	return NULL;
}

void
publisher_kick(struct publisher *p)
{
	pthread_mutex_lock(&p->lock);
	p->kicks++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

size_t
publisher_drain(struct publisher *p, int timeout_s)
{
	struct timespec until;
	uint64_t want;
	size_t left;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_s;
	pthread_mutex_lock(&p->lock);
	want = ++p->kicks;
	pthread_cond_broadcast(&p->cond);
	/* Failed files are retried by the thread on its backoff schedule. */
	while (p->served < want || p->left > 0)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) == ETIMEDOUT)
			break;
	left = p->served < want && p->left == 0 ? 1 : p->left;
	pthread_mutex_unlock(&p->lock);
	return left;
}

void
publisher_stop(struct publisher *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	publisher_free(p);
}

void
publisher_get_stats(struct publisher *p, struct publish_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	pthread_mutex_unlock(&p->lock);
}
