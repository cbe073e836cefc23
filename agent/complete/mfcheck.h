/*
 * mfcheck: whether an hour's `_MANIFEST.json` (manifest.h) says what the
 * part files beside it, as their sidecars describe them, hold.  `kedge
 * verify` reads the files, their sidecars and the manifest; this module
 * compares them, in memory.
 */
#ifndef KEDGE_MFCHECK_H
#define KEDGE_MFCHECK_H

#include <stddef.h>

#include "agent/complete/manifest.h"
#include "agent/write/sidecar.h"

/* A part file of the hour and its parsed sidecar (not owned). */
struct mfcheck_file {
	const char *name;
	const struct sidecar *sc;
};

/* Checks m against files[0..n), every part file of its hour directory,
 * sorted by name:
 *
 *  - m lists each of them once and no other, each with its sidecar's
 *    rows, bytes, topic, partition and offsets, and its crc32c, sha256
 *    and event times when the sidecar has them;
 *  - m's rows and bytes are its files' sums, late_rows the rows of its
 *    files whose revision is after the first, min/max_event_us the least
 *    and the greatest of its files' (null when none has one);
 *  - m's partitions are those of its files, each once, each with the sum
 *    of their rows and the union of their offsets;
 *  - m's fingerprint, when it has one, is the sum of its files' sidecars'.
 *
 * Returns 0; 1 with what differs, one sentence, in why; or -ENOMEM. */
int mfcheck_hour(const struct manifest *m, const struct mfcheck_file *files,
    size_t n, char *why, size_t whylen);

#endif /* KEDGE_MFCHECK_H */
