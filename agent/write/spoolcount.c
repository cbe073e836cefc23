#include "agent/write/spoolcount.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

/* How many part files in ready/ have one mtime. */
struct spoolcount_age {
	time_t mtime;
	uint64_t files;
};

/* The spool counted.  dir is written only by spoolcount_start(), before
 * the threads that read it start. */
static struct {
	char dir[PATH_MAX];            /* "": none */
	_Atomic uint64_t bytes;
	pthread_mutex_t lock;          /* for what follows */
	uint64_t ready_files;
	/* ages[first .. first + nages), sorted by mtime, each mtime once: a
	 * file comes into ready/ about when it was last written, so a new one
	 * is mostly the last, and the publisher takes the oldest first, which
	 * only moves first on */
	struct spoolcount_age *ages;
	size_t first, nages, cap;
} sc = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct spoolcount_age *
spoolcount_at(size_t i)
{
	return &sc.ages[sc.first + i];
}

static int
spoolcount_counts(const char *spool_dir)
{
	return sc.dir[0] != '\0' && strcmp(spool_dir, sc.dir) == 0;
}

/* The first of the ages not older than mtime: where mtime is or goes. */
static size_t
spoolcount_find(time_t mtime)
{
	size_t lo = 0, hi = sc.nages;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (spoolcount_at(mid)->mtime < mtime)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds n files of mtime to the ages (n = 1 or -1), under the lock.  Short
 * of memory, a file goes without its age: the oldest may read younger
 * than it is until that file is published. */
static void
spoolcount_age(time_t mtime, int n)
{
	size_t i = spoolcount_find(mtime);
	int found = i < sc.nages && spoolcount_at(i)->mtime == mtime;

	if (n < 0) {
		if (!found || --spoolcount_at(i)->files > 0)
			return;
		if (i == 0)
			sc.first++;
		else
			memmove(spoolcount_at(i), spoolcount_at(i + 1),
			    (sc.nages - i - 1) * sizeof(*sc.ages));
		if (--sc.nages == 0)
			sc.first = 0;
		return;
	}
	if (found) {
		spoolcount_at(i)->files++;
		return;
	}
	if (sc.first + sc.nages == sc.cap && sc.first > 0) {
		memmove(sc.ages, spoolcount_at(0), sc.nages * sizeof(*sc.ages));
		sc.first = 0;
	}
	if (grow_array((void **)&sc.ages, &sc.cap, sc.first + sc.nages + 1,
	    sizeof(*sc.ages)) < 0)
		return;
	memmove(spoolcount_at(i + 1), spoolcount_at(i),
	    (sc.nages - i) * sizeof(*sc.ages));
	*spoolcount_at(i) = (struct spoolcount_age){ mtime, 1 };
	sc.nages++;
}

/* Takes the walk's part files in ready/ in the order it finds them, one
 * age each, sorted and merged once it is done; *arg (an int) becomes 1
 * when memory runs short. */
static void
spoolcount_walked(time_t mtime, void *arg)
{
	if (grow_array((void **)&sc.ages, &sc.cap, sc.nages + 1,
	    sizeof(*sc.ages)) < 0) {
		*(int *)arg = 1;
		return;
	}
	sc.ages[sc.nages++] = (struct spoolcount_age){ mtime, 1 };
}

static int
spoolcount_cmp(const void *a, const void *b)
{
	time_t x = ((const struct spoolcount_age *)a)->mtime;
	time_t y = ((const struct spoolcount_age *)b)->mtime;

	return (x > y) - (x < y);
}

/* Sorts the walk's ages and merges the ones of the same mtime. */
static void
spoolcount_merge(void)
{
	size_t n = 0;

	if (sc.nages == 0)  /* and sc.ages perhaps NULL, which qsort refuses */
		return;
	qsort(sc.ages, sc.nages, sizeof(*sc.ages), spoolcount_cmp);
	for (size_t i = 0; i < sc.nages; i++) {
		if (n > 0 && sc.ages[n - 1].mtime == sc.ages[i].mtime)
			sc.ages[n - 1].files += sc.ages[i].files;
		else
			sc.ages[n++] = sc.ages[i];
	}
	sc.nages = n;
}

int
spoolcount_start(const char *spool_dir)
{
	struct spool_usage u;
	int r, failed = 0;

	pthread_mutex_lock(&sc.lock);
	sc.dir[0] = '\0';
	sc.first = sc.nages = 0;
	if (strlen(spool_dir) >= sizeof(sc.dir))
		r = -ENAMETOOLONG;
	else if ((r = spool_usage(spool_dir, &u, spoolcount_walked, &failed)) == 0 &&
	    failed)
		r = -ENOMEM;
	if (r == 0) {
		spoolcount_merge();
		atomic_store(&sc.bytes, u.bytes);
		sc.ready_files = u.ready_files;
		strcpy(sc.dir, spool_dir);
	}
	pthread_mutex_unlock(&sc.lock);
	return r;
}

int
spoolcount_get(const char *spool_dir, struct spool_usage *out)
{
	int r;

	if (!spoolcount_counts(spool_dir))
		return -ENOENT;
	if ((r = spool_free(spool_dir, &out->free_bytes)) < 0)
		return r;
	out->bytes = atomic_load(&sc.bytes);
	pthread_mutex_lock(&sc.lock);
	out->ready_files = sc.ready_files;
	out->oldest_ready = sc.nages > 0 ? spoolcount_at(0)->mtime : 0;
	pthread_mutex_unlock(&sc.lock);
	return 0;
}

void
spoolcount_grow(const char *spool_dir, int64_t bytes)
{
	if (spoolcount_counts(spool_dir))
		atomic_fetch_add(&sc.bytes, (uint64_t)bytes);
}

void
spoolcount_ready(const char *spool_dir, time_t mtime, int n)
{
	if (!spoolcount_counts(spool_dir))
		return;
	pthread_mutex_lock(&sc.lock);
	sc.ready_files += (uint64_t)(int64_t)n;
	spoolcount_age(mtime, n);
	pthread_mutex_unlock(&sc.lock);
}
