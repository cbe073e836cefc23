#include "agent/ops/notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int notify_fd = -1;
static struct sockaddr_un notify_addr;
static socklen_t notify_addrlen;
static uint64_t notify_wd_usec;
static uint64_t notify_wd_last;    /* CLOCK_MONOTONIC, us */

static uint64_t
notify_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int
notify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	size_t len;

	if (usec != NULL && (pid == NULL || strtol(pid, NULL, 10) == getpid()))
		notify_wd_usec = strtoull(usec, NULL, 10);
	if (path == NULL || path[0] == '\0')
		return 0;
	if ((path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(notify_addr.sun_path))
		return -EINVAL;
	memset(&notify_addr, 0, sizeof(notify_addr));
	notify_addr.sun_family = AF_UNIX;
	memcpy(notify_addr.sun_path, path, len);
	if (path[0] == '@')
		notify_addr.sun_path[0] = '\0';
	notify_addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    len + (path[0] == '/'));
	if ((notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	return 0;
}

int
notify_send(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	if (notify_fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	if (sendto(notify_fd, msg, (size_t)n, MSG_NOSIGNAL,
	    (struct sockaddr *)&notify_addr, notify_addrlen) < 0)
		return -errno;
	return 0;
}

uint64_t
notify_watchdog_usec(void)
{
	return notify_fd >= 0 ? notify_wd_usec : 0;
}

void
notify_watchdog(void)
{
	uint64_t now;

	if (notify_fd < 0 || notify_wd_usec == 0)
		return;
	now = notify_now_us();
	if (now - notify_wd_last < notify_wd_usec / 2)
		return;
	notify_wd_last = now;
	notify_send("WATCHDOG=1");
}

void
notify_close(void)
{
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
}
