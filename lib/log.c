#include "lib/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/escape.h"
#include "lib/jsondoc.h"

/* Set at the start and by a reload (the loop), read by every thread that
 * logs; a line logged while one changes is printed by the old setting or
 * the new one. */
static atomic_int log_max = LOG_LEVEL_INFO;
static atomic_int log_json;
static int log_journald;

/* By level - LOG_LEVEL_ERR; the names log.level takes. */
static const char *const log_names[] = {
	"err", "warning", "notice", "info", "debug",
};

void
log_init(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	log_journald = e != NULL &&
	    sscanf(e, "%llu:%llu%c", &dev, &ino, &end) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 &&
	    (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

int
log_set_level_name(const char *name)
{
	for (size_t i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++) {
		if (strcasecmp(name, log_names[i]) == 0) {
			atomic_store_explicit(&log_max, LOG_LEVEL_ERR + (int)i,
			    memory_order_relaxed);
			return 0;
		}
	}
	return -EINVAL;
}

int
log_set_format_name(const char *name)
{
	if (strcmp(name, "text") != 0 && strcmp(name, "json") != 0)
		return -EINVAL;
	atomic_store_explicit(&log_json, strcmp(name, "json") == 0,
	    memory_order_relaxed);
	return 0;
}

/* Writes now as "2026-11-29T14:00:00.123+08:00" into buf[40]. */
static void
log_time(char *buf)
{
	struct timespec ts;
	struct tm tm;
	long off;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	snprintf(buf + n, 40 - n, ".%03ld%c%02ld:%02ld", ts.tv_nsec / 1000000,
	    off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
}

/* The JSON line of msg, or NULL when memory runs out (the caller frees
 * it). */
static char *
log_json_line(const char *stamp, enum log_level level, const char *msg,
    const struct log_field *f, size_t n)
{
	json_t *o = json_object();
	char *line = NULL;

	if (o == NULL ||
	    json_object_set_new(o, "time", json_string(stamp)) < 0 ||
	    json_object_set_new(o, "level",
	    json_string(log_names[level - LOG_LEVEL_ERR])) < 0 ||
	    json_object_set_new(o, "message", jsondoc_text(msg)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (json_object_set_new(o, f[i].key, f[i].str != NULL ?
		    jsondoc_text(f[i].str) :
		    json_integer((json_int_t)f[i].num)) < 0)
			goto out;
	line = json_dumps(o, JSON_COMPACT);
out:
	json_decref(o);
	return line;
}

/* One fprintf per line, so that lines from threads do not interleave.  A
 * newline or other control byte inside the message (bytes from outside
 * that a caller did not escape) is written escaped, in text by
 * escape_controls(), in JSON by JSON's escapes: a message can never start
 * a line of its own, with a priority prefix of its choosing. */
static void
log_vline(enum log_level level, int with_errno, const struct log_field *f,
    size_t n, const char *fmt, va_list ap)
{
	char msg[2048], text[2048], stamp[40], prio[8] = "";
	int saved = errno;
	size_t len;
	char *json;

	if ((int)level > atomic_load_explicit(&log_max, memory_order_relaxed))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	if (with_errno)
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(saved));
	log_time(stamp);
	if (log_journald)
		snprintf(prio, sizeof(prio), "<%d>", level);
	if (atomic_load_explicit(&log_json, memory_order_relaxed) &&
	    (json = log_json_line(stamp, level, msg, f, n)) != NULL) {
		fprintf(stderr, "%s%s\n", prio, json);
		free(json);
	} else if (log_journald) {
		fprintf(stderr, "%s%s\n", prio,
		    escape_controls(msg, text, sizeof(text)));
	} else {
		fprintf(stderr, "%s %s %s\n", stamp,
		    log_names[level - LOG_LEVEL_ERR],
		    escape_controls(msg, text, sizeof(text)));
	}
	errno = saved;
}

void
log_fields(enum log_level level, const struct log_field *f, size_t n,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(level, 0, f, n, fmt, ap);
	va_end(ap);
}

#define LOG_FN(fn, level, with_errno)           \
	void fn(const char *fmt, ...)           \
	{                                       \
		va_list ap;                     \
		va_start(ap, fmt);              \
		log_vline(level, with_errno, NULL, 0, fmt, ap); \
		va_end(ap);                     \
	}

LOG_FN(log_err, LOG_LEVEL_ERR, 1)
LOG_FN(log_errx, LOG_LEVEL_ERR, 0)
LOG_FN(log_warn, LOG_LEVEL_WARNING, 1)
LOG_FN(log_warnx, LOG_LEVEL_WARNING, 0)
LOG_FN(log_notice, LOG_LEVEL_NOTICE, 0)
LOG_FN(log_info, LOG_LEVEL_INFO, 0)
LOG_FN(log_debug, LOG_LEVEL_DEBUG, 0)
