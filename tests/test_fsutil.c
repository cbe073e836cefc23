/*
 * fs_mkdirs(): makes every missing directory of a path, takes one that is
 * there, and refuses a path through or onto a file with the errno mkdir()
 * gave, as before the first try became the whole path, and a file where the
 * directory would be with -ENOTDIR (mkdir() says only EEXIST).
 *
 * fs_open_beneath(), fs_opendir_beneath(), fs_mkdirs_beneath(),
 * fs_open_file() and fs_read_all(): a regular file opens, for reading or
 * writing, a directory is made with its parents; a FIFO
 * (which nobody writes: opening it for reading would wait for ever; an
 * alarm fails the test if it does), a socket, a directory and a symbolic
 * link, as the file or as a directory on the way, are refused, each with
 * its errno and fs_strerror()'s sentence; a path that is absolute or goes
 * up is refused beneath a directory.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/buf.h"
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

/* Writes text to the file root/rel. */
static void
put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The path root/rel, in one of two static buffers, in turn. */
static const char *
at(const char *rel)
{
	static char path[2][PATH_MAX];
	static int i;

	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/%s", root, rel);
	return path[i];
}

static void
test_open_beneath(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct buf b = { 0 };
	char text[16] = "";
	int dfd, fd, sock;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kedge-fsutil.XXXXXX");
	assert_non_null(mkdtemp(root));
	assert_int_equal(fs_mkdirs(at("t/dt=1/hr=2"), 0755), 0);
	put("t/dt=1/hr=2/.p.txt.json", "{}\n");
	put("outside", "secret\n");
	assert_int_equal(mkfifo(at("t/dt=1/hr=2/.fifo.json"), 0600), 0);
	assert_int_equal(symlink(at("outside"), at("t/dt=1/hr=2/.link.json")), 0);
	assert_int_equal(symlink("dt=1", at("t/dt=9")), 0);
	assert_true(strlen(at("t/sock")) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, at("t/sock"), strlen(at("t/sock")) + 1);
	assert_true((sock = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_true((dfd = open(root, O_RDONLY | O_DIRECTORY)) >= 0);
	/* a wait on the FIFO fails the test instead of hanging it */
	alarm(20);

	assert_true((fd = fs_open_beneath(dfd, "t/dt=1/hr=2/.p.txt.json",
	    O_RDONLY)) >= 0);
	assert_int_equal(read(fd, text, sizeof(text)), 3);
	assert_string_equal(text, "{}\n");
	close(fd);
	assert_true((fd = fs_open_beneath(dfd, "t//dt=1/./hr=2/.p.txt.json",
	    O_WRONLY)) >= 0);
	assert_int_equal(write(fd, "[", 1), 1);
	close(fd);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1/hr=2/.fifo.json",
	    O_RDONLY), -ENXIO);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1/hr=2/.fifo.json",
	    O_WRONLY), -ENXIO);
	assert_int_equal(fs_open_beneath(dfd, "t/sock", O_RDONLY), -ENXIO);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1/hr=2/.link.json",
	    O_RDONLY), -ELOOP);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=9/hr=2/.p.txt.json",
	    O_RDONLY), -ELOOP);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1", O_RDONLY), -EISDIR);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1/hr=2/none", O_RDONLY),
	    -ENOENT);
	assert_int_equal(fs_open_beneath(dfd, "t/dt=1/../dt=1/hr=2/.p.txt.json",
	    O_RDONLY), -EINVAL);
	assert_int_equal(fs_open_beneath(dfd, at("outside"), O_RDONLY), -EINVAL);
	assert_int_equal(fs_open_beneath(dfd, "", O_RDONLY), -EINVAL);
	assert_int_equal(fs_open_beneath(dfd, "t/", O_RDONLY), -EINVAL);
	assert_non_null(strstr(fs_strerror(ENXIO), "not a regular file"));
	assert_non_null(strstr(fs_strerror(ELOOP), "symbolic link"));

	assert_true((fd = fs_opendir_beneath(dfd, "t/dt=1/hr=2")) >= 0);
	close(fd);
	assert_true((fd = fs_opendir_beneath(dfd, "")) >= 0 && fd != dfd);
	close(fd);
	assert_int_equal(fs_opendir_beneath(dfd, "t/dt=9"), -ELOOP);
	assert_int_equal(fs_opendir_beneath(dfd, "t/dt=9/hr=2"), -ELOOP);
	assert_int_equal(fs_opendir_beneath(dfd, "outside"), -ENOTDIR);
	assert_int_equal(fs_opendir_beneath(dfd, "t/sock"), -ENOTDIR);
	assert_int_equal(fs_opendir_beneath(dfd, "t/dt=1/hr=2/.fifo.json"),
	    -ENOTDIR);

	assert_true((fd = fs_mkdirs_beneath(dfd, "t/dt=1/hr=3/new", 0755)) >= 0);
	close(fd);
	assert_true((fd = fs_opendir_beneath(dfd, "t/dt=1/hr=3/new")) >= 0);
	close(fd);
	assert_int_equal(fs_mkdirs_beneath(dfd, "t/dt=9/hr=3", 0755), -ELOOP);
	assert_int_equal(fs_mkdirs_beneath(dfd, "outside/d", 0755), -ENOTDIR);
	assert_int_equal(fs_mkdirs_beneath(dfd, "t/../u", 0755), -EINVAL);
	assert_true((fd = fs_mkdirs_beneath(dfd, "", 0755)) >= 0 && fd != dfd);
	close(fd);

	/* by a whole path: the directories on the way may be links */
	assert_true((fd = fs_open_file(at("t/dt=9/hr=2/.p.txt.json"),
	    O_RDONLY)) >= 0);
	close(fd);
	assert_int_equal(fs_open_file(at("t/dt=1/hr=2/.link.json"), O_RDONLY),
	    -ELOOP);
	assert_int_equal(fs_read_all(at("t/dt=1/hr=2/.fifo.json"), &b), -ENXIO);
	assert_int_equal(fs_read_all(at("t/dt=1/hr=2/.link.json"), &b), -ELOOP);
	assert_int_equal(b.len, 0);
	assert_int_equal(fs_read_all(at("t/dt=1/hr=2/.p.txt.json"), &b), 0);
	assert_int_equal(b.len, 3);
	buf_clear(&b);
	alarm(0);
	close(sock);
	close(dfd);
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
		cmocka_unit_test_teardown(test_open_beneath, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
