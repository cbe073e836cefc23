/*
 * source_marks: the assigned partitions' watermarks, asked of the brokers
 * by a thread of their own (source_int.h).
 *
 * librdkafka learns a partition's watermarks from its fetches: one that is
 * not fetched (held since its assignment, or paused while the spool is
 * full) has none, or the one of before its pause, and its lag is unknown
 * or wrong.  Asking the brokers (ListOffsets) blocks for a round trip, so
 * it is done here, every SOURCE_MARKS_S seconds and at once after an
 * assignment, never on the run loop's thread.
 */
#include "agent/source/source_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/thread.h"

#define SOURCE_MARKS_S 5           /* between two rounds */
#define SOURCE_MARKS_WAIT_MS 2000  /* for the brokers' answer to one */

struct source_mark {
	char *topic;
	int32_t partition;
	int64_t low, high;
};

struct source_marks {
	rd_kafka_t *rk;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;                 /* under lock, as the three below */
	int kicked;               /* a round is wanted now */
	struct source_mark *marks; /* the latest round's answers */
	size_t n;
};

static void
source_marks_clear(struct source_mark *marks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(marks[i].topic);
	free(marks);
}

/* Asks the brokers for the watermarks of what is assigned now.  Returns
 * them (*n of them, the caller frees), or NULL with *n 0 when there are
 * none or they did not answer. */
static struct source_mark *
source_marks_ask(rd_kafka_t *rk, size_t *n)
{
	rd_kafka_topic_partition_list_t *low = NULL, *high = NULL;
	struct source_mark *marks = NULL;
	size_t cap = 0;

	*n = 0;
	if (rd_kafka_assignment(rk, &low) != RD_KAFKA_RESP_ERR_NO_ERROR ||
	    low->cnt == 0)
		goto out;
	high = rd_kafka_topic_partition_list_copy(low);
	/* offsets_for_times() takes these two logical offsets as they are:
	 * ListOffsets' "earliest" and "latest" (the last stable offset for
	 * a read_committed consumer, as its fetches say) */
	for (int i = 0; i < low->cnt; i++) {
		low->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
		high->elems[i].offset = RD_KAFKA_OFFSET_END;
	}
	if (rd_kafka_offsets_for_times(rk, low, SOURCE_MARKS_WAIT_MS) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR ||
	    rd_kafka_offsets_for_times(rk, high, SOURCE_MARKS_WAIT_MS) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR)
		goto out;
	for (int i = 0; i < high->cnt; i++) {
		const rd_kafka_topic_partition_t *h = &high->elems[i];
		struct source_mark *m;

		if (h->err != RD_KAFKA_RESP_ERR_NO_ERROR || h->offset < 0 ||
		    grow_array((void **)&marks, &cap, *n + 1,
		    sizeof(*marks)) < 0)
			continue;
		m = &marks[*n];
		if ((m->topic = strdup(h->topic)) == NULL)
			continue;
		m->partition = h->partition;
		m->high = h->offset;
		m->low = low->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR ?
		    low->elems[i].offset : -1;
		(*n)++;
	}
out:
	if (low != NULL)
		rd_kafka_topic_partition_list_destroy(low);
	if (high != NULL)
		rd_kafka_topic_partition_list_destroy(high);
	return marks;
}

static void *
source_marks_main(void *arg)
{
	struct source_marks *m = arg;
	struct timespec until;

	pthread_mutex_lock(&m->lock);
	while (!m->stop) {
		struct source_mark *marks, *old;
		size_t n, oldn;

		m->kicked = 0;
		pthread_mutex_unlock(&m->lock);
		marks = source_marks_ask(m->rk, &n);
		pthread_mutex_lock(&m->lock);
		old = m->marks;
		oldn = m->n;
		m->marks = marks;
		m->n = n;
		pthread_mutex_unlock(&m->lock);
		source_marks_clear(old, oldn);
		pthread_mutex_lock(&m->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += SOURCE_MARKS_S;
		while (!m->stop && !m->kicked &&
		    pthread_cond_timedwait(&m->wake, &m->lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

struct source_marks *
source_marks_start(rd_kafka_t *rk, char *err, size_t errlen)
{
	struct source_marks *m;
	int r;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->rk = rk;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->wake, NULL);
	if ((r = thread_start(&m->thread, source_marks_main, m)) != 0) {
		snprintf(err, errlen, "kafka: cannot start a thread: %s",
		    strerror(r));
		pthread_cond_destroy(&m->wake);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	return m;
}

void
source_marks_kick(struct source_marks *m)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	m->kicked = 1;
	pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
}

int
source_marks_get(struct source_marks *m, const char *topic, int32_t partition,
    int64_t *low, int64_t *high)
{
	int r = -1;

	if (m == NULL)
		return -1;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < m->n && r < 0; i++)
		if (m->marks[i].partition == partition &&
		    strcmp(m->marks[i].topic, topic) == 0) {
			*low = m->marks[i].low;
			*high = m->marks[i].high;
			r = 0;
		}
	pthread_mutex_unlock(&m->lock);
	return r;
}

void
source_marks_stop(struct source_marks *m)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = 1;
	pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	source_marks_clear(m->marks, m->n);
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
