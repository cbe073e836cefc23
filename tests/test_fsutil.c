/*
 * fs_mkdirs(): makes every missing directory of a path, takes one that is
 * there, and refuses a path through or onto a file with the errno mkdir()
 * gave, as before the first try became the whole path, and a file where the
 * directory would be with -ENOTDIR (mkdir() says only EEXIST).
 */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fsutil.h"
#include "tests/testlib.h"

static char root[] = "/tmp/kedge-fsutil.XXXXXX";

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
test_mkdirs(void **state)
{
	char path[PATH_MAX], file[PATH_MAX];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* three missing levels */
	snprintf(path, sizeof(path), "%s/a/dt=2026-12-03/hr=14", root);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	assert_true(is_dir(path));
	/* there already, and a sibling below a level that is there */
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/dt=2026-12-03/hr=15", root);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	assert_true(is_dir(path));
	/* a trailing slash */
	snprintf(path, sizeof(path), "%s/b/c/", root);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/b/c", root);
	assert_true(is_dir(path));
	/* a file on the way, or where the directory would be */
	snprintf(file, sizeof(file), "%s/file", root);
	assert_non_null(f = fopen(file, "w"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/file/d", root);
	assert_int_equal(fs_mkdirs(path, 0755), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/file/d/e", root);
	assert_int_equal(fs_mkdirs(path, 0755), -ENOTDIR);
	assert_int_equal(fs_mkdirs(file, 0755), -ENOTDIR);
	assert_int_equal(fs_mkdirs("", 0755), -ENAMETOOLONG);
}

static int
teardown(void **state)
{
	(void)state;
	remove_tree(root);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_mkdirs, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
