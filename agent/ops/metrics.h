/*
 * metrics: kedge's figures in the Prometheus text exposition format
 * (version 0.0.4), served over HTTP at /metrics (docs/metrics.md) by
 * metrics_http.h.
 *
 * The module never logs; errors are sentences in err.
 */
#ifndef KEDGE_METRICS_H
#define KEDGE_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "agent/ops/health.h"
#include "agent/parse/latency.h"
#include "lib/hist.h"

/* One table's counters and the latency of its UDTF chain. */
struct metrics_table {
	const char *name;          /* not owned */
	uint64_t records;
	uint64_t rows;
	uint64_t rejects;
	uint64_t empty;            /* records that gave no row */
	uint64_t files_open;       /* its part files holding a descriptor */
	uint64_t files_parked;
	uint64_t files_reopened;   /* parked files opened again for a row */
	const struct latency *udtf; /* not owned; NULL: none */
	/* on the host that completes the table's hours: its watermark and
	 * the start of its latest complete hour, UNIX seconds; INT64_MIN
	 * where not known */
	int64_t watermark;
	int64_t last_complete_hour;
};

/* A topic of kafka.topics and how many of its partitions are assigned
 * here. */
struct metrics_topic {
	const char *name;          /* not owned */
	uint64_t assigned;
};

/* One table's runs of output.on_complete, and its revisions waiting. */
struct metrics_on_complete {
	uint64_t ok, failed, timeout;
	uint64_t pending;
};

/* The lag of one assigned partition. */
struct metrics_lag {
	char topic[256];
	int32_t partition;
	int64_t lag;               /* high watermark - next offset, >= 0 */
};

/* Everything one rendering shows.  Pointers are not owned and need only
 * outlive metrics_set() or metrics_render(); lags are grown by
 * metrics_add_lag() and freed by metrics_snapshot_clear(). */
struct metrics_snapshot {
	const char *version;
	time_t now;
	time_t started;
	uint64_t consumed;             /* records read from Kafka */
	const struct metrics_table *tables;
	size_t ntables;
	const struct metrics_topic *topics;
	size_t ntopics;
	struct metrics_lag *lags;
	size_t nlags, lags_cap;
	const struct hist *checkpoints;  /* seal + decide; NULL: none */
	time_t ticket_end;             /* 0: no Kerberos */
	time_t cert_end;               /* 0: no client certificate */
	int has_spool;                 /* the four below were measured */
	uint64_t spool_bytes;
	uint64_t spool_ready_files;
	time_t spool_oldest_ready;     /* 0: no file waits */
	uint64_t spool_free_bytes;
	int has_published;             /* the three below are known */
	uint64_t published_files;
	uint64_t published_bytes;
	uint64_t publish_errors;
	int paused_login;              /* the Kerberos ticket expired */
	int paused_spool;              /* the spool is full */
	const struct metrics_on_complete *on_complete; /* ntables of them;
	                                 * NULL: no output.on_complete */
	const struct health *health;   /* for /ready (metrics_http.h), not
	                                 * rendered; NULL: none */
};

/* A source_lag_fn (source.h): appends the partition's lag to the snapshot
 * arg.  Short of memory, the partition is left out. */
void metrics_add_lag(const char *topic, int32_t partition, int64_t next,
    int64_t high, void *arg);

/* Frees the lags and leaves m's lag list empty. */
void metrics_snapshot_clear(struct metrics_snapshot *m);

/* Writes m to out in the text exposition format.  Returns 0, or -EIO when
 * out reports an error. */
int metrics_render(FILE *out, const struct metrics_snapshot *m);

#endif /* KEDGE_METRICS_H */
