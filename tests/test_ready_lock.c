/*
 * ready_lock: files move into ready/<table>/dt=../hr=../ (spool_finalize)
 * while another thread removes those directories, parents included, as
 * soon as they are empty (the publisher's clean-up).  Both take
 * spool_ready_lock() as the modules do, and every one of the moves must
 * land; without the lock, most fail with ENOENT.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/write/spool.h"
#include "lib/fsutil.h"

#define MOVES 1000

static char root[64];
static volatile int done;

/* The publisher's habit: remove the deepest directory, then its parents. */
static void *
remover(void *arg)
{
	char a[128], b[128], c[128];

	(void)arg;
	snprintf(a, sizeof(a), "%s/ready/t", root);
	snprintf(b, sizeof(b), "%s/ready/t/dt=20261129", root);
	snprintf(c, sizeof(c), "%s/ready/t/dt=20261129/hr=17", root);
	while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
		spool_ready_lock();
		rmdir(c);
		rmdir(b);
		rmdir(a);
		spool_ready_unlock();
	}
	return NULL;
}

static void
test_rename_into_vanishing_dirs(void **state)
{
	char src[128], dst[128];
	pthread_t t;
	int fails = 0;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kedge-test-XXXXXX");
	assert_non_null(mkdtemp(root));
	assert_int_equal(pthread_create(&t, NULL, remover, NULL), 0);
	for (int i = 0; i < MOVES; i++) {
		FILE *f;
		int r;

		snprintf(src, sizeof(src), "%s/part", root);
		snprintf(dst, sizeof(dst), "%s/ready/t/dt=20261129/hr=17/part",
		    root);
		assert_non_null(f = fopen(src, "w"));
		fclose(f);
		spool_ready_lock();
		r = fs_rename_durable(src, dst);
		spool_ready_unlock();
		if (r != 0) {
			print_error("move %d: %s\n", i, strerror(-r));
			fails++;
			unlink(src);
			continue;
		}
		assert_int_equal(unlink(dst), 0);
	}
	__atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	assert_int_equal(fails, 0);
	snprintf(dst, sizeof(dst), "rm -rf %s", root);
	assert_int_equal(system(dst), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rename_into_vanishing_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
