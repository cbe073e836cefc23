/*
 * log: one line per event on stderr.  Only agent/ logs; leaf modules
 * return errors and let the caller decide.
 *
 * In the text format (the default) a line is the time (RFC 3339 in the
 * local time zone, with milliseconds and the offset), the level's name
 * and the message:
 *
 *   2026-11-29T14:00:00.123+08:00 warning kafka: no broker answers (...)
 *
 * Under journald (log_init() found JOURNAL_STREAM naming stderr) it is
 * the message after its sd-daemon priority instead, "<4>kafka: ...":
 * journald keeps its own time and files the line under that priority.
 * In the json format, for log shippers, a line is one JSON object,
 * {"time": ..., "level": ..., "message": ...} and the call's fields
 * (log_fields()), after the <N> under journald too.  A message is always
 * one line: in text, control bytes in it are written escaped (escape.h);
 * in JSON, as JSON escapes them.
 */
#ifndef KEDGE_LOG_H
#define KEDGE_LOG_H

#include <stddef.h>
#include <stdint.h>

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7
};

/* Looks whether stderr is journald's stream: JOURNAL_STREAM holds the
 * "device:inode" of the stream systemd connected stderr to (sd_journal's
 * documented check, so that a variable inherited by a process whose stderr
 * went elsewhere does not count).  Call once at the start, before any
 * thread logs; until then lines have the text format's time and level. */
void log_init(void);

/* Sets the most verbose level printed.  Returns 0, or -EINVAL for a name
 * that is not err, warning, notice, info or debug. */
int log_set_level_name(const char *name);

/* Sets the format: "text" or "json".  Returns 0 or -EINVAL. */
int log_set_format_name(const char *name);

/* log_warn and log_err append ": strerror(errno)"; the x variants do not. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A structured field of a line: key and a string (str), or when str is
 * NULL the integer num.  Only the json format writes them; the message
 * says the same in words. */
struct log_field {
	const char *key;
	const char *str;
	int64_t num;
};

#define LOG_STR(key, s) { (key), (s), 0 }
#define LOG_INT(key, n) { (key), NULL, (int64_t)(n) }

/* Logs the message at level with the fields f[0..n), as in
 * log_fields(LOG_LEVEL_WARNING, (struct log_field[]){ LOG_STR("table",
 * name), LOG_INT("partition", p) }, 2, "table %s: ...", ...). */
void log_fields(enum log_level level, const struct log_field *f, size_t n,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif /* KEDGE_LOG_H */
