/*
 * sidecar: the description of one landed part file, `.<name>.json` next to
 * `<name>`: one JSON object on one line, the contract between the writer and
 * `kedge verify`.  For example:
 *
 *   {"kedge":1,"table":"access","topic":"nginx-access","partition":3,
 *    "host":"edge01","first_offset":120000,"rows":1234,"bytes":56789,
 *    "crc32c":"1f3a09c4","format":"hive-text","codec":"gzip",
 *    "min_event_us":1795946400123000,"max_event_us":1795949998870000,
 *    "fingerprint":"9f0c2d6e81a4b3c7",
 *    "offsets":[[120000,120180]],"empty":[],"spill":[]}
 *
 * Ranges are inclusive [first,last] record offsets; "unread", written only
 * when there are such (and absent from sidecars of earlier versions), are
 * offsets the broker deleted before kedge read them, e.g.
 * "unread":[[100,1099]].  A file of the rejects table has empty "offsets", "empty",
 * "spill" and "unread" and instead "rejected":
 * {"<table>":[ranges], ...}, the records it rejects for each table.
 *
 * "crc32c" is the CRC-32C of the file's bytes as landed (crc32c.h), 8
 * lowercase hex digits, the checksum HDFS keeps of its blocks; sidecars of
 * earlier versions have "sha256" instead, their SHA-256 in 64, which verify
 * still checks (a sidecar with both has both checked).
 * "min_event_us" and "max_event_us" are the earliest and latest event time
 * of its rows (the time that chose their hour: for rejects, the arrival),
 * in microseconds since the epoch (negative before 1970, INT64_MIN
 * excluded), both null when it holds no row.  "fingerprint" is the sum of
 * its rows' fingerprints (fingerprint.h), 16 lowercase hex digits.  Files
 * landed by kedge before these keys existed have none of them, so the
 * digests, the event range and the fingerprint are optional; every other
 * key is required.
 *
 * The parser is strict on purpose: an unknown or repeated key, a missing
 * one, a value of another type, a fraction, a number out of its range,
 * ranges out of order are all errors, because verify must notice when the
 * writer and it stop agreeing on the format.  Names ("table", "topic",
 * "host", the keys of "rejected") are JSON strings, escaped as JSON
 * escapes them, so any UTF-8 name without NUL reads back as it was.
 */
#ifndef KEDGE_SIDECAR_H
#define KEDGE_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "agent/write/format.h"
#include "lib/buf.h"
#include "lib/codec.h"
#include "lib/crc32c.h"

struct jsondoc;

/* The rejects table's name (parse/rejects.h writes it): its files are
 * the ones with "rejected" instead of "offsets". */
#define REJECTS_TABLE "_rejects"

#define SIDECAR_VERSION 1
#define SIDECAR_SHA256_HEX 64 /* digits of "sha256" */
/* The longest sidecar, or manifest (which holds the ranges of an hour's
 * files), kedge reads: far above what the ranges of a 128 MiB file take,
 * it keeps a stray file from being read into memory whole. */
#define SIDECAR_MAX (16 * 1024 * 1024)

struct sidecar_range {
	int64_t first, last; /* inclusive */
};

/* Ascending and non-overlapping, as the format requires. */
struct sidecar_ranges {
	struct sidecar_range *v;
	size_t n, cap;
};

struct sidecar_rejected {
	char *table;
	struct sidecar_ranges ranges;
};

struct sidecar {
	int64_t version;
	char *table, *topic, *host;
	int64_t partition;          /* 0..INT32_MAX */
	int64_t first_offset, rows, bytes;
	char crc32c[CRC32C_HEX + 1];         /* "" when absent */
	char sha256[SIDECAR_SHA256_HEX + 1]; /* "" when absent */
	int has_event_range;        /* min/max_event_us are given (not null) */
	int64_t min_event_us, max_event_us;
	enum format_kind format;
	enum codec_kind codec;
	struct sidecar_ranges offsets, empty, spill;
	struct sidecar_ranges unread;  /* deleted by the broker unread */
	struct sidecar_rejected *rejected; /* rejects files only */
	size_t nrejected;
	int has_fingerprint;        /* fingerprint is given */
	uint64_t fingerprint;
};

/* Parses text[0..len) into *sc, which the caller zeroed.  Returns 0, or
 * -EINVAL with the first problem in err (its line and column, or the key
 * it is in), or -ENOMEM.  On failure *sc may hold part of the result:
 * sidecar_clear() it either way. */
int sidecar_parse(const char *text, size_t len, struct sidecar *sc, char *err,
    size_t errlen);
/* Frees what *sc holds and zeroes it.  Accepts a zeroed sidecar. */
void sidecar_clear(struct sidecar *sc);

/* Appends sc as one line of JSON and a newline to out, with the keys in
 * the order of the example above: "crc32c" and "sha256" when sc has
 * them, the event
 * range when sc has one (null, null for a file of no row; left out
 * otherwise), "rejected" for a file of the rejects table.  Returns 0,
 * -EILSEQ when a name is not UTF-8, or -ENOMEM. */
int sidecar_format(const struct sidecar *sc, struct buf *out);

/* Reads the JSON array of ranges v, [[a,b],...], into out, which must be
 * empty, and checks what the format promises: 0 <= a <= b, ascending,
 * non-overlapping.  Returns 0, -EINVAL with the problem in d's err, or
 * -ENOMEM; out holds what was read either way. */
int sidecar_ranges_parse(struct jsondoc *d, const json_t *v,
    struct sidecar_ranges *out);
/* Reads the string v, a digest of digits lowercase hex digits (or, with
 * empty_ok, none), into out[digits + 1].  Returns 0 or -EINVAL with the
 * problem in d's err. */
int sidecar_digest_parse(struct jsondoc *d, const json_t *v, size_t digits,
    int empty_ok, char *out);
/* The ranges as a new JSON array, or NULL when short of memory. */
json_t *sidecar_ranges_json(const struct sidecar_ranges *r);
/* Appends [first, last] to r.  Returns 0 or -ENOMEM. */
int sidecar_ranges_push(struct sidecar_ranges *r, int64_t first,
    int64_t last);
/* Frees what r holds and zeroes it. */
void sidecar_ranges_clear(struct sidecar_ranges *r);

/* Number of offsets in the ranges, saturated at UINT64_MAX. */
uint64_t sidecar_ranges_count(const struct sidecar_ranges *r);

#endif /* KEDGE_SIDECAR_H */
