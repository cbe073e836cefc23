#include "registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define UDTF_SYMBOL "kedge_udtf_plugin"
#define UDTF_MAX_PLUGINS 64

extern const struct udtf_plugin udtf_csv_plugin;
extern const struct udtf_plugin udtf_json_plugin;
extern const struct udtf_plugin udtf_kv_plugin;
extern const struct udtf_plugin udtf_nginx_plugin;
extern const struct udtf_plugin udtf_raw_plugin;
extern const struct udtf_plugin udtf_tsv_plugin;
extern const struct udtf_plugin udtf_regex_plugin;
extern const struct udtf_plugin udtf_split_plugin;

const struct udtf_plugin *const udtf_builtins[] = {
	&udtf_nginx_plugin,
	&udtf_json_plugin,
	&udtf_kv_plugin,
	&udtf_csv_plugin,
	&udtf_tsv_plugin,
	&udtf_regex_plugin,
	&udtf_split_plugin,
	&udtf_raw_plugin,
	NULL,
};

/* Plugins loaded so far, by path; never unloaded. */
static struct {
	char *path;
	const struct udtf_plugin *plugin;
} udtf_loaded[UDTF_MAX_PLUGINS];
static size_t udtf_nloaded;

const struct udtf_plugin *
udtf_builtin_find(const char *name)
{
	for (size_t i = 0; udtf_builtins[i] != NULL; i++)
		if (strcmp(udtf_builtins[i]->name, name) == 0)
			return udtf_builtins[i];
	return NULL;
}

/* Names the first member a usable descriptor lacks, or returns NULL. */
static const char *
udtf_incomplete(const struct udtf_plugin *p)
{
	if (p->name == NULL || p->name[0] == '\0')
		return "name";
	if (p->init == NULL)
		return "init";
	if (p->columns == NULL)
		return "columns";
	if (p->process == NULL)
		return "process";
	if (p->fini == NULL)
		return "fini";
	return NULL;
}

static const struct udtf_plugin *
udtf_load(const char *path, char *err, size_t errlen)
{
	const struct udtf_plugin *p;
	const char *missing;
	struct stat st;
	void *h;

	for (size_t i = 0; i < udtf_nloaded; i++)
		if (strcmp(udtf_loaded[i].path, path) == 0)
			return udtf_loaded[i].plugin;
	if (path[0] != '/') {
		snprintf(err, errlen, "plugin path \"%s\" is not absolute", path);
		return NULL;
	}
	/* its code runs as kedge: refuse one that others could change */
	if (stat(path, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "UDTF plugin %s is writable by %s; chmod "
		    "go-w %s", path, st.st_mode & S_IWOTH ? "others" : "its group",
		    path);
		return NULL;
	}
	if (udtf_nloaded == UDTF_MAX_PLUGINS) {
		snprintf(err, errlen, "more than %d UDTF plugins",
		    UDTF_MAX_PLUGINS);
		return NULL;
	}
	/* RTLD_LOCAL: two plugins may define the same helper names */
	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "cannot load UDTF plugin: %s", dlerror());
		return NULL;
	}
	if ((p = dlsym(h, UDTF_SYMBOL)) == NULL) {
		snprintf(err, errlen, "%s exports no symbol %s: is it a kedge "
		    "UDTF plugin? (see <kedge/udtf.h>)", path, UDTF_SYMBOL);
		goto refuse;
	}
	if (p->abi_version != KEDGE_UDTF_ABI_VERSION) {
		snprintf(err, errlen, "%s was built for UDTF ABI version %u, "
		    "this kedge speaks version %u: rebuild the plugin against "
		    "this kedge's <kedge/udtf.h>", path, p->abi_version,
		    KEDGE_UDTF_ABI_VERSION);
		goto refuse;
	}
	if ((missing = udtf_incomplete(p)) != NULL) {
		snprintf(err, errlen, "%s: %s.%s is not set", path, UDTF_SYMBOL,
		    missing);
		goto refuse;
	}
	if ((udtf_loaded[udtf_nloaded].path = strdup(path)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto refuse;
	}
	udtf_loaded[udtf_nloaded++].plugin = p;
	return p;
refuse:
	dlclose(h);
	return NULL;
}

const struct udtf_plugin *
udtf_resolve(const char *spec, char *err, size_t errlen)
{
	const struct udtf_plugin *p;
	size_t used = 0;

	if (strncmp(spec, UDTF_PLUGIN_PREFIX, strlen(UDTF_PLUGIN_PREFIX)) == 0)
		return udtf_load(spec + strlen(UDTF_PLUGIN_PREFIX), err, errlen);
	if ((p = udtf_builtin_find(spec)) != NULL)
		return p;
	used = (size_t)snprintf(err, errlen, "\"%s\" is not a built-in UDTF "
	    "(", spec);
	for (size_t i = 0; udtf_builtins[i] != NULL && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
		    i > 0 ? ", " : "", udtf_builtins[i]->name);
	if (used < errlen)
		snprintf(err + used, errlen - used, ") nor \"%sPATH\"",
		    UDTF_PLUGIN_PREFIX);
	return NULL;
}
