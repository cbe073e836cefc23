/*
 * log: one line per event on stderr, prefixed with its sd-daemon priority
 * (<3> error ... <7> debug) so that journald files it under the right one.
 * Only agent/ logs; leaf modules return errors and let the caller decide.
 * A message is always one line: control bytes in it are written escaped
 * (escape.h), so bytes from outside cannot forge a line of their own.
 */
#ifndef KEDGE_LOG_H
#define KEDGE_LOG_H

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7
};

/* Sets the most verbose level printed.  Returns 0, or -EINVAL for a name
 * that is not err, warning, notice, info or debug. */
int log_set_level_name(const char *name);
void log_set_level(enum log_level level);

/* log_warn and log_err append ": strerror(errno)"; the x variants do not. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* KEDGE_LOG_H */
