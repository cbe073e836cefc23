/*
 * thread: threads that never take the run loop's signals.
 *
 * SIGTERM, SIGINT and SIGHUP are the run loop's (run.c): the kernel hands
 * a process-directed signal to any thread that does not block it, and one
 * delivered elsewhere interrupts that thread's calls instead of the
 * loop's poll.  Every thread kedge starts, and every library's thread
 * (librdkafka's, libmicrohttpd's), is therefore born with those blocked,
 * and SIGPIPE too: a new thread inherits its creator's mask.  Faults
 * (SIGSEGV, SIGBUS, ...) stay unblocked, so that a crash is reported by
 * whatever handles them.
 */
#ifndef KEDGE_THREAD_H
#define KEDGE_THREAD_H

#include <pthread.h>
#include <signal.h>

/* pthread_create(t, NULL, fn, arg) with the run loop's signals blocked in
 * the new thread; the caller's mask is unchanged.  Returns 0 or a positive error
 * number, as pthread_create(). */
int thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* Blocks the run loop's signals in the calling thread and saves its mask
 * in old: the threads a library starts until thread_unblock_signals(old)
 * inherit that mask. */
void thread_block_signals(sigset_t *old);

/* Restores the mask thread_block_signals() saved. */
void thread_unblock_signals(const sigset_t *old);

#endif /* KEDGE_THREAD_H */
