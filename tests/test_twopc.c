/*
 * The two-phase checkpoint (agent/twopc.c) seals, decides and recovers.
 * It is checked here in a consumer group and on a static assignment:
 * what seal writes to the store, what decide commits to the group, and
 * what recovery decides from them after a crash.  Then come a damaged
 * record, a record that cannot be decoded and a slot that cannot be read.
 *
 * It runs against librdkafka's mock cluster (rdkafka_mock.h) created in
 * this process, not against the mockkafka fixture.  The test is
 * in-process, and between two steps of a run it needs the group's
 * committed offsets on demand, and commits that fail on demand.
 *
 * A run is the set of objects the agent builds: a writer, the twopc and
 * the source.  A crash frees them where the test says, without the
 * shutdown's roll and checkpoint, so the spool, the store and the group's
 * commits are left as a crash would leave them.  The source's hooks do
 * nothing: the revoke that closing it serves commits nothing.  No file
 * rolls, so a checkpoint releases nothing and no publisher is needed;
 * files reach ready/ through recovery, cut back to what it decided.
 *
 * The crash points (lib/crash.h) abort the process, so they cannot be
 * used here.  Each crash is made from the same steps instead.  A crash
 * after seal whose commit never reached Kafka is a checkpoint whose
 * commit the mock refuses.  A crash after the commit reached Kafka, before
 * kedge learnt it, is that refused checkpoint followed by the commit
 * decide would have sent, sent by the test through source_commit().
 * twopc writes the store only at seal: after the commit there is nothing
 * of the store left to finish.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "agent/config/config.h"
#include "agent/source/source.h"
#include "agent/twopc.h"
#include "agent/write/writer.h"
#include "checkpoint/ckpt.h"
#include "checkpoint/store.h"
#include "lib/buf.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

#define PARTS 2
#define API_OFFSET_COMMIT 8     /* the Kafka protocol's ApiKey */
#define POLLS 300               /* 100 ms polls for the records wanted */
/* every row's event time: 2026-11-29 10:00:00 UTC */
#define T10 INT64_C(1795946400000000)
#define HOUR_REL "access/dt=20261129/hr=10/"

/* The cluster, shared by every case; each case has a topic and a group of
 * its own. */
static rd_kafka_t *mock_rk;
static rd_kafka_mock_cluster_t *mock;
static const char *bootstraps;

struct fixture {
	char dir[64];
	char topic[64];
	int grouped;            /* else a static assignment */
	int64_t produced[PARTS];
	struct conf *c;
	struct tz *tz;
};

/* One life of the agent. */
struct run {
	struct fixture *f;
	struct writer *w;
	struct twopc *t;
	struct source *src;
};

static const struct udtf_column cols[] = { { "msg", UDTF_STRING } };

static void
no_parts(void *opaque, const rd_kafka_topic_partition_list_t *parts)
{
	(void)opaque;
	(void)parts;
}

/* The hooks commit nothing: a revoke while a run is freed is a crash's. */
static const struct source_hooks hooks = { no_parts, no_parts, no_parts,
    NULL };


static int
cluster_up(void **state)
{
	rd_kafka_conf_t *kc = rd_kafka_conf_new();
	char why[512];

	(void)state;
	rd_kafka_conf_set(kc, "log_level", "3", why, sizeof(why));
	/* rd_kafka_new() takes ownership of kc when it succeeds */
	assert_non_null(mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, why,
	    sizeof(why)));
	assert_non_null(mock = rd_kafka_mock_cluster_new(mock_rk, 1));
	bootstraps = rd_kafka_mock_cluster_bootstraps(mock);
	return 0;
}

static int
cluster_down(void **state)
{
	(void)state;
	rd_kafka_mock_cluster_destroy(mock);
	rd_kafka_destroy(mock_rk);
	return 0;
}

/* Appends n records to partition p of the case's topic: "r<offset>". */
static void
produce(struct fixture *f, int32_t p, int n)
{
	rd_kafka_conf_t *kc = rd_kafka_conf_new();
	rd_kafka_t *rk;
	char why[512], msg[32];

	assert_int_equal(rd_kafka_conf_set(kc, "bootstrap.servers", bootstraps,
	    why, sizeof(why)), RD_KAFKA_CONF_OK);
	/* rd_kafka_new() takes ownership of kc when it succeeds */
	assert_non_null(rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, why,
	    sizeof(why)));
	for (int i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "r%" PRId64, f->produced[p]++);
		assert_int_equal(rd_kafka_producev(rk,
		    RD_KAFKA_V_TOPIC(f->topic), RD_KAFKA_V_PARTITION(p),
		    RD_KAFKA_V_VALUE(msg, strlen(msg)),
		    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END), 0);
	}
	assert_int_equal(rd_kafka_flush(rk, 10000), 0);
	rd_kafka_destroy(rk);
}

/* A topic of PARTS partitions, a spool, a local target and a config; in
 * the group named as the topic when grouped, else on a static
 * assignment. */
static struct fixture *
fixture_new(int grouped)
{
	static unsigned cases;
	struct fixture *f = calloc(1, sizeof(*f));
	char path[128], err[1024] = "";

	assert_non_null(f);
	strcpy(f->dir, "/tmp/kedge-test-twopc.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->grouped = grouped;
	snprintf(f->topic, sizeof(f->topic), "twopc-%u", ++cases);
	assert_int_equal(rd_kafka_mock_topic_create(mock, f->topic, PARTS, 1),
	    0);
	f->c = test_conf(f->dir,
	    "kafka = { brokers = \"%s\"; %s%s%s start = \"earliest\"; };\n"
	    "tables = ( { name = \"access\"; topics = [ \"%s\" ];\n"
	    "  udtf = \"raw\"; } );\n"
	    "output = { spool_dir = \"%s/spool\"; target = \"local\";\n"
	    "  local_dir = \"%s/target\"; timezone = \"UTC\"; host = \"h1\"; };\n"
	    "completion = { enabled = false; };\n", bootstraps,
	    grouped ? "group_id = \"" : "", grouped ? f->topic : "",
	    grouped ? "\";" : "", f->topic, f->dir, f->dir);
	snprintf(path, sizeof(path), "%s/target", f->dir);
	assert_int_equal(fs_mkdirs(path, 0755), 0);
	if ((f->tz = tz_open("UTC", err, sizeof(err))) == NULL)
		fail_msg("tz_open: %s", err);
	return f;
}

static void
fixture_free(struct fixture *f)
{
	tz_close(f->tz);
	conf_free(f->c);
	remove_tree(f->dir);
	free(f);
}

static int
setup_group(void **state)
{
	*state = fixture_new(1);
	return 0;
}

static int
setup_static(void **state)
{
	*state = fixture_new(0);
	return 0;
}

static int
teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

/* Builds a run as the agent does: created, neither recovered nor
 * started. */
static void
run_begin(struct fixture *f, struct run *r)
{
	struct writer_opts o = {
		.table = "access", .spool_dir = f->c->output.spool_dir,
		.host = "h1", .format = { FORMAT_HIVE_TEXT, '\001', f->tz },
		.codec = CODEC_NONE, .roll = { 1 << 30, 86400, 86400, 0 },
	};
	char err[1024];

	r->f = f;
	if ((r->w = writer_new(&o, cols, 1, err, sizeof(err))) == NULL ||
	    (r->t = twopc_new(f->c, &r->w, 1, err, sizeof(err))) == NULL ||
	    (r->src = source_new(f->c, &hooks, err, sizeof(err))) == NULL)
		fail_msg("run_begin: %s", err);
}

static void
run_start(struct run *r)
{
	char err[1024];

	if (source_start(r->src, twopc_start_at, r->t, err, sizeof(err)) < 0)
		fail_msg("source_start: %s", err);
}

/* Reads n records, n[p] from partition p, each into one row, and checks
 * that partition p's first is at offset from[p] and the rest follow it. */
static void
run_read(struct run *r, const int n[PARTS], const int64_t from[PARTS])
{
	rd_kafka_message_t *msgs[16];
	int got[PARTS] = { 0 }, want = 0, total = 0;
	char err[1024];

	for (int p = 0; p < PARTS; p++)
		want += n[p];
	for (int poll = 0; total < want && poll < POLLS; poll++) {
		size_t k = source_poll(r->src, msgs, sizeof(msgs) / sizeof(msgs[0]),
		    100);

		for (size_t i = 0; i < k; i++) {
			rd_kafka_message_t *m = msgs[i];
			struct udtf_value v = { .type = UDTF_STRING,
			    .u.s = { m->payload, m->len } };
			struct writer_origin o = { r->f->topic, m->partition,
			    m->offset, 1, NULL, T10 };
			struct tz_hour hour;

			assert_in_range(m->partition, 0, PARTS - 1);
			assert_int_equal(m->offset, from[m->partition] +
			    got[m->partition]);
			assert_true(got[m->partition] < n[m->partition]);
			assert_int_equal(tz_hour_of(r->f->tz, T10, &hour), 0);
			if (writer_write(r->w, &hour, &o, &v, err, sizeof(err)) < 0)
				fail_msg("writer_write: %s", err);
			source_done(r->src, m);
			got[m->partition]++;
			total++;
			rd_kafka_message_destroy(m);
		}
	}
	if (total < want)
		fail_msg("read %d of %d records in %d polls", total, want, POLLS);
}

/* The crash: everything dropped where it stands. */
static void
run_crash(struct run *r)
{
	source_close(r->src);
	twopc_free(r->t);
	writer_free(r->w);
	memset(r, 0, sizeof(*r));
}

/* The group's committed offset of partition p and its metadata (in
 * md[mdlen]), as the coordinator answers it now; -1 and "" when there is
 * none.  On a static assignment the source asks the group name it gives
 * librdkafka there. */
static int64_t
committed(const struct run *r, int32_t p, char *md, size_t mdlen)
{
	rd_kafka_topic_partition_list_t *list;
	struct source_committed got;
	char err[1024];

	list = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(list, r->f->topic, p);
	if (source_committed(r->src, list, &got, err, sizeof(err)) < 0)
		fail_msg("source_committed: %s", err);
	rd_kafka_topic_partition_list_destroy(list);
	snprintf(md, mdlen, "%s", got.metadata);
	return got.offset;
}

/* The group committed partition p at next with the metadata of
 * checkpoint id; id 0: nothing committed. */
static void
assert_committed(const struct run *r, int32_t p, int64_t next, uint64_t id)
{
	char md[256], want[256] = "";

	assert_int_equal(committed(r, p, md, sizeof(md)), next);
	if (id != 0)
		assert_true(ckpt_metadata_format("h1", id, want,
		    sizeof(want)) > 0);
	assert_string_equal(md, want);
}

static void
store_path(const struct fixture *f, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/checkpoint%s%s", f->c->output.spool_dir,
	    name[0] ? "/" : "", name);
}

/* Decodes the store's newest record into rec (to clear). */
static void
stored(const struct fixture *f, struct ckpt_record *rec)
{
	struct ckpt_store *s;
	struct buf payload = { 0 };
	char dir[128], err[1024] = "";

	store_path(f, "", dir, sizeof(dir));
	if ((s = ckpt_store_open(dir, err, sizeof(err))) == NULL)
		fail_msg("ckpt_store_open: %s", err);
	if (ckpt_store_read(s, &payload, NULL, err, sizeof(err)) < 0)
		fail_msg("ckpt_store_read: %s", err);
	if (ckpt_record_decode(payload.data, payload.len, rec, err,
	    sizeof(err)) < 0)
		fail_msg("ckpt_record_decode: %s", err);
	buf_clear(&payload);
	ckpt_store_close(s);
}

/* The store's record is this host's and holds each partition p of the
 * topic at next[p], and nothing else; returns its checkpoint id. */
static uint64_t
assert_stored(const struct fixture *f, const int64_t next[PARTS])
{
	struct ckpt_record rec = { 0 };
	uint64_t id;

	stored(f, &rec);
	assert_string_equal(rec.host, "h1");
	assert_int_equal(rec.nparts, PARTS);
	for (size_t i = 0; i < rec.nparts; i++) {
		assert_string_equal(rec.parts[i].topic, f->topic);
		assert_in_range(rec.parts[i].partition, 0, PARTS - 1);
		assert_int_equal(rec.parts[i].next, next[rec.parts[i].partition]);
	}
	assert_int_not_equal(rec.parts[0].partition, rec.parts[1].partition);
	id = rec.id;
	ckpt_record_clear(&rec);
	return id;
}

/* What partition p's part file (first offset 0) holds in <spool>/<sub>,
 * or NULL without the file. */
static char *
part_text(const struct fixture *f, const char *sub, int32_t p)
{
	struct buf b = { 0 };
	char path[256];
	int r;

	snprintf(path, sizeof(path), "%s/%s/" HOUR_REL "%s+%d+0+h1.txt",
	    f->c->output.spool_dir, sub, f->topic, (int)p);
	if ((r = fs_read_all(path, &b)) == -ENOENT)
		return NULL;
	assert_int_equal(r, 0);
	assert_int_equal(buf_append(&b, "", 1), 0);
	return b.data;
}

/* The rows of records [0, n): "r0\nr1\n...". */
static const char *
rows(int n)
{
	static char text[256];
	size_t len = 0;

	text[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "r%d\n", i);
	return text;
}

/* Recovery released partition p's file to ready/ holding the rows of
 * records [0, n); n 0: removed it, as it held nothing decided.  Nothing
 * of it is left open. */
static void
assert_recovered(const struct fixture *f, int32_t p, int n)
{
	char *ready = part_text(f, "ready", p), *open = part_text(f, "open", p);

	assert_null(open);
	if (n == 0) {
		assert_null(ready);
		return;
	}
	assert_non_null(ready);
	assert_string_equal(ready, rows(n));
	free(ready);
}

/* Partition p's file is still in open/ as the seal left it, holding the
 * rows of records [0, n); nothing of it is in ready/. */
static void
assert_untouched(const struct fixture *f, int32_t p, int n)
{
	char *ready = part_text(f, "ready", p), *open = part_text(f, "open", p);

	assert_null(ready);
	assert_non_null(open);
	assert_string_equal(open, rows(n));
	free(open);
}

/* twopc_recover() with what it logs in *log (to free). */
static int
recover_logged(struct run *r, char **log)
{
	char path[] = "/tmp/kedge-test-twopc-log.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), rc;
	struct buf b = { 0 };

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	rc = twopc_recover(r->t, r->src);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	assert_int_equal(fs_read_all(path, &b), 0);
	unlink(path);
	assert_int_equal(buf_append(&b, "", 1), 0);
	/* shown as well, for when a case fails */
	fputs(b.data, stderr);
	*log = b.data;
	return rc;
}

/* The log holds want. */
static void
assert_logged(const char *log, const char *want)
{
	if (strstr(log, want) == NULL)
		fail_msg("the log does not say \"%s\"", want);
}

static void
recover(struct run *r)
{
	assert_int_equal(twopc_recover(r->t, r->src), 0);
}

/* One checkpoint; returns whether it was decided. */
static int
checkpoint(struct run *r)
{
	assert_int_equal(twopc_checkpoint(r->t, r->src, NULL, "test"), 0);
	return !twopc_undecided(r->t);
}

/* A first run reads n[p] records of each partition p and checkpoints
 * them; returns the checkpoint's id. */
static uint64_t
first_checkpoint(struct fixture *f, struct run *r, const int n[PARTS])
{
	static const int64_t zero[PARTS] = { 0 };
	int64_t next[PARTS];

	for (int p = 0; p < PARTS; p++) {
		produce(f, p, n[p]);
		next[p] = n[p];
	}
	run_begin(f, r);
	recover(r);
	run_start(r);
	run_read(r, n, zero);
	assert_true(checkpoint(r));
	return assert_stored(f, next);
}

/* Every slot of the store a record was written to gets one byte of its
 * payload flipped: its CRC no longer matches. */
static void
damage_store(const struct fixture *f)
{
	static const char *const slots[] = { "checkpoint.a", "checkpoint.b" };
	char path[256], c;
	int fd, damaged = 0;

	for (size_t i = 0; i < 2; i++) {
		store_path(f, slots[i], path, sizeof(path));
		if ((fd = open(path, O_RDWR)) < 0 && errno == ENOENT)
			continue;
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, 30), 1);
		c ^= 0x20;
		assert_int_equal(pwrite(fd, &c, 1, 30), 1);
		close(fd);
		damaged++;
	}
	assert_true(damaged > 0);
}

/* A clean checkpoint: sealed, committed, decided.  The store and the
 * group's commits agree, and recovery after a crash keeps what it
 * sealed: the group starts the next run where those rows end. */
static void
test_group_seal_decide(void **state)
{
	static const int n[PARTS] = { 3, 2 };
	struct fixture *f = *state;
	struct run r;
	uint64_t id;

	id = first_checkpoint(f, &r, n);
	assert_committed(&r, 0, 3, id);
	assert_committed(&r, 1, 2, id);
	run_crash(&r);

	run_begin(f, &r);
	recover(&r);
	assert_recovered(f, 0, 3);
	assert_recovered(f, 1, 2);
	assert_committed(&r, 0, 3, id);
	assert_committed(&r, 1, 2, id);
	run_crash(&r);
}

/* A crash after the seal of a second checkpoint, before it was decided:
 * its commit failed on partition 0, so the group's commit there still
 * names the first checkpoint, while on partition 1 the commit reached the
 * coordinator, and the crash came before kedge learnt it.  Recovery cuts
 * partition 0's file back to the first checkpoint (its last rows are read
 * again from the committed offset) and keeps partition 1's whole. */
static void
test_group_crash_after_seal(void **state)
{
	static const int first[PARTS] = { 3, 3 }, second[PARTS] = { 2, 2 };
	static const int64_t from[PARTS] = { 3, 3 }, next[PARTS] = { 5, 5 };
	struct fixture *f = *state;
	struct ckpt_record rec = { 0 };
	char md[320], err[1024];
	struct run r;
	uint64_t id1, id2;
	size_t p0;

	id1 = first_checkpoint(f, &r, first);
	produce(f, 0, 2);
	produce(f, 1, 2);
	run_read(&r, second, from);
	/* librdkafka may retry a refused commit: refuse all it sends */
	for (int i = 0; i < 20; i++)
		rd_kafka_mock_push_request_errors(mock, API_OFFSET_COMMIT, 1,
		    RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE);
	assert_false(checkpoint(&r));
	rd_kafka_mock_clear_request_errors(mock, API_OFFSET_COMMIT);
	id2 = assert_stored(f, next);
	assert_true(id2 > id1);
	assert_committed(&r, 0, 3, id1);
	assert_committed(&r, 1, 3, id1);
	/* partition 1's commit, as decide sends it, reaches the group */
	stored(f, &rec);
	p0 = rec.parts[0].partition == 0 ? 0 : 1;
	free(rec.parts[p0].topic);
	rec.parts[p0] = rec.parts[--rec.nparts];
	assert_true(ckpt_metadata_format("h1", id2, md, sizeof(md)) > 0);
	if (source_commit(r.src, &rec, md, err, sizeof(err)) < 0)
		fail_msg("source_commit: %s", err);
	ckpt_record_clear(&rec);
	assert_committed(&r, 1, 5, id2);
	run_crash(&r);

	run_begin(f, &r);
	recover(&r);
	assert_recovered(f, 0, 3);
	assert_recovered(f, 1, 5);
	/* recovery commits nothing: the group reads partition 0 again from 3 */
	assert_committed(&r, 0, 3, id1);
	assert_committed(&r, 1, 5, id2);
	run_crash(&r);
}

/* On a static assignment there is no group to commit to: the seal alone
 * decides, the offsets live in the store only, and recovery both cuts the
 * files back to the stored checkpoint and starts each partition from the
 * stored offset, so the rows written after it are read again. */
static void
test_static_store_decides(void **state)
{
	static const int n[PARTS] = { 3, 2 }, more[PARTS] = { 2, 2 };
	static const int64_t from[PARTS] = { 3, 2 };
	struct fixture *f = *state;
	struct run r;

	first_checkpoint(f, &r, n);
	assert_committed(&r, 0, -1, 0);
	assert_committed(&r, 1, -1, 0);
	produce(f, 0, 2);
	produce(f, 1, 2);
	run_read(&r, more, from);
	run_crash(&r);

	run_begin(f, &r);
	recover(&r);
	assert_recovered(f, 0, 3);
	assert_recovered(f, 1, 2);
	assert_int_equal(twopc_start_at(f->topic, 0, r.t), 3);
	assert_int_equal(twopc_start_at(f->topic, 1, r.t), 2);
	run_start(&r);
	run_read(&r, more, from);
	run_crash(&r);
}

/* A static assignment's damaged record: said, with the slot and why, and
 * nothing is decided by guess: the files are removed and every partition
 * is read again from kafka.start. */
static void
test_static_store_damaged(void **state)
{
	static const int n[PARTS] = { 3, 3 };
	static const int64_t zero[PARTS] = { 0 };
	struct fixture *f = *state;
	struct run r;
	char *log, want[512];

	first_checkpoint(f, &r, n);
	run_crash(&r);
	damage_store(f);

	run_begin(f, &r);
	assert_int_equal(recover_logged(&r, &log), 0);
	store_path(f, "", want, sizeof(want));
	assert_logged(log, want);
	assert_logged(log, ": CRC mismatch (a torn or damaged write); no "
	    "usable record");
	snprintf(want, sizeof(want), "checkpoint: no usable record in %s/"
	    "checkpoint; starting from kafka.start", f->c->output.spool_dir);
	assert_logged(log, want);
	free(log);
	assert_recovered(f, 0, 0);
	assert_recovered(f, 1, 0);
	assert_int_equal(twopc_start_at(f->topic, 0, r.t), -1);
	run_start(&r);
	run_read(&r, n, zero);
	run_crash(&r);
}

/* A record whose frame is whole but whose payload is not a checkpoint
 * record: said, with the record's number, and not used. */
static void
test_store_record_undecodable(void **state)
{
	static const char junk[] = "kedge-checkpoint 1\nid twelve\n";
	struct fixture *f = *state;
	struct ckpt_store *s;
	struct run r;
	char dir[128], err[1024], *log;

	store_path(f, "", dir, sizeof(dir));
	if ((s = ckpt_store_open(dir, err, sizeof(err))) == NULL ||
	    ckpt_store_write(s, junk, strlen(junk), NULL, err,
	    sizeof(err)) < 0)
		fail_msg("the store: %s", err);
	ckpt_store_close(s);

	run_begin(f, &r);
	assert_int_equal(recover_logged(&r, &log), 0);
	assert_logged(log, "checkpoint: record 1 cannot be read: ");
	assert_logged(log, "starting from kafka.start");
	free(log);
	assert_int_equal(twopc_start_at(f->topic, 0, r.t), -1);
	run_crash(&r);
}

/* A slot that cannot be read at all may hold the newest record: recovery
 * says which and why, and refuses, leaving every file as it was. */
static void
test_store_unreadable(void **state)
{
	static const char *const slots[] = { "checkpoint.a", "checkpoint.b" };
	static const int n[PARTS] = { 3, 3 };
	struct fixture *f = *state;
	struct run r;
	char path[256], want[512], *log;

	first_checkpoint(f, &r, n);
	run_crash(&r);
	/* a symbolic link to itself: opening it fails with ELOOP */
	for (size_t i = 0; i < 2; i++) {
		store_path(f, slots[i], path, sizeof(path));
		if (unlink(path) == 0)
			assert_int_equal(symlink(slots[i], path), 0);
	}

	run_begin(f, &r);
	assert_int_equal(recover_logged(&r, &log), -1);
	snprintf(want, sizeof(want), "cannot read %s/checkpoint/checkpoint.",
	    f->c->output.spool_dir);
	assert_logged(log, want);
	assert_logged(log, strerror(ELOOP));
	snprintf(want, sizeof(want), "checkpoint: cannot read the store in "
	    "%s/checkpoint", f->c->output.spool_dir);
	assert_logged(log, want);
	free(log);
	assert_untouched(f, 0, 3);
	assert_untouched(f, 1, 3);
	run_crash(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_group_seal_decide,
		    setup_group, teardown),
		cmocka_unit_test_setup_teardown(test_group_crash_after_seal,
		    setup_group, teardown),
		cmocka_unit_test_setup_teardown(test_static_store_decides,
		    setup_static, teardown),
		cmocka_unit_test_setup_teardown(test_static_store_damaged,
		    setup_static, teardown),
		cmocka_unit_test_setup_teardown(test_store_record_undecodable,
		    setup_static, teardown),
		cmocka_unit_test_setup_teardown(test_store_unreadable,
		    setup_static, teardown),
	};

	return cmocka_run_group_tests(tests, cluster_up, cluster_down);
}
