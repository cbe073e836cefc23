/*
 * registry: the built-in UDTFs, by name.  The core finds UDTFs here and
 * never names one itself.
 */
#ifndef KEDGE_UDTF_REGISTRY_H
#define KEDGE_UDTF_REGISTRY_H

#include "udtf.h"

/* NULL-terminated list of every built-in UDTF. */
extern const struct udtf_plugin *const udtf_builtins[];

/* Returns the built-in UDTF called name, or NULL. */
const struct udtf_plugin *udtf_builtin_find(const char *name);

#endif /* KEDGE_UDTF_REGISTRY_H */
