/*
 * confdiff: which keys differ between two configurations, for the SIGHUP
 * reload.
 */
#ifndef KEDGE_CONFDIFF_H
#define KEDGE_CONFDIFF_H

#include "agent/config/config.h"

/* Calls fn for every key whose value differs between a and b: its path
 * ("output.roll.max_age", "tables.udtf_config") and, for a key of a
 * table, the table's name in table (NULL for the other keys).  Tables are
 * matched by name, wherever they are in the list: a table only one of a
 * and b has is reported once, as the path "tables" with its name. */
typedef void (conf_diff_fn)(const char *path, const char *table, void *arg);
void conf_diff(const struct conf *a, const struct conf *b, conf_diff_fn *fn,
    void *arg);

/* Reorders c->tables into the order like lists them in, by name, so that
 * an index means the same table in both; a table like does not have keeps
 * a place after those it has.  For a reload, which keeps the order the
 * running tables were built in whatever the file says. */
void conf_tables_order(struct conf *c, const struct conf *like);

#endif /* KEDGE_CONFDIFF_H */
