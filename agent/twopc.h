/*
 * twopc: the checkpoint protocol that makes every record land exactly once.
 *
 *   seal    every writer fsyncs its files and marks their journals with
 *           checkpoint id N; the record (id, host, each partition's next
 *           offset) goes to the crash-safe store
 *   decide  in a group, the offsets are committed with metadata
 *           "kedge:<host>:<N>" (a failed commit is retried, with the same N,
 *           at the next checkpoint); on a static assignment the stored
 *           record is the decision
 *   finish  rolled files that N sealed go, with their sidecars, to ready/
 *
 * Recovery, before anything is read, decides each partition left in the
 * spool: from the committed metadata (ours: that checkpoint), from a
 * takeover marker another host left when it took the partition over (see
 * twopc_on_assigned), or from the store on a static assignment; then cuts
 * each file back to its partition's decided checkpoint and releases it.
 * docs/design.md tells why this is enough.
 */
#ifndef KEDGE_TWOPC_H
#define KEDGE_TWOPC_H

#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "agent/config/config.h"
#include "agent/publish/publish.h"
#include "agent/source/source.h"
#include "agent/write/writer.h"
#include "lib/hist.h"

struct twopc;

/* Opens the store under <spool_dir>/checkpoint.  The writers (not owned)
 * are every table's and the rejects'.  Returns NULL with a sentence in
 * err. */
struct twopc *twopc_new(const struct conf *c, struct writer **writers,
    size_t nwriters, char *err, size_t errlen);
void twopc_free(struct twopc *t); /* accepts NULL */

/* Makes t keep its takeover markers through target (opened by a reload
 * with the new output.webhdfs settings), which it takes, closing its
 * own. */
struct target;
void twopc_set_target(struct twopc *t, struct target *target);

/* Recovers what a previous run left (see above), logging what it found and
 * did.  src is created but not started.  Returns 0, or -1 after logging why
 * nothing should be read. */
int twopc_recover(struct twopc *t, struct source *src);

/* Parses the text[0..len) of a takeover marker, as twopc writes it: the
 * checkpoint id in decimal and a newline (which may be missing).  Returns
 * 0 with *id, or -EINVAL or -ERANGE as ckpt_id_parse() does. */
int twopc_marker_parse(const char *text, size_t len, uint64_t *id);

/* source_start_fn for a static assignment: the recovered next offset of a
 * partition, or -1.  arg is the twopc. */
int64_t twopc_start_at(const char *topic, int32_t partition, void *arg);

/* Runs one checkpoint.  Returns 0, or -1 after logging why rows could not
 * be made durable: the caller must stop reading.  A failed decide is not an
 * error: it is retried at the next call. */
int twopc_checkpoint(struct twopc *t, struct source *src,
    struct publisher *pub, const char *why);

/* How long each decided checkpoint took to seal and decide. */
const struct hist *twopc_durations(const struct twopc *t);

/* Returns 1 while a sealed checkpoint waits to be decided. */
int twopc_undecided(const struct twopc *t);

/* Partitions are gone with their last checkpoint undecided: their files are
 * cut back to the decided one, and they leave the sealed record. */
void twopc_give_up(struct twopc *t, const rd_kafka_topic_partition_list_t *parts);

/* Group mode, on assignment: for each partition whose committed metadata
 * names another host, writes the takeover marker that tells that host,
 * when it recovers, which of its checkpoints was decided. */
void twopc_on_assigned(struct twopc *t, struct source *src,
    const rd_kafka_topic_partition_list_t *parts);

/* Prints the store's record for a person (kedge checkpoint show). */
int twopc_show(const struct conf *c, FILE *out);

#endif /* KEDGE_TWOPC_H */
