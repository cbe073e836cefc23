#include "registry.h"

#include <string.h>

extern const struct udtf_plugin udtf_nginx_plugin;
extern const struct udtf_plugin udtf_raw_plugin;

const struct udtf_plugin *const udtf_builtins[] = {
	&udtf_nginx_plugin,
	&udtf_raw_plugin,
	NULL,
};

const struct udtf_plugin *
udtf_builtin_find(const char *name)
{
	for (size_t i = 0; udtf_builtins[i] != NULL; i++)
		if (strcmp(udtf_builtins[i]->name, name) == 0)
			return udtf_builtins[i];
	return NULL;
}
