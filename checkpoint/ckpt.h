/*
 * ckpt: what a checkpoint record says, and the metadata kedge commits to
 * Kafka with each offset.  The record is the payload kept in the store
 * (store.h); as text, so that a person can read it:
 *
 *   kedge-checkpoint 1
 *   id 42
 *   host edge01
 *   part nginx-access 3 120345        <- topic, partition, next offset
 *
 * The commit metadata is "kedge:<host>:<id>": it names the checkpoint whose
 * offsets a commit decided, which is how a host that restarts learns
 * whether its last sealed checkpoint was decided.
 */
#ifndef KEDGE_CKPT_H
#define KEDGE_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct ckpt_part {
	char *topic;
	int32_t partition;
	int64_t next;          /* the next offset to read */
};

struct ckpt_record {
	uint64_t id;
	char *host;
	struct ckpt_part *parts;
	size_t nparts;
};

/* Appends the record's text to out.  Returns 0 or -ENOMEM. */
int ckpt_record_encode(const struct ckpt_record *r, struct buf *out);

/* Parses a record from data[0..len) into r (which the caller clears with
 * ckpt_record_clear()).  Returns 0, or -EINVAL with a sentence in err. */
int ckpt_record_decode(const char *data, size_t len, struct ckpt_record *r,
    char *err, size_t errlen);

/* Adds a partition to r.  Returns 0 or -ENOMEM. */
int ckpt_record_add(struct ckpt_record *r, const char *topic,
    int32_t partition, int64_t next);

/* Frees what r holds and zeroes it.  Accepts a zeroed record. */
void ckpt_record_clear(struct ckpt_record *r);

/* Writes "kedge:<host>:<id>" into buf.  Returns its length, or -ENAMETOOLONG
 * when buf is too small. */
int ckpt_metadata_format(const char *host, uint64_t id, char *buf,
    size_t len);

/* Parses commit metadata md[0..len).  Returns 0 with the host and id, or
 * -EINVAL when it is not kedge's. */
int ckpt_metadata_parse(const void *md, size_t len, char *host,
    size_t hostlen, uint64_t *id);

#endif /* KEDGE_CKPT_H */
