/*
 * registry: where the core finds a UDTF by what the config calls it: a
 * built-in's name ("nginx") or "plugin:/ABSOLUTE/PATH.so", a shared object
 * that exports `kedge_udtf_plugin` (see udtf.h).  The core never names a
 * UDTF itself.
 *
 * A plugin is loaded once and stays loaded for the life of the process:
 * states its UDTF made may outlive any one config.
 */
#ifndef KEDGE_UDTF_REGISTRY_H
#define KEDGE_UDTF_REGISTRY_H

#include <stddef.h>

#include "agent/udtf/udtf.h"

#define UDTF_PLUGIN_PREFIX "plugin:"

/* NULL-terminated list of every built-in UDTF. */
extern const struct udtf_plugin *const udtf_builtins[];

/* Returns the built-in UDTF called name, or NULL. */
const struct udtf_plugin *udtf_builtin_find(const char *name);

/* Returns the UDTF that spec names (a built-in's name or "plugin:PATH"),
 * loading a plugin on first use.  Returns NULL with a sentence in err when
 * there is no such built-in, or the plugin cannot be loaded, lacks the
 * symbol, was built for another ABI version or has an incomplete
 * descriptor. */
const struct udtf_plugin *udtf_resolve(const char *spec, char *err,
    size_t errlen);

#endif /* KEDGE_UDTF_REGISTRY_H */
