/*
 * agent: the running daemon's state, built and freed by agent.c and
 * shared by run.c (the main loop), runinfo.c (the figures it reports),
 * reload.c (what SIGHUP changes in it) and check.c (check-config, which
 * builds each table as the run does, and checks the TLS files with
 * agent_check_tls()).  Private to those: the rest of kedge sees only
 * run.h.
 */
#ifndef KEDGE_AGENT_H
#define KEDGE_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "agent/config/config.h"
#include "agent/write/spool.h"
#include "security/krb.h"

struct krb;
struct metrics_server;
struct metrics_topic;
struct publisher;
struct rejects;
struct source;
struct table;
struct target;
struct twopc;
struct tz;
struct writer;

struct agent {
	const struct conf *conf;
	struct tz *tz;
	struct table **tables;
	size_t ntables;
	struct rejects *rejects;
	struct writer **writers;   /* every table's, then the rejects' */
	size_t nwriters;
	struct twopc *twopc;
	struct publisher *pub;
	struct source *src;
	int failed;                /* rows could not be made durable */
	uint64_t records;
	uint64_t wakeups;          /* the source's, kept past its close */
	struct timespec first, last;  /* first and last record consumed */
	struct krb *krb;           /* NULL without Kerberos */
	time_t cert_end;           /* of the client certificate; 0: none */
	time_t started;
	time_t status_at;          /* when the status was last written */
	struct spool_usage spool;  /* read each second (spoolcount.h) */
	int32_t *topic_partitions; /* of kafka.topics; <= 0: not known yet */
	struct target *target;     /* checked before READY=1 */
	const struct conf *live;   /* the last applied: its reloadable keys;
	                            * its tables in conf's order */
	struct conf **reloaded;    /* every conf loaded by SIGHUP, kept alive */
	size_t nreloaded, reloaded_cap;
	int ready;                 /* systemd was told READY=1 */
	time_t ready_try;          /* when to check again */
	char ready_why[512];       /* what was not ready, last time */
	uint64_t status_records;   /* records by then */
	struct metrics_server *metrics; /* NULL: metrics.enabled is false */
	const char *stopping;      /* why the loop ended; NULL while it runs */
};

/* Builds the time zone, the tables and the rejects table into a, zeroed
 * first, and their writers into a->writers.  Returns 0, or -1 with the
 * sentence in err; either way agent_clear() frees what was built. */
int agent_build(struct agent *a, const struct conf *c, char *err,
    size_t errlen);

/* Frees what a holds (the tables, the rejects table, the time zone, the
 * two-phase commit, the target and the configurations SIGHUP loaded), not
 * a itself, nor its source, publisher, Kerberos login or metrics server,
 * which run_main() closes.  Accepts what agent_build() left half built. */
void agent_clear(struct agent *a);

/* Returns the Kerberos settings of c as krb_login()'s options. */
struct krb_opts agent_krb_opts(const struct conf *c);

/* Checks the TLS files; with a client certificate, sets *cert_end (when
 * cert_end is not NULL) to its end and warns 30 days before.  Warns when
 * kafka.rdkafka switches a certificate check off.  A warning is a sentence
 * handed to warn(arg, sentence).
 * Returns 0, or a negative value with the sentence in err. */
int agent_check_tls(const struct conf *c, time_t *cert_end,
    void (*warn)(void *arg, const char *sentence), void *arg, char *err,
    size_t errlen);

/* Logs, once, what a table's UDTFs asked to have said. */
void agent_log_notes(struct table *t);

/* Makes sure RLIMIT_NOFILE holds what the writers may open: raises the
 * soft limit up to the hard one when it is short.  Returns 0, or -EMFILE
 * with the sentence in err. */
int agent_check_nofile(const struct conf *c, size_t nwriters, char *err,
    size_t errlen);

/* SIGHUP: reads the configuration file again and applies it whole, or
 * not at all.  What SIGHUP can apply (the keys the key table marks so:
 * log level, roll policy, UDTF configurations that keep a table's
 * columns, checkpoint interval, spool limits, and, through a new
 * publisher and HDFS clients, completion, output.on_complete and the HDFS
 * timeouts and CA) is built first, beside what runs; only once everything
 * is built does it replace what ran.  Tables are matched by name, wherever
 * the file lists them.  A file with a mistake, one that changes a key that
 * needs a restart (each is named in the log, tables[NAME].key for a
 * table's), and one whose new parts cannot be built change nothing. */
void agent_reload(struct agent *a);

/* Hands a->metrics, when there is one, the figures the loop knows at now
 * (metrics.h): the tables', the spool's, the publisher's and the lags'.
 * a->src must be open.  Out of memory, the server keeps serving the
 * figures before, and the log says so. */
void agent_metrics(struct agent *a, time_t now);

/* Whether the spool's file system has less free than spool.min_free_bytes,
 * as last measured. */
int agent_spool_low(const struct agent *a);

/* Fills h with what a knows of its health (health.h): whether the brokers
 * and the target answered, partitions, pauses, publishing, stopping. */
struct health;
void agent_health(struct agent *a, struct health *h);

/* Returns, per topic of kafka.topics in order, how many of its partitions
 * are assigned, or NULL when a->src is not open or short of memory; the
 * caller frees it. */
struct metrics_topic *agent_assigned(struct agent *a);

/* Logs what the run did: per table records, rows, rejects, the UDTF's cost
 * per record and the slowest records; then the records consumed and their
 * rate, the checkpoints' durations, files published and peak memory. */
void agent_summary(struct agent *a);

#endif /* KEDGE_AGENT_H */
