/* agent: the running daemon's state (agent.h) built and freed, for the
 * run loop (run.c), and the descriptor limit it needs. */
#include "agent/agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "agent/parse/rejects.h"
#include "agent/parse/table.h"
#include "agent/target/target.h"
#include "agent/twopc.h"
#include "agent/write/tz.h"
#include "lib/err.h"
#include "lib/log.h"
#include "security/krb.h"

void
agent_log_notes(struct table *t)
{
	const struct chain *ch = table_chain(t);
	const char *note, *udtf;

	for (size_t i = 0; i < chain_length(ch); i++)
		if ((note = chain_note(ch, i, &udtf)) != NULL)
			log_notice("table %s: UDTF %s: %s", table_name(t), udtf,
			    note);
}

int
agent_build(struct agent *a, const struct conf *c, char *err, size_t errlen)
{
	char why[512];

	memset(a, 0, sizeof(*a));
	a->conf = a->live = c;
	if ((a->tz = tz_open(c->output.timezone, why, sizeof(why))) == NULL) {
		struct conf_loc at = conf_where(c, "output.timezone");

		return err_set(err, errlen, -1, "%s:%d: output.timezone: %s",
		    at.file, at.line, why);
	}
	if ((a->tables = calloc(c->n_tables, sizeof(*a->tables))) == NULL)
		return err_set(err, errlen, -1, "out of memory");
	for (; a->ntables < c->n_tables; a->ntables++) {
		a->tables[a->ntables] = table_new(c, a->ntables, a->tz, err, errlen);
		if (a->tables[a->ntables] == NULL)
			return -1;
		agent_log_notes(a->tables[a->ntables]);
	}
	if ((a->rejects = rejects_new(c, a->tz, err, errlen)) == NULL)
		return -1;
	if ((a->writers = calloc(a->ntables + 1, sizeof(*a->writers))) == NULL ||
	    (a->topic_partitions = calloc(c->kafka.topics.n,
	    sizeof(*a->topic_partitions))) == NULL) {
		return err_set(err, errlen, -1, "out of memory");
	}
	for (size_t i = 0; i < a->ntables; i++)
		a->writers[a->nwriters++] = table_writer(a->tables[i]);
	a->writers[a->nwriters++] = rejects_writer(a->rejects);
	return 0;
}

void
agent_clear(struct agent *a)
{
	twopc_free(a->twopc);
	free(a->writers);
	for (size_t i = 0; i < a->ntables; i++)
		table_free(a->tables[i]);
	free(a->tables);
	rejects_free(a->rejects);
	tz_close(a->tz);
	free(a->topic_partitions);
	target_close(a->target);
	for (size_t i = 0; i < a->nreloaded; i++)
		conf_free(a->reloaded[i]);
	free(a->reloaded);
}

struct krb_opts
agent_krb_opts(const struct conf *c)
{
	struct krb_opts o = { c->kerberos.principal, c->kerberos.keytab,
	    c->kerberos.use_ticket_cache, c->kerberos.renew_at };

	return o;
}

/* Descriptors kedge holds besides its part files and journals: Kafka and
 * HDFS connections, the publisher's copies, the checkpoint store, the
 * spool walks, the log and the metrics socket. */
#define AGENT_FD_RESERVE 128

int
agent_check_nofile(const struct conf *c, size_t nwriters, char *err,
    size_t errlen)
{
	rlim_t need = (rlim_t)nwriters * 2 *
	    (rlim_t)c->output.roll.max_open_files + AGENT_FD_RESERVE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return 0;
	}
	return err_set(err, errlen, -EMFILE,
	    "RLIMIT_NOFILE is %llu (at most %llu), but %zu "
	    "writers (the tables and _rejects) x 2 x output.roll.max_open_files "
	    "(%d) + %d need %llu descriptors: raise LimitNOFILE= in the unit "
	    "(ulimit -n), or lower output.roll.max_open_files in %s",
	    (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
	    nwriters, c->output.roll.max_open_files, AGENT_FD_RESERVE,
	    (unsigned long long)need, c->path);
}
