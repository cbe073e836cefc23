/*
 * manifest: `_MANIFEST.json`, what kedge declares about one complete hour
 * of one table (docs/completion.md), written into the hour's directory
 * before `_SUCCESS`.  One JSON object:
 *
 *   {"kedge":1,"table":"access","dt":"20260801","hr":"21",
 *    "revision":2,"host":"edge01","written":"2026-11-29T15:00:00Z",
 *    "watermark_us":1785621600000000,
 *    "rows":1234,"bytes":56789,"rejects":3,"late_rows":12,
 *    "min_event_us":1785610800000000,"max_event_us":1785614399000000,
 *    "fingerprint":"9f0c2d6e81a4b3c7",
 *    "files":[{"name":"web+0+120000+edge01.txt.gz","bytes":56789,
 *              "rows":1234,"crc32c":"<8 hex>","topic":"web",
 *              "partition":0,"offsets":[[120000,120180]],
 *              "min_event_us":...,"max_event_us":...,"revision":1}],
 *    "partitions":[{"topic":"web","partition":0,
 *                   "offsets":[[120000,120180]],"rows":1234}]}
 *
 * rows, bytes: of every part file listed.  late_rows: rows of the files
 * that a revision after the first added.  rejects: records of this table
 * rejected, from the _rejects files of the same dt/hr (rejects are filed
 * by the hour they arrived).  offsets: inclusive ranges of the records
 * whose first row is in the file (the sidecar's "offsets"); per partition,
 * their union over the hour's files.  A file's "revision" is the first
 * revision that listed it.  Times are microseconds since the epoch, UTC
 * (negative before 1970, as a sidecar's may be); min/max event time are
 * null (JSON null) when the hour holds no row.  fingerprint: the sum modulo
 * 2^64 of the files' (fingerprint.h), the rows of all their columns;
 * absent when a file's sidecar has none, and from manifests of a kedge
 * before it.
 *
 * A file's "crc32c" and "sha256" are its sidecar's, each there when the
 * sidecar has it (kedge writes "crc32c"; sidecars of earlier versions have
 * "sha256", or neither).  Manifests of a kedge before the crc32c have
 * "sha256" for every file, "" when its sidecar had none, and no "crc32c".
 *
 * The parser is strict, like the sidecar's: a repeated, unknown or missing
 * key, a value of another type or out of its range is an error.
 */
#ifndef KEDGE_MANIFEST_H
#define KEDGE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "agent/write/sidecar.h"
#include "lib/buf.h"

#define MANIFEST_NAME "_MANIFEST.json"
#define MANIFEST_SUCCESS "_SUCCESS"
#define MANIFEST_VERSION 1
#define MANIFEST_NO_TIME INT64_MIN   /* min/max event time of no row */

struct manifest_file {
	char *name;
	uint64_t bytes;
	uint64_t rows;
	char crc32c[CRC32C_HEX + 1];     /* "" when the sidecar had none */
	char sha256[65];                 /* "" when the sidecar had none */
	char *topic;
	int32_t partition;
	struct sidecar_ranges offsets;
	int64_t min_event_us, max_event_us;
	uint64_t revision;
};

struct manifest_partition {
	char *topic;
	int32_t partition;
	struct sidecar_ranges offsets;
	uint64_t rows;
};

struct manifest {
	char *table;
	char dt[9], hr[3];
	uint64_t revision;
	char *host;
	char written[21];                /* "YYYY-MM-DDTHH:MM:SSZ" */
	int64_t watermark_us;
	uint64_t rows, bytes, rejects, late_rows;
	int64_t min_event_us, max_event_us;
	struct manifest_file *files;
	size_t nfiles;
	struct manifest_partition *parts;
	size_t nparts, parts_cap;
	int has_fingerprint;             /* fingerprint is given */
	uint64_t fingerprint;
};

/* Appends m as one line of JSON (and a newline) to out, the keys in the
 * order of the example above and names escaped as JSON escapes them.
 * Returns 0, -EILSEQ when a name is not UTF-8, -ERANGE for a count above
 * INT64_MAX, or -ENOMEM. */
int manifest_format(const struct manifest *m, struct buf *out);

/* Parses a manifest.  Returns 0, or -EINVAL with the sentence in err (the
 * line and column of what is not JSON; the key, in its element, of what
 * is not as above), or -ENOMEM; either way the caller frees m with
 * manifest_clear(). */
int manifest_parse(const char *text, size_t len, struct manifest *m,
    char *err, size_t errlen);
void manifest_clear(struct manifest *m);

#endif /* KEDGE_MANIFEST_H */
