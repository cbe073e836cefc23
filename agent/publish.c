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
#include "target.h"

#define PUBLISH_BACKOFF_MAX 30 /* seconds between retries, at most */

struct publisher {
	char *ready_dir;
	struct target *target;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	uint64_t kicks;       /* requests so far */
	uint64_t served;      /* requests seen by a finished pass */
	size_t left;          /* files the last pass could not publish */
	struct publish_stats stats;
};

/* Puts one spool file into the target at rel, then removes it from the
 * spool.  Returns 0 or -errno (logged). */
static int
publish_one(struct publisher *p, const char *src, const char *rel,
    off_t *size)
{
	char err[1024];
	struct stat st;
	int r;

	if (stat(src, &st) < 0)
		return -errno;
	*size = st.st_size;
	if ((r = target_put(p->target, src, rel, err, sizeof(err))) < 0) {
		if (r == -EEXIST)
			log_errx("publish: %s", err);
		else
			log_warnx("publish: %s", err);
		return r;
	}
	return unlink(src) < 0 ? -errno : 0;
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
		if (publish_file(p, path, sub) < 0) { /* it said why */
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
	target_close(p->target);
	free(p->ready_dir);
	free(p);
}

struct publisher *
publisher_start(const struct conf *c, char *err, size_t errlen)
{
	struct publisher *p;
	int r;

	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    asprintf(&p->ready_dir, "%s/ready", c->output.spool_dir) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if ((r = fs_mkdirs(p->ready_dir, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", p->ready_dir,
		    strerror(-r));
		goto fail;
	}
	if ((p->target = target_open(c, err, errlen)) == NULL)
		goto fail;
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
