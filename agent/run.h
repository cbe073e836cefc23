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

/* Runs until SIGTERM or SIGINT (or the end, with exit_at_end), then rolls
 * every file, commits, publishes and returns 0; returns 1 after an error
 * that stopped consumption (logged), 78 (EX_CONFIG) when RLIMIT_NOFILE
 * cannot hold what output.roll.max_open_files allows. */
int run_main(const struct conf *c, const struct run_opts *o);

/* Checks what the config names beyond its syntax: the time zone, every
 * table's UDTF (compiling its configuration) and event-time column, and
 * the Kerberos keytab (offline).
 * Returns 0, or -1 with "FILE:LINE: key: what is wrong" in err. */
int run_check(const struct conf *c, char *err, size_t errlen);

/* After run_check: logs in (with Kerberos) and asks the brokers for the
 * topics.  Writes what it found, one line, to info.  Returns 0, or -1
 * with the sentence in err. */
int run_check_online(const struct conf *c, char *info, size_t infolen,
    char *err, size_t errlen);

#endif /* KEDGE_RUN_H */
