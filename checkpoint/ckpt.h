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
 * whether its last sealed checkpoint was decided.  Metadata comes from
 * whoever can commit to the group, so it is parsed as strictly as it is
 * written: the host passes ckpt_host_check(), the id is 1..CKPT_ID_MAX in
 * plain decimal; anything else is not kedge's.
 */
#ifndef KEDGE_CKPT_H
#define KEDGE_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* The longest host name (output.host): HOST_NAME_MAX on Linux. */
#define CKPT_HOST_MAX 64
/* The largest checkpoint id; ids are milliseconds since 1970 or more. */
#define CKPT_ID_MAX ((uint64_t)INT64_MAX)

struct ckpt_part {
	char *topic;
	int32_t partition;
	int64_t next;          /* the next offset to read */
};

struct ckpt_record {
	uint64_t id;
	char *host;
	struct ckpt_part *parts;
	size_t nparts, parts_cap;
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

/* Checks that host[0..len) is a host name as kedge uses it in file names
 * and directories (part files, _kedge/takeover/<host>/): 1 to CKPT_HOST_MAX
 * letters, digits, '.' and '-', not starting with '.' (so never "." or
 * ".."); no '/', no control byte.  output.host and the host in commit
 * metadata are both checked here.  Returns 0, or -EINVAL with what is
 * wrong in why (which does not quote the host; why may be NULL). */
int ckpt_host_check(const char *host, size_t len, char *why, size_t whylen);

/* Parses a checkpoint id from s[0..len): decimal digits only, no sign,
 * space or leading zero, 1 to CKPT_ID_MAX.  Returns 0 with *id, or -EINVAL (-ERANGE when
 * the digits are out of that range). */
int ckpt_id_parse(const char *s, size_t len, uint64_t *id);

/* Writes "kedge:<host>:<id>" into buf.  Returns its length, or -ENAMETOOLONG
 * when buf is too small. */
int ckpt_metadata_format(const char *host, uint64_t id, char *buf,
    size_t len);

/* Parses commit metadata md[0..len) (any bytes).  Returns 0 with the host
 * (NUL-terminated, hostlen > CKPT_HOST_MAX) and the id, or -EINVAL when it
 * is not kedge's: another prefix, a host that ckpt_host_check() refuses,
 * an id that ckpt_id_parse() refuses. */
int ckpt_metadata_parse(const void *md, size_t len, char *host,
    size_t hostlen, uint64_t *id);

#endif /* KEDGE_CKPT_H */
