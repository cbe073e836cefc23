/*
 * ckpt_store: the crash-safe place where checkpoint records live.
 *
 * A store is a directory holding at most two record files, checkpoint.a and
 * checkpoint.b, so it never grows with time.  A write builds the whole
 * record in .checkpoint.tmp in the same directory, fsyncs it, renames it
 * over the slot that does NOT hold the newest valid record and fsyncs the
 * directory.  A crash at any instant therefore leaves the newest record
 * that a write returned 0 for readable; the worst a crash does is lose the
 * write in flight, and a leftover .checkpoint.tmp is ignored.
 *
 * A record file holds exactly one record, integers little-endian:
 *
 *   offset  size  field
 *        0     8  magic "KEDGECKP"
 *        8     4  format version (CKPT_STORE_VERSION)
 *       12     8  record id, 1 for the first write, +1 for each next one
 *       20     8  payload length n
 *       28     n  payload, opaque to the store
 *     28+n     4  CRC-32 (zlib's) of bytes [0, 28+n)
 *
 * A record is valid when its magic and version are right, the file is
 * exactly 32+n bytes, the CRC matches and its id is neither 0 nor 2^64-1
 * (no write could follow it).  A record of an unknown version
 * is never used: its layout may differ from this one.
 *
 * Errors are negative errno values with a sentence in err (or note); the
 * store never logs.
 *
 * Fault injection, for crash tests of this store and of whatever builds on
 * it: two crash points (crash.h; KEDGE_CRASH_AT as crash_init() read it):
 *
 *   store-write-mid      after writing the first half of .checkpoint.tmp
 *   store-before-rename  after .checkpoint.tmp is complete and fsynced,
 *                        before it is renamed over a slot
 */
#ifndef KEDGE_CKPT_STORE_H
#define KEDGE_CKPT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define CKPT_STORE_VERSION 1u
/* The largest payload a record carries; reads treat bigger files as
 * damaged rather than allocate whatever a corrupt file claims. */
#define CKPT_STORE_MAX_PAYLOAD ((size_t)256 << 20)

struct ckpt_store;

/* Opens the store in dir, creating dir and its missing parents with mode
 * 0700.  Reads no record yet.  Returns the store, or NULL with a sentence
 * in err (dir is not a directory, cannot be created, out of memory).  The
 * caller frees the store with ckpt_store_close(). */
struct ckpt_store *ckpt_store_open(const char *dir, char *err, size_t errlen);

/* Reads both slots and returns 0 with the newest valid record: its payload
 * replaces the contents of *payload (which the caller owns and frees with
 * buf_clear()) and its id goes to *id (id may be NULL).
 * note (may be NULL) receives one sentence on everything found wrong, e.g.
 * "checkpoint.b: CRC mismatch (a torn or damaged write); using
 * checkpoint.a, record 41"; it is empty when each slot was valid or absent.
 * Returns -ENOENT when no slot holds a valid record (note empty for an
 * empty store, else saying why each slot was refused), -ENOMEM, or another
 * -errno when a slot cannot be read at all (note names the file): a read
 * error does not fall back to the other slot, because the unreadable slot
 * may be the newer one and using the older record would rewind. */
int ckpt_store_read(struct ckpt_store *s, struct buf *payload, uint64_t *id,
    char *note, size_t notelen);

/* Writes payload as the next record (id = the newest valid id + 1, or 1
 * when there is none), crash-safe as described above, and returns 0 with
 * the new id in *id (id may be NULL).  Returns -EFBIG for a payload over
 * CKPT_STORE_MAX_PAYLOAD, or -errno (-ENOSPC on a full disk) with a
 * sentence naming the file in err.  After a failure the previous newest
 * record is intact, but the new one may or may not have replaced it as the
 * newest: ckpt_store_read() tells. */
int ckpt_store_write(struct ckpt_store *s, const void *payload, size_t len,
    uint64_t *id, char *err, size_t errlen);

/* Frees the store; the files stay.  Accepts NULL. */
void ckpt_store_close(struct ckpt_store *s);

#endif /* KEDGE_CKPT_STORE_H */
