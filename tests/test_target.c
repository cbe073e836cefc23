/*
 * target, local: nothing kedge reads, writes or removes in output.local_dir
 * goes through a symbolic link below it.  An hour directory linked to a
 * directory outside: writing a manifest there, putting a part file there,
 * reading, listing and removing there are each refused naming the link,
 * and the directory outside is left as it was.  A link where a manifest
 * is is not read; writing the manifest replaces the link, not its target;
 * a link where a part file would land is a name taken, kept for a person.
 * Without links, directories are made as they are needed, and a file put
 * twice lands once.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "agent/target/target.h"
#include "tests/testlib.h"

struct fixture {
	char dir[64];
	struct conf *c;
	struct target *t;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[1024] = "";

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-target.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"k1:9092\"; };\n"
	    "tables = ( { name = \"t\"; topics = [ \"a\" ]; udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s/spool\"; target = \"local\";\n"
	    "  local_dir = \"%s/out\"; timezone = \"UTC\"; };\n",
	    f->dir, f->dir);
	if ((f->t = target_open(f->c, err, sizeof(err))) == NULL)
		fail_msg("target_open: %s", err);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	target_close(f->t);
	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/* f->dir/rel, in one of two static buffers, in turn. */
static const char *
at(const struct fixture *f, const char *rel)
{
	static char path[2][256];
	static int i;

	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/%s", f->dir, rel);
	return path[i];
}

static void
put(const char *path, const char *text)
{
	FILE *fp;

	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Counts the entries of the directory at path but "." and "..". */
static int
entries(const char *path)
{
	char cmd[512], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", path);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(out, sizeof(out), p));
	pclose(p);
	return atoi(out);
}

static int
on_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	(void)name, (void)is_dir, (void)len, (void)arg;
	return 0;
}

static void
test_linked_hour(void **state)
{
	struct fixture *f = *state;
	char err[1024], *data = NULL;
	size_t len;

	assert_int_equal(mkdir(at(f, "outside"), 0755), 0);
	put(at(f, "outside/x"), "secret\n");
	put(at(f, "part"), "rows\n");
	assert_int_equal(mkdir(at(f, "out/t"), 0755), 0);
	assert_int_equal(mkdir(at(f, "out/t/dt=1"), 0755), 0);
	assert_int_equal(symlink(at(f, "outside"), at(f, "out/t/dt=1/hr=2")), 0);

	assert_int_equal(target_write(f->t, "t/dt=1/hr=2/_SUCCESS", "", 0, err,
	    sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "out/t/dt=1/hr=2/_SUCCESS: a symbolic link"));
	assert_true(target_put(f->t, at(f, "part"), "t/dt=1/hr=2/p.txt", err,
	    sizeof(err)) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	assert_true(target_read(f->t, "t/dt=1/hr=2/x", 64, &data, &len, err,
	    sizeof(err)) < 0);
	assert_null(data);
	assert_true(target_list(f->t, "t/dt=1/hr=2", on_entry, NULL, err,
	    sizeof(err)) < 0);
	assert_true(target_remove(f->t, "t/dt=1/hr=2/x", err, sizeof(err)) < 0);
	assert_int_equal(entries(at(f, "outside")), 1);
	assert_int_equal(access(at(f, "outside/x"), F_OK), 0);
}

static void
test_linked_names(void **state)
{
	struct fixture *f = *state;
	char err[1024], *data = NULL;
	size_t len;
	struct stat st;

	put(at(f, "outside"), "secret\n");
	put(at(f, "part"), "rows\n");
	assert_int_equal(target_write(f->t, "t/dt=1/hr=3/_SUCCESS", "", 0, err,
	    sizeof(err)), 0);
	assert_int_equal(symlink(at(f, "outside"),
	    at(f, "out/t/dt=1/hr=3/_MANIFEST.json")), 0);
	assert_int_equal(symlink(at(f, "outside"),
	    at(f, "out/t/dt=1/hr=3/p.txt")), 0);

	assert_int_equal(target_read(f->t, "t/dt=1/hr=3/_MANIFEST.json", 64,
	    &data, &len, err, sizeof(err)), -ELOOP);
	assert_null(data);
	assert_int_equal(target_write(f->t, "t/dt=1/hr=3/_MANIFEST.json",
	    "{}\n", 3, err, sizeof(err)), 0);
	assert_int_equal(lstat(at(f, "out/t/dt=1/hr=3/_MANIFEST.json"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(target_put(f->t, at(f, "part"), "t/dt=1/hr=3/p.txt",
	    err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "is no regular file"));
	assert_int_equal(lstat(at(f, "outside"), &st), 0);
	assert_int_equal(st.st_size, 7);
}

static void
test_plain(void **state)
{
	struct fixture *f = *state;
	char err[1024], *data = NULL;
	size_t len;

	put(at(f, "part"), "rows\n");
	assert_int_equal(target_write(f->t, "t/dt=2/hr=4/_kedge/a", "abc", 3,
	    err, sizeof(err)), 0);
	assert_int_equal(target_read(f->t, "t/dt=2/hr=4/_kedge/a", 64, &data,
	    &len, err, sizeof(err)), 1);
	assert_int_equal(len, 3);
	assert_string_equal(data, "abc");
	free(data);
	assert_int_equal(target_put(f->t, at(f, "part"), "t/dt=2/hr=5/p.txt",
	    err, sizeof(err)), 0);
	assert_int_equal(target_put(f->t, at(f, "part"), "t/dt=2/hr=5/p.txt",
	    err, sizeof(err)), 0);
	assert_int_equal(target_remove(f->t, "t/dt=2/hr=5/p.txt", err,
	    sizeof(err)), 0);
	assert_int_equal(target_remove(f->t, "t/dt=9/hr=5/p.txt", err,
	    sizeof(err)), 0);
	assert_int_equal(entries(at(f, "out/t/dt=2/hr=5")), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_linked_hour, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_linked_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
