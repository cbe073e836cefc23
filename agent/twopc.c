#include "agent/twopc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/target/target.h"
#include "agent/write/spool.h"
#include "checkpoint/ckpt.h"
#include "checkpoint/store.h"
#include "lib/crash.h"
#include "lib/escape.h"
#include "lib/grow.h"
#include "lib/log.h"

#define TWOPC_STORE_DIR "checkpoint"
#define TWOPC_MARKERS "_kedge/takeover"
#define TWOPC_ASK_TRIES 5         /* committed-offset queries at recovery */

/* A partition whose committed metadata was found not to be kedge's: it is
 * said once, not at every assignment. */
struct twopc_foreign {
	char *topic;
	int32_t partition;
};

/* A partition's decided checkpoint, as recovery found it. */
struct twopc_decision {
	char *topic;
	int32_t partition;
	uint64_t id;
};

struct twopc {
	const struct conf *conf;
	struct writer **writers;
	size_t nwriters;
	struct ckpt_store *store;
	struct ckpt_record sealed;      /* the last sealed checkpoint */
	uint64_t decided_id;            /* the last decided one */
	int undecided;                  /* sealed is waiting for its decision */
	struct ckpt_record recovered;   /* what the store held at start */
	struct twopc_decision *decisions;
	size_t ndecisions, decisions_cap;
	struct hist durations;          /* seal + decide, in ns */
	struct target *target;          /* where the takeover markers are */
	struct twopc_foreign *foreign;  /* partitions told of, see above */
	size_t nforeign, foreign_cap;
};

struct twopc *
twopc_new(const struct conf *c, struct writer **writers, size_t nwriters,
    char *err, size_t errlen)
{
	struct twopc *t;
	char dir[PATH_MAX];

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->conf = c;
	t->writers = writers;
	t->nwriters = nwriters;
	snprintf(dir, sizeof(dir), "%s/" TWOPC_STORE_DIR, c->output.spool_dir);
	if ((t->store = ckpt_store_open(dir, err, errlen)) == NULL ||
	    (t->target = target_open(c, err, errlen)) == NULL) {
		twopc_free(t);
		return NULL;
	}
	return t;
}

void
twopc_set_target(struct twopc *t, struct target *target)
{
	target_close(t->target);
	t->target = target;
}

static void
twopc_forget_decisions(struct twopc *t)
{
	for (size_t i = 0; i < t->ndecisions; i++)
		free(t->decisions[i].topic);
	free(t->decisions);
	t->decisions = NULL;
	t->ndecisions = t->decisions_cap = 0;
}

void
twopc_free(struct twopc *t)
{
	if (t == NULL)
		return;
	ckpt_store_close(t->store);
	target_close(t->target);
	ckpt_record_clear(&t->sealed);
	ckpt_record_clear(&t->recovered);
	twopc_forget_decisions(t);
	for (size_t i = 0; i < t->nforeign; i++)
		free(t->foreign[i].topic);
	free(t->foreign);
	free(t);
}

/* The target path of the takeover marker of (host, topic, partition). */
static void
twopc_marker_path(const char *host, const char *topic, int32_t partition,
    char *buf, size_t len)
{
	snprintf(buf, len, TWOPC_MARKERS "/%s/%s+%" PRId32, host, topic,
	    partition);
}

int
twopc_marker_parse(const char *text, size_t len, uint64_t *id)
{
	return ckpt_id_parse(text, len > 0 && text[len - 1] == '\n' ? len - 1 :
	    len, id);
}

/* Reads the checkpoint id a takeover marker for this host holds into *id
 * (0 without a marker).  Returns 0, or a negative errno with the sentence
 * in err: the target cannot tell, and nothing may be decided by guess. */
static int
twopc_marker_read(const struct twopc *t, const char *topic,
    int32_t partition, uint64_t *id, char *err, size_t errlen)
{
	char rel[PATH_MAX], *text, shown[64];
	size_t len;
	int r;

	*id = 0;
	twopc_marker_path(t->conf->output.host, topic, partition, rel,
	    sizeof(rel));
	if ((r = target_read(t->target, rel, 64, &text, &len, err, errlen)) <= 0)
		return r;
	r = 0;
	if (twopc_marker_parse(text, len, id) < 0) {
		snprintf(err, errlen, "the takeover marker of %s [%" PRId32 "] "
		    "holds \"%s\", not a checkpoint id (damaged?)", topic,
		    partition, escape_bytes(text, len, shown, sizeof(shown)));
		r = -EINVAL;
	}
	free(text);
	return r;
}

/* Says once per partition that its committed metadata is not kedge's. */
static void
twopc_tell_foreign(struct twopc *t, const char *topic, int32_t partition,
    const struct source_committed *got)
{
	struct twopc_foreign *f;
	/* shorter than metadata[]: metadata cut there shows as cut */
	char shown[128], name[ESCAPE_BUF];
	size_t len = got->metadata_size < sizeof(got->metadata) ?
	    got->metadata_size : sizeof(got->metadata) - 1;

	for (size_t i = 0; i < t->nforeign; i++)
		if (t->foreign[i].partition == partition &&
		    strcmp(t->foreign[i].topic, topic) == 0)
			return;
	log_warnx("checkpoint: %s [%" PRId32 "] was committed with metadata "
	    "that is not kedge's, \"%s\" (%zu bytes): taken as a commit of "
	    "another consumer", escape_str(topic, name, sizeof(name)), partition,
	    escape_bytes(got->metadata, len, shown, sizeof(shown)),
	    got->metadata_size);
	if (grow_array((void **)&t->foreign, &t->foreign_cap, t->nforeign + 1,
	    sizeof(*t->foreign)) < 0)
		return; /* short of memory: said again next time */
	f = &t->foreign[t->nforeign];
	if ((f->topic = strdup(topic)) == NULL)
		return;
	f->partition = partition;
	t->nforeign++;
}

/* Reads which kedge host committed a partition, at which checkpoint, from
 * its committed metadata.  Returns 0 with them, or -1 when there is no
 * metadata or it is not kedge's (said once, see twopc_tell_foreign): the
 * partition was committed by someone else. */
static int
twopc_committer(struct twopc *t, const char *topic, int32_t partition,
    const struct source_committed *got, char *host, size_t hostlen,
    uint64_t *id)
{
	if (got->metadata_size == 0)
		return -1;
	if (got->metadata_size < sizeof(got->metadata) &&
	    ckpt_metadata_parse(got->metadata, got->metadata_size, host,
	    hostlen, id) == 0)
		return 0;
	twopc_tell_foreign(t, topic, partition, got);
	return -1;
}

/* Adds a partition to the decisions to make, once. */
static void
twopc_want(const char *topic, int32_t partition, void *arg)
{
	struct twopc *t = arg;
	struct twopc_decision *d;

	for (size_t i = 0; i < t->ndecisions; i++)
		if (t->decisions[i].partition == partition &&
		    strcmp(t->decisions[i].topic, topic) == 0)
			return;
	if (grow_array((void **)&t->decisions, &t->decisions_cap,
	    t->ndecisions + 1, sizeof(*t->decisions)) < 0)
		return; /* short of memory: that partition decides nothing */
	d = &t->decisions[t->ndecisions];
	if ((d->topic = strdup(topic)) == NULL)
		return;
	d->partition = partition;
	d->id = 0;
	t->ndecisions++;
}

/* Works out the decided checkpoint of every partition that has files in the
 * spool or is in the recovered record: from the group's committed metadata
 * when it is ours, else from the takeover marker its new owner left. */
static int
twopc_decide_from_group(struct twopc *t, struct source *src)
{
	rd_kafka_topic_partition_list_t *list;
	struct source_committed *got;
	char err[512], host[CKPT_HOST_MAX + 1], who[CKPT_HOST_MAX + 32];
	int r = -1;

	for (size_t i = 0; i < t->recovered.nparts; i++)
		twopc_want(t->recovered.parts[i].topic,
		    t->recovered.parts[i].partition, t);
	spool_list(t->conf->output.spool_dir, twopc_want, t);
	if (t->ndecisions == 0)
		return 0;
	list = rd_kafka_topic_partition_list_new((int)t->ndecisions);
	for (size_t i = 0; i < t->ndecisions; i++)
		rd_kafka_topic_partition_list_add(list, t->decisions[i].topic,
		    t->decisions[i].partition);
	if ((got = calloc(t->ndecisions, sizeof(*got))) == NULL) {
		log_errx("checkpoint: out of memory");
		goto out;
	}
	/* the coordinator may still be loading right after a restart */
	for (int attempt = 1; source_committed(src, list, got, err,
	    sizeof(err)) < 0; attempt++) {
		if (attempt == TWOPC_ASK_TRIES) {
			log_errx("checkpoint: %s; not reading until the group "
			    "answers, so that nothing is kept or dropped by guess",
			    err);
			goto out;
		}
		log_warnx("checkpoint: %s; asking again", err);
		sleep(2);
	}
	for (size_t i = 0; i < t->ndecisions; i++) {
		struct twopc_decision *d = &t->decisions[i];
		uint64_t md_id = 0;
		int kedge = twopc_committer(t, d->topic, d->partition, &got[i],
		    host, sizeof(host), &md_id) == 0;
		int ours = kedge && strcmp(host, t->conf->output.host) == 0;

		d->id = ours ? md_id : 0;
		if (!ours && twopc_marker_read(t, d->topic, d->partition,
		    &d->id, err, sizeof(err)) < 0) {
			log_errx("checkpoint: takeover marker: %s; not reading "
			    "until the target answers, so that nothing is kept "
			    "or dropped by guess", err);
			goto out;
		}
		/* kedge's metadata is a checked host and id: printable */
		if (kedge)
			ckpt_metadata_format(host, md_id, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "%s", got[i].metadata_size ?
			    "metadata not kedge's" : "no metadata");
		log_info("checkpoint: %s [%" PRId32 "] committed at %" PRId64
		    " (%s): decided up to checkpoint %" PRIu64, d->topic,
		    d->partition, got[i].offset, who, d->id);
	}
	r = 0;
out:
	free(got);
	rd_kafka_topic_partition_list_destroy(list);
	return r;
}

static uint64_t
twopc_decide(const char *topic, int32_t partition, void *arg)
{
	struct twopc *t = arg;

	for (size_t i = 0; i < t->ndecisions; i++)
		if (t->decisions[i].partition == partition &&
		    strcmp(t->decisions[i].topic, topic) == 0)
			return t->decisions[i].id;
	/* not in the record: opened after the last seal, nothing decided */
	return 0;
}

static int
twopc_marker_remove(const char *name, int is_dir, int64_t len, void *arg)
{
	struct twopc *t = arg;
	char rel[PATH_MAX], err[512];

	(void)len;
	if (is_dir || name[0] == '.')
		return 0;
	snprintf(rel, sizeof(rel), TWOPC_MARKERS "/%s/%s",
	    t->conf->output.host, name);
	if (target_remove(t->target, rel, err, sizeof(err)) < 0)
		log_warnx("checkpoint: %s; it is read again at the next start",
		    err);
	return 0;
}

/* Removes this host's takeover markers: recovery has used them. */
static void
twopc_markers_clear(struct twopc *t)
{
	char rel[PATH_MAX], err[512];

	snprintf(rel, sizeof(rel), TWOPC_MARKERS "/%s", t->conf->output.host);
	if (target_list(t->target, rel, twopc_marker_remove, t, err,
	    sizeof(err)) < 0)
		log_warnx("checkpoint: %s", err);
}

/* Reads the store; a damaged or missing record is said, never guessed. */
static int
twopc_read_store(struct twopc *t, int grouped)
{
	struct buf payload = { 0 };
	char note[1024] = "", err[512];
	uint64_t id;
	int r;

	r = ckpt_store_read(t->store, &payload, &id, note, sizeof(note));
	if (note[0] != '\0')
		log_warnx("checkpoint: %s", note);
	if (r == 0 && ckpt_record_decode(payload.data, payload.len,
	    &t->recovered, err, sizeof(err)) < 0) {
		log_warnx("checkpoint: record %" PRIu64 " cannot be read: %s",
		    id, err);
		ckpt_record_clear(&t->recovered);
		r = -ENOENT;
	}
	buf_clear(&payload);
	if (r == -ENOENT) {
		log_notice("checkpoint: no usable record in %s/" TWOPC_STORE_DIR
		    "; starting from %s", t->conf->output.spool_dir, grouped ?
		    "the group's committed offsets" : "kafka.start");
		return 0;
	}
	if (r < 0)
		log_errx("checkpoint: cannot read the store in %s/" TWOPC_STORE_DIR,
		    t->conf->output.spool_dir);
	return r < 0 ? -1 : 1;
}

int
twopc_recover(struct twopc *t, struct source *src)
{
	struct spool_recovery st;
	char err[1024] = "";
	int have;

	if ((have = twopc_read_store(t, source_grouped(src))) < 0)
		return -1;
	if (source_grouped(src)) {
		/* the journals and the group decide, even with the store lost */
		if (twopc_decide_from_group(t, src) < 0)
			return -1;
	} else {
		/* static: the stored record is the decision, for every partition */
		for (size_t i = 0; i < t->recovered.nparts; i++)
			twopc_want(t->recovered.parts[i].topic,
			    t->recovered.parts[i].partition, t);
		for (size_t i = 0; i < t->ndecisions; i++)
			t->decisions[i].id = t->recovered.id;
	}
	if (spool_recover(t->conf->output.spool_dir, twopc_decide, t, &st, err,
	    sizeof(err)) < 0) {
		log_errx("checkpoint: recovery: %s", err);
		return -1;
	}
	if (st.kept + st.deleted > 0)
		log_notice("checkpoint: recovered from record %" PRIu64 ": %u "
		    "file(s) cut back to their decided checkpoint and released, "
		    "%u with nothing decided removed", t->recovered.id, st.kept,
		    st.deleted);
	twopc_markers_clear(t);
	t->sealed.id = t->decided_id = t->recovered.id;
	return 0;
}

int64_t
twopc_start_at(const char *topic, int32_t partition, void *arg)
{
	struct twopc *t = arg;

	for (size_t i = 0; i < t->recovered.nparts; i++)
		if (t->recovered.parts[i].partition == partition &&
		    strcmp(t->recovered.parts[i].topic, topic) == 0)
			return t->recovered.parts[i].next;
	return -1;
}

/* The record source_positions() fills, and whether an add failed (the
 * partitions after it are not added). */
struct twopc_positions {
	struct ckpt_record *rec;
	int failed;
};

static void
twopc_record_part(const char *topic, int32_t partition, int64_t next,
    void *arg)
{
	struct twopc_positions *pos = arg;

	if (!pos->failed && ckpt_record_add(pos->rec, topic, partition, next) < 0)
		pos->failed = 1;
}

/* Returns 1 when rec holds the same partitions and offsets as the sealed
 * record. */
static int
twopc_same_positions(const struct twopc *t, const struct ckpt_record *rec)
{
	if (rec->nparts != t->sealed.nparts)
		return 0;
	for (size_t i = 0; i < rec->nparts; i++)
		if (rec->parts[i].partition != t->sealed.parts[i].partition ||
		    rec->parts[i].next != t->sealed.parts[i].next ||
		    strcmp(rec->parts[i].topic, t->sealed.parts[i].topic) != 0)
			return 0;
	return 1;
}

/* Seal: every row durable and marked with a new id, then the record.
 * Returns 1 when nothing changed since the last seal (nothing to do), 0
 * when sealed, -1 on failure (logged). */
static int
twopc_seal(struct twopc *t, struct source *src)
{
	struct ckpt_record rec = { 0 };
	struct buf payload = { 0 };
	struct timespec now;
	char err[1024];
	uint64_t id, now_ms;
	struct twopc_positions pos = { .rec = &rec };
	int changed = 0, r = -1;

	source_positions(src, twopc_record_part, &pos);
	if (pos.failed)
		goto nomem;
	for (size_t i = 0; i < t->nwriters; i++)
		changed |= writer_changed(t->writers[i]);
	if (!changed && twopc_same_positions(t, &rec)) {
		ckpt_record_clear(&rec);
		return 1;
	}
	/* ids grow, and stay above any used before a lost store */
	clock_gettime(CLOCK_REALTIME, &now);
	now_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	rec.id = id = t->sealed.id + 1 > now_ms ? t->sealed.id + 1 : now_ms;
	for (size_t i = 0; i < t->nwriters; i++) {
		if (writer_seal(t->writers[i], id, err, sizeof(err)) < 0) {
			log_errx("checkpoint %" PRIu64 ": %s; stopping", id, err);
			goto out;
		}
		crash_point("seal-mid");
	}
	if ((rec.host = strdup(t->conf->output.host)) == NULL ||
	    ckpt_record_encode(&rec, &payload) < 0)
		goto nomem;
	if (ckpt_store_write(t->store, payload.data, payload.len, NULL, err,
	    sizeof(err)) < 0) {
		log_errx("checkpoint %" PRIu64 ": %s; stopping", id, err);
		goto out;
	}
	ckpt_record_clear(&t->sealed);
	t->sealed = rec;
	memset(&rec, 0, sizeof(rec));
	t->undecided = 1;
	crash_point("after-seal");
	r = 0;
	goto out;
nomem:
	log_errx("checkpoint: out of memory; stopping");
out:
	ckpt_record_clear(&rec);
	buf_clear(&payload);
	return r;
}

/* Decide: commit the sealed offsets, naming the checkpoint. */
static int
twopc_decide_sealed(struct twopc *t, struct source *src)
{
	char md[320], err[1024];

	if (ckpt_metadata_format(t->conf->output.host, t->sealed.id, md,
	    sizeof(md)) < 0 ||
	    source_commit(src, &t->sealed, md, err, sizeof(err)) < 0) {
		log_warnx("checkpoint %" PRIu64 ": %s; it stays sealed and the "
		    "commit is tried again at the next checkpoint", t->sealed.id,
		    err);
		return -1;
	}
	crash_point("after-commit");
	t->decided_id = t->sealed.id;
	t->undecided = 0;
	return 0;
}

int
twopc_checkpoint(struct twopc *t, struct source *src, struct publisher *pub,
    const char *why)
{
	struct timespec t0, t1;
	char err[1024];
	int n = 0, r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!t->undecided && (r = twopc_seal(t, src)) != 0)
		return r < 0 ? -1 : 0;
	if (twopc_decide_sealed(t, src) < 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hist_record(&t->durations, (uint64_t)((t1.tv_sec - t0.tv_sec) *
	    1000000000 + (t1.tv_nsec - t0.tv_nsec)));
	for (size_t i = 0; i < t->nwriters; i++) {
		if ((r = writer_release(t->writers[i], err, sizeof(err))) < 0) {
			log_errx("checkpoint %" PRIu64 ": %s; stopping", t->decided_id,
			    err);
			return -1;
		}
		n += r;
	}
	log_debug("checkpoint %" PRIu64 " (%s): %d file(s) ready", t->decided_id,
	    why, n);
	if (n > 0)
		publisher_kick(pub);
	return 0;
}

const struct hist *
twopc_durations(const struct twopc *t)
{
	return &t->durations;
}

int
twopc_undecided(const struct twopc *t)
{
	return t->undecided;
}

/* Takes one partition out of the sealed record. */
static void
twopc_drop_sealed(struct twopc *t, const char *topic, int32_t partition)
{
	for (size_t i = 0; i < t->sealed.nparts; i++) {
		if (t->sealed.parts[i].partition != partition ||
		    strcmp(t->sealed.parts[i].topic, topic) != 0)
			continue;
		free(t->sealed.parts[i].topic);
		t->sealed.parts[i] = t->sealed.parts[--t->sealed.nparts];
		return;
	}
}

void
twopc_give_up(struct twopc *t, const rd_kafka_topic_partition_list_t *parts)
{
	char err[1024];

	for (int i = 0; i < parts->cnt; i++) {
		const char *topic = parts->elems[i].topic;
		int32_t partition = parts->elems[i].partition;

		for (size_t w = 0; w < t->nwriters; w++)
			if (writer_discard(t->writers[w], topic, partition,
			    t->decided_id, err, sizeof(err)) < 0)
				log_errx("checkpoint: %s", err);
		twopc_drop_sealed(t, topic, partition);
	}
}

/* Writes one takeover marker, durably. */
static int
twopc_marker_write(struct twopc *t, const char *host, const char *topic,
    int32_t partition, uint64_t id, char *err, size_t errlen)
{
	char rel[PATH_MAX], text[32];
	int n;

	twopc_marker_path(host, topic, partition, rel, sizeof(rel));
	n = snprintf(text, sizeof(text), "%" PRIu64 "\n", id);
	return target_write(t->target, rel, text, (size_t)n, err, errlen);
}

/* The group's last commit of a partition names a checkpoint of this host
 * that neither its store nor a file of its spool knows: the spool was lost
 * or wiped, and with it whatever of that checkpoint was not published. */
static void
twopc_check_own_commit(struct twopc *t, const char *topic, int32_t partition,
    uint64_t id)
{
	if (id <= t->recovered.id || id <= t->decided_id ||
	    id <= t->sealed.id || twopc_decide(topic, partition, t) != 0)
		return;
	log_warnx("checkpoint: the group's last commit of %s [%" PRId32 "] is "
	    "this host's checkpoint %" PRIu64 ", which %s does not hold: if "
	    "the spool was lost, rows of that partition not published before "
	    "were lost with it, as their offsets are committed; `kedge report` "
	    "shows what landed, and resetting the group's offset of the "
	    "partition to the first missing one reads them again (see "
	    "docs/output.md, a lost spool)", topic, partition, id,
	    t->conf->output.spool_dir);
}

void
twopc_on_assigned(struct twopc *t, struct source *src,
    const rd_kafka_topic_partition_list_t *parts)
{
	struct source_committed *got;
	char err[512], host[CKPT_HOST_MAX + 1];
	uint64_t id;

	if ((got = calloc((size_t)parts->cnt + 1, sizeof(*got))) == NULL)
		return;
	if (source_committed(src, parts, got, err, sizeof(err)) < 0) {
		log_warnx("checkpoint: %s; no takeover marker written", err);
		goto out;
	}
	for (int i = 0; i < parts->cnt; i++) {
		const char *topic = parts->elems[i].topic;
		int32_t partition = parts->elems[i].partition;
		int r;

		if (twopc_committer(t, topic, partition, &got[i], host,
		    sizeof(host), &id) < 0)
			continue;
		if (strcmp(host, t->conf->output.host) == 0) {
			twopc_check_own_commit(t, topic, partition, id);
			continue;
		}
		if ((r = twopc_marker_write(t, host, topic, partition, id, err,
		    sizeof(err))) < 0)
			log_errx("checkpoint: cannot leave %s the takeover marker "
			    "of %s [%" PRId32 "]: %s", host, topic, partition, err);
		else
			log_info("checkpoint: took %s [%" PRId32 "] over from %s "
			    "at its checkpoint %" PRIu64, topic, partition, host, id);
	}
out:
	free(got);
}

int
twopc_show(const struct conf *c, FILE *out)
{
	struct buf payload = { 0 };
	struct ckpt_store *s;
	char dir[PATH_MAX], note[1024] = "", err[512];
	uint64_t id;
	int r;

	snprintf(dir, sizeof(dir), "%s/" TWOPC_STORE_DIR, c->output.spool_dir);
	/* a look only: opening would create the directory */
	if (access(dir, F_OK) < 0 && errno == ENOENT) {
		fprintf(out, "store: %s\nno store: kedge has not checkpointed "
		    "with this output.spool_dir\n", dir);
		return 0;
	}
	if ((s = ckpt_store_open(dir, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	r = ckpt_store_read(s, &payload, &id, note, sizeof(note));
	fprintf(out, "store: %s\n", dir);
	if (note[0] != '\0')
		fprintf(out, "note: %s\n", note);
	if (r == 0)
		fprintf(out, "record %" PRIu64 ":\n%.*s", id, (int)payload.len,
		    payload.data);
	else
		fprintf(out, "no usable record\n");
	buf_clear(&payload);
	ckpt_store_close(s);
	return r == 0 || r == -ENOENT ? 0 : 1;
}
