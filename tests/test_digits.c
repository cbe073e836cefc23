/*
 * Digits checked a word at a time (lib/digits.h), against a byte at a
 * time: every byte value in every place of a pattern of digits and fixed
 * bytes, and the words read from text as lib/le.h reads them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "lib/digits.h"
#include "lib/le.h"

/* The patterns: 'd' a digit, any other byte itself. */
static const char *const patterns[] = {
	"dddddddd", "dd:dd:dd", "dddd\0\0\0\0", "-ddd.dd ", "\0\0\0\0\0\0\0\0",
};

/* Sets *x and *digits for text against pattern. */
static void
word_of(const char *text, const char *pattern, uint64_t *x,
    uint64_t *digits)
{
	char want[8];

	*digits = 0;
	for (int i = 0; i < 8; i++) {
		want[i] = pattern[i] == 'd' ? '0' : pattern[i];
		if (pattern[i] == 'd')
			*digits |= UINT64_C(1) << (8 * i);
	}
	*x = le_get64(text) ^ le_get64(want);
}

/* The top bit of each byte of text that does not fit pattern. */
static uint64_t
misfits_bytewise(const char *text, const char *pattern)
{
	uint64_t m = 0;

	for (int i = 0; i < 8; i++) {
		unsigned char c = (unsigned char)text[i];
		int fits = pattern[i] == 'd' ? c >= '0' && c <= '9' :
		    c == (unsigned char)pattern[i];

		if (!fits)
			m |= UINT64_C(0x80) << (8 * i);
	}
	return m;
}

static void
test_every_byte_in_every_place(void **state)
{
	(void)state;
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		const char *pattern = patterns[p];
		char text[8];

		/* a text that fits, digits 1..8 */
		for (int i = 0; i < 8; i++)
			text[i] = pattern[i] == 'd' ? (char)('1' + i) :
			    pattern[i];
		for (int i = 0; i < 8; i++) {
			char keep = text[i];

			for (int c = 0; c < 256; c++) {
				uint64_t x, digits, want;

				text[i] = (char)c;
				word_of(text, pattern, &x, &digits);
				want = misfits_bytewise(text, pattern);
				assert_int_equal(digits_misfits(x, digits), want);
				assert_int_equal(digits_fit(x, digits), want == 0);
			}
			text[i] = keep;
		}
	}
}

/* Misfits in two places at once: the lower is found exact, whatever the
 * higher does (no carry or borrow between bytes). */
static void
test_two_misfits(void **state)
{
	const char *pattern = "dd:dd:dd";
	char text[8];

	(void)state;
	for (int a = 0; a < 8; a++)
		for (int b = a + 1; b < 8; b++)
			for (int c = 0; c < 256; c += 5) {
				uint64_t x, digits;

				memcpy(text, "12:34:56", 8);
				text[a] = (char)c;
				text[b] = (char)(255 - c);
				word_of(text, pattern, &x, &digits);
				assert_int_equal(digits_misfits(x, digits),
				    misfits_bytewise(text, pattern));
				assert_int_equal(digits_fit(x, digits),
				    misfits_bytewise(text, pattern) == 0);
			}
}

static void
test_le_get(void **state)
{
	const unsigned char b[8] = { 1, 2, 3, 4, 5, 6, 7, 0x88 };

	(void)state;
	assert_int_equal(le_get32(b), 0x04030201u);
	assert_int_equal(le_get64(b), UINT64_C(0x8807060504030201));
	assert_int_equal(le_get64(b), le_get(b, 8));
	assert_int_equal(le_get32(b + 4), le_get(b + 4, 4));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte_in_every_place),
		cmocka_unit_test(test_two_misfits),
		cmocka_unit_test(test_le_get),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
