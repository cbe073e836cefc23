/* SIGHUP: the configuration read again, applied where it can be: see
 * agent.h. */
#include "agent/agent.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/config/confdiff.h"
#include "agent/ops/notify.h"
#include "agent/parse/table.h"
#include "agent/publish/publish.h"
#include "agent/write/writer.h"
#include "lib/grow.h"
#include "lib/log.h"

/* Stops the publisher (after its pass) and starts it with c. */
static void
agent_restart_publisher(struct agent *a, const struct conf *c)
{
	char err[1024];

	publisher_stop(a->pub);
	if ((a->pub = publisher_start(c, err, sizeof(err))) == NULL) {
		log_errx("reload: the publisher cannot start again: %s; "
		    "stopping", err);
		a->failed = 1;
	}
}

/* What a reload found changed: the keys applied and those that wait. */
struct agent_changes {
	int against_start;         /* this pass compares with the first conf */
	char applied[1024], restart[1024];
	int publisher;             /* the publisher must start again */
	uint64_t tables;           /* tables whose UDTF configuration changed */
};

/* Appends the key path (of table table, unless -1) to list. */
static void
agent_note_change(char *list, size_t size, const char *path, long table)
{
	size_t len = strlen(list);

	if (len + 2 >= size)
		return;
	if (table >= 0) /* "tables.udtf_config" -> "tables[2].udtf_config" */
		snprintf(list + len, size - len, "%s%.6s[%ld]%s", len ? ", " : "",
		    path, table, path + 6);
	else
		snprintf(list + len, size - len, "%s%s", len ? ", " : "", path);
}

/* Sorts one changed key: against the conf in use, what applies now;
 * against the first one, what waits for a restart.  The key table says
 * which keys SIGHUP applies. */
static void
agent_classify(const char *path, long table, void *arg)
{
	struct agent_changes *ch = arg;
	int reloadable = conf_key_reloads(path);

	if (ch->against_start) {
		if (!reloadable)
			agent_note_change(ch->restart, sizeof(ch->restart), path,
			    table);
		return;
	}
	if (!reloadable)
		return;
	agent_note_change(ch->applied, sizeof(ch->applied), path, table);
	if (table >= 0 && table < 64)
		ch->tables |= (uint64_t)1 << table;
	if (strncmp(path, "completion.", 11) == 0 ||
	    strncmp(path, "output.on_complete", 18) == 0 ||
	    strncmp(path, "output.webhdfs.", 15) == 0)
		ch->publisher = 1;
}

void
agent_reload(struct agent *a)
{
	struct agent_changes ch = { 0, "", "", 0, 0 };
	struct conf *c;
	char err[1024];
	int r;

	notify_send("RELOADING=1");
	if ((c = conf_load(a->conf->path, err, sizeof(err))) == NULL) {
		log_errx("reload: %s; the running configuration stays", err);
		notify_send("READY=1");
		return;
	}
	conf_diff(a->live, c, agent_classify, &ch);
	ch.against_start = 1;
	conf_diff(a->conf, c, agent_classify, &ch);
	if (ch.applied[0] == '\0' && ch.restart[0] == '\0') {
		log_notice("reload: nothing to change in %s", c->path);
		conf_free(c);
		notify_send("READY=1");
		return;
	}
	if (grow_array((void **)&a->reloaded, &a->reloaded_cap,
	    a->nreloaded + 1, sizeof(*a->reloaded)) < 0) {
		log_errx("reload: out of memory; the running configuration stays");
		conf_free(c);
		notify_send("READY=1");
		return;
	}
	a->reloaded[a->nreloaded++] = c; /* chains and the publisher use it */
	log_set_level_name(c->log.level);
	log_set_format_name(c->log.format);
	for (size_t i = 0; i < a->ntables && c->n_tables == a->ntables; i++) {
		if (i >= 64 || !(ch.tables & (uint64_t)1 << i))
			continue;
		if ((r = table_reload(a->tables[i], c, i, err, sizeof(err))) < 0)
			log_errx("reload: table %s keeps its UDTF configuration: "
			    "%s; restart kedge to apply it", table_name(a->tables[i]),
			    err);
		else
			agent_log_notes(a->tables[i]);
	}
	if (agent_check_nofile(c, a->nwriters, err, sizeof(err)) < 0)
		log_warnx("reload: %s", err);
	for (size_t i = 0; i < a->nwriters; i++) {
		struct roll_policy p = roll_policy_of(c);

		writer_set_roll(a->writers[i], &p);
	}
	if (ch.publisher && ch.restart[0] == '\0')
		agent_restart_publisher(a, c);
	else if (ch.publisher)
		log_warnx("reload: the publisher keeps its settings while other "
		    "changes wait for a restart");
	a->live = c;
	log_notice("reload: applied %s", ch.applied[0] ? ch.applied : "nothing");
	if (ch.restart[0] != '\0')
		log_warnx("reload: %s changed; restart kedge to apply %s",
		    ch.restart, strchr(ch.restart, ',') ? "them" : "it");
	notify_send("READY=1");
}
