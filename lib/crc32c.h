/*
 * crc32c: the CRC-32C (Castagnoli, iSCSI) of a byte string, the checksum
 * HDFS keeps of its blocks, computed with the CPU's crc32 instruction
 * (Intel ISA-L).  The conventional one: initial value and final xor
 * 0xffffffff, reflected; crc32c("123456789") is 0xe3069283.
 */
#ifndef KEDGE_CRC32C_H
#define KEDGE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#define CRC32C_HEX 8 /* digits of crc32c_format() */

/* The CRC-32C of what crc covered followed by data[0..len); crc 0 for
 * the start.  crc32c_update(crc32c_update(0, a), b) is the CRC-32C of a
 * and b together. */
uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);

/* Writes crc as CRC32C_HEX lowercase hex digits and a NUL into out. */
void crc32c_format(uint32_t crc, char out[CRC32C_HEX + 1]);

#endif /* KEDGE_CRC32C_H */
