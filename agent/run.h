/*
 * run: the daemon's main loop.  Consume a batch, run every record through
 * the tables that read its topic, roll files by policy, and every
 * checkpoint.interval (and on revoke and shutdown) make the rows durable,
 * commit the offsets, and hand the rolled files to the publisher.
 */
#ifndef KEDGE_RUN_H
#define KEDGE_RUN_H

#include <stddef.h>

#include "agent/config/config.h"

struct run_opts {
	int exit_at_end;   /* stop once every assigned partition is at its end */
};

/* EX_CONFIG (sysexits.h): what run_main() and `kedge run` exit with when
 * the configuration, or another kedge on the same spool, stops them;
 * systemd's RestartPreventExitStatus= does not start kedge again for it. */
#define RUN_EX_CONFIG 78

/* Runs until SIGTERM or SIGINT (or the end, with exit_at_end), then rolls
 * every file, commits, publishes and returns 0; returns 1 after an error
 * that stopped consumption (logged), RUN_EX_CONFIG when another kedge runs
 * on output.spool_dir or RLIMIT_NOFILE cannot hold what
 * output.roll.max_open_files allows. */
int run_main(const struct conf *c, const struct run_opts *o);

/* Checks what the config names beyond its keys, as run builds it, without
 * a network: the time zone; every table's UDTFs (compiling their
 * configurations) and event-time column; the librdkafka configuration
 * (source_check_conf()); the Kerberos keytab; the TLS files.  Adds every
 * error and warning to rep, and leaves out what an error already in rep
 * blames (a key that did not load).  Returns 0 when rep holds no error,
 * else -1. */
int run_check(const struct conf *c, struct conf_report *rep);

/* After run_check: logs in (with Kerberos), asks the brokers for the
 * topics and HDFS for output.webhdfs.base_dir.  Writes what it found, one
 * line, to info.  Returns 0, or -1 with the error in rep: what the KDC,
 * the brokers or HDFS answered, blamed on the file, not on a key. */
int run_check_online(const struct conf *c, char *info, size_t infolen,
    struct conf_report *rep);

#endif /* KEDGE_RUN_H */
