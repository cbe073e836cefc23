#include "agent/write/convert.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/write/spool.h"
#include "lib/err.h"
#include "lib/thread.h"

struct convert_job {
	struct convert_job *next;
	void *owner;
	int ready;                  /* spool_finalize()'s 1 or 0, once done */
	char rel[];
};

/* A list of jobs, oldest first. */
struct convert_list {
	struct convert_job *head, **tail;
};

/* The lock guards the lists, busy, stop and the error; the job the thread
 * converts is its alone. */
struct convert {
	char *spool_dir;
	pthread_mutex_t lock;
	pthread_cond_t work;        /* a job was put, or stop set */
	pthread_cond_t done;        /* a job is done, or failed */
	pthread_t thread;
	int started;
	struct convert_list waiting;
	struct convert_list finished;
	int busy;                   /* the thread converts a job */
	int stop;
	int error;                  /* the first job's that failed */
	char why[1024];
};

static void
convert_list_init(struct convert_list *l)
{
	l->head = NULL;
	l->tail = &l->head;
}

static void
convert_list_push(struct convert_list *l, struct convert_job *j)
{
	j->next = NULL;
	*l->tail = j;
	l->tail = &j->next;
}

static struct convert_job *
convert_list_pop(struct convert_list *l)
{
	struct convert_job *j = l->head;

	if (j != NULL && (l->head = j->next) == NULL)
		l->tail = &l->head;
	return j;
}

static void
convert_list_free(struct convert_list *l)
{
	struct convert_job *j;

	while ((j = convert_list_pop(l)) != NULL)
		free(j);
}

/* The thread: finalizes each job put, in order, until stop or a failure. */
static void *
convert_run(void *arg)
{
	struct convert *cv = arg;
	char why[sizeof(cv->why)];
	struct convert_job *j;
	int r;

	pthread_mutex_lock(&cv->lock);
	for (;;) {
		while ((cv->waiting.head == NULL || cv->error != 0) && !cv->stop)
			pthread_cond_wait(&cv->work, &cv->lock);
		if (cv->stop)
			break;
		j = convert_list_pop(&cv->waiting);
		cv->busy = 1;
		pthread_mutex_unlock(&cv->lock);
		r = spool_finalize(cv->spool_dir, j->rel, UINT64_MAX, NULL, why,
		    sizeof(why));
		pthread_mutex_lock(&cv->lock);
		cv->busy = 0;
		if (r < 0) {
			cv->error = r;
			memcpy(cv->why, why, sizeof(why));
			free(j);
		} else {
			j->ready = r;
			convert_list_push(&cv->finished, j);
		}
		pthread_cond_signal(&cv->done);
	}
	pthread_mutex_unlock(&cv->lock);
	return NULL;
}

struct convert *
convert_new(const char *spool_dir, char *err, size_t errlen)
{
	struct convert *cv;
	int r;

	if ((cv = calloc(1, sizeof(*cv))) == NULL ||
	    (cv->spool_dir = strdup(spool_dir)) == NULL) {
		free(cv);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&cv->lock, NULL);
	pthread_cond_init(&cv->work, NULL);
	pthread_cond_init(&cv->done, NULL);
	convert_list_init(&cv->waiting);
	convert_list_init(&cv->finished);
	if ((r = thread_start(&cv->thread, convert_run, cv)) != 0) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(r));
		convert_free(cv);
		return NULL;
	}
	cv->started = 1;
	return cv;
}

void
convert_free(struct convert *cv)
{
	if (cv == NULL)
		return;
	if (cv->started) {
		pthread_mutex_lock(&cv->lock);
		cv->stop = 1;
		pthread_cond_signal(&cv->work);
		pthread_mutex_unlock(&cv->lock);
		pthread_join(cv->thread, NULL);
	}
	convert_list_free(&cv->waiting);
	convert_list_free(&cv->finished);
	pthread_cond_destroy(&cv->done);
	pthread_cond_destroy(&cv->work);
	pthread_mutex_destroy(&cv->lock);
	free(cv->spool_dir);
	free(cv);
}

int
convert_put(struct convert *cv, const char *rel, void *owner)
{
	size_t len = strlen(rel) + 1;
	struct convert_job *j;

	if ((j = malloc(sizeof(*j) + len)) == NULL)
		return -ENOMEM;
	j->owner = owner;
	j->ready = 0;
	memcpy(j->rel, rel, len);
	pthread_mutex_lock(&cv->lock);
	convert_list_push(&cv->waiting, j);
	pthread_cond_signal(&cv->work);
	pthread_mutex_unlock(&cv->lock);
	return 0;
}

int
convert_reap(struct convert *cv, int wait, convert_done_fn *done, void *arg,
    char *err, size_t errlen)
{
	struct convert_job *j, *next;
	int n = 0, r = 0;

	pthread_mutex_lock(&cv->lock);
	while (wait && (cv->waiting.head != NULL || cv->busy) &&
	    cv->error == 0)
		pthread_cond_wait(&cv->done, &cv->lock);
	j = cv->finished.head;
	convert_list_init(&cv->finished);
	if (cv->error != 0)
		r = err_set(err, errlen, cv->error, "%s", cv->why);
	pthread_mutex_unlock(&cv->lock);
	for (; j != NULL; j = next) {
		next = j->next;
		done(arg, j->owner, j->ready);
		n += j->ready;
		free(j);
	}
	return r < 0 ? r : n;
}
