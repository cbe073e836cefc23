/*
 * crc32c: the published check values (the "123456789" check and RFC 3720's
 * iSCSI vectors), agreement with a bitwise reference over lengths that
 * cross every alignment and the library's block sizes, and updates over
 * chunks giving what one pass gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/crc32c.h"

/* The CRC-32C a bit at a time, by its definition (reflected polynomial
 * 0x82f63b78). */
static uint32_t
crc32c_bitwise(const unsigned char *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
	}
	return ~c;
}

static void
test_known_vectors(void **state)
{
	unsigned char b[32];
	char hex[CRC32C_HEX + 1];

	(void)state;
	assert_int_equal(crc32c_update(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(crc32c_update(0, "", 0), 0);
	assert_int_equal(crc32c_update(0, "a", 1), 0xc1d04330u);
	/* RFC 3720, B.4 */
	memset(b, 0, sizeof(b));
	assert_int_equal(crc32c_update(0, b, sizeof(b)), 0x8a9136aau);
	memset(b, 0xff, sizeof(b));
	assert_int_equal(crc32c_update(0, b, sizeof(b)), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)i;
	assert_int_equal(crc32c_update(0, b, sizeof(b)), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)(31 - i);
	assert_int_equal(crc32c_update(0, b, sizeof(b)), 0x113fdb5cu);
	crc32c_format(0xe3069283u, hex);
	assert_string_equal(hex, "e3069283");
	crc32c_format(0x0000abcdu, hex);
	assert_string_equal(hex, "0000abcd");
}

static void
test_matches_bitwise(void **state)
{
	size_t n = 70000;
	unsigned char *b = malloc(n + 64);

	(void)state;
	assert_non_null(b);
	srand(7);
	for (size_t i = 0; i < n + 64; i++)
		b[i] = (unsigned char)rand();
	/* every start alignment, and lengths past the blocks ISA-L folds */
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len < 600; len += 1 + len / 8)
			assert_int_equal(crc32c_update(0, b + off, len),
			    crc32c_bitwise(b + off, len));
	assert_int_equal(crc32c_update(0, b + 3, n), crc32c_bitwise(b + 3, n));
	free(b);
}

static void
test_chunks_equal_one_pass(void **state)
{
	size_t n = 200000;
	unsigned char *b = malloc(n);
	const size_t sizes[] = { 1, 7, 158, 4096, 65536, 100001 };
	uint32_t whole;

	(void)state;
	assert_non_null(b);
	srand(11);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)rand();
	whole = crc32c_update(0, b, n);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t c = 0;

		for (size_t at = 0; at < n; at += sizes[s])
			c = crc32c_update(c, b + at, n - at < sizes[s] ?
			    n - at : sizes[s]);
		assert_int_equal(c, whole);
	}
	/* uneven chunks, empty ones among them */
	{
		uint32_t c = 0;
		size_t at = 0;

		while (at < n) {
			size_t len = (size_t)rand() % 3000;

			if (len > n - at)
				len = n - at;
			c = crc32c_update(c, b + at, len);
			at += len;
		}
		assert_int_equal(c, whole);
	}
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_vectors),
		cmocka_unit_test(test_matches_bitwise),
		cmocka_unit_test(test_chunks_equal_one_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
