/* run: the main loop (run.h): poll, process, roll and checkpoint, hold
 * consumption while the spool is full or the ticket has expired, write the
 * status and tell systemd.  The state it runs on is built by agent.c, its
 * metrics and closing summary are runinfo.c's, SIGHUP is reload.c's. */
#include "agent/run.h"
#include "agent/agent.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/complete/complete.h"
#include "agent/ops/health.h"
#include "agent/ops/metrics_http.h"
#include "agent/ops/notify.h"
#include "agent/ops/status.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/source/source.h"
#include "agent/target/target.h"
#include "agent/target/webhdfs.h"
#include "agent/twopc.h"
#include "agent/write/spool.h"
#include "agent/write/spoolcount.h"
#include "lib/crash.h"
#include "lib/escape.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "lib/tick.h"
#include "security/krb.h"

#define RUN_BATCH 1024        /* records per poll */
#define RUN_POLL_MS 100       /* how long a poll waits for records */
#define RUN_DRAIN_S 30        /* how long shutdown waits for the publisher */
#define RUN_DECIDE_TRIES 5    /* commits tried at shutdown, 2 s apart */
#define RUN_READY_RETRY_S 5   /* between checks before READY=1 */

static volatile sig_atomic_t run_stop;
static volatile sig_atomic_t run_reload;

static void
run_on_signal(int sig)
{
	if (sig == SIGHUP)
		run_reload = 1;
	else
		run_stop = 1;
}

/* Sets what the loop relies on, whatever kedge inherited (a signal
 * ignored or blocked stays so across exec): its handlers for SIGTERM,
 * SIGINT and SIGHUP; SIGPIPE ignored, so that a write to a closed socket
 * fails with EPIPE; SIGCHLD at its default, for an ignored one has the
 * kernel reap output.on_complete's command before waitpid() can learn
 * how it ended; and no signal blocked in this thread, before any other
 * starts (lib/thread.h blocks the loop's in those). */
static void
run_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Calls fn on every writer; stops at the first error.  Returns the sum of
 * what fn returned, or the error. */
static int
run_each_writer(struct agent *a, int (*fn)(struct writer *, void *, char *,
    size_t), void *arg, char *err, size_t errlen)
{
	int r, n = 0;

	for (size_t i = 0; i < a->nwriters; i++) {
		if ((r = fn(a->writers[i], arg, err, errlen)) < 0)
			return r;
		n += r;
	}
	return n;
}

static int
run_tick_one(struct writer *w, void *arg, char *err, size_t errlen)
{
	return writer_tick(w, *(time_t *)arg, err, errlen);
}

struct agent_roll_arg {
	const char *topic;        /* NULL: every file */
	int32_t partition;
};

static int
run_roll_one(struct writer *w, void *arg, char *err, size_t errlen)
{
	struct agent_roll_arg *ra = arg;

	return writer_roll(w, ra->topic, ra->partition, err, errlen);
}

struct agent_view_arg {
	struct agent *a;
	struct complete_view *v;
};

static void
run_view_part(const char *topic, int32_t partition, int at_end,
    time_t last_record, void *arg)
{
	struct agent_view_arg *va = arg;
	struct complete_view *v = va->v;
	struct complete_part *p;

	if (grow_array((void **)&v->parts, &v->parts_cap, v->nparts + 1,
	    sizeof(*v->parts)) < 0)
		return; /* short of memory: that partition holds hours back */
	p = &v->parts[v->nparts];
	if ((p->pending_us = calloc(va->a->ntables, sizeof(int64_t))) == NULL)
		return;
	if ((p->topic = strdup(topic)) == NULL) {
		free(p->pending_us);
		return;
	}
	for (size_t i = 0; i < va->a->ntables; i++)
		p->pending_us[i] = writer_pending_min(table_writer(
		    va->a->tables[i]), topic, partition);
	p->partition = partition;
	p->at_end = at_end;
	p->last_record = last_record;
	v->nparts++;
}

/* Asks the brokers how many partitions each topic has, for those not
 * known yet (they do not change while kedge runs).  Returns the first
 * topic they did not answer for, or NULL when every count is known. */
static const char *
run_learn_partitions(struct agent *a)
{
	const struct conf_strv *topics = &a->conf->kafka.topics;
	const char *missing = NULL;

	for (size_t i = 0; i < topics->n; i++)
		if (a->topic_partitions[i] <= 0 && (a->topic_partitions[i] =
		    source_partition_count(a->src, topics->v[i], 2000)) <= 0 &&
		    missing == NULL)
			missing = topics->v[i];
	return missing;
}

/* Hands the publisher what completing hours needs: the partitions read
 * here, and how many each topic has. */
static void
run_hand_view(struct agent *a)
{
	const struct conf_strv *topics = &a->conf->kafka.topics;
	struct complete_view v = { 0 };
	struct agent_view_arg va = { a, &v };

	run_learn_partitions(a);
	if ((v.topics = calloc(topics->n, sizeof(*v.topics))) == NULL)
		return;
	for (size_t i = 0; i < topics->n; i++) {
		if ((v.topics[i].topic = strdup(topics->v[i])) == NULL)
			break;
		v.topics[i].partitions = a->topic_partitions[i];
		v.ntopics++;
	}
	source_each_part(a->src, run_view_part, &va);
	publisher_set_view(a->pub, &v);
	complete_view_clear(&v);
}

/* A checkpoint; a failure to make rows durable stops consumption, and what
 * was not decided is read again on the next start.  Once all that was read
 * is decided, the publisher learns where the partitions stand. */
static void
run_checkpoint(struct agent *a, const char *why)
{
	if (!a->failed && twopc_checkpoint(a->twopc, a->src, a->pub, why) < 0)
		a->failed = 1;
	if (!a->failed && !twopc_undecided(a->twopc) && a->pub != NULL)
		run_hand_view(a);
}

static void
run_roll(struct agent *a, const char *topic, int32_t partition)
{
	struct agent_roll_arg ra = { topic, partition };
	char err[1024];

	if (a->failed)
		return;
	if (run_each_writer(a, run_roll_one, &ra, err, sizeof(err)) < 0) {
		log_errx("roll: %s; stopping", err);
		a->failed = 1;
	}
}

static int
run_settle_one(struct writer *w, void *arg, char *err, size_t errlen)
{
	(void)arg;
	return writer_settle(w, err, errlen);
}

/* Shutdown: waits until the Parquet files the last checkpoints released
 * are converted into ready/, then hands the publisher the view again, so
 * that their hours can complete.  After a failure, what is not converted
 * yet is left to the next start's recovery. */
static void
run_settle(struct agent *a)
{
	char err[1024];
	int n;

	if (a->failed)
		return;
	if ((n = run_each_writer(a, run_settle_one, NULL, err,
	    sizeof(err))) < 0) {
		log_errx("checkpoint: %s; stopping, the file is converted again "
		    "at the next start", err);
		a->failed = 1;
	} else if (n > 0 && !twopc_undecided(a->twopc) && a->pub != NULL) {
		run_hand_view(a);
	}
}

static void
run_on_assigned(void *opaque, const rd_kafka_topic_partition_list_t *parts)
{
	struct agent *a = opaque;

	twopc_on_assigned(a->twopc, a->src, parts);
	/* until this host has published what it reads there, no hour of these
	 * partitions is complete on an earlier owner's word: the publisher
	 * says so first, and the loop does not wait for HDFS */
	for (int i = 0; i < parts->cnt && a->pub != NULL; i++)
		publisher_hold(a->pub, parts->elems[i].topic,
		    parts->elems[i].partition);
}

static void
run_on_revoked(void *opaque, const rd_kafka_topic_partition_list_t *parts)
{
	struct agent *a = opaque;

	for (int i = 0; i < parts->cnt; i++)
		run_roll(a, parts->elems[i].topic, parts->elems[i].partition);
	run_checkpoint(a, "revoke");
	/* not decided now, it never will be by us: the next owner starts at
	 * the last decided offsets */
	if (twopc_undecided(a->twopc))
		twopc_give_up(a->twopc, parts);
}

static void
run_on_lost(void *opaque, const rd_kafka_topic_partition_list_t *parts)
{
	struct agent *a = opaque;

	twopc_give_up(a->twopc, parts);
}

/* Runs a poll's records through every table that reads their topics, a
 * table at a time, and notes them done. */
static void
run_process(struct agent *a, rd_kafka_message_t **msgs, size_t n)
{
	struct udtf_record recs[RUN_BATCH], mine[RUN_BATCH];
	char err[1024];

	for (size_t i = 0; i < n; i++)
		recs[i] = (struct udtf_record){
			.data = msgs[i]->payload ? msgs[i]->payload : "",
			.len = msgs[i]->len,
			.topic = rd_kafka_topic_name(msgs[i]->rkt),
			.partition = msgs[i]->partition,
			.offset = msgs[i]->offset,
			.timestamp_ms = rd_kafka_message_timestamp(msgs[i],
			    NULL),
		};
	/* what the consumer skipped is accounted for first, as no row; no
	 * offset is skipped inside a run of one partition's consecutive
	 * offsets, so only a run's first record is looked at */
	for (size_t j = 0, end; j < n; j = end) {
		int unread = 0;
		int64_t from, k;

		for (end = j + 1; end < n && msgs[end]->rkt == msgs[j]->rkt &&
		    msgs[end]->partition == msgs[j]->partition &&
		    msgs[end]->offset == msgs[end - 1]->offset + 1; end++)
			;
		k = source_skipped(a->src, msgs[j], msgs[end - 1]->offset,
		    &from, &unread);

		for (size_t i = 0; k > 0 && i < a->ntables; i++)
			if (table_reads_topic(a->tables[i], recs[j].topic) &&
			    table_note_skipped(a->tables[i], recs[j].topic,
			    recs[j].partition, from, from + k - 1, unread, err,
			    sizeof(err)) < 0) {
				log_errx("%s; stopping before %s [%" PRId32 "] "
				    "offset %" PRId64 " is committed", err,
				    recs[j].topic, recs[j].partition, from);
				a->failed = 1;
				return;
			}
	}
	for (size_t i = 0; i < a->ntables; i++) {
		const struct udtf_record *in = recs;
		const char *run_topic = NULL;
		size_t m = 0, done;
		int reads = 0;

		for (size_t j = 0; j < n; j++) {
			/* a poll's records come in runs of one topic, whose
			 * name is one string while they live */
			if (recs[j].topic != run_topic) {
				run_topic = recs[j].topic;
				reads = table_reads_topic(a->tables[i],
				    run_topic);
			}
			if (reads)
				mine[m++] = recs[j];
		}
		if (m == 0)
			continue;
		if (m < n)
			in = mine;
		if (table_process(a->tables[i], in, m, a->rejects, &done, err,
		    sizeof(err)) < 0) {
			char topic[ESCAPE_BUF];

			log_errx("%s; stopping before %s [%" PRId32 "] offset %"
			    PRId64 " is committed", err, escape_str(in[done].topic,
			    topic, sizeof(topic)), in[done].partition,
			    in[done].offset);
			a->failed = 1;
			return;
		}
	}
	/* a partition's next offset is its last record's: once per run of
	 * one partition's records */
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || msgs[i + 1]->rkt != msgs[i]->rkt ||
		    msgs[i + 1]->partition != msgs[i]->partition)
			source_done(a->src, msgs[i]);
	if (a->records == 0 && n > 0)
		clock_gettime(CLOCK_MONOTONIC, &a->first);
	a->records += n;
}

static void
run_log_ticket(const struct agent *a, const char *what)
{
	char end[32];
	time_t t = krb_expires(a->krb);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(end, sizeof(end), "%Y-%m-%dT%H:%M:%SZ", &tm);
	log_notice("kerberos: %s as %s; ticket valid until %s (%ld s)", what,
	    a->conf->kerberos.principal, end, (long)(t - time(NULL)));
}

/* Logs in again when due; a failure is a warning while the ticket lasts.
 * Once it has expired nothing can authenticate to a broker, so kedge holds
 * consumption (checkpoints go on) until a login succeeds. */
static void
run_renew(struct agent *a, time_t now)
{
	char err[1024];
	int r;

	if (a->krb == NULL)
		return;
	/* the login itself runs in krb's thread: the loop goes on, and
	 * keeps systemd's watchdog fed, however long the KDC takes */
	if ((r = krb_renew(a->krb, now, err, sizeof(err))) == KRB_STARTED)
		log_info("kerberos: logging in again as %s; the ticket has "
		    "%ld s left", a->conf->kerberos.principal,
		    (long)(krb_expires(a->krb) - now));
	else if (r == KRB_RENEWED) {
		run_log_ticket(a, "logged in again");
		if (source_held(a->src) & SOURCE_HOLD_LOGIN) {
			source_hold(a->src, SOURCE_HOLD_LOGIN, 0);
			log_notice("kafka: consumption resumed%s",
			    source_held(a->src) ? " once the spool has room" : "");
		}
		return;
	}
	if (r < 0 && now < krb_expires(a->krb))
		log_warnx("kerberos: %s; the ticket has %ld s left, trying again",
		    err, (long)(krb_expires(a->krb) - now));
	else if (r < 0)
		log_errx("kerberos: %s; the ticket has expired, consumption "
		    "stays paused", err);
	if (now >= krb_expires(a->krb) && !a->conf->kerberos.use_ticket_cache &&
	    !(source_held(a->src) & SOURCE_HOLD_LOGIN)) {
		source_hold(a->src, SOURCE_HOLD_LOGIN, 1);
		log_errx("kerberos: the ticket of %s expired and no new one "
		    "could be had: consumption paused until a login succeeds",
		    a->conf->kerberos.principal);
	}
}

/* Holds consumption while the spool is over spool.max_bytes or its file
 * system under spool.min_free_bytes, and lets it go on once the publisher
 * has brought the spool under 90 % of the maximum (and the disk above the
 * floor), so that it does not flap at the mark.  Publishing frees the
 * spool but not what others fill its file system with: the message says
 * which of the two holds consumption, and what to do. */
static void
run_backpressure(struct agent *a)
{
	const struct conf *c = a->conf, *live = a->live;
	struct spool_usage *u = &a->spool;
	int full, held = (source_held(a->src) & SOURCE_HOLD_SPOOL) != 0;
	uint64_t max = (uint64_t)live->spool.max_bytes;

	if (spoolcount_get(c->output.spool_dir, u) < 0)
		return;
	full = u->bytes > (held ? max / 10 * 9 : max) || agent_spool_low(a);
	if (full == held)
		return;
	source_hold(a->src, SOURCE_HOLD_SPOOL, full);
	if (full && agent_spool_low(a))
		log_warnx("spool: %s has %" PRIu64 " bytes free, under "
		    "spool.min_free_bytes (%" PRId64 "), and holds %" PRIu64
		    " bytes in %" PRIu64 " files not yet published: consumption "
		    "paused until it has %" PRId64 " bytes free again; free space "
		    "on that file system or lower spool.min_free_bytes",
		    c->output.spool_dir, u->free_bytes,
		    live->spool.min_free_bytes, u->bytes, u->ready_files,
		    live->spool.min_free_bytes);
	else if (full)
		log_warnx("spool: %s holds %" PRIu64 " bytes in %" PRIu64 " files "
		    "not yet published, over spool.max_bytes (%" PRIu64 "); %"
		    PRIu64 " bytes free: consumption paused until the publisher "
		    "brings it under %" PRIu64 " bytes (its errors are in the log "
		    "and in kedge status)", c->output.spool_dir, u->bytes,
		    u->ready_files, max, u->free_bytes, max / 10 * 9);
	else
		log_notice("spool: %s has %" PRIu64 " bytes free and holds %"
		    PRIu64 " bytes; consumption resumed%s", c->output.spool_dir,
		    u->free_bytes, u->bytes, source_held(a->src) ? " once the "
		    "Kerberos login succeeds" : "");
}

static void
run_sum_lag(const char *topic, int32_t partition, int64_t next, int64_t high,
    void *arg)
{
	int64_t *lag = arg;

	(void)topic, (void)partition;
	if (high > next)
		*lag += high - next;
}

/* "; ticket N s left", in a static buffer: for the one-line STATUS=. */
static const char *
run_ticket_left(const struct agent *a, time_t now)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "; ticket %ld s left",
	    (long)(krb_expires(a->krb) - now));
	return buf;
}

/* Tells systemd READY=1 once the brokers answered for metadata and the
 * target answered (the Kerberos login is done before the loop); until
 * then, asks again every few seconds and says once what it waits for. */
static void
run_ready(struct agent *a, time_t now)
{
	const char *missing;
	char why[512];

	if (a->ready || now < a->ready_try)
		return;
	a->ready_try = now + RUN_READY_RETRY_S;
	if ((missing = run_learn_partitions(a)) != NULL) {
		snprintf(why, sizeof(why), "the brokers %s have not answered for "
		    "topic %s yet", a->conf->kafka.brokers, missing);
	} else if (target_check(a->target, why, sizeof(why)) == 0) {
		a->ready = 1;
		notify_send("READY=1\nSTATUS=consuming");
		log_notice("ready: the brokers and %s answered",
		    target_where(a->target));
		return;
	}
	if (strcmp(why, a->ready_why) != 0)
		log_warnx("not ready yet: %s", why);
	snprintf(a->ready_why, sizeof(a->ready_why), "%s", why);
}

/* Replaces <spool_dir>/status; a failure is only logged. */
static void
run_status(struct agent *a, time_t now, int stopping)
{
	struct status s = { .started = a->started, .records = a->records,
	    .tables = a->tables, .ntables = a->ntables,
	    .checkpoints = twopc_durations(a->twopc), .stopping = stopping,
	    .cert_end = a->cert_end, .spool = &a->spool };
	struct metrics_topic *topics;
	struct publish_stats ps;
	struct health h;
	int64_t lag = 0;
	int r;

	agent_health(a, &h);
	s.health = &h;
	s.brokers_down = h.brokers_down;
	s.paused = h.paused[0] != '\0' ? h.paused : NULL;
	if (a->src != NULL)
		s.lag_unknown = source_lags(a->src, run_sum_lag, &lag);
	s.lag = lag;
	if ((topics = agent_assigned(a)) != NULL) {
		s.topics = topics;
		s.ntopics = a->conf->kafka.topics.n;
	}
	if (a->pub != NULL) {
		publisher_get_stats(a->pub, &ps);
		s.published = &ps;
	}
	if (a->krb != NULL) {
		s.principal = a->conf->kerberos.principal;
		s.ticket_end = krb_expires(a->krb);
	}
	if (now > a->status_at)
		s.records_per_s = (double)(a->records - a->status_records) /
		    (double)(now - a->status_at);
	a->status_at = now;
	a->status_records = a->records;

	if (a->ready)
		notify_send("STATUS=%.0f records/s; lag %" PRId64 "; spool %" PRIu64
		    " bytes, %" PRIu64 " files to publish%s%s%s", s.records_per_s,
		    lag, a->spool.bytes, a->spool.ready_files, s.paused ?
		    "; paused: " : "", s.paused ? s.paused : "",
		    a->krb != NULL ? run_ticket_left(a, now) : "");
	if ((r = status_write(a->conf, &s)) < 0)
		log_warnx("status: cannot write %s/%s: %s", a->conf->output.spool_dir,
		    STATUS_FILE, strerror(-r));
	free(topics);
}

static void
run_loop(struct agent *a, const struct run_opts *o)
{
	rd_kafka_message_t *msgs[RUN_BATCH];
	time_t last_tick = time(NULL), last_ckpt = last_tick;
	char err[1024];

	while (!run_stop && !a->failed) {
		size_t n = source_poll(a->src, msgs, RUN_BATCH, RUN_POLL_MS);
		time_t now;

		crash_point("loop");
		notify_watchdog();
		if (!a->failed)
			run_process(a, msgs, n);
		for (size_t i = 0; i < n; i++)
			rd_kafka_message_destroy(msgs[i]);
		if (n > 0)
			clock_gettime(CLOCK_MONOTONIC, &a->last);
		if (run_reload) {
			run_reload = 0;
			agent_reload(a);
		}
		if ((now = time(NULL)) != last_tick) {
			last_tick = now;
			run_ready(a, now);
			run_renew(a, now);
			run_backpressure(a);
			if (run_each_writer(a, run_tick_one, &now, err,
			    sizeof(err)) < 0) {
				log_errx("roll: %s; stopping", err);
				a->failed = 1;
			}
			agent_metrics(a, now);
		}
		if (now - last_ckpt >= a->live->checkpoint.interval) {
			last_ckpt = now;
			run_checkpoint(a, "interval");
		}
		if (now - a->status_at >= STATUS_INTERVAL_S)
			run_status(a, now, 0);
		if (source_failure(a->src) != NULL) {
			log_errx("kafka: %s; stopping", source_failure(a->src));
			a->failed = 1;
			break;
		}
		if (o->exit_at_end && source_at_end(a->src)) {
			log_info("every partition is at its end; stopping");
			break;
		}
	}
}

/* Shutdown: the last checkpoint, its commit tried a few times. */
static void
run_last_checkpoint(struct agent *a)
{
	run_checkpoint(a, "shutdown");
	for (int i = 1; i < RUN_DECIDE_TRIES && !a->failed &&
	    twopc_undecided(a->twopc); i++) {
		sleep(2);
		run_checkpoint(a, "shutdown");
	}
	if (twopc_undecided(a->twopc))
		log_warnx("checkpoint: the last one stays undecided; the next start "
		    "decides it from what the group committed");
}

static void
run_warn(void *arg, const char *sentence)
{
	(void)arg;
	log_warnx("%s", sentence);
}

int
run_main(const struct conf *c, const struct run_opts *o)
{
	static const struct source_hooks hooks_proto = { run_on_assigned,
	    run_on_revoked, run_on_lost, NULL };
	struct source_hooks hooks = hooks_proto;
	struct agent a;
	char err[1024];
	int status = 1, r, lock;

	run_signals();
	/* one kedge per spool: two would write the same files */
	if ((lock = spool_lock(c->output.spool_dir, err, sizeof(err))) < 0) {
		log_errx("%s", err);
		return lock == -EBUSY ? RUN_EX_CONFIG : 1;
	}
	crash_init();
	tick_init();
	if (notify_init() < 0)
		log_warnx("NOTIFY_SOCKET=%s cannot be used; systemd will not "
		    "hear from kedge", getenv("NOTIFY_SOCKET"));
	/* before any thread; only for HDFS: libcurl's TLS and protocol
	 * libraries cost a local target 2 MiB of resident pages */
	if (strcmp(c->output.target, "webhdfs") == 0 &&
	    webhdfs_global_init() < 0) {
		log_errx("cannot initialise libcurl");
		close(lock);
		return 1;
	}
	if (agent_build(&a, c, err, sizeof(err)) < 0) {
		log_errx("%s", err);
		agent_clear(&a);
		close(lock);
		return 1;
	}
	if (agent_check_nofile(c, a.nwriters, err, sizeof(err)) < 0) {
		log_errx("%s", err);
		agent_clear(&a);
		close(lock);
		return RUN_EX_CONFIG; /* a restart would not help */
	}
	if (c->metrics.enabled && (a.metrics = metrics_start(c->metrics.listen,
	    c->metrics.stall_timeout, err, sizeof(err))) == NULL) {
		log_errx("%s: metrics.listen: %s; set metrics.listen to a free "
		    "ADDRESS:PORT, or metrics.enabled = false", c->path, err);
		goto out;
	}
	if (agent_check_tls(c, &a.cert_end, run_warn, NULL, err,
	    sizeof(err)) < 0) {
		log_errx("%s", err);
		goto out;
	}
	if (c->kerberos.principal != NULL) {
		struct krb_opts ko = agent_krb_opts(c);
		if ((a.krb = krb_login(&ko, err, sizeof(err))) == NULL) {
			log_errx("kerberos: %s", err);
			goto out;
		}
		run_log_ticket(&a, c->kerberos.use_ticket_cache ?
		    "using the cached tickets" : "logged in");
	}
	hooks.opaque = &a;
	if ((a.twopc = twopc_new(c, a.writers, a.nwriters, err,
	    sizeof(err))) == NULL ||
	    (a.src = source_new(c, &hooks, err, sizeof(err))) == NULL) {
		log_errx("%s", err);
		goto out;
	}
	if ((a.target = target_open(c, err, sizeof(err))) == NULL) {
		log_errx("%s", err);
		goto out;
	}
	if (twopc_recover(a.twopc, a.src) < 0)
		goto out;
	/* what earlier runs left, walked once; counted from here on */
	if ((r = spoolcount_start(c->output.spool_dir)) < 0) {
		log_errx("spool: cannot measure %s: %s", c->output.spool_dir,
		    strerror(-r));
		goto out;
	}
	if ((a.pub = publisher_start(c, err, sizeof(err))) == NULL ||
	    source_start(a.src, twopc_start_at, a.twopc, err, sizeof(err)) < 0) {
		log_errx("%s", err);
		goto out;
	}
	log_notice("kedge %s running: %zu table(s), brokers %s; UDTF clock %s",
	    KEDGE_VERSION, a.ntables, c->kafka.brokers, tick_source());
	a.started = time(NULL);  /* status_at 0: the status at the first turn */
	/* before the first poll: a spool already short of room holds the
	 * partitions from their assignment on, before any record is read */
	run_backpressure(&a);
	run_loop(&a, o);
	a.stopping = a.failed ? (source_failure(a.src) != NULL ?
	    source_failure(a.src) : "rows could not be made durable (see the "
	    "log)") : run_stop ? "told to stop (SIGTERM or SIGINT)" :
	    "every partition is read to its end";
	agent_metrics(&a, time(NULL));  /* /ready: stopping */
	notify_send("STOPPING=1\nSTATUS=stopping: the last checkpoint");
	log_info("stopping: rolling every file and committing");
	run_roll(&a, NULL, 0);
	run_last_checkpoint(&a);
	run_settle(&a);
	a.wakeups = source_wakeups(a.src);
	source_close(a.src);   /* a revoke here commits the same offsets again */
	a.src = NULL;
	if (o->exit_at_end)
		publisher_settle(a.pub);
	if (publisher_drain(a.pub, RUN_DRAIN_S) > 0)
		log_warnx("publish: files are left in %s/ready; they are published "
		    "on the next start", c->output.spool_dir);
	agent_summary(&a);
	run_status(&a, time(NULL), 1);
	status = a.failed ? 1 : 0;
out:
	metrics_stop(a.metrics);
	source_close(a.src);
	publisher_stop(a.pub);
	krb_free(a.krb);
	agent_clear(&a);
	close(lock);
	return status;
}
