/*
 * Foreign bytes in sentences and log lines: escape.h renders them
 * printable and bounded (test_log.c: what log.c makes of them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "lib/escape.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_printable),
		cmocka_unit_test(test_bytes_bounded),
		cmocka_unit_test(test_controls_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
