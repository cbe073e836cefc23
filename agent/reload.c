/* SIGHUP: the configuration read again and applied whole, or not at all:
 * see agent.h. */
#include "agent/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/config/confdiff.h"
#include "agent/ops/notify.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/target/target.h"
#include "agent/twopc.h"
#include "agent/write/writer.h"
#include "lib/err.h"
#include "lib/grow.h"
#include "lib/log.h"

/* What a reload found changed, and what it built to apply it. */
struct agent_changes {
	const struct agent *a;
	char applied[2048];        /* keys SIGHUP applies */
	char restart[2048];        /* keys that need a restart */
	int publisher;             /* the publisher must start again */
	int target;                /* so must the loop's own HDFS clients */
	unsigned char *tables;     /* per running table: its UDTF config changed */
	struct chain **chains;     /* per running table: its new chain, or NULL */
	struct publisher *pub;     /* the new publisher, or NULL */
	struct target *target_loop, *target_twopc;
};

/* Appends the key path (of the table named table, unless NULL) to list,
 * as "tables[access].udtf_config"; a table only one file has is "tables"
 * with how. */
static void
agent_note_change(char *list, size_t size, const char *path,
    const char *table, const char *how)
{
	size_t len = strlen(list);
	const char *sep = len ? ", " : "";

	if (len + 2 >= size)
		return;
	if (table == NULL)
		snprintf(list + len, size - len, "%s%s", sep, path);
	else if (how != NULL)
		snprintf(list + len, size - len, "%s%s[%s] (%s)", sep, path, table,
		    how);
	else /* "tables.udtf_config" -> "tables[access].udtf_config" */
		snprintf(list + len, size - len, "%s%.6s[%s]%s", sep, path,
		    table, path + 6);
}

/* Sorts one changed key (a conf_diff_fn): SIGHUP applies it, or it needs a
 * restart; the key table says which. */
static void
agent_classify(const char *path, const char *table, void *arg)
{
	struct agent_changes *ch = arg;
	const struct conf *live = ch->a->live;
	size_t i;

	if (table != NULL && strcmp(path, "tables") == 0) {
		agent_note_change(ch->restart, sizeof(ch->restart), path, table,
		    conf_table_find(live, table) < live->n_tables ? "removed" :
		    "added");
		return;
	}
	if (!conf_key_reloads(path)) {
		agent_note_change(ch->restart, sizeof(ch->restart), path, table,
		    NULL);
		return;
	}
	agent_note_change(ch->applied, sizeof(ch->applied), path, table, NULL);
	/* the running tables are in live's order (conf_tables_order()) */
	if (table != NULL && (i = conf_table_find(live, table)) < live->n_tables)
		ch->tables[i] = 1;
	if (strncmp(path, "completion.", 11) == 0 ||
	    strncmp(path, "output.on_complete", 18) == 0)
		ch->publisher = 1;
	if (strncmp(path, "output.webhdfs.", 15) == 0)
		ch->publisher = ch->target = 1;
}

/* Builds what applying c takes, touching nothing that runs: the tables'
 * new chains, the HDFS clients, the publisher; and lists c's tables in
 * the running order.  Returns 0, or -1 with the sentence in err (what was
 * built is freed by agent_changes_clear()). */
static int
agent_reload_prepare(struct agent *a, struct conf *c,
    struct agent_changes *ch, char *err, size_t errlen)
{
	char why[1024];

	if (grow_array((void **)&a->reloaded, &a->reloaded_cap,
	    a->nreloaded + 1, sizeof(*a->reloaded)) < 0)
		return err_set(err, errlen, -1, "out of memory");
	for (size_t i = 0; i < a->ntables; i++)
		if (ch->tables[i] && (ch->chains[i] = table_reload_chain(
		    a->tables[i], c, why, sizeof(why))) == NULL)
			return err_set(err, errlen, -1,
			    "tables[%s].udtf_config: %s", table_name(a->tables[i]),
			    why);
	/* from here on an index means the same table in c as in what runs
	 * (the completer and output.on_complete count by index); the chains
	 * above named the file's places in their errors */
	conf_tables_order(c, a->live);
	if (agent_check_nofile(c, a->nwriters, err, errlen) < 0)
		return -1;
	if (ch->target && ((ch->target_loop = target_open(c, err,
	    errlen)) == NULL || (ch->target_twopc = target_open(c, err,
	    errlen)) == NULL))
		return -1;
	/* last: its thread waits for publisher_replace() */
	if (ch->publisher && (ch->pub = publisher_prepare(c, a->pub, why,
	    sizeof(why))) == NULL)
		return err_set(err, errlen, -1, "the publisher cannot start "
		    "with it: %s", why);
	return 0;
}

/* Applies c, which agent_reload_prepare() made ready: nothing here can
 * fail.  a keeps c. */
static void
agent_reload_commit(struct agent *a, struct conf *c, struct agent_changes *ch)
{
	struct roll_policy p = roll_policy_of(c);

	log_set_level_name(c->log.level);
	log_set_format_name(c->log.format);
	for (size_t i = 0; i < a->ntables; i++) {
		if (ch->chains[i] == NULL)
			continue;
		table_reload(a->tables[i], c, ch->chains[i]);
		ch->chains[i] = NULL;
		agent_log_notes(a->tables[i]);
	}
	for (size_t i = 0; i < a->nwriters; i++)
		writer_set_roll(a->writers[i], &p);
	if (ch->target) {
		target_close(a->target);
		a->target = ch->target_loop;
		twopc_set_target(a->twopc, ch->target_twopc);
		ch->target_loop = ch->target_twopc = NULL;
	}
	if (ch->pub != NULL) {
		publisher_replace(ch->pub, a->pub);
		a->pub = ch->pub;
		ch->pub = NULL;
	}
	a->reloaded[a->nreloaded++] = c;
	a->live = c;
}

static void
agent_changes_clear(struct agent_changes *ch, size_t ntables)
{
	for (size_t i = 0; ch->chains != NULL && i < ntables; i++)
		chain_free(ch->chains[i]);
	free(ch->chains);
	free(ch->tables);
	target_close(ch->target_loop);
	target_close(ch->target_twopc);
	publisher_stop(ch->pub);
}

void
agent_reload(struct agent *a)
{
	struct agent_changes ch = { .a = a };
	struct conf *c;
	char err[1024];

	notify_send("RELOADING=1");
	log_info("reload: reading %s", a->conf->path);
	if ((c = conf_load(a->conf->path, err, sizeof(err))) == NULL) {
		log_errx("reload: %s; the running configuration stays", err);
		goto out;
	}
	if ((ch.tables = calloc(a->ntables, sizeof(*ch.tables))) == NULL ||
	    (ch.chains = calloc(a->ntables, sizeof(*ch.chains))) == NULL) {
		log_errx("reload: out of memory; the running configuration stays");
		goto out;
	}
	conf_diff(a->live, c, agent_classify, &ch);
	if (ch.restart[0] != '\0') {
		log_errx("reload: %s changed, which kedge cannot apply while it "
		    "runs: nothing of %s is applied, the running configuration "
		    "stays; restart kedge to apply it", ch.restart, c->path);
		goto out;
	}
	if (ch.applied[0] == '\0') {
		log_notice("reload: nothing to change in %s", c->path);
		goto out;
	}
	if (agent_reload_prepare(a, c, &ch, err, sizeof(err)) < 0) {
		log_errx("reload: %s; nothing of %s is applied, the running "
		    "configuration stays", err, c->path);
		goto out;
	}
	agent_reload_commit(a, c, &ch);
	c = NULL; /* a holds it: the chains and the publisher use it */
	log_notice("reload: applied %s", ch.applied);
out:
	agent_changes_clear(&ch, a->ntables);
	conf_free(c);
	notify_send("READY=1");
}
