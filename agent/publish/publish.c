#include "agent/publish/publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/complete/complete.h"
#include "agent/complete/oncomplete.h"
#include "agent/target/target.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "agent/write/spoolcount.h"
#include "lib/buf.h"
#include "lib/crash.h"
#include "lib/fsutil.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "lib/thread.h"

#define PUBLISH_BACKOFF_MAX 30 /* seconds between retries, at most */
#define PUBLISH_STOP_GRACE_S 5 /* for the file or hour in hand, at a stop */

/* A partition just assigned, whose hours are to be held (complete_hold()). */
struct publish_hold {
	char *topic;
	int32_t partition;
};

struct publisher {
	char *spool_dir;
	char *ready_dir;
	struct target *target;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int stop;      /* set: the thread ends its pass after the file
	                       * or the hour in hand */
	atomic_int cancel;    /* set: the target abandons its requests
	                       * (target_set_cancel()) */
	int go;               /* the thread may start its passes */
	uint64_t kicks;       /* requests so far */
	uint64_t served;      /* requests seen by a finished pass */
	size_t left;          /* files the last pass could not publish */
	struct publish_stats stats;
	struct completer *cp; /* only this thread uses it */
	struct complete_figures *figures; /* per table: cp's, copied under
	                       * lock after each completion */
	size_t ntables;
	struct oncomplete *oc; /* NULL: no output.on_complete */
	const struct conf *c;
	struct publish_hold *holds; /* partitions assigned, not held yet */
	size_t nholds, holds_cap;
	struct complete_view view;  /* handed over, not taken yet */
	int has_view;
	uint64_t view_kick;   /* the request that came with it */
	unsigned seed;        /* of the retries' jitter */
};

/* Puts one spool file into the target at rel, then removes it from the
 * spool and its bytes from the count; *st is what it was.  Returns 0 or
 * -errno (logged). */
static int
publish_one(struct publisher *p, const char *src, const char *rel,
    struct stat *st)
{
	char err[1024];
	int r;

	if (stat(src, st) < 0)
		return -errno;
	if ((r = target_put(p->target, src, rel, err, sizeof(err))) ==
	    -ECANCELED)
		return r; /* the publisher is stopping: no failure */
	if (r < 0) {
		/* every failure but a final name taken is retried: say so
		 * where the target's sentence does not */
		if (r != -EEXIST && strstr(err, "kedge retries") == NULL) {
			size_t n = strlen(err);
			snprintf(err + n, sizeof(err) - n, "; kedge retries");
		}
		pthread_mutex_lock(&p->lock);
		snprintf(p->stats.last_error, sizeof(p->stats.last_error), "%s",
		    err);
		memcpy(p->stats.last_failure, p->stats.last_error,
		    sizeof(p->stats.last_failure));
		p->stats.last_failure_at = time(NULL);
		pthread_mutex_unlock(&p->lock);
		if (r == -EEXIST)
			log_errx("publish: %s", err);
		else
			log_warnx("publish: %s", err);
		return r;
	}
	if (unlink(src) < 0)
		return -errno;
	spoolcount_grow(p->spool_dir, -(int64_t)st->st_size);
	return 0;
}

/* Reads the sidecar at path into sc; one that cannot be read leaves sc
 * empty: it only costs the completion the file's event times. */
static void
publish_read_sidecar(const char *path, struct sidecar *sc)
{
	struct buf b = { 0 };
	char why[256];

	if (fs_read_all(path, &b) < 0 ||
	    sidecar_parse(b.data, b.len, sc, why, sizeof(why)) < 0)
		sidecar_clear(sc);
	buf_clear(&b);
}

/* Moves one ready part file into the target, its sidecar first, so that a
 * part file in the target always has its sidecar.  Returns 0 or -errno. */
static int
publish_file(struct publisher *p, const char *src, const char *rel)
{
	char side_src[PATH_MAX], side_rel[PATH_MAX];
	const char *name = strrchr(rel, '/');
	int dirlen = name ? (int)(name - rel) + 1 : 0;
	struct sidecar sc = { 0 };
	struct stat st;
	int r;

	name = name ? name + 1 : rel;
	if ((size_t)snprintf(side_rel, sizeof(side_rel), "%.*s.%s.json", dirlen,
	    rel, name) >= sizeof(side_rel) ||
	    (size_t)snprintf(side_src, sizeof(side_src), "%s/%s", p->ready_dir,
	    side_rel) >= sizeof(side_src))
		return -ENAMETOOLONG;
	/* gone when a run before this one moved it and then stopped */
	if (access(side_src, F_OK) == 0) {
		publish_read_sidecar(side_src, &sc);
		if ((r = publish_one(p, side_src, side_rel, &st)) < 0)
			goto out;
	}
	crash_point("publish-mid");
	if ((r = publish_one(p, src, rel, &st)) < 0)
		goto out;
	spoolcount_ready(p->spool_dir, st.st_mtime, -1);
	complete_published(p->cp, rel, &sc);
	pthread_mutex_lock(&p->lock);
	p->stats.files++;
	p->stats.bytes += (uint64_t)st.st_size;
	pthread_mutex_unlock(&p->lock);
	log_debug("publish: %s", rel);
out:
	sidecar_clear(&sc);
	return r;
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
	while (!atomic_load(&p->stop) && (de = readdir(d)) != NULL) {
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
		if (publish_file(p, path, sub) < 0 && !atomic_load(&p->stop)) {
			/* it said why */
			pthread_mutex_lock(&p->lock);
			p->stats.errors++;
			pthread_mutex_unlock(&p->lock);
			failed++;
		}
	}
	closedir(d);
	if (rel[0] != '\0') {
		spool_ready_lock();
		rmdir(dir); /* fails harmlessly while not empty */
		spool_ready_unlock();
	}
	return failed;
}

/* Holds the hours of the partitions assigned since the last pass, before
 * any of their files is published: a pass takes the list under the lock,
 * then writes without it.  Those a stop leaves are put back, for the
 * publisher that replaces this one. */
static void
publish_holds(struct publisher *p)
{
	struct publish_hold *holds;
	char err[1024];
	size_t i, n;

	pthread_mutex_lock(&p->lock);
	holds = p->holds;
	n = p->nholds;
	p->holds = NULL;
	p->nholds = p->holds_cap = 0;
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < n && !atomic_load(&p->stop); i++) {
		if (complete_hold(p->target, p->c, holds[i].topic,
		    holds[i].partition, err, sizeof(err)) < 0) {
			if (atomic_load(&p->stop))
				break; /* cut short: it goes back too */
			log_warnx("complete: %s; hours wait for this host's "
			    "progress", err);
		}
		free(holds[i].topic);
	}
	for (; i < n; i++) {
		publisher_hold(p, holds[i].topic, holds[i].partition);
		free(holds[i].topic);
	}
	free(holds);
}

/* Writes the progress files and completes the hours it can. */
static void
publish_complete(struct publisher *p)
{
	char err[1024];
	int n;

	if ((n = complete_run(p->cp, p->target, time(NULL), err,
	    sizeof(err))) < 0 && !atomic_load(&p->stop))
		log_warnx("complete: %s; trying again after the next checkpoint",
		    err);
	else if (n > 0)
		log_info("complete: %d hour(s) got a new manifest", n);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->ntables; i++)
		complete_get_figures(p->cp, i, &p->figures[i]);
	pthread_mutex_unlock(&p->lock);
}

static void *
publish_main(void *arg)
{
	struct publisher *p = arg;
	int backoff = 1, waited = 1;

	pthread_mutex_lock(&p->lock);
	while (!p->go && !atomic_load(&p->stop))
		pthread_cond_wait(&p->cond, &p->lock);
	while (!atomic_load(&p->stop)) {
		uint64_t kicks = p->kicks;
		struct timespec until;
		int complete = 0;
		size_t left;

		pthread_mutex_unlock(&p->lock);
		publish_holds(p);
		left = publish_walk(p, "");
		pthread_mutex_lock(&p->lock);
		if (atomic_load(&p->stop))
			break; /* a pass cut short counts for nothing */
		if (left == 0)
			p->stats.last_error[0] = '\0';
		/* everything the view's checkpoint released is in the target */
		if (left == 0 && p->has_view && kicks >= p->view_kick) {
			complete_set_view(p->cp, &p->view);
			p->has_view = 0;
			complete = 1;
		}
		pthread_mutex_unlock(&p->lock);
		if (complete)
			publish_complete(p);
		pthread_mutex_lock(&p->lock);
		/* served once the hours it completes are written too */
		p->left = left;
		p->served = kicks;
		pthread_cond_broadcast(&p->cond);
		/* a pass a new request started early does not count: only one
		 * that waited the whole backoff and failed again doubles it */
		if (!left)
			backoff = 1;
		else if (waited)
			backoff = backoff * 2 > PUBLISH_BACKOFF_MAX ?
			    PUBLISH_BACKOFF_MAX : backoff * 2;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += backoff;
		if (left) /* up to a quarter more, so hosts do not retry in step */
			until.tv_nsec += (long)(rand_r(&p->seed) % 250) * backoff *
			    1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		waited = 0;
		while (!atomic_load(&p->stop) && p->kicks == kicks && !waited)
			waited = pthread_cond_timedwait(&p->cond, &p->lock,
			    &until) == ETIMEDOUT;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void
publisher_free(struct publisher *p)
{
	for (size_t i = 0; i < p->nholds; i++)
		free(p->holds[i].topic);
	free(p->holds);
	oncomplete_stop(p->oc);
	target_close(p->target);
	complete_free(p->cp);
	complete_view_clear(&p->view);
	free(p->figures);
	free(p->spool_dir);
	free(p->ready_dir);
	free(p);
}

struct publisher *
publisher_prepare(const struct conf *c, const struct publisher *running,
    char *err, size_t errlen)
{
	struct publisher *p;
	char warning[1024];
	int r;

	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->figures = calloc(c->n_tables ? c->n_tables : 1,
	    sizeof(*p->figures))) == NULL ||
	    (p->c = c, p->spool_dir = strdup(c->output.spool_dir)) == NULL ||
	    asprintf(&p->ready_dir, "%s/ready", c->output.spool_dir) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if ((r = fs_mkdirs(p->ready_dir, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", p->ready_dir,
		    strerror(-r));
		goto fail;
	}
	if ((p->target = target_open(c, err, errlen)) == NULL ||
	    (p->cp = complete_new(c, err, errlen)) == NULL)
		goto fail;
	p->ntables = c->n_tables;
	for (size_t i = 0; i < p->ntables; i++)
		complete_get_figures(p->cp, i, &p->figures[i]);
	if (c->output.on_complete.n > 0) {
		if ((p->oc = oncomplete_start(c, err, errlen)) == NULL)
			goto fail;
		complete_set_oncomplete(p->cp, p->oc);
		/* else the running one's records come at publisher_replace() */
		if ((running == NULL || running->oc == NULL) &&
		    oncomplete_load(p->oc) < 0) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if (target_warning(c, warning, sizeof(warning)))
		log_warnx("%s", warning);
	p->seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	atomic_init(&p->stop, 0);
	atomic_init(&p->cancel, 0);
	target_set_cancel(p->target, &p->cancel);
	complete_set_stop(p->cp, &p->stop);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if ((r = thread_start(&p->thread, publish_main, p)) != 0) {
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

/* Stops and joins the thread: the pass ends after the file or the hour
 * in hand (so that a manifest does not stay without its _SUCCESS), or,
 * should that take PUBLISH_STOP_GRACE_S, once the target has abandoned the
 * request in flight.  p is left to free. */
static void
publisher_join(struct publisher *p)
{
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, 1);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += PUBLISH_STOP_GRACE_S;
	if (pthread_timedjoin_np(p->thread, NULL, &until) != 0) {
		atomic_store(&p->cancel, 1);
		pthread_join(p->thread, NULL);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

void
publisher_replace(struct publisher *p, struct publisher *running)
{
	if (running != NULL) {
		publisher_join(running);
		if (p->oc != NULL && running->oc != NULL) {
			oncomplete_handover(p->oc, running->oc);
			running->oc = NULL;
		}
	}
	pthread_mutex_lock(&p->lock);
	if (running != NULL) {
		p->stats = running->stats;
		/* the new pass holds them first */
		p->holds = running->holds;
		p->nholds = running->nholds;
		p->holds_cap = running->holds_cap;
		running->holds = NULL;
		running->nholds = running->holds_cap = 0;
		if (running->has_view) { /* the first pass finds it */
			p->view = running->view;
			memset(&running->view, 0, sizeof(running->view));
			p->has_view = 1;
			p->view_kick = p->kicks;
		}
	}
	p->go = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	if (running != NULL)
		publisher_free(running);
}

struct publisher *
publisher_start(const struct conf *c, char *err, size_t errlen)
{
	struct publisher *p = publisher_prepare(c, NULL, err, errlen);

	if (p != NULL)
		publisher_replace(p, NULL);
	return p;
}

void
publisher_set_view(struct publisher *p, struct complete_view *v)
{
	pthread_mutex_lock(&p->lock);
	complete_view_clear(&p->view);
	p->view = *v;
	memset(v, 0, sizeof(*v));
	p->has_view = 1;
	p->view_kick = ++p->kicks;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void
publisher_hold(struct publisher *p, const char *topic, int32_t partition)
{
	char *copy = strdup(topic);

	pthread_mutex_lock(&p->lock);
	if (copy == NULL || grow_array((void **)&p->holds, &p->holds_cap,
	    p->nholds + 1, sizeof(*p->holds)) < 0) {
		log_warnx("complete: out of memory; the hours of %s [%" PRId32
		    "] wait for this host's progress", topic, partition);
		free(copy);
	} else {
		p->holds[p->nholds++] = (struct publish_hold){ copy, partition };
		p->kicks++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
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
	publisher_join(p);
	publisher_free(p);
}

void
publisher_get_stats(struct publisher *p, struct publish_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	pthread_mutex_unlock(&p->lock);
}

void
publisher_settle(struct publisher *p)
{
	if (p->oc != NULL)
		oncomplete_settle(p->oc);
}

int
publisher_get_oncomplete(struct publisher *p, size_t i,
    struct oncomplete_stats *out)
{
	if (p->oc == NULL)
		return 0;
	oncomplete_get_stats(p->oc, i, out);
	return 1;
}

void
publisher_get_figures(struct publisher *p, size_t i,
    struct complete_figures *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->figures[i];
	pthread_mutex_unlock(&p->lock);
}
