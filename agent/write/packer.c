#include "agent/write/packer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/thread.h"

/* Chunks a packer holds at most: the one it writes and those waiting.
 * Files filled at one pace fill their chunks together, so a run of them
 * comes at once; a slot's buffer is swapped with the file's, so that the
 * slots cost the writer a fixed PACKER_SLOTS chunks, whatever the number
 * of files. */
#define PACKER_SLOTS 8
/* Chunks waiting before packer_put() wakes the thread, which then writes
 * every chunk waiting before it sleeps again: woken for each chunk, it
 * slept after each, a futex wake and a wait a chunk.  packer_wait() wakes
 * it for fewer (the writer calls it at least once a second, at its
 * tick). */
#define PACKER_WAKE 4

struct packer_slot {
	struct packer_file file;
	struct buf rows;
	uint64_t bytes;             /* written to the file, once done */
};

/* Chunk n is in slots[n % PACKER_SLOTS]; reported <= written <= put <=
 * reported + PACKER_SLOTS.  The lock guards the counters, stop and the
 * error; a slot between written and put is the thread's alone. */
struct packer {
	struct codec *codec;        /* NULL: written as it is */
	struct buf out;             /* the thread's compressed bytes */
	packer_done_fn *done;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t work;        /* a chunk was put, or stop set */
	pthread_cond_t ready;       /* a chunk was written */
	pthread_t thread;
	int started;
	struct packer_slot slots[PACKER_SLOTS];
	uint64_t put, written, reported;
	int stop;
	int error;                  /* the first chunk's that failed */
	char why[512];
};

/* Compresses slot s's chunk and writes it to its file.  On the packer's
 * thread, without the lock. */
static int
packer_write(struct packer *pk, struct packer_slot *s, char *err,
    size_t errlen)
{
	const struct buf *src = &s->rows;
	int r;

	if (pk->codec != NULL) {
		buf_reset(&pk->out);
		if ((r = s->rows.len == 0 ? codec_empty(pk->codec, &pk->out) :
		    codec_write(pk->codec, s->rows.data, s->rows.len,
		    &pk->out)) < 0 || (r = codec_finish(pk->codec,
		    &pk->out)) < 0) {
			return err_set(err, errlen, r, "cannot compress %s: %s",
			    s->file.path, strerror(-r));
		}
		src = &pk->out;
	}
	if ((r = fs_write_all(s->file.fd, src->data, src->len)) < 0) {
		return err_set(err, errlen, r, "cannot write %s: %s",
		    s->file.path, fs_strerror(-r));
	}
	if (s->file.hash != NULL)
		spool_hash_update(s->file.hash, src->data, src->len);
	s->bytes = src->len;
	buf_reset(&s->rows);
	return 0;
}

/* The thread: writes each chunk put, in order, until stop; after an error
 * it only counts them. */
static void *
packer_run(void *arg)
{
	struct packer *pk = arg;
	char why[sizeof(pk->why)];
	int r;

	pthread_mutex_lock(&pk->lock);
	for (;;) {
		struct packer_slot *s;

		while (pk->written == pk->put && !pk->stop)
			pthread_cond_wait(&pk->work, &pk->lock);
		if (pk->written == pk->put)
			break;
		s = &pk->slots[pk->written % PACKER_SLOTS];
		s->bytes = 0;
		r = 0;
		if (pk->error == 0) {
			pthread_mutex_unlock(&pk->lock);
			r = packer_write(pk, s, why, sizeof(why));
			pthread_mutex_lock(&pk->lock);
		}
		if (r < 0) {
			pk->error = r;
			memcpy(pk->why, why, sizeof(why));
		}
		pk->written++;
		pthread_cond_signal(&pk->ready);
	}
	pthread_mutex_unlock(&pk->lock);
	return NULL;
}

/* Tells done() of the chunks written since the last call.  With the
 * lock. */
static void
packer_report(struct packer *pk)
{
	for (; pk->reported < pk->written; pk->reported++) {
		const struct packer_slot *s =
		    &pk->slots[pk->reported % PACKER_SLOTS];

		pk->done(pk->arg, s->file.owner, s->bytes);
	}
}

struct packer *
packer_new(enum codec_kind kind, int level, size_t chunk,
    packer_done_fn *done, void *arg, char *err, size_t errlen)
{
	struct packer *pk;
	int r;

	if ((pk = calloc(1, sizeof(*pk))) == NULL)
		goto nomem;
	pthread_mutex_init(&pk->lock, NULL);
	pthread_cond_init(&pk->work, NULL);
	pthread_cond_init(&pk->ready, NULL);
	for (size_t i = 0; i < PACKER_SLOTS; i++)
		if (buf_reserve(&pk->slots[i].rows, chunk) < 0)
			goto nomem;
	if (kind != CODEC_NONE && (pk->codec = codec_new(kind, level)) == NULL)
		goto nomem;
	pk->done = done;
	pk->arg = arg;
	if ((r = thread_start(&pk->thread, packer_run, pk)) != 0) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(r));
		packer_free(pk);
		return NULL;
	}
	pk->started = 1;
	return pk;
nomem:
	snprintf(err, errlen, "out of memory");
	packer_free(pk);
	return NULL;
}

void
packer_free(struct packer *pk)
{
	if (pk == NULL)
		return;
	if (pk->started) {
		pthread_mutex_lock(&pk->lock);
		pk->stop = 1;
		pthread_cond_signal(&pk->work);
		pthread_mutex_unlock(&pk->lock);
		pthread_join(pk->thread, NULL);
	}
	for (size_t i = 0; i < PACKER_SLOTS; i++)
		buf_clear(&pk->slots[i].rows);
	buf_clear(&pk->out);
	codec_free(pk->codec);
	pthread_cond_destroy(&pk->ready);
	pthread_cond_destroy(&pk->work);
	pthread_mutex_destroy(&pk->lock);
	free(pk);
}

int
packer_put(struct packer *pk, const struct packer_file *f, struct buf *rows,
    char *err, size_t errlen)
{
	struct packer_slot *s;
	struct buf empty;
	int r = 0;

	pthread_mutex_lock(&pk->lock);
	packer_report(pk);
	while (pk->put - pk->reported == PACKER_SLOTS && pk->error == 0) {
		pthread_cond_signal(&pk->work);
		pthread_cond_wait(&pk->ready, &pk->lock);
		packer_report(pk);
	}
	if (pk->error != 0) {
		r = err_set(err, errlen, pk->error, "%s", pk->why);
	} else {
		s = &pk->slots[pk->put % PACKER_SLOTS];
		s->file = *f;
		empty = s->rows;
		s->rows = *rows;
		*rows = empty;
		pk->put++;
		if (pk->put - pk->written >= PACKER_WAKE)
			pthread_cond_signal(&pk->work);
	}
	pthread_mutex_unlock(&pk->lock);
	return r;
}

int
packer_wait(struct packer *pk, char *err, size_t errlen)
{
	int r = 0;

	pthread_mutex_lock(&pk->lock);
	if (pk->written != pk->put)
		pthread_cond_signal(&pk->work);
	while (pk->written != pk->put)
		pthread_cond_wait(&pk->ready, &pk->lock);
	packer_report(pk);
	if (pk->error != 0)
		r = err_set(err, errlen, pk->error, "%s", pk->why);
	pthread_mutex_unlock(&pk->lock);
	return r;
}
