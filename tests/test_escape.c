/*
 * Foreign bytes in sentences and log lines: escape.h renders them
 * printable and bounded, and log.c never writes a raw control byte inside
 * a message, so no message can forge a journald line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/log.h"

static void
test_bytes_printable(void **state)
{
	static const char in[] = "a\nb\r\t\\\"\001\0\x7f\xc3\xa9z";
	char out[ESCAPE_BUF];

	(void)state;
	assert_string_equal(escape_bytes(in, sizeof(in) - 1, out, sizeof(out)),
	    "a\\nb\\r\\t\\\\\\\"\\x01\\x00\\x7f\\xc3\\xa9z");
	assert_string_equal(escape_bytes("", 0, out, sizeof(out)), "");
	assert_string_equal(escape_str("kedge:../../..:5", out, sizeof(out)),
	    "kedge:../../..:5");
	assert_string_equal(escape_str(NULL, out, sizeof(out)), "(null)");
	/* every byte of the output is printable ASCII */
	for (int c = 0; c < 256; c++) {
		unsigned char b = (unsigned char)c;

		escape_bytes(&b, 1, out, sizeof(out));
		for (const char *p = out; *p != '\0'; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
	}
}

/* A rendering that does not fit ends with "..." after a whole escape. */
static void
test_bytes_bounded(void **state)
{
	char big[1000], out[16];

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_string_equal(escape_bytes(big, sizeof(big), out, sizeof(out)),
	    "xxxxxxxxxxxx...");
	/* exactly fits: no ellipsis */
	assert_string_equal(escape_bytes(big, 15, out, sizeof(out)),
	    "xxxxxxxxxxxxxxx");
	/* an escape is never cut in half */
	memset(big, '\n', 8);
	assert_string_equal(escape_bytes(big, 8, out, sizeof(out)),
	    "\\n\\n\\n\\n\\n\\n...");
	memset(big, 1, 8);
	assert_string_equal(escape_bytes(big, 8, out, sizeof(out)),
	    "\\x01\\x01\\x01...");
	assert_string_equal(escape_bytes(big, 8, out, 3), "..");
	assert_string_equal(escape_bytes(big, 8, out, 1), "");
	out[0] = 'q';
	escape_bytes(big, 8, out, 0);
	assert_int_equal(out[0], 'q');
}

static void
test_controls_only(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(escape_controls("path \\x \"q\" \xc3\xa9\n<0>x\t",
	    out, sizeof(out)), "path \\x \"q\" \xc3\xa9\\n<0>x\\t");
}

/* Runs fn with stderr sent to a file; returns what it wrote (to free). */
static char *
capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/kedge-test-log.XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(2);
	long n;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	fn();
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
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
	text = capture_stderr(log_forged);
	assert_string_equal(text,
	    "<4>checkpoint: metadata kedge:x\\n<0>forged\\r\\x1b[2J\n"
	    "<4>open a\\nb: No such file or directory\n");
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
	text = capture_stderr(log_long);
	nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_string_equal(nl, "\n");
	assert_true(nl - text > 1000);
	assert_memory_equal(nl - 3, "...", 3);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_printable),
		cmocka_unit_test(test_bytes_bounded),
		cmocka_unit_test(test_controls_only),
		cmocka_unit_test(test_log_one_line_per_message),
		cmocka_unit_test(test_log_long_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
