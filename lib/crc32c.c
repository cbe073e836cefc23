/*
 * crc32c: CRC-32C through ISA-L's crc32_iscsi(), which neither inverts
 * its initial value nor its result: the conventional pre- and
 * post-inversion are done here.
 */
#include "lib/crc32c.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include <isa-l/crc.h>

uint32_t
crc32c_update(uint32_t crc, const void *data, size_t len)
{
	/* crc32_iscsi() takes a mutable pointer and an int length; it
	 * writes nothing */
	unsigned char *p = (unsigned char *)(uintptr_t)data;
	uint32_t c = ~crc;

	while (len > 0) {
		size_t n = len < (size_t)INT_MAX ? len : (size_t)1 << 30;

		c = crc32_iscsi(p, (int)n, c);
		p += n;
		len -= n;
	}
	return ~c;
}

void
crc32c_format(uint32_t crc, char out[CRC32C_HEX + 1])
{
	snprintf(out, CRC32C_HEX + 1, "%08" PRIx32, crc);
}
