/*
 * confdiff: which keys differ between two configurations, for the SIGHUP
 * reload.
 */
#ifndef KEDGE_CONFDIFF_H
#define KEDGE_CONFDIFF_H

#include "agent/config/config.h"

/* Calls fn for every key whose value differs between a and b: its path
 * ("output.roll.max_age"; "tables.udtf_config" with the table's index in
 * table, -1 for other keys; "tables" alone when the number of tables
 * differs). */
typedef void (conf_diff_fn)(const char *path, long table, void *arg);
void conf_diff(const struct conf *a, const struct conf *b, conf_diff_fn *fn,
    void *arg);

#endif /* KEDGE_CONFDIFF_H */
