#include "lib/thread.h"

void
thread_block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void
thread_unblock_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int
thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t old;
	int r;

	thread_block_signals(&old);
	r = pthread_create(t, NULL, fn, arg);
	thread_unblock_signals(&old);
	return r;
}

#if defined(__SANITIZE_THREAD__)
/*
 * A ThreadSanitizer build only (make test's build-tsan/): the sanitizer
 * of gcc 12 and clang 14 intercepts the pthread functions but not C11's
 * threads, which glibc implements over its internal pthread functions.
 * librdkafka starts its threads with thrd_create() and locks with
 * mtx_lock(): its threads were unknown to the sanitizer (kedge crashed in
 * the sanitizer's allocator at their first malloc) and their locks
 * invisible.  These definitions in the executable, which the dynamic
 * linker binds librdkafka's calls to, do what glibc's do, through the
 * pthread functions the sanitizer sees.  Nothing here is in a plain build.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

struct thread_c11 {
	thrd_start_t fn;
	void *arg;
};

static int
thread_c11_result(int r)
{
	return r == 0 ? thrd_success : r == ETIMEDOUT ? thrd_timedout :
	    r == EBUSY ? thrd_busy : r == ENOMEM ? thrd_nomem : thrd_error;
}

static void *
thread_c11_main(void *arg)
{
	struct thread_c11 c = *(struct thread_c11 *)arg;

	free(arg);
	return (void *)(intptr_t)c.fn(c.arg);
}

int
thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	struct thread_c11 *c = malloc(sizeof(*c));
	int r;

	if (c == NULL)
		return thrd_nomem;
	c->fn = fn;
	c->arg = arg;
	if ((r = pthread_create(t, NULL, thread_c11_main, c)) != 0)
		free(c);
	return thread_c11_result(r);
}

int
thrd_join(thrd_t t, int *res)
{
	void *ret;
	int r = pthread_join(t, &ret);

	if (r == 0 && res != NULL)
		*res = (int)(intptr_t)ret;
	return thread_c11_result(r);
}

int
mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t attr;
	int r;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, type & mtx_recursive ?
	    PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_DEFAULT);
	r = pthread_mutex_init((pthread_mutex_t *)m, &attr);
	pthread_mutexattr_destroy(&attr);
	return thread_c11_result(r);
}

int
mtx_lock(mtx_t *m)
{
	return thread_c11_result(pthread_mutex_lock((pthread_mutex_t *)m));
}

int
mtx_unlock(mtx_t *m)
{
	return thread_c11_result(pthread_mutex_unlock((pthread_mutex_t *)m));
}

void
mtx_destroy(mtx_t *m)
{
	pthread_mutex_destroy((pthread_mutex_t *)m);
}

int
cnd_init(cnd_t *c)
{
	return thread_c11_result(pthread_cond_init((pthread_cond_t *)c, NULL));
}

int
cnd_signal(cnd_t *c)
{
	return thread_c11_result(pthread_cond_signal((pthread_cond_t *)c));
}

int
cnd_broadcast(cnd_t *c)
{
	return thread_c11_result(pthread_cond_broadcast((pthread_cond_t *)c));
}

int
cnd_wait(cnd_t *c, mtx_t *m)
{
	return thread_c11_result(pthread_cond_wait((pthread_cond_t *)c,
	    (pthread_mutex_t *)m));
}

int
cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
    const struct timespec *restrict until)
{
	return thread_c11_result(pthread_cond_timedwait((pthread_cond_t *)c,
	    (pthread_mutex_t *)m, until));
}

void
cnd_destroy(cnd_t *c)
{
	pthread_cond_destroy((pthread_cond_t *)c);
}

void
call_once(once_flag *flag, void (*fn)(void))
{
	pthread_once((pthread_once_t *)flag, fn);
}
#endif /* __SANITIZE_THREAD__ */
