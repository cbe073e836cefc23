/*
 * verify_int: what verify.c, the checks of `kedge verify` (the walk of
 * DIR, the partitions' offsets, the hours' manifests), shares with
 * verify_file.c (each part file against its sidecar), verify_decode.c,
 * which reads its part files back, and verify_parquet.c (a Parquet file's
 * footer): the checker's state and the helpers that write its message.
 * Private to agent/cli/verify*.c.
 */
#ifndef KEDGE_VERIFY_INT_H
#define KEDGE_VERIFY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <zstd.h>

#include "agent/write/sidecar.h"
#include "agent/write/spool.h"

/* Part files can be 128 MiB: they are read and decoded in chunks. */
#define CHUNK (128 * 1024)

/* A part file, its sidecar, or (once merged) both. */
struct vfile {
	char *path;       /* the part file's, relative to DIR */
	size_t dir_len;   /* path[0..dir_len) is <table>/dt=../hr=.. */
	size_t table_len; /* path[0..table_len) is <table> */
	int has_part, has_sidecar;
	struct sidecar sc;
};

enum claim_kind { CLAIM_OWN, CLAIM_SPILL };

/* Records one file accounts for: as their first row, an empty record or a
 * reject (own), or as further rows (spill).  The strings belong to the
 * file's sidecar. */
struct claim {
	const char *table, *topic;
	int64_t partition;
	enum claim_kind kind;
	int64_t first, last;
	size_t file;
};

/* An hour directory with a manifest or a _SUCCESS. */
struct vhour {
	char *dir;        /* <table>/dt=../hr=.., relative to DIR */
	int has_manifest, has_success;
};

/* A table's Parquet columns, as the first of its files has them. */
struct pqtable {
	char *table;
	char *columns;    /* name:type:logical,... */
};

struct lines {
	uint64_t n;
	int open; /* the last byte seen was not a line end */
};

struct verify {
	const char *dir;
	int rootfd;
	char *msg;
	size_t msglen;
	struct vfile *files;
	size_t nfiles, capfiles;
	char **tables; /* the table directories but _rejects */
	size_t ntables, captables;
	struct claim *claims;
	size_t nclaims, capclaims;
	unsigned char *in, *out;
	ZSTD_DStream *zds; /* made at the first zstd file, kept for the rest */
	struct spool_hash *hash; /* of the file being read, when its sidecar
	                          * has a digest; else NULL */
	size_t crc32c_files, sha256_files; /* whose digest was checked */
	uint64_t rows;
	uint64_t unread;   /* offsets the broker deleted before they were read */
	struct pqtable *pqtables; /* the columns of each Parquet table */
	size_t npqtables, cappqtables;
	struct vhour *hours;
	size_t nhours, caphours;
	size_t manifests;  /* checked */
	size_t awaiting;   /* part files newer than their hour's manifest */
};

/* Writes "verify: <what>" to v->msg and returns 1 (a violation). */
__attribute__((format(printf, 2, 3)))
int verify_violation(struct verify *v, const char *fmt, ...);

/* Writes "verify: <what>: <strerror>" and returns r, a negative errno. */
__attribute__((format(printf, 3, 4)))
int verify_failure(struct verify *v, int r, const char *fmt, ...);

/* Writes "verify: out of memory" and returns -ENOMEM. */
int verify_nomem(struct verify *v);

/* Reads up to len bytes, fewer only at the end of the file.  Returns the
 * count or -errno. */
ssize_t verify_read_some(int fd, void *buf, size_t len);

/* Reads path, a sidecar or manifest (what), into *text (the caller frees
 * it) and its length into *len.  Returns 0, 1 after writing a violation, or
 * a negative errno. */
int verify_text_load(struct verify *v, const char *path, const char *what,
    char **text, size_t *len);

/* Checks the part file v->files[i] and its sidecar (verify_file.c): both
 * are there, the sidecar parses and agrees with the file's name, table
 * directory and content.  Then adds what the sidecar says was deleted
 * unread to v->unread, and the records it accounts for to v->claims.
 * Returns 0, 1 after writing a violation, or a negative errno. */
int verify_file(struct verify *v, size_t i);

/* The decoders (verify_decode.c) read the open part file fd (path, for
 * the messages) through v->in and v->out, adding its bytes to v->hash when
 * that is set, count its lines into l and its bytes into *bytes, and
 * return 0, 1 after writing a violation, or a negative errno.  By codec:
 * none, gzip (members concatenated), zstd (frames concatenated).
 * decode_none() takes l NULL for a file that has no lines (Parquet): it
 * then only hashes and counts the bytes. */
int decode_none(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes);
int decode_gzip(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes);
int decode_zstd(struct verify *v, int fd, const char *path, struct lines *l,
    uint64_t *bytes);

/* Reads the Parquet part file fd of f (verify_parquet.c) as decode_none()
 * does, and checks its framing and footer against f's sidecar and the
 * table's other Parquet files; *rows gets the footer's row count.  Returns
 * 0, 1 after writing a violation, or a negative errno. */
int verify_parquet(struct verify *v, const struct vfile *f, int fd,
    uint64_t *rows, uint64_t *bytes);

#endif /* KEDGE_VERIFY_INT_H */
