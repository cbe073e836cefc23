/*
 * journal: what a part file holds, kept beside it in the spool as
 * ".<name>.journal", so that the file can be cut back to any checkpoint and
 * described exactly, whatever crashed when.  Lines of text:
 *
 *   o A B           records A..B (inclusive) have their first row here
 *   e A B           records A..B produced no row; attributed here
 *   s A B           records A..B have further rows here, their first elsewhere
 *   u A B           offsets A..B were deleted by the broker before kedge read
 *                   them (retention)
 *   r TABLE A B     records A..B, meant for TABLE, are rejected here
 *   t MIN MAX       the rows written since the previous mark have event
 *                   times MIN..MAX (microseconds since the epoch)
 *   f SUM           and fingerprints (fingerprint.h) adding up to SUM
 *                   (decimal, modulo 2^64)
 *   m ID LEN ROWS   checkpoint ID sealed the file at LEN bytes and ROWS rows;
 *                   the o/e/s/u/r/t/f lines above belong to it
 *
 * Ranges are kept in memory until the next seal, merged as they grow, then
 * appended with the mark and fsynced.  A line cut by a crash after the last
 * mark is ignored, as is everything after the mark a recovery keeps; so the
 * t and f lines up to that mark give the event range and the fingerprint
 * of exactly the rows kept.  (A journal of an earlier kedge has no t or f
 * line.)
 *
 * The same journal, read back, becomes the file's sidecar ".<name>.json"
 * (the format is in docs/output.md) when the file is released.
 */
#ifndef KEDGE_JOURNAL_H
#define KEDGE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

enum journal_kind {
	JOURNAL_OFFSETS,
	JOURNAL_EMPTY,
	JOURNAL_SPILL,
	JOURNAL_UNREAD,
	JOURNAL_REJECTED
};

struct journal;

/* Writes the journal's file name for the part file named part,
 * ".<part>.journal", into buf.  Returns what snprintf() returns: the
 * name's length, which may be len or more when it did not fit. */
int journal_name(char *buf, size_t len, const char *part);

/* Creates (truncating) the journal at path.  Returns NULL with a sentence
 * in err. */
struct journal *journal_create(const char *path, char *err, size_t errlen);
void journal_close(struct journal *j); /* accepts NULL; writes nothing */
/* Closes the journal's descriptor, for a file that is closed itself: each
 * later seal opens the journal again for its write, so that files waiting
 * for their last checkpoint hold no descriptor. */
void journal_park(struct journal *j);

/* Notes that record `offset` is of the given kind in this file; table names
 * the table a JOURNAL_REJECTED record was meant for (NULL otherwise) and
 * must outlive the journal.  Returns 0 or -ENOMEM. */
int journal_add(struct journal *j, enum journal_kind kind, const char *table,
    int64_t offset);

/* journal_add() for every offset of [from, to], at once. */
int journal_add_range(struct journal *j, enum journal_kind kind,
    const char *table, int64_t from, int64_t to);

/* Notes the event time of a row written to the file, microseconds since
 * the epoch. */
void journal_add_event(struct journal *j, int64_t event_us);

/* Notes the fingerprint of a row written to the file. */
void journal_add_fingerprint(struct journal *j, uint64_t fp);

/* Reads the decimal digits at *s (before end), a number of at most max in
 * the one spelling kedge writes in journals and part file names (no sign,
 * no leading zero), into *out, and moves *s past them.  Returns 0, or
 * -EINVAL when there is no digit, the number is too large or spelt
 * otherwise. */
int journal_decimal(const char **s, const char *end, uint64_t max,
    uint64_t *out);

/* Appends what was noted since the last seal and the mark "m id len rows",
 * then fsyncs.  Returns 0 or -errno with a sentence in err. */
int journal_seal(struct journal *j, uint64_t id, uint64_t len, uint64_t rows,
    char *err, size_t errlen);

/* The bytes journal_seal() has written to the journal so far. */
uint64_t journal_size(const struct journal *j);

/* Returns 1 when offsets were noted since the last seal. */
int journal_dirty(const struct journal *j);

/* What a journal says about its file at the last mark with an id <= upto. */
struct journal_state {
	int found;             /* 0: no such mark (the file holds nothing decided) */
	uint64_t len;          /* bytes */
	uint64_t rows;
	uint64_t journal_len;  /* bytes of the journal up to that mark */
	struct buf text;       /* the journal as read */
};

/* Reads the journal at path up to the last mark with id <= upto.  Returns 0
 * or -errno with a sentence in err (-EINVAL: a whole line before that mark
 * is none journal_seal() writes, such as a number out of range); either
 * way the caller frees st with journal_state_clear().  A line cut by a
 * crash, and whatever follows the mark, are not read. */
int journal_read(const char *path, uint64_t upto, struct journal_state *st,
    char *err, size_t errlen);
void journal_state_clear(struct journal_state *st);

/* The last offset st's records name (o, e, s, u and r lines up to its
 * mark) into *last, which is left alone when they name none.  Returns 0 or
 * -EINVAL for a damaged line. */
int journal_span(const struct journal_state *st, int64_t *last);

/* Writes the sidecar of a part file from its journal as journal_read() left
 * it in st: sidecar_path gets the JSON, written atomically.  The descriptive
 * fields, and the digest of the file as it is kept, are given by the caller.
 * The event range is null for a file of no row, and left out when the
 * journal has none (an earlier kedge wrote it).  Returns 0 or -errno with a
 * sentence in err. */
struct journal_file_info {
	const char *table;
	const char *topic;
	int32_t partition;
	const char *host;
	int64_t first_offset;
	const char *format;
	const char *codec;
	const char *crc32c;     /* lowercase hex */
	uint64_t bytes;         /* of the file described when it is not
	                         * the journal's (Parquet); 0: the journal's */
};
int journal_write_sidecar(const struct journal_state *st,
    const struct journal_file_info *info, const char *sidecar_path,
    char *err, size_t errlen);

#endif /* KEDGE_JOURNAL_H */
