/*
 * spool: the part files between the writer and the publisher, and what
 * becomes of them after a crash.
 *
 *   <spool>/open/<table>/dt=../hr=../<name>            being written
 *   <spool>/open/<table>/dt=../hr=../.<name>.journal   what it holds (journal.h)
 *   <spool>/ready/<table>/dt=../hr=../.<name>.json     its sidecar, and
 *   <spool>/ready/<table>/dt=../hr=../<name>           the file, decided
 *
 * <name> is <topic>+<partition>+<first offset>+<host>.<txt|jsonl>[.gz|.zst]
 * or ...<host>.parquet; an open Parquet file is the log of its rows,
 * <name>.rows (rowlog.h).  Finalizing a file cuts it back to a checkpoint
 * (a log is then converted to <name>, as .<name>.tmp until it is whole),
 * writes its sidecar from its journal and the CRC-32C of what is left, and
 * moves both to ready/ (sidecar first, so the file never goes without it);
 * a file holding nothing decided is deleted.  A crash after a Parquet file
 * reached ready/ and before its log was removed converts the log again, to
 * the same bytes.
 */
#ifndef KEDGE_SPOOL_H
#define KEDGE_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/crc32c.h"

/* The file in the spool that one kedge at a time holds locked
 * (spool_lock()), with its PID in it. */
#define SPOOL_LOCK_FILE "kedge.lock"

/* Takes the spool at spool_dir for this process, creating the directory
 * when it is missing: an exclusive flock() on <spool_dir>/kedge.lock,
 * held by the descriptor returned for as long as it stays open; the
 * kernel lets it go when the process ends, however it ends (kill -9
 * too).  The process's PID is written into the file once it holds the
 * lock.  Returns the descriptor, or a negative errno with the sentence in
 * err: -EBUSY when another process holds the lock, named by its PID. */
int spool_lock(const char *spool_dir, char *err, size_t errlen);

/* What a part file's name says. */
struct spool_name {
	char topic[256];
	int32_t partition;
	int64_t first_offset;
	char host[256];
	const char *format;   /* "hive-text", "jsonl" or "parquet" */
	const char *codec;    /* "none", "gzip" or "zstd"; "none" for a
	                       * Parquet file, whose pages say theirs */
	int rows;             /* the log of an open Parquet file */
};

/* What an open Parquet file's name has after <name>. */
#define SPOOL_ROWS_EXT ".rows"

/* Parses a part file name.  Returns 0, or -EINVAL when it is not one. */
int spool_name_parse(const char *name, struct spool_name *out);

/* A part file's digests over its first len bytes, in lowercase hex: its
 * CRC-32C, the one kedge writes into sidecars, and its SHA-256, which
 * sidecars of earlier versions have; "" for one not taken. */
struct spool_digest {
	uint64_t len;
	char crc32c[CRC32C_HEX + 1];
	char sha256[65];                 /* 64 digits */
};

/* The digests a spool_hash takes, or'ed. */
#define SPOOL_CRC32C 1u
#define SPOOL_SHA256 2u

/* The writer hashes a file's bytes as it writes them, so that releasing
 * it need not read it again; verify takes the digests a sidecar has. */
struct spool_hash;
/* A hash taking the digests kinds (SPOOL_CRC32C, SPOOL_SHA256); NULL when
 * out of memory. */
struct spool_hash *spool_hash_new(unsigned kinds);
void spool_hash_update(struct spool_hash *h, const void *data, size_t len);
/* Returns 0, or -ENOMEM when hashing failed at some point. */
int spool_hash_done(struct spool_hash *h, struct spool_digest *out);
void spool_hash_free(struct spool_hash *h); /* accepts NULL */

/* Finalizes <spool>/open/<rel> (rel = <table>/dt=../hr=../<name>) at the
 * last checkpoint with an id <= upto; known, when not NULL, is the digest
 * of the file's bytes so far, used when the file is kept whole (else it is
 * read again).  Returns 1 when the file was moved to ready/, 0 when it held
 * nothing decided and was deleted, or -errno with a sentence in err. */
int spool_finalize(const char *spool_dir, const char *rel, uint64_t upto,
    const struct spool_digest *known, char *err, size_t errlen);

/* The checkpoint up to which a partition's rows are decided. */
typedef uint64_t (spool_decide_fn)(const char *topic, int32_t partition,
    void *arg);

struct spool_recovery {
	unsigned kept;        /* files cut back (or whole) and moved to ready */
	unsigned deleted;     /* files that held nothing decided */
};

/* Calls fn for every part file left in <spool>/open (a partition can come
 * more than once).  Returns 0 or -errno. */
int spool_list(const char *spool_dir,
    void (*fn)(const char *topic, int32_t partition, void *arg), void *arg);

/* After a crash: finalizes every file left in <spool>/open at what decide
 * says for its partition, and removes what belongs to no file (journals
 * without their file, half-written sidecars).  Returns 0 or -errno with a
 * sentence in err. */
int spool_recover(const char *spool_dir, spool_decide_fn *decide, void *arg,
    struct spool_recovery *out, char *err, size_t errlen);

/* Moving files into ready/ and removing ready/'s emptied directories (the
 * publisher's clean-up) exclude each other through this lock, so that a
 * directory never goes between its mkdir and the rename into it. */
void spool_ready_lock(void);
void spool_ready_unlock(void);

/* What the spool holds, for backpressure and status. */
struct spool_usage {
	uint64_t bytes;        /* of every file under open/ and ready/ */
	uint64_t ready_files;  /* part files waiting to be published */
	time_t oldest_ready;   /* mtime of the oldest of them; 0: none */
	uint64_t free_bytes;   /* on the spool's file system, for kedge */
};

/* Measures the spool by walking it, which costs in proportion to the
 * files it holds: the run loop reads spoolcount.h's counters instead, and
 * spoolcount_start() walks once.  ready, when not NULL, is called with the
 * mtime of each part file in ready/.  Returns 0 or -errno. */
int spool_usage(const char *spool_dir, struct spool_usage *out,
    void (*ready)(time_t mtime, void *arg), void *arg);

/* The bytes free for kedge on the spool's file system into *out.  Returns
 * 0 or -errno. */
int spool_free(const char *spool_dir, uint64_t *out);

#endif /* KEDGE_SPOOL_H */
