/*
 * log.c's lines: the time and level in a terminal, the <N> priority only
 * when JOURNAL_STREAM names stderr itself, one JSON object a line in the
 * json format (read back with jansson), and always one line per message,
 * whatever bytes it quotes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/log.h"

/* Sets JOURNAL_STREAM to the device and inode of fd, as systemd does for
 * the stream it connects to a service's stderr. */
static void
journal_stream_of(int fd)
{
	struct stat st;
	char v[64];

	assert_int_equal(fstat(fd, &st), 0);
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
	assert_int_equal(setenv("JOURNAL_STREAM", v, 1), 0);
}

enum stream { NO_JOURNAL, JOURNAL, OTHER_JOURNAL };

/* Runs fn with stderr sent to a file, after log_init() under JOURNAL_STREAM
 * as s says (OTHER_JOURNAL: a stream that is not stderr's); returns what
 * it wrote (to free). */
static char *
capture_stderr(enum stream s, void (*fn)(void))
{
	char path[] = "/tmp/kedge-test-log.XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(2);
	long n;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	if (s == NO_JOURNAL)
		unsetenv("JOURNAL_STREAM");
	else
		journal_stream_of(s == JOURNAL ? 2 : saved);
	log_init();
	fn();
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	unsetenv("JOURNAL_STREAM");
	log_init();
	assert_non_null(f = fopen(path, "r"));
	unlink(path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(text = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* Asserts that every line of text matches the extended regex re. */
static void
each_line_matches(const char *text, const char *re)
{
	char line[4096];
	regex_t rx;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	while (*text != '\0') {
		size_t len = strcspn(text, "\n");

		assert_true(len < sizeof(line));
		memcpy(line, text, len);
		line[len] = '\0';
		if (regexec(&rx, line, 0, NULL, 0) != 0)
			fail_msg("\"%s\" does not match /%s/", line, re);
		text += len + (text[len] == '\n');
	}
	regfree(&rx);
}

#define TIME_RE "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}" \
	"\\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}"

static void
log_levels(void)
{
	log_set_level_name("debug");
	log_errx("e");
	log_warnx("w");
	log_notice("n");
	log_info("i");
	log_debug("d");
	log_set_level_name("info");
	log_debug("not printed");
}

static void
test_text_time_level(void **state)
{
	char *text;

	(void)state;
	text = capture_stderr(NO_JOURNAL, log_levels);
	each_line_matches(text, "^" TIME_RE " [a-z]+ [ewnid]$");
	assert_non_null(strstr(text, " err e\n"));
	assert_non_null(strstr(text, " warning w\n"));
	assert_non_null(strstr(text, " notice n\n"));
	assert_non_null(strstr(text, " info i\n"));
	assert_non_null(strstr(text, " debug d\n"));
	assert_null(strstr(text, "not printed"));
	free(text);
}

static void
test_journald_priority(void **state)
{
	char *text;

	(void)state;
	text = capture_stderr(JOURNAL, log_levels);
	assert_string_equal(text, "<3>e\n<4>w\n<5>n\n<6>i\n<7>d\n");
	free(text);
	/* a JOURNAL_STREAM inherited from a unit, stderr elsewhere */
	text = capture_stderr(OTHER_JOURNAL, log_levels);
	each_line_matches(text, "^" TIME_RE " [a-z]+ [ewnid]$");
	free(text);
}

static void
log_forged(void)
{
	log_warnx("checkpoint: metadata %s", "kedge:x\n<0>forged\r\033[2J");
	errno = ENOENT;
	log_warn("open %s", "a\nb");
}

static void
test_log_one_line_per_message(void **state)
{
	char *text;

	(void)state;
	text = capture_stderr(JOURNAL, log_forged);
	assert_string_equal(text,
	    "<4>checkpoint: metadata kedge:x\\n<0>forged\\r\\x1b[2J\n"
	    "<4>open a\\nb: No such file or directory\n");
	free(text);
	text = capture_stderr(NO_JOURNAL, log_forged);
	each_line_matches(text, "^" TIME_RE " warning (checkpoint: metadata "
	    "kedge:x\\\\n<0>forged\\\\r\\\\x1b\\[2J|open a\\\\nb: No such "
	    "file or directory)$");
	free(text);
}

static void
log_long(void)
{
	char big[5000];

	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_errx("%s", big);
}

/* A message too long for the line after escaping is cut, still one line. */
static void
test_log_long_message(void **state)
{
	char *text, *nl;

	(void)state;
	text = capture_stderr(NO_JOURNAL, log_long);
	nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_string_equal(nl, "\n");
	assert_true(nl - text > 1000);
	assert_memory_equal(nl - 3, "...", 3);
	free(text);
}

static void
log_json_lines(void)
{
	const struct log_field f[] = { LOG_STR("table", "web"),
	    LOG_STR("topic", "t\xff\n"), LOG_INT("partition", 3),
	    LOG_INT("offset", 9007199254740993LL) };

	assert_int_equal(log_set_format_name("yaml"), -EINVAL);
	assert_int_equal(log_set_format_name("json"), 0);
	log_fields(LOG_LEVEL_NOTICE, f, 4, "table %s: slow \"record\"\n<0>x",
	    "web");
	errno = ENOENT;
	log_warn("open %s", "caf\xc3\xa9");
	log_info("bad byte \xff");
	assert_int_equal(log_set_format_name("text"), 0);
}

/* Parses line as a JSON object and checks its time, level and message. */
static json_t *
json_line(const char *line, size_t len, const char *level,
    const char *message)
{
	json_error_t e;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &e);
	regex_t rx;

	if (o == NULL)
		fail_msg("not JSON: %.*s: %s", (int)len, line, e.text);
	assert_true(json_is_object(o));
	assert_int_equal(regcomp(&rx, "^" TIME_RE "$", REG_EXTENDED | REG_NOSUB),
	    0);
	assert_int_equal(regexec(&rx, json_string_value(json_object_get(o,
	    "time")), 0, NULL, 0), 0);
	regfree(&rx);
	assert_string_equal(json_string_value(json_object_get(o, "level")),
	    level);
	assert_string_equal(json_string_value(json_object_get(o, "message")),
	    message);
	return o;
}

static void
test_json_lines(void **state)
{
	const char *line, *nl;
	char *text;
	json_t *o;

	(void)state;
	for (int journal = 0; journal < 2; journal++) {
		text = capture_stderr(journal ? JOURNAL : NO_JOURNAL,
		    log_json_lines);
		line = text;
		if (journal) {
			assert_memory_equal(line, "<5>", 3);
			line += 3;
		}
		assert_non_null(nl = strchr(line, '\n'));
		o = json_line(line, (size_t)(nl - line), "notice",
		    "table web: slow \"record\"\n<0>x");
		assert_string_equal(json_string_value(json_object_get(o,
		    "table")), "web");
		/* not UTF-8: escaped, still a string */
		assert_string_equal(json_string_value(json_object_get(o,
		    "topic")), "t\\xff\\n");
		assert_int_equal(json_integer_value(json_object_get(o,
		    "partition")), 3);
		assert_int_equal(json_integer_value(json_object_get(o,
		    "offset")), 9007199254740993LL);
		assert_int_equal(json_object_size(o), 7);
		json_decref(o);
		line = nl + 1 + (journal ? 3 : 0);
		assert_non_null(nl = strchr(line, '\n'));
		o = json_line(line, (size_t)(nl - line), "warning",
		    "open caf\xc3\xa9: No such file or directory");
		assert_int_equal(json_object_size(o), 3);
		json_decref(o);
		line = nl + 1 + (journal ? 3 : 0);
		assert_non_null(nl = strchr(line, '\n'));
		json_decref(json_line(line, (size_t)(nl - line), "info",
		    "bad byte \\xff"));
		assert_string_equal(nl, "\n");
		free(text);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_time_level),
		cmocka_unit_test(test_journald_priority),
		cmocka_unit_test(test_log_one_line_per_message),
		cmocka_unit_test(test_log_long_message),
		cmocka_unit_test(test_json_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
