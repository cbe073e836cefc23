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
