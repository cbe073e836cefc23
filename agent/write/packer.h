/*
 * packer: a thread of a writer's own that compresses the chunks of its part
 * files and writes them out, so that the writer's thread goes on formatting
 * the next rows meanwhile.  Chunks are taken in the order they are handed
 * over, one at a time, each compressed as one member or frame (codec.h) and
 * written to its file's descriptor whole; a file's hash sees its bytes in
 * that order.  What the writer's thread reads of a file (its size, its
 * hash, its descriptor to close) waits for packer_wait() first.
 */
#ifndef KEDGE_PACKER_H
#define KEDGE_PACKER_H

#include <stddef.h>
#include <stdint.h>

#include "agent/write/spool.h"
#include "lib/buf.h"
#include "lib/codec.h"

struct packer;

/* A chunk's file, as packer_put() is told it. */
struct packer_file {
	int fd;
	struct spool_hash *hash;   /* NULL: none kept */
	const char *path;          /* for errors; lives until packer_wait() */
	void *owner;               /* handed to done() with what was written */
};

/* Called on the writer's thread, in order, for each chunk written:
 * bytes is its length on disk. */
typedef void packer_done_fn(void *arg, void *owner, uint64_t bytes);

/* Returns a packer compressing with kind at level (CODEC_NONE: written as
 * it is), its buffers made for chunks of chunk bytes and its thread
 * started, or NULL with the reason in err. */
struct packer *packer_new(enum codec_kind kind, int level, size_t chunk,
    packer_done_fn *done, void *arg, char *err, size_t errlen);
/* Stops the thread once what it holds is written; accepts NULL. */
void packer_free(struct packer *pk);

/* Hands over the chunk in *rows for file f: the packer keeps those bytes
 * and leaves *rows an empty buffer.  An empty *rows writes a member or
 * frame of no byte (an empty compressed file still decodes).  The thread
 * is woken once a few chunks wait, or by packer_wait().  Waits while
 * the packer holds its most chunks.  Returns 0, or the error of a chunk
 * written earlier (as packer_wait() does). */
int packer_put(struct packer *pk, const struct packer_file *f,
    struct buf *rows, char *err, size_t errlen);

/* Waits until every chunk handed over is written and done() called for
 * it.  Returns 0, or the first error with its sentence in err; after an
 * error the packer writes nothing more and every call returns it. */
int packer_wait(struct packer *pk, char *err, size_t errlen);

#endif /* KEDGE_PACKER_H */
