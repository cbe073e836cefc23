#include "lib/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/escape.h"

/* Set by the loop (SIGHUP), read by every thread that logs. */
static atomic_int log_max = LOG_LEVEL_INFO;

static const struct {
	const char *name;
	enum log_level level;
} log_names[] = {
	{ "err", LOG_LEVEL_ERR },
	{ "warning", LOG_LEVEL_WARNING },
	{ "notice", LOG_LEVEL_NOTICE },
	{ "info", LOG_LEVEL_INFO },
	{ "debug", LOG_LEVEL_DEBUG },
};

int
log_set_level_name(const char *name)
{
	for (size_t i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++) {
		if (strcasecmp(name, log_names[i].name) == 0) {
			atomic_store_explicit(&log_max, log_names[i].level,
			    memory_order_relaxed);
			return 0;
		}
	}
	return -EINVAL;
}

void
log_set_level(enum log_level level)
{
	atomic_store_explicit(&log_max, level, memory_order_relaxed);
}

/* One fprintf per line, so that lines from threads do not interleave.  A
 * newline or other control byte inside the message (bytes from outside
 * that a caller did not escape) is written escaped: a message can never
 * start a line of its own, with a priority prefix of its choosing. */
static void
log_vline(enum log_level level, int with_errno, const char *fmt, va_list ap)
{
	char msg[2048], line[2048];
	int saved = errno;

	if ((int)level > atomic_load_explicit(&log_max, memory_order_relaxed))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	escape_controls(msg, line, sizeof(line));
	if (with_errno)
		fprintf(stderr, "<%d>%s: %s\n", level, line, strerror(saved));
	else
		fprintf(stderr, "<%d>%s\n", level, line);
	errno = saved;
}

#define LOG_FN(fn, level, with_errno)           \
	void fn(const char *fmt, ...)           \
	{                                       \
		va_list ap;                     \
		va_start(ap, fmt);              \
		log_vline(level, with_errno, fmt, ap); \
		va_end(ap);                     \
	}

LOG_FN(log_err, LOG_LEVEL_ERR, 1)
LOG_FN(log_errx, LOG_LEVEL_ERR, 0)
LOG_FN(log_warn, LOG_LEVEL_WARNING, 1)
LOG_FN(log_warnx, LOG_LEVEL_WARNING, 0)
LOG_FN(log_notice, LOG_LEVEL_NOTICE, 0)
LOG_FN(log_info, LOG_LEVEL_INFO, 0)
LOG_FN(log_debug, LOG_LEVEL_DEBUG, 0)
