/*
 * notify: systemd's notification protocol (sd_notify(3)), spoken directly:
 * one datagram of "KEY=VALUE" lines to the AF_UNIX socket named in
 * $NOTIFY_SOCKET (a path, or "@name" in the abstract namespace).  Without
 * $NOTIFY_SOCKET every call does nothing, so kedge runs the same outside
 * systemd.  The watchdog interval comes from $WATCHDOG_USEC, for this
 * process only ($WATCHDOG_PID, when set, must be ours).
 */
#ifndef KEDGE_NOTIFY_H
#define KEDGE_NOTIFY_H

#include <stdint.h>

/* Reads the environment and opens the socket; call once at start, before
 * any thread.  Returns 0, or a negative errno when $NOTIFY_SOCKET is set
 * but unusable. */
int notify_init(void);

/* Sends one message ("READY=1", "STATUS=...", "STOPPING=1", ...), built
 * like printf.  Returns 0 or a negative errno. */
int notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog interval in microseconds, 0 when there is none. */
uint64_t notify_watchdog_usec(void);

/* Sends WATCHDOG=1 when half the interval has passed since the last one;
 * call it from the main loop only, so that a stuck loop stops the pings. */
void notify_watchdog(void);

void notify_close(void);

#endif /* KEDGE_NOTIFY_H */
