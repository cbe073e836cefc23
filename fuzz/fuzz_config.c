/*
 * fuzz_config: the input is the text of a kedge.conf.  It is written to a
 * memfd, which conf_load() reads through /proc/self/fd/N; a config that
 * loads has every table's UDTF opened with its udtf_config, as the agent's
 * table.c does, then closed, and the config freed.  A failed load must give
 * its reason.
 *
 * Two things a config can do are kept out of the fuzzer, as they reach
 * outside the process:
 *   - "@include" makes the loader read whatever file it names
 *     (/dev/stdin, a FIFO...): inputs holding it are skipped;
 *   - udtf = "plugin:/PATH.so" makes conf_load() dlopen() PATH, running its
 *     constructors: dlopen() below, in the executable, takes the place of
 *     libc's and refuses every path.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/config/config.h"
#include "fuzz/fuzzkit.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_path[64];
static int fuzz_dlopen_refused;

void *
dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	fuzz_dlopen_refused = 1;
	return NULL;
}

char *
dlerror(void)
{
	static char why[] = "dlopen() is disabled in fuzz_config";

	if (!fuzz_dlopen_refused)
		return NULL;
	fuzz_dlopen_refused = 0;
	return why;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((fuzz_fd = memfd_create("kedge-fuzz.conf", MFD_CLOEXEC)) < 0) {
		perror("fuzz_config: memfd_create");
		abort();
	}
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
	return 0;
}

/* Returns 1 when data holds "@include" in any case. */
static int
fuzz_has_include(const uint8_t *data, size_t size)
{
	static const char word[] = "@include";
	size_t n = sizeof(word) - 1;

	for (size_t i = 0; i + n <= size; i++) {
		size_t j = 0;

		while (j < n && tolower(data[i + j]) == word[j])
			j++;
		if (j == n)
			return 1;
	}
	return 0;
}

static void
fuzz_write(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t w;

	if (ftruncate(fuzz_fd, 0) != 0) {
		perror("fuzz_config: ftruncate");
		abort();
	}
	while (off < size) {
		if ((w = pwrite(fuzz_fd, data + off, size - off,
		    (off_t)off)) <= 0) {
			perror("fuzz_config: pwrite");
			abort();
		}
		off += (size_t)w;
	}
}

/* Opens and closes each UDTF of table i's chain with its udtf_config, as
 * the agent does. */
static void
fuzz_open_chain(const struct conf *c, size_t i)
{
	const struct conf_table *t = &c->tables[i];
	struct udtf_param params[FUZZKIT_MAX_PARAMS];
	struct fuzzkit_udtf u;
	char err[512];

	if (t->n_udtf == 0)
		fuzzkit_die("conf_load", "table %s has no UDTF", t->name);
	for (size_t j = 0; j < t->n_udtf; j++) {
		const struct conf_stage *st = &t->udtf[j];

		if (st->udtf == NULL || st->n_params > FUZZKIT_MAX_PARAMS)
			fuzzkit_die("conf_load", "table %s, UDTF %zu (%s): no "
			    "descriptor, or %zu keys", t->name, j, st->spec,
			    st->n_params);
		for (size_t k = 0; k < st->n_params; k++)
			params[k] = (struct udtf_param){ st->params[k].key,
			    st->params[k].value };
		(void)fuzzkit_open(&u, st->udtf, st->spec, params,
		    st->n_params, err, sizeof(err));
		fuzzkit_close(&u);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	struct conf *c;

	if (fuzz_has_include(data, size))
		return 0;
	fuzz_write(data, size);
	err[0] = '\0';
	c = conf_load(fuzz_path, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("conf_load", "err without its NUL");
	if (c == NULL) {
		if (err[0] == '\0')
			fuzzkit_die("conf_load", "failed without a reason");
		return 0;
	}
	if (c->n_tables == 0 || c->kafka.topics.n == 0)
		fuzzkit_die("conf_load", "loaded a config with no table or no "
		    "topic");
	for (size_t i = 0; i < c->n_tables; i++)
		fuzz_open_chain(c, i);
	conf_free(c);
	return 0;
}
