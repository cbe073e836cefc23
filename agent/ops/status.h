/*
 * status: what the running daemon tells a person, in a small text file
 * <spool_dir>/status that it replaces every few seconds and at exit:
 * records, rows and rejects per table, what each table's UDTF chain costs
 * per record (percentiles and the slowest records with their offsets), and
 * the checkpoints.  `kedge status` prints it, saying whether the daemon
 * that wrote it is still running.
 */
#ifndef KEDGE_STATUS_H
#define KEDGE_STATUS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "agent/config/config.h"
#include "agent/ops/metrics.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/write/spool.h"
#include "lib/hist.h"

#define STATUS_FILE "status"
#define STATUS_INTERVAL_S 5

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
};

/* Replaces <spool_dir>/status with s.  Returns 0 or -errno. */
int status_write(const struct conf *c, const struct status *s);

/* Prints <spool_dir>/status to out with whether its writer still runs,
 * and while it runs the URL of its metrics as c gives it.  Returns 0, or
 * 1 with the reason on stderr when there is none. */
int status_show(const struct conf *c, FILE *out);

#endif /* KEDGE_STATUS_H */
