/*
 * source: the consumer loop (see source.h): the partitions it tracks,
 * rebalances, batches polled with the prefetching below, skips, commits
 * and holds.  librdkafka's conf and callbacks are built in source_conf.c,
 * the sentences for what stops it are in source_failure.c, check-config's
 * probe is in source_probe.c.
 */
#include "agent/source/source_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/escape.h"
#include "lib/grow.h"
#include "lib/log.h"

/* How long a checkpoint waits for its offset commit's answer.  librdkafka's
 * own commit waits for as long as the group's coordinator is away, and so
 * would the whole loop: status, SIGTERM and publishing. */
#define SOURCE_COMMIT_WAIT_MS 5000

/*
 * Prefetching.  librdkafka (2.0) stops fetching when its queue holds
 * queued.min.messages records or queued.max.messages.kbytes, and looks
 * again only when its broker thread next wakes up: up to a second later,
 * however fast the queue drains.  A consumer that is behind would spend
 * most of its time waiting.  So the source watches the queue: once it has
 * seen it at the mark, it drains the queue without waiting, and when it is
 * empty it seeks, to the next offset it needs, each partition that gave a
 * record since it was last sought, which wakes the fetcher at once.  The
 * seek changes nothing in what is read.  A partition that gave nothing
 * since its seek is left alone: its fetch is in flight, or the answer is
 * still being decompressed (one fetch answers for many partitions, one
 * after the other), and a seek would throw that work away to be done
 * again.  Seeking every partition whenever the queue ran empty made
 * librdkafka fetch and decompress nearly twice the records it handed over.
 * Should no partition qualify, those behind are all sought once the queue
 * is found empty SOURCE_WAKE_MS later.  The queue's bytes are not in
 * librdkafka's API: they are guessed from its length and the records'
 * recent average size, so that a small kbytes bound (to save memory) parks
 * the fetcher too and is seen to.
 */
#define SOURCE_PARK_SLACK (2 * 1024) /* records popped before we look */
#define SOURCE_WAKE_MS 100

static struct source_part *
source_find(struct source *s, const char *topic, int32_t partition)
{
	if (s->last < s->nparts && s->parts[s->last].partition == partition &&
	    strcmp(s->parts[s->last].topic, topic) == 0)
		return &s->parts[s->last];
	for (size_t i = 0; i < s->nparts; i++) {
		if (s->parts[i].partition == partition &&
		    strcmp(s->parts[i].topic, topic) == 0) {
			s->last = i;
			return &s->parts[i];
		}
	}
	return NULL;
}

static void
source_forget_all(struct source *s)
{
	for (size_t i = 0; i < s->nparts; i++)
		free(s->parts[i].topic);
	free(s->parts);
	s->parts = NULL;
	s->nparts = s->parts_cap = 0;
}

static int
source_track(struct source *s, const rd_kafka_topic_partition_list_t *list)
{
	if (grow_array((void **)&s->parts, &s->parts_cap,
	    s->nparts + (size_t)list->cnt, sizeof(*s->parts)) < 0)
		return -ENOMEM;
	for (int i = 0; i < list->cnt; i++) {
		struct source_part *p = &s->parts[s->nparts];
		if ((p->topic = strdup(list->elems[i].topic)) == NULL)
			return -ENOMEM;
		p->partition = list->elems[i].partition;
		/* an explicit start (a recovered static assignment) is already
		 * decided: it belongs in the next checkpoint as it is */
		p->next = list->elems[i].offset >= 0 ? list->elems[i].offset : -1;
		p->seen = p->next;
		p->at_end = 0;
		p->fed = 0;
		p->last_at = 0;
		s->nparts++;
	}
	source_marks_kick(s->marks);
	return 0;
}

static void
source_untrack(struct source *s, const rd_kafka_topic_partition_list_t *list)
{
	for (int i = 0; i < list->cnt; i++) {
		struct source_part *p = source_find(s, list->elems[i].topic,
		    list->elems[i].partition);
		if (p == NULL)
			continue;
		free(p->topic);
		*p = s->parts[--s->nparts];
	}
	s->last = 0;
}

/* The topic names come from the broker (in a group, from whichever member
 * leads it): escaped. */
static void
source_log_parts(const char *what, const rd_kafka_topic_partition_list_t *list)
{
	char line[1024], topic[ESCAPE_BUF];
	size_t len = 0;

	line[0] = '\0';
	for (int i = 0; i < list->cnt && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s[%" PRId32 "]",
		    i ? " " : "", escape_str(list->elems[i].topic, topic,
		    sizeof(topic)), list->elems[i].partition);
	log_info("kafka: %s %d partition(s): %s", what, list->cnt, line);
}

static void
source_pause(struct source *s, rd_kafka_topic_partition_list_t *list,
    int pause)
{
	rd_kafka_resp_err_t e;

	e = pause ? rd_kafka_pause_partitions(s->rk, list) :
	    rd_kafka_resume_partitions(s->rk, list);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
		log_warnx("kafka: cannot %s partitions: %s", pause ? "pause" :
		    "resume", rd_kafka_err2str(e));
}

void
source_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
    rd_kafka_topic_partition_list_t *parts, void *opaque)
{
	struct source *s = opaque;
	/* NULL once the group handler has terminated, which it can do before
	 * rd_kafka_consumer_close() serves a revoke queued earlier */
	const char *proto = rd_kafka_rebalance_protocol(rk);
	int cooperative = proto != NULL && strcmp(proto, "COOPERATIVE") == 0;
	rd_kafka_error_t *error = NULL;
	rd_kafka_resp_err_t ret = RD_KAFKA_RESP_ERR_NO_ERROR;

	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		source_log_parts("assigned", parts);
		/* tracked first: the hook's source_committed() tells where
		 * the consumer starts */
		if (source_track(s, parts) < 0)
			log_errx("kafka: out of memory tracking partitions");
		s->hooks.assigned(s->hooks.opaque, parts);
		if (cooperative)
			error = rd_kafka_incremental_assign(rk, parts);
		else
			ret = rd_kafka_assign(rk, parts);
		if (s->held && error == NULL && ret == RD_KAFKA_RESP_ERR_NO_ERROR)
			source_pause(s, parts, 1);
	} else {
		source_log_parts("revoked", parts);
		if (!rd_kafka_assignment_lost(rk)) {
			s->hooks.revoked(s->hooks.opaque, parts);
		} else {
			log_warnx("kafka: assignment lost; its undecided rows "
			    "will be read again by the partitions' new owner");
			s->hooks.lost(s->hooks.opaque, parts);
		}
		source_untrack(s, parts);
		if (cooperative)
			error = rd_kafka_incremental_unassign(rk, parts);
		else
			ret = rd_kafka_assign(rk, NULL);
	}
	if (error != NULL) {
		log_errx("kafka: rebalance: %s", rd_kafka_error_string(error));
		rd_kafka_error_destroy(error);
	} else if (ret != RD_KAFKA_RESP_ERR_NO_ERROR) {
		log_errx("kafka: rebalance: %s", rd_kafka_err2str(ret));
	}
}

/* A broker answered (a record, a partition's end, a commit): the end of
 * an outage, if there was one. */
static void
source_alive(struct source *s)
{
	if (s->down_since == 0)
		return;
	log_info("kafka: the brokers answer again, after %ld s",
	    (long)(time(NULL) - s->down_since));
	s->down_since = 0;
}

/* Reads back a positive number librdkafka holds, whatever set it. */
static int
source_conf_long(const rd_kafka_conf_t *kc, const char *key, long *out,
    char *err, size_t errlen)
{
	char v[32];
	size_t len = sizeof(v);

	if (rd_kafka_conf_get(kc, key, v, &len) != RD_KAFKA_CONF_OK ||
	    (*out = strtol(v, NULL, 10)) <= 0)
		return err_set(err, errlen, -EINVAL, "kafka: cannot read %s",
		    key);
	return 0;
}

/* The marks: queued.min.messages less the slack, and three quarters of
 * queued.max.messages.kbytes. */
static int
source_park_mark(struct source *s, const rd_kafka_conf_t *kc, char *err,
    size_t errlen)
{
	long n, kbytes;

	if (source_conf_long(kc, "queued.min.messages", &n, err, errlen) < 0 ||
	    source_conf_long(kc, "queued.max.messages.kbytes", &kbytes, err,
	    errlen) < 0)
		return -EINVAL;
	s->park_mark = (size_t)n > SOURCE_PARK_SLACK ?
	    (size_t)n - SOURCE_PARK_SLACK : 1;
	s->park_bytes = (size_t)kbytes * 1024 / 4 * 3;
	return 0;
}

struct source *
source_new(const struct conf *c, const struct source_hooks *h, char *err,
    size_t errlen)
{
	struct source *s;
	rd_kafka_conf_t *kc;
	char why[512];

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->conf = c;
	s->grouped = c->kafka.group_id != NULL;
	s->hooks = *h;
	pthread_mutex_init(&s->tls_lock, NULL);
	if ((kc = source_conf(s, c, err, errlen)) == NULL)
		goto fail;
	if (source_park_mark(s, kc, err, errlen) < 0) {
		rd_kafka_conf_destroy(kc);
		goto fail;
	}
	/* rd_kafka_new() takes ownership of kc, but only when it succeeds. */
	if ((s->rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, why, sizeof(why))) == NULL) {
		rd_kafka_conf_destroy(kc);
		snprintf(err, errlen, "cannot create the Kafka consumer: %s", why);
		goto fail;
	}
	rd_kafka_poll_set_consumer(s->rk);
	s->queue = rd_kafka_queue_get_consumer(s->rk);
	s->commits = rd_kafka_queue_new(s->rk);
	return s;
fail:
	pthread_mutex_destroy(&s->tls_lock);
	free(s);
	return NULL;
}

/* Assigns every partition of every topic, each from start_at() or from
 * kafka.start. */
static int
source_assign_all(struct source *s, source_start_fn *start_at, void *arg,
    char *err, size_t errlen)
{
	const struct conf *c = s->conf;
	rd_kafka_topic_partition_list_t *list;
	int64_t start = strcmp(c->kafka.start, "latest") == 0 ?
	    RD_KAFKA_OFFSET_END : RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_resp_err_t e;
	int r = -EINVAL;

	list = rd_kafka_topic_partition_list_new(8);
	for (size_t i = 0; i < c->kafka.topics.n; i++) {
		const char *name = c->kafka.topics.v[i];
		rd_kafka_topic_t *rkt = rd_kafka_topic_new(s->rk, name, NULL);
		const struct rd_kafka_metadata *md = NULL;

		e = rd_kafka_metadata(s->rk, 0, rkt, &md, 10000);
		if (e == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1)
			e = md->topics[0].err;
		if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
			snprintf(err, errlen, "kafka: topic %s: %s", name,
			    rd_kafka_err2str(e));
		} else {
			for (int p = 0; p < md->topics[0].partition_cnt; p++) {
				int32_t id = md->topics[0].partitions[p].id;
				int64_t at = start_at ? start_at(name, id, arg) : -1;
				rd_kafka_topic_partition_list_add(list, name,
				    id)->offset = at >= 0 ? at : start;
			}
		}
		if (md != NULL)
			rd_kafka_metadata_destroy(md);
		rd_kafka_topic_destroy(rkt);
		if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
			goto out;
	}
	source_log_parts("assigned", list);
	if (source_track(s, list) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((e = rd_kafka_assign(s->rk, list)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		snprintf(err, errlen, "kafka: cannot assign partitions: %s",
		    rd_kafka_err2str(e));
		goto out;
	}
	r = 0;
out:
	rd_kafka_topic_partition_list_destroy(list);
	return r;
}

int
source_start(struct source *s, source_start_fn *start_at, void *arg,
    char *err, size_t errlen)
{
	const struct conf *c = s->conf;
	rd_kafka_topic_partition_list_t *list;
	rd_kafka_resp_err_t e;

	if ((s->marks = source_marks_start(s->rk, err, errlen)) == NULL)
		return -EAGAIN;
	if (!s->grouped)
		return source_assign_all(s, start_at, arg, err, errlen);
	list = rd_kafka_topic_partition_list_new((int)c->kafka.topics.n);
	for (size_t i = 0; i < c->kafka.topics.n; i++)
		rd_kafka_topic_partition_list_add(list, c->kafka.topics.v[i],
		    RD_KAFKA_PARTITION_UA);
	e = rd_kafka_subscribe(s->rk, list);
	rd_kafka_topic_partition_list_destroy(list);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		return err_set(err, errlen, -EINVAL,
		    "kafka: cannot subscribe: %s",
		    rd_kafka_err2str(e));
	}
	return 0;
}

/* Which partitions source_seek_next() seeks, of those that gave a record. */
enum source_seek {
	SOURCE_SEEK_ALL,    /* every one */
	SOURCE_SEEK_BEHIND, /* those not at their end */
	SOURCE_SEEK_FED,    /* those not at their end that gave a record
	                     * since they were last sought */
};

/* Seeks the partitions that which names to the next offset kedge needs;
 * returns how many. */
static int
source_seek_next(struct source *s, enum source_seek which, const char *why)
{
	rd_kafka_topic_partition_list_t *list;
	rd_kafka_error_t *error;
	int n;

	list = rd_kafka_topic_partition_list_new((int)s->nparts);
	for (size_t i = 0; i < s->nparts; i++) {
		struct source_part *p = &s->parts[i];

		if (p->next < 0 || (which != SOURCE_SEEK_ALL && p->at_end) ||
		    (which == SOURCE_SEEK_FED && !p->fed))
			continue;
		rd_kafka_topic_partition_list_add(list, p->topic,
		    p->partition)->offset = p->next;
		p->fed = 0;
	}
	if (list->cnt > 0 &&
	    (error = rd_kafka_seek_partitions(s->rk, list, 0)) != NULL) {
		log_warnx("kafka: cannot %s: %s", why,
		    rd_kafka_error_string(error));
		rd_kafka_error_destroy(error);
	}
	n = list->cnt;
	rd_kafka_topic_partition_list_destroy(list);
	return n;
}

static uint64_t
source_clock_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* Wakes a fetcher that parked on a full queue, now that the queue is empty
 * (see the top of this file). */
static void
source_unpark(struct source *s)
{
	s->parked = 0;
	if (source_seek_next(s, SOURCE_SEEK_FED, "wake the fetcher") > 0)
		s->wakeups++;
	else
		s->wake_at = source_clock_ms() + SOURCE_WAKE_MS;
}

/* The queue is empty, and source_unpark() found no partition to seek:
 * seeks all those behind once SOURCE_WAKE_MS have passed since. */
static void
source_wake_late(struct source *s)
{
	if (source_clock_ms() < s->wake_at)
		return;
	s->wake_at = 0;
	if (source_seek_next(s, SOURCE_SEEK_BEHIND, "wake the fetcher") > 0) {
		log_debug("kafka: no partition gave a record since its seek "
		    "and the queue stayed empty: every partition behind sought");
		s->wakeups++;
	}
}

size_t
source_poll(struct source *s, rd_kafka_message_t **msgs, size_t max,
    int timeout_ms)
{
	ssize_t n;
	size_t kept = 0, queued;
	time_t now;
	/* the record p was found for, when it was kept (alive until the
	 * caller destroys it): a run of one partition's records finds it
	 * once */
	const rd_kafka_message_t *prev = NULL;
	struct source_part *p = NULL;

	queued = rd_kafka_queue_length(s->queue);
	if (queued >= s->park_mark ||
	    queued * s->record_bytes >= s->park_bytes)
		s->parked = 1;
	n = rd_kafka_consume_batch_queue(s->queue, s->parked ? 0 : timeout_ms,
	    msgs, max);
	if (n == 0 && s->parked && !s->held)
		source_unpark(s);
	else if (n == 0 && s->wake_at != 0 && !s->held)
		source_wake_late(s);
	/* Records fetched before an outage may still wait in the queue when
	 * librdkafka says that every broker is down: only once it has run
	 * empty is a record or a partition's end a broker's answer. */
	if (n == 0 && s->down_since != 0)
		s->down_drained = 1;
	now = n > 0 ? time(NULL) : 0;
	for (ssize_t i = 0; i < n; i++) {
		rd_kafka_message_t *m = msgs[i];

		if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR ||
		    m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			/* In queue order: a record after the end clears it. */
			if (prev == NULL || m->rkt != prev->rkt ||
			    m->partition != prev->partition) {
				p = source_find(s, rd_kafka_topic_name(m->rkt),
				    m->partition);
				prev = NULL;
			}
			if (s->down_drained)
				source_alive(s);
			if (p != NULL)
				p->at_end = m->err != RD_KAFKA_RESP_ERR_NO_ERROR;
			if (p != NULL && m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
				p->last_at = now;
				p->fed = 1;
			}
			if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
				s->record_bytes = (s->record_bytes * 15 +
				    m->len + m->key_len) / 16;
				msgs[kept++] = m;
				prev = m;
				continue;
			}
		} else if (m->err == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE) {
			char reason[512];

			snprintf(reason, sizeof(reason), "%s [%" PRId32 "] at "
			    "offset %" PRId64 ": %s", m->rkt ?
			    rd_kafka_topic_name(m->rkt) : "-", m->partition,
			    m->offset, rd_kafka_message_errstr(m));
			if (s->failure[0] == '\0')
				source_size_failure(s, reason);
		} else if (!source_acl_failure(s, m)) {
			/* the error string may be the broker's, or the payload */
			char topic[ESCAPE_BUF], why[ESCAPE_BUF];

			log_warnx("kafka: %s [%" PRId32 "]: %s",
			    escape_str(m->rkt ? rd_kafka_topic_name(m->rkt) : "-",
			    topic, sizeof(topic)), m->partition,
			    escape_str(rd_kafka_message_errstr(m), why, sizeof(why)));
		}
		rd_kafka_message_destroy(m);
	}
	return kept;
}

int64_t
source_skipped(struct source *s, const rd_kafka_message_t *msg, int64_t last,
    int64_t *from, int *unread)
{
	struct source_part *p = source_find(s, rd_kafka_topic_name(msg->rkt),
	    msg->partition);
	int64_t lo, hi, seen;

	if (p == NULL)
		return 0;
	seen = p->seen;
	p->seen = last + 1;
	if (seen < 0 || msg->offset <= seen)
		return 0;
	/* the log start comes with each fetch's answer; without it nothing
	 * tells a skip from a deletion, and the gap stays one */
	if (rd_kafka_get_watermark_offsets(s->rk, rd_kafka_topic_name(msg->rkt),
	    msg->partition, &lo, &hi) != RD_KAFKA_RESP_ERR_NO_ERROR || lo < 0)
		return 0;
	/* below the broker's log start: deleted (retention) before kedge read
	 * them; librdkafka went on from kafka.start */
	*unread = lo > seen;
	if (*unread) {
		const struct log_field f[] = {
		    LOG_STR("topic", rd_kafka_topic_name(msg->rkt)),
		    LOG_INT("partition", msg->partition),
		    LOG_INT("offset", msg->offset),
		    LOG_INT("unread", msg->offset - seen) };

		log_fields(LOG_LEVEL_WARNING, f, sizeof(f) / sizeof(f[0]),
		    "kafka: %s [%" PRId32 "]: the broker deleted offsets %" PRId64
		    "..%" PRId64 " before kedge read them (retention); %" PRId64
		    " offsets not read, going on at %" PRId64 " (kafka.start = "
		    "%s)", rd_kafka_topic_name(msg->rkt), msg->partition, seen,
		    msg->offset - 1, msg->offset - seen, msg->offset,
		    s->conf->kafka.start);
	}
	*from = seen;
	return msg->offset - seen;
}

void
source_done(struct source *s, const rd_kafka_message_t *msg)
{
	struct source_part *p = source_find(s, rd_kafka_topic_name(msg->rkt),
	    msg->partition);

	if (p != NULL)
		p->next = msg->offset + 1;
}

/* e, or when it is no error the first error of a partition of list (NULL:
 * none): a request can succeed as a whole and fail for one partition. */
rd_kafka_resp_err_t
source_parts_error(rd_kafka_resp_err_t e,
    const rd_kafka_topic_partition_list_t *list)
{
	for (int i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && list != NULL &&
	    i < list->cnt; i++)
		e = list->elems[i].err;
	return e;
}

/* The answer to the commit pending, within timeout_ms: its error, or the
 * first partition's; RD_KAFKA_RESP_ERR__TIMED_OUT while it has not come,
 * and it stays pending. */
static rd_kafka_resp_err_t
source_commit_answer(struct source *s, int timeout_ms)
{
	rd_kafka_event_t *ev = rd_kafka_queue_poll(s->commits, timeout_ms);
	rd_kafka_resp_err_t e;

	if (ev == NULL)
		return RD_KAFKA_RESP_ERR__TIMED_OUT;
	s->commit_pending = 0;
	e = source_parts_error(rd_kafka_event_error(ev),
	    rd_kafka_event_topic_partition_list(ev));
	rd_kafka_event_destroy(ev);
	return e;
}

int
source_commit(struct source *s, const struct ckpt_record *rec,
    const char *metadata, char *err, size_t errlen)
{
	rd_kafka_topic_partition_list_t *list;
	rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;

	if (!s->grouped || rec->nparts == 0)
		return 0;
	list = rd_kafka_topic_partition_list_new((int)rec->nparts);
	for (size_t i = 0; i < rec->nparts; i++) {
		rd_kafka_topic_partition_t *tp = rd_kafka_topic_partition_list_add(
		    list, rec->parts[i].topic, rec->parts[i].partition);
		tp->offset = rec->parts[i].next;
		/* the list's destroy frees the metadata */
		if ((tp->metadata = strdup(metadata)) == NULL) {
			e = RD_KAFKA_RESP_ERR__FAIL;
			break;
		}
		tp->metadata_size = strlen(metadata);
	}
	/* One commit at a time: an earlier one still unanswered (the caller
	 * commits the same offsets again until one succeeds) is waited for
	 * first, its answer whatever it is, then these are sent. */
	if (e == RD_KAFKA_RESP_ERR_NO_ERROR && s->commit_pending &&
	    source_commit_answer(s, SOURCE_COMMIT_WAIT_MS) ==
	    RD_KAFKA_RESP_ERR__TIMED_OUT)
		e = RD_KAFKA_RESP_ERR__TIMED_OUT;
	else if (e == RD_KAFKA_RESP_ERR_NO_ERROR &&
	    (e = rd_kafka_commit_queue(s->rk, list, s->commits, NULL, NULL)) ==
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		s->commit_pending = 1;
		e = source_commit_answer(s, SOURCE_COMMIT_WAIT_MS);
	}
	rd_kafka_topic_partition_list_destroy(list);
	if (e == RD_KAFKA_RESP_ERR__TIMED_OUT) {
		return err_set(err, errlen, -EIO,
		    "kafka: offset commit: no answer from the "
		    "group's coordinator within %d s", SOURCE_COMMIT_WAIT_MS /
		    1000);
	}
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		return err_set(err, errlen, -EIO,
		    "kafka: offset commit failed: %s",
		    rd_kafka_err2str(e));
	}
	source_alive(s);
	return 0;
}

int
source_grouped(const struct source *s)
{
	return s->grouped;
}

int
source_committed(struct source *s,
    const rd_kafka_topic_partition_list_t *parts,
    struct source_committed *out, char *err, size_t errlen)
{
	/* a copy: rd_kafka_committed() writes its answers into the list */
	rd_kafka_topic_partition_list_t *list =
	    rd_kafka_topic_partition_list_copy(parts);
	size_t n = (size_t)list->cnt;
	struct source_part *p;
	rd_kafka_resp_err_t e;

	e = rd_kafka_committed(s->rk, list, 30000);
	for (size_t i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && i < n; i++) {
		const rd_kafka_topic_partition_t *tp = &list->elems[i];
		size_t len = tp->metadata_size < sizeof(out[i].metadata) ?
		    tp->metadata_size : sizeof(out[i].metadata) - 1;
		if ((e = tp->err) != RD_KAFKA_RESP_ERR_NO_ERROR)
			break;
		out[i].offset = tp->offset >= 0 ? tp->offset : -1;
		if ((p = source_find(s, tp->topic, tp->partition)) != NULL &&
		    p->seen < 0 && out[i].offset >= 0)
			p->seen = out[i].offset;
		memcpy(out[i].metadata, tp->metadata ? tp->metadata : "",
		    tp->metadata ? len : 0);
		out[i].metadata[tp->metadata ? len : 0] = '\0';
		out[i].metadata_size = tp->metadata ? tp->metadata_size : 0;
	}
	rd_kafka_topic_partition_list_destroy(list);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		return err_set(err, errlen, -EIO,
		    "kafka: cannot read the committed offsets: %s",
		    rd_kafka_err2str(e));
	}
	return 0;
}

void
source_positions(const struct source *s,
    void (*fn)(const char *topic, int32_t partition, int64_t next, void *arg),
    void *arg)
{
	for (size_t i = 0; i < s->nparts; i++)
		if (s->parts[i].next >= 0)
			fn(s->parts[i].topic, s->parts[i].partition,
			    s->parts[i].next, arg);
}

uint64_t
source_wakeups(const struct source *s)
{
	return s->wakeups;
}

void
source_hold(struct source *s, unsigned reason, int on)
{
	rd_kafka_topic_partition_list_t *list;
	unsigned was = s->held;

	s->held = on ? was | reason : was & ~reason;
	if ((was != 0) == (s->held != 0))
		return;
	if (rd_kafka_assignment(s->rk, &list) != RD_KAFKA_RESP_ERR_NO_ERROR)
		return;
	if (list->cnt > 0)
		source_pause(s, list, s->held != 0);
	rd_kafka_topic_partition_list_destroy(list);
	/* what a pause dropped from the queue is read again from kedge's own
	 * position, never from librdkafka's */
	if (s->held == 0) {
		source_seek_next(s, SOURCE_SEEK_ALL,
		    "resume from the next offsets");
		s->wake_at = 0;
	}
}

unsigned
source_held(const struct source *s)
{
	return s->held;
}

void
source_each_part(const struct source *s, source_part_fn *fn, void *arg)
{
	for (size_t i = 0; i < s->nparts; i++) {
		const struct source_part *p = &s->parts[i];

		fn(p->topic, p->partition, p->at_end, p->last_at, arg);
	}
}

/* Where the consumer of partition p stands, given its watermarks (low
 * may be -1: not known): the next offset kedge needs once a record was
 * read, else the group's committed offset or an explicit start, else
 * where kafka.start puts it.  -1 when not known. */
static int64_t
source_position(const struct source *s, const struct source_part *p,
    int64_t low, int64_t high)
{
	if (p->next >= 0)
		return p->next;
	if (p->seen >= 0)
		return p->seen;
	if (p->at_end || strcmp(s->conf->kafka.start, "latest") == 0)
		return high;
	return low;
}

size_t
source_lags(const struct source *s, source_lag_fn *fn, void *arg)
{
	size_t skipped = 0;

	for (size_t i = 0; i < s->nparts; i++) {
		const struct source_part *p = &s->parts[i];
		int64_t low, high, asked_low, asked_high, next;

		if (rd_kafka_get_watermark_offsets(s->rk, p->topic, p->partition,
		    &low, &high) != RD_KAFKA_RESP_ERR_NO_ERROR)
			low = high = -1;
		/* the later of the two, fetched and asked, is the higher */
		if (source_marks_get(s->marks, p->topic, p->partition,
		    &asked_low, &asked_high) == 0) {
			if (asked_high > high)
				high = asked_high;
			if (low < 0)
				low = asked_low;
		}
		if (high < 0 || (next = source_position(s, p, low < 0 ? -1 :
		    low, high)) < 0) {
			skipped++;
			continue;
		}
		fn(p->topic, p->partition, next, high, arg);
	}
	return skipped;
}

size_t
source_assigned(const struct source *s, const char *topic)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nparts; i++)
		n += strcmp(s->parts[i].topic, topic) == 0;
	return n;
}

int32_t
source_partition_count(struct source *s, const char *topic, int timeout_ms)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_topic_t *rkt;
	rd_kafka_resp_err_t e;
	int32_t n = -1;

	if ((rkt = rd_kafka_topic_new(s->rk, topic, NULL)) == NULL)
		return -1;
	e = rd_kafka_metadata(s->rk, 0, rkt, &md, timeout_ms);
	if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
		if (md->topic_cnt == 1 && md->topics[0].err ==
		    RD_KAFKA_RESP_ERR_NO_ERROR)
			n = md->topics[0].partition_cnt;
		rd_kafka_metadata_destroy(md);
	}
	rd_kafka_topic_destroy(rkt);
	return n;
}

int
source_at_end(const struct source *s)
{
	/* held, nothing is fetched: an end seen before may be gone */
	if (s->nparts == 0 || s->held)
		return 0;
	for (size_t i = 0; i < s->nparts; i++)
		if (!s->parts[i].at_end)
			return 0;
	return 1;
}

time_t
source_down_since(const struct source *s)
{
	return s->down_since;
}

const char *
source_failure(const struct source *s)
{
	return s->failure[0] != '\0' ? s->failure : NULL;
}

void
source_close(struct source *s)
{
	if (s == NULL)
		return;
	/* before the consumer it asks through goes */
	source_marks_stop(s->marks);
	if (s->queue != NULL)
		rd_kafka_queue_destroy(s->queue);
	if (s->rk != NULL) {
		/* closing serves a last revoke, which commits */
		rd_kafka_consumer_close(s->rk);
		if (s->commits != NULL)
			rd_kafka_queue_destroy(s->commits);
		rd_kafka_destroy(s->rk);
	}
	source_forget_all(s);
	pthread_mutex_destroy(&s->tls_lock);
	free(s);
}
