#include "agent/udtf/registry.h"
#include "lib/err.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Plugins loaded so far, by path; never unloaded.  Each one's descriptor
 * stays open: the dynamic loader knows the plugin by the name
 * /proc/self/fd/N, and would take a later dlopen() of that name, were N
 * reused, for the plugin already loaded. */
static struct {
	char *path;
	const struct udtf_plugin *plugin;
	int fd;
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

/* Checks that only root or kedge's user can change st, the plugin at path
 * itself or, when dir is not NULL, its directory dir: owned by one of
 * them, and writable by neither group nor others unless a sticky
 * directory (/tmp), where no one may replace an entry another owns. */
static int
udtf_check_owner(const char *path, const char *dir, const struct stat *st,
    char *err, size_t errlen)
{
	const char *its = dir != NULL ? ": its directory " : "";
	const char *name = dir != NULL ? dir : path;

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		return err_set(err, errlen, -EPERM,
		    "UDTF plugin %s%s%s is owned by uid %u, "
		    "not by root or kedge's user (uid %u); chown root %s", path,
		    its, dir != NULL ? dir : "", (unsigned)st->st_uid,
		    (unsigned)geteuid(), name);
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(dir != NULL && (st->st_mode & S_ISVTX))) {
		return err_set(err, errlen, -EPERM,
		    "UDTF plugin %s%s%s is writable by %s; "
		    "chmod go-w %s", path, its, dir != NULL ? dir : "",
		    st->st_mode & S_IWOTH ? "others" : "its group", name);
	}
	return 0;
}

/* Checks with udtf_check_owner() the directory dir of the plugin at
 * path. */
static int
udtf_check_dir(const char *path, const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int e;

	if (stat(dir, &st) < 0) {
		e = errno;
		return err_set(err, errlen, -e,
		    "UDTF plugin %s: cannot stat its directory "
		    "%s: %s", path, dir, strerror(e));
	}
	return udtf_check_owner(path, dir, &st, err, errlen);
}

/* Checks every directory from the one that holds the plugin open at fd,
 * as the kernel names it, up to /. */
static int
udtf_check_dirs(const char *path, int fd, char *err, size_t errlen)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;
	char *slash;
	int r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, dir, sizeof(dir) - 1)) < 0 || dir[0] != '/') {
		return err_set(err, errlen, -ENOENT,
		    "UDTF plugin %s: cannot tell its "
		    "directory from %s (is /proc mounted?)", path, link);
	}
	dir[n] = '\0';
	while ((slash = strrchr(dir, '/')) != NULL) {
		slash[slash == dir] = '\0';
		if ((r = udtf_check_dir(path, dir, err, errlen)) < 0)
			return r;
		if (slash == dir)
			break;
	}
	return 0;
}

/* Opens the plugin at path, not through a symbolic link, and checks that
 * only root or kedge's user can change it: a regular file owned by one of
 * them, writable by neither group nor others, in directories that pass
 * udtf_check_dir().  Its code runs as kedge.  Returns the descriptor, or a
 * negative errno with the file and the fix in err. */
static int
udtf_open_plugin(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, r = -EPERM;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		if (errno == ELOOP)
			snprintf(err, errlen, "UDTF plugin %s is a symbolic link; "
			    "name the file it points to", path);
		else
			snprintf(err, errlen, "cannot open UDTF plugin %s: %s",
			    path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot stat UDTF plugin %s: %s", path,
		    strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "UDTF plugin %s is not a regular file",
		    path);
	} else if ((r = udtf_check_owner(path, NULL, &st, err, errlen)) == 0 &&
	    (r = udtf_check_dirs(path, fd, err, errlen)) == 0) {
		return fd;
	}
	close(fd);
	return r;
}

static const struct udtf_plugin *
udtf_load(const char *path, char *err, size_t errlen)
{
	const struct udtf_plugin *p;
	const char *missing;
	char fdpath[64];
	void *h;
	int fd;

	for (size_t i = 0; i < udtf_nloaded; i++)
		if (strcmp(udtf_loaded[i].path, path) == 0)
			return udtf_loaded[i].plugin;
	if (path[0] != '/') {
		snprintf(err, errlen, "plugin path \"%s\" is not absolute", path);
		return NULL;
	}
	if (udtf_nloaded == UDTF_MAX_PLUGINS) {
		snprintf(err, errlen, "more than %d UDTF plugins",
		    UDTF_MAX_PLUGINS);
		return NULL;
	}
	if ((fd = udtf_open_plugin(path, err, errlen)) < 0)
		return NULL;
	/* the file checked, not whatever the path names by now; glibc has
	 * no fdlopen().  RTLD_LOCAL: two plugins may define the same helper
	 * names */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if ((h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "cannot load UDTF plugin %s: %s", path,
		    dlerror());
		close(fd);
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
	udtf_loaded[udtf_nloaded].fd = fd;
	udtf_loaded[udtf_nloaded++].plugin = p;
	return p;
refuse:
	dlclose(h);
	/* one that stays loaded all the same (RTLD_NODELETE, unique symbols)
	 * keeps its name, so it keeps its descriptor too */
	if ((h = dlopen(fdpath, RTLD_LAZY | RTLD_NOLOAD)) != NULL)
		dlclose(h);
	else
		close(fd);
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
