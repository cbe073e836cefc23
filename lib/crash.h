/*
 * crash: named points where a test can make kedge die as if the power went,
 * to prove that recovery copes with a crash at exactly that step.
 * KEDGE_CRASH_AT=<point> aborts the first time <point> is reached,
 * KEDGE_CRASH_AT=<point>:<n> the n-th time.  KEDGE_STALL_AT=<point>[:<n>]
 * makes the thread that reaches it stop there for good instead, as a hung
 * loop would (the watchdog's test).  Unset, a point costs a load and a
 * compare.  The points are listed in docs/design.md.
 *
 * A release build (make KEDGE_RELEASE=1, which defines
 * KEDGE_NO_CRASH_POINTS; the packages are built so) has no crash points:
 * crash_point() compiles to nothing and the variables are ignored.
 */
#ifndef KEDGE_CRASH_H
#define KEDGE_CRASH_H

/* Reads KEDGE_CRASH_AT and KEDGE_STALL_AT; call once at start, before any
 * thread.  In a release build, says once (log_warnx) that they are set and
 * ignored. */
void crash_init(void);

#ifdef KEDGE_NO_CRASH_POINTS
#define crash_point(name) ((void)(name))
#else
/* Aborts the process here if KEDGE_CRASH_AT names this point and its count
 * is reached; stalls here likewise for KEDGE_STALL_AT. */
void crash_point(const char *name);
#endif

#endif /* KEDGE_CRASH_H */
