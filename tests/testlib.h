/*
 * Helpers the unit tests share: a seeded pseudo-random generator, libc's
 * timegm() as the oracle for civil times, the checks that a parser of
 * kedge's JSON files refuses what is not one of them, saying where, a
 * test's kedge.conf written and loaded, the removal of a test's
 * directory, and the heap in use.
 */
#ifndef KEDGE_TESTLIB_H
#define KEDGE_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/config/config.h"

/* Removes the directory tree dir (a test's own, from mkdtemp), failing
 * the test if it cannot. */
static inline void
remove_tree(const char *dir)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The bytes malloc has handed out and not had back, mapped ones included. */
static inline size_t
heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* Writes dir/kedge.conf from fmt and its arguments and loads it, failing
 * the test if either cannot be done.  conf_free() what it returns. */
static inline struct conf *
test_conf(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline struct conf *
test_conf(const char *dir, const char *fmt, ...)
{
	char path[1100], err[1024] = "";
	struct conf *c;
	va_list ap;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/kedge.conf", dir);
	assert_non_null(fp = fopen(path, "w"));
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(fp), 0);
	if ((c = conf_load(path, err, sizeof(err))) == NULL)
		fail_msg("conf_load: %s", err);
	return c;
}

/* splitmix64: a fast, well-mixed generator; *s is the state. */
static inline uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Microseconds since the epoch of a civil time at UTC offset offset_s,
 * computed by libc's timegm(). */
static inline int64_t
oracle_us(int year, int mon, int day, int hour, int min, int sec,
    int offset_s)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	return ((int64_t)timegm(&tm) - offset_s) * 1000000;
}

/* Microseconds since the epoch of a UTC civil time. */
static inline int64_t
utc_us(int year, int mon, int day, int hour, int min, int sec)
{
	return oracle_us(year, mon, day, hour, min, sec, 0);
}

/* A parser under test: parses the len bytes of text into an object of its
 * own, frees that, and returns what the parser returned, its sentence in
 * err. */
typedef int (*test_parse_fn)(const char *text, size_t len, char *err,
    size_t errlen);

/* text with its first `from` replaced by `to`, for the caller to free;
 * fails the test if text has no `from`. */
static inline char *
text_with(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t head;
	char *s;

	if (at == NULL)
		fail_msg("\"%s\" is not in the example", from);
	head = (size_t)(at - text);
	assert_non_null(s = malloc(strlen(text) - strlen(from) + strlen(to) +
	    1));
	memcpy(s, text, head);
	strcpy(s + head, to);
	strcat(s, at + strlen(from));
	return s;
}

/* Every cut of text (one line) short of its final newline, as a crash or a
 * full disk leaves a file, is refused by parse: -EINVAL, and a sentence
 * that says where it stops ("line 1, column ..."). */
static inline void
assert_cuts_refused(test_parse_fn parse, const char *text)
{
	size_t len = strlen(text) - 1; /* the newline is not needed */
	char err[512];

	for (size_t n = 0; n < len; n++) {
		int r;

		err[0] = '\0';
		r = parse(text, n, err, sizeof(err));
		if (r != -EINVAL || strncmp(err, "line 1, column ", 15) != 0)
			fail_msg("cut at %zu: %d \"%s\"", n, r, err);
	}
}

/* A text that is not what parse reads: the example with `from` replaced by
 * `to`, refused with a sentence that holds `want`. */
struct test_refusal {
	const char *from, *to, *want;
};

/* Each of the n cases, made from example, is refused by parse: -EINVAL,
 * and a sentence holding the case's `want`. */
static inline void
assert_refusals(test_parse_fn parse, const char *example,
    const struct test_refusal *cases, size_t n)
{
	char err[512];

	for (size_t i = 0; i < n; i++) {
		char *text = text_with(example, cases[i].from, cases[i].to);
		int r;

		err[0] = '\0';
		r = parse(text, strlen(text), err, sizeof(err));
		if (r != -EINVAL || strstr(err, cases[i].want) == NULL)
			fail_msg("case %zu: %d \"%s\", want -EINVAL \"%s\"", i, r,
			    err, cases[i].want);
		free(text);
	}
}

#endif /* KEDGE_TESTLIB_H */
