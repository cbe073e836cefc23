/*
 * verify: the exactly-once invariant, checked over landed files alone
 * (`kedge verify DIR`, DIR being output.local_dir).  Every part file under
 * DIR/<table>/dt=../hr=../ is read against its sidecar (see sidecar.h):
 *
 *  - every part file has its sidecar `.<name>.json` and every sidecar its
 *    part file, and the sidecar parses;
 *  - the name <topic>+<partition>+<first offset>+<host>.<ext> and the
 *    table directory agree with the sidecar;
 *  - the file decodes whole (every gzip member, every zstd frame), ends
 *    with a line end, holds "rows" lines and "bytes" bytes, and at least one
 *    row for each record it claims or spills (a rejects file: exactly one
 *    row per rejected record); its bytes have the CRC-32C "crc32c" and
 *    the SHA-256 "sha256" the sidecar has (kedge writes the first; earlier
 *    versions wrote the second, or neither);
 *  - per (table, topic, partition), the "offsets" and "empty" ranges of the
 *    table's files and the "rejected" ranges of the rejects files for that
 *    table never overlap (a duplicate) and leave no hole between the
 *    smallest and the largest offset (a gap), and every "spill" range lies
 *    inside them;
 *  - every hour directory with a `_MANIFEST.json` (manifest.h) has a
 *    `_SUCCESS` beside it, and the manifest parses, names that hour, and
 *    says what the part files there hold (mfcheck.h); a `_SUCCESS`
 *    without a manifest is a violation.  An hour with neither is not
 *    complete yet, which is no violation.
 *
 * Hidden names that are not sidecars (`.<name>.tmp` of a copy) and names
 * starting with '_' in an hour (`_SUCCESS`, `_MANIFEST.json`) are not part
 * files.  Files are checked in the order of their paths, then the
 * partitions in the order of (table, topic, partition), then the hours'
 * manifests in the order of their paths, so the violation reported is
 * always the same one.
 */
#ifndef KEDGE_VERIFY_H
#define KEDGE_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What verify_check() counted when the invariant holds: part files, their
 * rows (rejects included), partitions ((table, topic, partition)
 * triples), tables (DIR's table directories other than _rejects, and
 * tables only the rejects name), manifests (the hours' _MANIFEST.json),
 * offsets the broker deleted before kedge read them, and part files that
 * landed after their hour's manifest (for its next revision); and the part
 * files whose CRC-32C, and whose SHA-256, was checked (a file with both in
 * its sidecar counts in both, one with neither in none). */
struct verify_summary {
	size_t files;
	uint64_t rows;
	size_t partitions, tables, manifests;
	uint64_t unread;
	size_t awaiting;
	size_t crc32c_files, sha256_files;
};

/* Checks the target directory dir.  Returns 0 when the invariant holds,
 * with the counts in *sum and "verify OK: <files> files (<c> checked by
 * crc32c, <s> by sha256), <rows> rows, <n> partitions in <tables> tables,
 * <m> manifests" in msg, followed by
 * "; <unread> offsets deleted by the broker before kedge read them" and
 * " (<awaiting> files landed after their hour's manifest, for its next
 * revision)" when those are not 0; 1 at the first violation, with
 * "verify: <path or partition>: <what is wrong>" (or "verify: crc32c of
 * <path> is <hex>, its sidecar says <hex>", sha256 likewise) in msg,
 * paths relative to dir;
 * or a negative errno when dir or a file in it cannot be read, or memory
 * runs out, with the sentence in msg. */
int verify_check(const char *dir, struct verify_summary *sum, char *msg,
    size_t msglen);

/* Prints verify_check()'s answer r (0 or 1), *sum and msg to out as one
 * JSON document: {"ok": true, "files": ..., "rows": ..., "partitions":
 * ..., "tables": ..., "manifests": ..., "unread_offsets": ...,
 * "awaiting_files": ..., "crc32c_files": ..., "sha256_files": ...}, or
 * {"ok": false, "violation": "<msg after \"verify: \">"}.  Returns 0, or
 * -ENOMEM or -EIO. */
int verify_print_json(int r, const struct verify_summary *sum,
    const char *msg, FILE *out);

#endif /* KEDGE_VERIFY_H */
