/*
 * failstat: an LD_PRELOAD shim under which stat() and fstat() of one file,
 * named by the environment variable FAILSTAT_PATH, fail with EIO, for
 * tests/integration/udtf_plugin.sh: kedge must refuse a plugin it cannot
 * stat, not skip the checks.  Build it with
 *
 *   cc -shared -fPIC -o failstat.so failstat.c -ldl
 *
 * The dynamic loader makes its own system calls: dlopen() is unaffected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
failstat_path(const char *path)
{
	const char *want = getenv("FAILSTAT_PATH");

	return want != NULL && path != NULL && strcmp(path, want) == 0;
}

static int
failstat_fd(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) < 0)
		return 0;
	path[n] = '\0';
	return failstat_path(path);
}

#define FAILSTAT(name, type, arg, test, st_type) \
int \
name(type arg, st_type *st) \
{ \
	int (*real)(type, st_type *) = \
	    (int (*)(type, st_type *))dlsym(RTLD_NEXT, #name); \
	if (test(arg)) { \
		errno = EIO; \
		return -1; \
	} \
	return real(arg, st); \
}

FAILSTAT(stat, const char *, path, failstat_path, struct stat)
FAILSTAT(stat64, const char *, path, failstat_path, struct stat64)
FAILSTAT(fstat, int, fd, failstat_fd, struct stat)
FAILSTAT(fstat64, int, fd, failstat_fd, struct stat64)
