/*
 * status: what the running daemon tells a person or a script, in two
 * files of <spool_dir> that it replaces every few seconds and at exit:
 * "status", text, and "status.json", the same facts and the health checks
 * (health.h) as JSON (docs/running.md): records, rows and rejects per
 * table, what each table's UDTF chain costs per record (percentiles and
 * the slowest records with their offsets), partitions assigned and lag,
 * the spool, publishing and the checkpoints.  `kedge status` prints them,
 * saying whether the daemon that wrote them still runs and is healthy.
 */
#ifndef KEDGE_STATUS_H
#define KEDGE_STATUS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "agent/config/config.h"
#include "agent/ops/health.h"
#include "agent/ops/metrics.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/write/spool.h"
#include "lib/hist.h"

#define STATUS_FILE "status"
#define STATUS_JSON_FILE "status.json"
#define STATUS_INTERVAL_S 5
/* `kedge status`'s exit status when no daemon runs (LSB's "program is not
 * running"); 0 when it runs and is healthy, 1 when a check fails */
#define STATUS_NOT_RUNNING 3

struct status {
	time_t started;
	uint64_t records;
	double records_per_s;      /* since the last status */
	struct table **tables;
	size_t ntables;
	const struct hist *checkpoints;
	int stopping;              /* the last one, written at exit */
	const char *principal;     /* NULL without Kerberos */
	time_t ticket_end;
	time_t cert_end;           /* of the client certificate; 0: none */
	const char *paused;        /* why consumption is held, or NULL */
	const struct metrics_topic *topics; /* partitions assigned, per topic
	                           * of kafka.topics; NULL: not known */
	size_t ntopics;
	int64_t lag;               /* records behind the partitions' ends */
	size_t lag_unknown;        /* partitions not in lag: nothing fetched */
	time_t brokers_down;       /* since when no broker answers; 0: they do */
	const struct spool_usage *spool;
	const struct publish_stats *published;
	const struct health *health; /* its checks go to status.json */
};

/* Replaces <spool_dir>/status.json and <spool_dir>/status with s.
 * Returns 0 or -errno. */
int status_write(const struct conf *c, const struct status *s);

/*
 * Prints what <spool_dir> holds to out: whether its writer still runs
 * and, while it does, whether every check passes ("alive" too: the files
 * are no older than metrics.stall_timeout + STATUS_INTERVAL_S), naming
 * each that fails, then the text status and the URL of the metrics; with
 * as_json, status.json with "running", "healthy", "metrics" and the
 * checks added.  Returns 0 when the daemon runs and is healthy, 1 when it
 * runs and a check fails, STATUS_NOT_RUNNING when it does not run or has
 * never written its status (the reason on stderr).
 */
int status_show(const struct conf *c, int as_json, FILE *out);

#endif /* KEDGE_STATUS_H */
