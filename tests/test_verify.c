/*
 * verify: small target trees, written here with zlib and libzstd and
 * sidecars by hand, checked whole.  A good tree (several tables, codecs,
 * members and frames, a reject filling a gap, a spill, hidden and '_'
 * files beside the part files) passes with its counts, and so does one
 * whose sidecars are of an earlier version (the sha256 of a kedge before
 * the crc32c, both, or no digest and no event times);
 * each planted fault (a duplicate, a gap, a truncated or corrupt stream,
 * rows or bytes that disagree, a byte changed in place, a lone part file or
 * sidecar, a reject over a data file, an uncovered spill, a malformed
 * sidecar, a name or table that disagrees) fails with the one line that
 * names it.  An hour's manifest that agrees with its part files passes;
 * one that does not, or a _SUCCESS without one, fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/evp.h>
#include <zlib.h>
#include <zstd.h>

#include "agent/cli/verify.h"
#include "agent/complete/manifest.h"
#include "agent/write/sidecar.h"
#include "lib/buf.h"
#include "lib/codec.h"
#include "lib/fsutil.h"
#include "tests/testlib.h"

#define H22 "dt=20261129/hr=22"
#define H23 "dt=20261129/hr=23"

/* One part file and its sidecar, as the writer would land them. */
struct part {
	const char *table, *hour, *topic;
	int partition;
	long long first;
	const char *host;
	enum codec_kind codec;
	int rows;
	int members;              /* gzip members or zstd frames; 0: one */
	const char *offsets, *empty, *spill; /* JSON arrays; NULL: [] */
	const char *rejected;     /* JSON object, rejects files only */
	int jsonl;
	int rows_lie, bytes_lie;  /* added to the true counts in the sidecar */
	int legacy;               /* the sidecar's version: L_CRC32C ... */
};

/* A sidecar as this kedge writes it (crc32c), as one before the crc32c
 * (sha256), with both, or of the earliest version (no digest, no event
 * times). */
enum { L_CRC32C, L_NONE, L_SHA256, L_BOTH };

enum { P_GZ, P_ZST, P_REJ, P_T4A, P_T4B, P_WEB, NGOOD };

/* access t[3]: 100..149 (gz), 150..169 and 171..199 with 200..201 empty
 * (zst), 170 rejected; access t[4]: 0..9, then 10..19 in a file that also
 * holds more rows of record 9 (a spill); web t[3]: 100..201 but 120,
 * rejected.  The one rejects file holds both rejects. */
static const struct part good[NGOOD] = {
	[P_GZ] = { "access", H22, "t", 3, 100, "h", CODEC_GZIP, 60, 3,
	    "[[100,149]]", NULL, NULL, NULL, 0, 0, 0, 0 },
	[P_ZST] = { "access", H23, "t", 3, 150, "h", CODEC_ZSTD, 49, 2,
	    "[[150,169],[171,199]]", "[[200,201]]", NULL, NULL, 0, 0, 0, 0 },
	[P_REJ] = { "_rejects", H23, "t", 3, 120, "h", CODEC_NONE, 2, 0,
	    NULL, NULL, NULL, "{\"access\":[[170,170]],\"web\":[[120,120]]}",
	    0, 0, 0, 0 },
	[P_T4A] = { "access", H23, "t", 4, 0, "h", CODEC_NONE, 10, 0,
	    "[[0,9]]", NULL, NULL, NULL, 0, 0, 0, 0 },
	[P_T4B] = { "access", H22, "t", 4, 9, "h", CODEC_GZIP, 12, 0,
	    "[[10,19]]", NULL, "[[9,9]]", NULL, 0, 0, 0, 0 },
	[P_WEB] = { "web", H23, "t", 3, 100, "h", CODEC_ZSTD, 101, 2,
	    "[[100,119],[121,201]]", NULL, NULL, NULL, 1, 0, 0, 0 },
};
/* The good tree, c and s of its files checked by crc32c and sha256. */
#define GOOD_OK_BY(c, s) "verify OK: 6 files (" #c " checked by crc32c, " \
	#s " by sha256), 234 rows, 3 partitions in 2 tables, 0 manifests"
#define GOOD_OK GOOD_OK_BY(6, 0)

struct fixture {
	char root[64];          /* the mkdtemp directory, removed at the end */
	char rel[NGOOD][256];   /* each good part file, relative to root */
};

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->root, "/tmp/kedge-test-verify.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(f);
	return 0;
}

static void
path_in(const struct fixture *f, const char *rel, char *out, size_t outlen)
{
	assert_true((size_t)snprintf(out, outlen, "%s/%s", f->root, rel) <
	    outlen);
}

/* The sidecar's path of part file rel: .<name>.json beside it. */
static void
sidecar_rel(const char *rel, char *out, size_t outlen)
{
	const char *slash = strrchr(rel, '/');

	assert_non_null(slash);
	assert_true((size_t)snprintf(out, outlen, "%.*s/.%s.json",
	    (int)(slash - rel), rel, slash + 1) < outlen);
}

static void
put_file(const struct fixture *f, const char *rel, const void *data,
    size_t len)
{
	char path[512], dir[512];
	int fd;

	path_in(f, rel, path, sizeof(path));
	strcpy(dir, path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fs_mkdirs(dir, 0755), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, data, len), 0);
	assert_int_equal(close(fd), 0);
}

static void
put_text(const struct fixture *f, const char *rel, const char *text)
{
	put_file(f, rel, text, strlen(text));
}

static void
remove_rel(const struct fixture *f, const char *rel)
{
	char path[512];

	path_in(f, rel, path, sizeof(path));
	assert_int_equal(unlink(path), 0);
}

static void
gzip_member(struct buf *out, const char *in, size_t len)
{
	z_stream zs;
	uLong bound;

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	bound = deflateBound(&zs, (uLong)len) + 32;
	assert_return_code(buf_reserve(out, bound), 0);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out->data + out->len;
	zs.avail_out = (uInt)bound;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out->len += bound - zs.avail_out;
	deflateEnd(&zs);
}

static void
zstd_frame(struct buf *out, const char *in, size_t len)
{
	size_t bound = ZSTD_compressBound(len), n;

	assert_return_code(buf_reserve(out, bound), 0);
	n = ZSTD_compress(out->data + out->len, bound, in, len, 3);
	assert_false(ZSTD_isError(n));
	out->len += n;
}

/* The SHA-256 of data[0..len), in lowercase hex. */
static void
sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n;

	assert_int_equal(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL), 1);
	assert_int_equal(n, 32);
	for (unsigned int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* The CRC-32C of data[0..len), in lowercase hex. */
static void
crc32c_hex(const void *data, size_t len, char hex[CRC32C_HEX + 1])
{
	crc32c_format(crc32c_update(0, data, len), hex);
}

/* The sidecar keys the earliest version lacks: the digests of data its
 * version has and an event range for the rows (event times are not
 * checked by verify). */
static void
sidecar_extras(const struct part *p, const struct buf *data, char *sha,
    size_t shalen, char *events, size_t eventslen)
{
	char hex[65], crc[CRC32C_HEX + 1];
	size_t len = 0;

	sha[0] = events[0] = '\0';
	if (p->legacy == L_NONE)
		return;
	sha256_hex(data->data, data->len, hex);
	crc32c_hex(data->data, data->len, crc);
	if (p->legacy != L_SHA256)
		len = (size_t)snprintf(sha, shalen, ",\"crc32c\":\"%s\"", crc);
	if (p->legacy != L_CRC32C)
		snprintf(sha + len, shalen - len, ",\"sha256\":\"%s\"", hex);
	if (p->rows == 0)
		snprintf(events, eventslen, ",\"min_event_us\":null,"
		    "\"max_event_us\":null");
	else
		snprintf(events, eventslen, ",\"min_event_us\":%lld,"
		    "\"max_event_us\":%lld", 1795946400000000LL + p->first,
		    1795946400000000LL + p->first + p->rows);
}

/* Lands p under the fixture's root with a sidecar that tells the truth
 * (but for rows_lie and bytes_lie); its path relative to root goes to
 * rel.  Rows carry random hex so that big files stay big compressed. */
static void
put_part(const struct fixture *f, const struct part *p, char *rel,
    size_t rellen)
{
	struct buf text = { 0 }, data = { 0 };
	uint64_t seed = (uint64_t)p->first * 131 + (uint64_t)p->partition;
	int members = p->members > 0 ? p->members : 1;
	char line[128], side[512], json[2048], sha[128], events[96];

	for (int i = 0; i < p->rows; i++) {
		int n = snprintf(line, sizeof(line), "%s\001%lld\001%016llx\n",
		    p->topic, p->first + i,
		    (unsigned long long)splitmix64(&seed));
		assert_return_code(buf_append(&text, line, (size_t)n), 0);
	}
	for (int m = 0; m < members; m++) {
		size_t a = text.len * (size_t)m / (size_t)members;
		size_t b = text.len * (size_t)(m + 1) / (size_t)members;

		if (p->codec == CODEC_GZIP)
			gzip_member(&data, text.data + a, b - a);
		else if (p->codec == CODEC_ZSTD)
			zstd_frame(&data, text.data + a, b - a);
		else
			assert_return_code(buf_append(&data, text.data + a,
			    b - a), 0);
	}
	assert_true((size_t)snprintf(rel, rellen, "%s/%s/%s+%d+%lld+%s.%s%s",
	    p->table, p->hour, p->topic, p->partition, p->first, p->host,
	    p->jsonl ? "jsonl" : "txt", codec_kind_ext(p->codec)) < rellen);
	put_file(f, rel, data.data, data.len);
	sidecar_extras(p, &data, sha, sizeof(sha), events, sizeof(events));
	snprintf(json, sizeof(json), "{\"kedge\":1,\"table\":\"%s\","
	    "\"topic\":\"%s\",\"partition\":%d,\"host\":\"%s\","
	    "\"first_offset\":%lld,\"rows\":%d,\"bytes\":%zu%s,"
	    "\"format\":\"%s\",\"codec\":\"%s\"%s,\"offsets\":%s,\"empty\":%s,"
	    "\"spill\":%s%s%s}\n", p->table, p->topic, p->partition, p->host,
	    p->first, p->rows + p->rows_lie, data.len + (size_t)p->bytes_lie,
	    sha, p->jsonl ? "jsonl" : "hive-text",
	    p->codec == CODEC_GZIP ? "gzip" : p->codec == CODEC_ZSTD ?
	    "zstd" : "none", events, p->offsets ? p->offsets : "[]",
	    p->empty ? p->empty : "[]", p->spill ? p->spill : "[]",
	    p->rejected ? ",\"rejected\":" : "",
	    p->rejected ? p->rejected : "");
	sidecar_rel(rel, side, sizeof(side));
	put_text(f, side, json);
	buf_clear(&text);
	buf_clear(&data);
}

/* The good tree, with what verify must pass over: '_' and hidden files in
 * an hour, a hidden top-level directory, a stray file and directory in a
 * table that are not days. */
static void
put_good(struct fixture *f)
{
	for (int i = 0; i < NGOOD; i++)
		put_part(f, &good[i], f->rel[i], sizeof(f->rel[i]));
	put_text(f, "access/" H23 "/_logs", "not a part\n");
	put_text(f, "access/" H23 "/.t+3+999+h.txt.gz.tmp", "half a copy");
	put_text(f, "access/" H23 "/.t+3+999+h.txt.gz.json.tmp", "{");
	put_text(f, ".trash/" H23 "/x.txt", "junk\n");
	put_text(f, "access/README", "not a part file\n");
	put_text(f, "access/tmp/hr=01/x.txt", "junk\n");
}

static void
put_sidecar_of(const struct fixture *f, int which, const char *json)
{
	char side[512];

	sidecar_rel(f->rel[which], side, sizeof(side));
	put_text(f, side, json);
}

static void
assert_verify(const struct fixture *f, int want_r, const char *want)
{
	struct verify_summary sum;
	char msg[4096];
	int r = verify_check(f->root, &sum, msg, sizeof(msg));

	if (r != want_r || strstr(msg, want) == NULL)
		fail_msg("verify returned %d, \"%s\"; want %d, \"%s\"", r, msg,
		    want_r, want);
}

/* Also checks that the summary holds the counts the sentence says. */
static void
assert_ok(const struct fixture *f, const char *want)
{
	struct verify_summary sum;
	char msg[4096], again[512];
	int r = verify_check(f->root, &sum, msg, sizeof(msg));

	if (r != 0 || strcmp(msg, want) != 0)
		fail_msg("verify returned %d, \"%s\"; want 0, \"%s\"", r, msg,
		    want);
	snprintf(again, sizeof(again), "verify OK: %zu files (%zu checked by "
	    "crc32c, %zu by sha256), %" PRIu64 " rows, %zu partitions in %zu "
	    "tables, %zu manifests", sum.files, sum.crc32c_files,
	    sum.sha256_files, sum.rows, sum.partitions, sum.tables,
	    sum.manifests);
	assert_memory_equal(msg, again, strlen(again));
	if (sum.unread > 0) {
		snprintf(again, sizeof(again), "; %" PRIu64 " offsets deleted",
		    sum.unread);
		assert_non_null(strstr(msg, again));
	}
	if (sum.awaiting > 0) {
		snprintf(again, sizeof(again), " (%zu files landed after",
		    sum.awaiting);
		assert_non_null(strstr(msg, again));
	}
}

/* Passes when "verify: <path of part which>: <what>". */
static void
assert_bad_file(const struct fixture *f, const char *rel, const char *what)
{
	char want[1024];

	snprintf(want, sizeof(want), "verify: %s: %s", rel, what);
	assert_verify(f, 1, want);
}

static void
test_good_tree(void **state)
{
	struct fixture *f = *state;

	put_good(f);
	assert_ok(f, GOOD_OK);
}

static void
test_empty_dir(void **state)
{
	struct fixture *f = *state;

	assert_ok(f, "verify OK: 0 files (0 checked by crc32c, 0 by sha256), "
	    "0 rows, 0 partitions in 0 tables, 0 manifests");
}

static void
test_unreadable_dir(void **state)
{
	struct fixture *f = *state;
	struct verify_summary sum;
	char dir[128], msg[512];

	snprintf(dir, sizeof(dir), "%s/nonexistent", f->root);
	assert_int_equal(verify_check(dir, &sum, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, dir));
}

static void
test_duplicate(void **state)
{
	struct fixture *f = *state;
	struct part dup = good[P_ZST];
	char rel[256], want[1024];

	put_good(f);
	/* another host landed records 160..165 again */
	dup.host = "h2";
	dup.offsets = "[[160,165]]";
	dup.empty = NULL;
	dup.rows = 6;
	put_part(f, &dup, rel, sizeof(rel));
	snprintf(want, sizeof(want), "verify: %s: offsets 160..165 already "
	    "in %s (a duplicate)", rel, f->rel[P_ZST]);
	assert_verify(f, 1, want);
}

static void
test_gap_and_reject_filling_it(void **state)
{
	struct fixture *f = *state;
	char side[512];

	put_good(f);
	sidecar_rel(f->rel[P_REJ], side, sizeof(side));
	remove_rel(f, f->rel[P_REJ]);
	remove_rel(f, side);
	/* access sorts before web, whose 120 is missing too */
	assert_verify(f, 1, "verify: access t[3]: offsets 170..170 are "
	    "missing (a gap)");
	put_part(f, &good[P_REJ], f->rel[P_REJ], sizeof(f->rel[P_REJ]));
	assert_ok(f, GOOD_OK);
}

static void
test_reject_over_data(void **state)
{
	struct fixture *f = *state;
	struct part rj = good[P_REJ];
	char rel[256], want[1024];

	put_good(f);
	rj.first = 165;
	rj.rows = 1;
	rj.rejected = "{\"access\":[[165,165]]}";
	put_part(f, &rj, rel, sizeof(rel));
	snprintf(want, sizeof(want), "verify: %s: offsets 165..165 already "
	    "in %s (a duplicate)", rel, f->rel[P_ZST]);
	assert_verify(f, 1, want);
}

static void
test_spill_not_covered(void **state)
{
	struct fixture *f = *state;
	struct part sp = good[P_T4B];
	char rel[256];

	put_good(f);
	sp.partition = 3;
	sp.first = 250;
	sp.rows = 2;
	sp.offsets = NULL;
	sp.spill = "[[250,251]]";
	put_part(f, &sp, rel, sizeof(rel));
	assert_bad_file(f, rel, "spilled offsets 250..251 have their first "
	    "row in no file of access");
}

static void
truncate_rel(const struct fixture *f, const char *rel, off_t cut)
{
	char path[512];
	struct stat st;

	path_in(f, rel, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - cut), 0);
}

static void
test_truncated_gzip(void **state)
{
	struct fixture *f = *state;

	put_good(f);
	truncate_rel(f, f->rel[P_GZ], 10);
	assert_bad_file(f, f->rel[P_GZ], "truncated gzip stream");
}

static void
test_truncated_zstd(void **state)
{
	struct fixture *f = *state;

	put_good(f);
	truncate_rel(f, f->rel[P_ZST], 5);
	assert_bad_file(f, f->rel[P_ZST], "truncated zstd stream");
}

static void
test_corrupt_streams(void **state)
{
	struct fixture *f = *state;
	char path[512];
	FILE *fp;

	put_good(f);
	path_in(f, f->rel[P_T4B], path, sizeof(path));
	assert_non_null(fp = fopen(path, "a"));
	fputs("not gzip", fp);
	assert_int_equal(fclose(fp), 0);
	assert_bad_file(f, f->rel[P_T4B], "corrupt gzip stream");
	put_part(f, &good[P_T4B], f->rel[P_T4B], sizeof(f->rel[P_T4B]));
	path_in(f, f->rel[P_WEB], path, sizeof(path));
	assert_non_null(fp = fopen(path, "a"));
	fputs("not zstd", fp);
	assert_int_equal(fclose(fp), 0);
	assert_bad_file(f, f->rel[P_WEB], "corrupt zstd stream");
}

/* A file's digests, in lowercase hex. */
struct digests {
	char crc32c[CRC32C_HEX + 1];
	char sha256[65];
};

/* Changes the byte at off of the small file rel in place; its digests
 * before go to was, after to now. */
static void
poke_rel(const struct fixture *f, const char *rel, off_t off, char c,
    struct digests *was, struct digests *now)
{
	char path[512], data[65536];
	ssize_t n;
	int fd;

	path_in(f, rel, path, sizeof(path));
	assert_true((fd = open(path, O_RDWR)) >= 0);
	assert_true((n = pread(fd, data, sizeof(data), 0)) > off);
	assert_true((size_t)n < sizeof(data));
	crc32c_hex(data, (size_t)n, was->crc32c);
	sha256_hex(data, (size_t)n, was->sha256);
	data[off] = c;
	crc32c_hex(data, (size_t)n, now->crc32c);
	sha256_hex(data, (size_t)n, now->sha256);
	assert_int_equal(pwrite(fd, &c, 1, off), 1);
	assert_int_equal(close(fd), 0);
}

/* Changes the first byte of the part P_T4A after landing and expects
 * verify to name the digest ("crc32c" or "sha256") that tells. */
static void
assert_poke_caught(struct fixture *f, const char *digest)
{
	struct digests was, now;
	char want[1024];
	int crc = strcmp(digest, "crc32c") == 0;

	/* "t\0010\001..." becomes "u\0010\001..." */
	poke_rel(f, f->rel[P_T4A], 0, 'u', &was, &now);
	snprintf(want, sizeof(want), "verify: %s of %s is %s, its sidecar "
	    "says %s", digest, f->rel[P_T4A], crc ? now.crc32c : now.sha256,
	    crc ? was.crc32c : was.sha256);
	assert_verify(f, 1, want);
}

/* One byte changed after landing, the length and the rows unchanged: only
 * the sidecar's digest tells: its crc32c, the sha256 of a sidecar of a
 * kedge before the crc32c, the crc32c of one with both. */
static void
test_byte_changed_in_place(void **state)
{
	struct fixture *f = *state;
	struct part old = good[P_T4A];
	struct digests was, now;

	put_good(f);
	assert_poke_caught(f, "crc32c");
	old.legacy = L_SHA256;
	put_part(f, &old, f->rel[P_T4A], sizeof(f->rel[P_T4A]));
	assert_ok(f, GOOD_OK_BY(5, 1));
	assert_poke_caught(f, "sha256");
	old.legacy = L_BOTH;
	put_part(f, &old, f->rel[P_T4A], sizeof(f->rel[P_T4A]));
	assert_ok(f, GOOD_OK_BY(6, 1));
	assert_poke_caught(f, "crc32c");
	/* a sidecar of the earliest version has no digest to tell */
	old.legacy = L_NONE;
	put_part(f, &old, f->rel[P_T4A], sizeof(f->rel[P_T4A]));
	poke_rel(f, f->rel[P_T4A], 0, 'u', &was, &now);
	assert_ok(f, GOOD_OK_BY(5, 0));
}

/* Sidecars of earlier versions: a tree of a kedge before the crc32c
 * (sha256), of one with both digests, and of the earliest version
 * (neither, no event times). */
static void
test_legacy_sidecars(void **state)
{
	static const struct {
		int legacy;
		const char *ok;
	} trees[] = {
		{ L_SHA256, GOOD_OK_BY(0, 6) },
		{ L_BOTH, GOOD_OK_BY(6, 6) },
		{ L_NONE, GOOD_OK_BY(0, 0) },
	};
	struct fixture *f = *state;

	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		for (int i = 0; i < NGOOD; i++) {
			struct part p = good[i];

			p.legacy = trees[t].legacy;
			put_part(f, &p, f->rel[i], sizeof(f->rel[i]));
		}
		assert_ok(f, trees[t].ok);
	}
}

static void
test_no_line_end(void **state)
{
	struct fixture *f = *state;

	put_good(f);
	truncate_rel(f, f->rel[P_T4A], 1);
	assert_bad_file(f, f->rel[P_T4A], "the last row has no line end");
}

static void
test_rows_mismatch(void **state)
{
	struct fixture *f = *state;
	struct part p = good[P_ZST];

	put_good(f);
	p.rows_lie = 1;
	put_part(f, &p, f->rel[P_ZST], sizeof(f->rel[P_ZST]));
	assert_bad_file(f, f->rel[P_ZST], "49 rows, its sidecar says 50");
}

static void
test_bytes_mismatch(void **state)
{
	struct fixture *f = *state;
	struct part p = good[P_GZ];
	char want[64];
	struct stat st;
	char path[512];

	put_good(f);
	p.bytes_lie = -1;
	put_part(f, &p, f->rel[P_GZ], sizeof(f->rel[P_GZ]));
	path_in(f, f->rel[P_GZ], path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	snprintf(want, sizeof(want), "%lld bytes, its sidecar says %lld",
	    (long long)st.st_size, (long long)st.st_size - 1);
	assert_bad_file(f, f->rel[P_GZ], want);
}

static void
test_too_few_rows(void **state)
{
	struct fixture *f = *state;
	struct part p = good[P_ZST], rj = good[P_REJ];

	put_good(f);
	p.rows = 48;
	put_part(f, &p, f->rel[P_ZST], sizeof(f->rel[P_ZST]));
	assert_bad_file(f, f->rel[P_ZST], "48 rows cannot hold the 49 records");
	put_part(f, &good[P_ZST], f->rel[P_ZST], sizeof(f->rel[P_ZST]));
	rj.rows = 3;
	put_part(f, &rj, f->rel[P_REJ], sizeof(f->rel[P_REJ]));
	assert_bad_file(f, f->rel[P_REJ], "3 rows for 2 rejected records");
}

static void
test_part_without_sidecar(void **state)
{
	struct fixture *f = *state;
	char side[512];

	put_good(f);
	sidecar_rel(f->rel[P_T4B], side, sizeof(side));
	remove_rel(f, side);
	assert_bad_file(f, f->rel[P_T4B], "no sidecar .t+4+9+h.txt.gz.json");
}

static void
test_sidecar_without_part(void **state)
{
	struct fixture *f = *state;
	char side[512];

	put_good(f);
	remove_rel(f, f->rel[P_WEB]);
	sidecar_rel(f->rel[P_WEB], side, sizeof(side));
	assert_bad_file(f, side, "its part file t+3+100+h.jsonl.zst is missing");
}

static void
test_first_by_path(void **state)
{
	struct fixture *f = *state;
	struct part p = good[P_ZST];
	char side[512];

	put_good(f);
	/* two faults: the one in hr=22 comes first, whatever readdir says */
	p.rows_lie = 1;
	put_part(f, &p, f->rel[P_ZST], sizeof(f->rel[P_ZST]));
	sidecar_rel(f->rel[P_GZ], side, sizeof(side));
	remove_rel(f, side);
	assert_bad_file(f, f->rel[P_GZ], "no sidecar");
}

static void
test_name_and_table(void **state)
{
	struct fixture *f = *state;

	put_good(f);
	put_sidecar_of(f, P_T4A, "{\"kedge\":1,\"table\":\"access\","
	    "\"topic\":\"t\",\"partition\":4,\"host\":\"other\","
	    "\"first_offset\":0,\"rows\":10,\"bytes\":1,\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"offsets\":[[0,9]],\"empty\":[],\"spill\":[]}");
	assert_bad_file(f, f->rel[P_T4A], "its sidecar names it "
	    "t+4+0+other.txt");
	put_sidecar_of(f, P_T4A, "{\"kedge\":1,\"table\":\"web\","
	    "\"topic\":\"t\",\"partition\":4,\"host\":\"h\","
	    "\"first_offset\":0,\"rows\":10,\"bytes\":1,\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"offsets\":[[0,9]],\"empty\":[],\"spill\":[]}");
	assert_bad_file(f, f->rel[P_T4A], "its sidecar says table web");
}

/* A valid sidecar with `from` replaced by `to`. */
static void
mangle(char *out, size_t outlen, const char *from, const char *to)
{
	static const char base[] = "{\"kedge\":1,\"table\":\"access\","
	    "\"topic\":\"t\",\"partition\":4,\"host\":\"h\","
	    "\"first_offset\":0,\"rows\":10,\"bytes\":1,\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"offsets\":[[0,9]],\"empty\":[],\"spill\":[]}";
	const char *at = strstr(base, from);

	assert_non_null(at);
	snprintf(out, outlen, "%.*s%s%s", (int)(at - base), base, to,
	    at + strlen(from));
}

/* The SHA-256 of no byte. */
#define SHA_EMPTY \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void
test_malformed_sidecars(void **state)
{
	static const struct {
		const char *from, *to, *said;
	} cases[] = {
		{ "{", "", "line 1, column 7: '[' or '{' expected near "
		    "'\"kedge\"'" },
		{ "\"spill\":[]}", "\"spill\":[]",
		    "'}' expected near end of file" },
		{ "\"spill\":[]}", "\"spill\":[]} x",
		    "end of file expected near 'x'" },
		{ "\"spill\":[]}", "\"spill\":[],\"colour\":\"red\"}",
		    "unknown key" },
		{ "\"rows\":10,", "", "no \"rows\"" },
		{ "\"rows\":10,", "\"rows\":10,\"rows\":10,",
		    "duplicate object key near '\"rows\"'" },
		{ "\"rows\":10", "\"rows\":1.5",
		    "\"rows\": expected an integer, found a real number" },
		{ "\"rows\":10", "\"rows\":-1", "\"rows\": negative" },
		{ "\"rows\":10", "\"rows\":010", "line 1, column 90: invalid token" },
		{ "\"rows\":10", "\"rows\":99999999999999999999",
		    "too big integer" },
		{ "\"rows\":10", "\"rows\":\"10\"",
		    "\"rows\": expected an integer, found a string" },
		{ "\"kedge\":1", "\"kedge\":2", "version 2, this kedge reads 1" },
		{ "[[0,9]]", "[[9,0]]", "range [9,0] ends before it starts" },
		{ "[[0,9]]", "[[5,9],[0,4]]", "range [0,4] is out of order" },
		{ "[[0,9]]", "[[0,5],[5,9]]", "range [5,9] is out of order" },
		{ "[[0,9]]", "[[0,9,10]]", "element 0 is not a range" },
		{ "\"codec\":\"none\"", "\"codec\":\"lz4\"",
		    "\"codec\": unknown name" },
		{ "\"host\":\"h\"", "\"host\":\"a/b\"", "holds '/'" },
		{ "\"host\":\"h\"", "\"host\":\"h\x01\"",
		    "control character 0x1" },
		{ "\"host\":\"h\"", "\"host\":\"h\\q\"",
		    "invalid escape" },
		{ "\"host\":\"h\"", "\"host\":\"\\u0000\"", "\\u0000" },
		{ "\"spill\":[]}", "\"spill\":[],\"rejected\":{\"web\":[[1,1]]}}",
		    "\"rejected\" in a file of table access" },
		{ "\"partition\":4", "\"partition\":2147483648",
		    "\"partition\": 2147483648 is out of range" },
		{ "\"bytes\":1,", "\"bytes\":1,\"sha256\":\"e3b0c442\",",
		    "\"sha256\": not 64 lowercase hex digits" },
		{ "\"bytes\":1,", "\"bytes\":1,\"sha256\":\"E3B0C44298FC1C14"
		    "9AFBF4C8996FB92427AE41E4649B934CA495991B7852B855\",",
		    "\"sha256\": not 64 lowercase hex digits" },
		{ "\"bytes\":1,", "\"bytes\":1,\"sha256\":null,",
		    "\"sha256\": expected a string, found null" },
		{ "\"bytes\":1,", "\"bytes\":1,\"sha256\":\"" SHA_EMPTY "\","
		    "\"sha256\":\"" SHA_EMPTY "\",",
		    "duplicate object key near '\"sha256\"'" },
		{ "\"codec\":\"none\"", "\"codec\":\"none\",\"min_event_us\":1",
		    "only one of \"min_event_us\" and \"max_event_us\" is "
		    "given" },
		{ "\"codec\":\"none\"", "\"codec\":\"none\",\"min_event_us\":"
		    "null,\"max_event_us\":5", "\"max_event_us\" is null" },
		{ "\"codec\":\"none\"", "\"codec\":\"none\",\"min_event_us\":"
		    "null,\"max_event_us\":null",
		    "no event times for 10 rows" },
		{ "\"codec\":\"none\"", "\"codec\":\"none\",\"min_event_us\":"
		    "5,\"max_event_us\":4",
		    "min_event_us 5 is after max_event_us 4" },
		{ "\"codec\":\"none\"", "\"codec\":\"none\",\"min_event_us\":"
		    "\"5\",\"max_event_us\":5", "\"min_event_us\": expected an "
		    "integer, found a string" },
		{ "\"rows\":10,", "\"rows\":0,\"min_event_us\":4,"
		    "\"max_event_us\":5,", "event times in a file of no row" },
	};
	struct fixture *f = *state;
	struct verify_summary sum;
	char side[512], json[1024], want[1024], msg[4096];

	put_good(f);
	sidecar_rel(f->rel[P_T4A], side, sizeof(side));
	snprintf(want, sizeof(want), "verify: %s: malformed sidecar: ", side);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mangle(json, sizeof(json), cases[i].from, cases[i].to);
		put_sidecar_of(f, P_T4A, json);
		if (verify_check(f->root, &sum, msg, sizeof(msg)) != 1 ||
		    strncmp(msg, want, strlen(want)) != 0 ||
		    strstr(msg, cases[i].said) == NULL)
			fail_msg("%s: got \"%s\", want \"%s...%s\"", json, msg,
			    want, cases[i].said);
	}
	/* a rejects file must say what it rejects */
	sidecar_rel(f->rel[P_REJ], side, sizeof(side));
	put_sidecar_of(f, P_REJ, "{\"kedge\":1,\"table\":\"_rejects\","
	    "\"topic\":\"t\",\"partition\":3,\"host\":\"h\","
	    "\"first_offset\":120,\"rows\":2,\"bytes\":1,\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"offsets\":[],\"empty\":[],\"spill\":[]}");
	snprintf(want, sizeof(want), "verify: %s: malformed sidecar: no "
	    "\"rejected\"", side);
	assert_verify(f, 1, want);
}

static void
test_big_files(void **state)
{
	struct fixture *f = *state;
	struct part gz = { "big", H22, "t", 0, 0, "h", CODEC_GZIP, 40000, 7,
	    "[[0,39999]]", NULL, NULL, NULL, 0, 0, 0, 0 };
	struct part zst = { "big", H23, "t", 0, 40000, "h", CODEC_ZSTD, 40000,
	    5, "[[40000,79999]]", NULL, NULL, NULL, 1, 0, 0, 0 };
	char rel[256];
	struct stat st;
	char path[512];

	put_part(f, &gz, rel, sizeof(rel));
	/* bigger than a read chunk, so members end across chunks */
	path_in(f, rel, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 3 * 128 * 1024);
	put_part(f, &zst, rel, sizeof(rel));
	assert_ok(f, "verify OK: 2 files (2 checked by crc32c, 0 by sha256), "
	    "80000 rows, 1 partitions in 1 tables, 0 manifests");
}

/* The manifest of access/H23 that agrees with the good tree, and what it
 * points into. */
struct hour_manifest {
	struct sidecar sc[2];
	struct manifest_file files[2];
	struct manifest_partition parts[2];
	struct manifest m;
};

#define H23_DIR "access/" H23
#define H23_MANIFEST H23_DIR "/" MANIFEST_NAME

static void
read_sidecar(const struct fixture *f, int which, struct sidecar *sc)
{
	char side[512], path[512], text[4096], err[256];
	size_t len;
	FILE *fp;

	sidecar_rel(f->rel[which], side, sizeof(side));
	path_in(f, side, path, sizeof(path));
	assert_non_null(fp = fopen(path, "r"));
	len = fread(text, 1, sizeof(text), fp);
	fclose(fp);
	memset(sc, 0, sizeof(*sc));
	assert_int_equal(sidecar_parse(text, len, sc, err, sizeof(err)), 0);
}

/* Fills h from the sidecars of the hour's two part files; the second
 * came late, in revision 2. */
static void
good_manifest(const struct fixture *f, struct hour_manifest *h)
{
	static const int which[2] = { P_T4A, P_ZST };
	uint64_t rows = 0, bytes = 0;
	int64_t lo = MANIFEST_NO_TIME, hi = MANIFEST_NO_TIME;

	for (int i = 0; i < 2; i++) {
		struct sidecar *sc = &h->sc[i];
		read_sidecar(f, which[i], sc);
		h->files[i] = (struct manifest_file){
		    strrchr(f->rel[which[i]], '/') + 1, (uint64_t)sc->bytes,
		    (uint64_t)sc->rows, "", "", sc->topic, (int32_t)sc->partition,
		    sc->offsets, sc->has_event_range ? sc->min_event_us :
		    MANIFEST_NO_TIME, sc->has_event_range ? sc->max_event_us :
		    MANIFEST_NO_TIME, (uint64_t)i + 1 };
		if (sc->has_event_range && (lo == MANIFEST_NO_TIME ||
		    sc->min_event_us < lo))
			lo = sc->min_event_us;
		if (sc->has_event_range && (hi == MANIFEST_NO_TIME ||
		    sc->max_event_us > hi))
			hi = sc->max_event_us;
		h->parts[i] = (struct manifest_partition){ sc->topic,
		    (int32_t)sc->partition, sc->offsets, (uint64_t)sc->rows };
		rows += (uint64_t)sc->rows;
		bytes += (uint64_t)sc->bytes;
	}
	h->m = (struct manifest){ "access", "20261129", "23", 2, "h",
	    "2026-11-29T16:05:00Z", 1795968000000000, rows, bytes, 0,
	    h->files[1].rows, lo, hi, h->files, 2, h->parts, 2, 2, 0, 0 };
}

static void
put_manifest(const struct fixture *f, const struct manifest *m)
{
	struct buf out = { 0 };

	assert_int_equal(manifest_format(m, &out), 0);
	put_file(f, H23_MANIFEST, out.data, out.len);
	buf_clear(&out);
}

static void
test_manifests(void **state)
{
	struct fixture *f = *state;
	struct hour_manifest h;
	struct manifest saved;

	put_good(f);
	good_manifest(f, &h);
	put_manifest(f, &h.m);
	assert_verify(f, 1, "verify: " H23_MANIFEST ": no _SUCCESS beside it");
	put_text(f, H23_DIR "/_SUCCESS", "");
	assert_ok(f, "verify OK: 6 files (6 checked by crc32c, 0 by sha256), "
	    "234 rows, 3 partitions in 2 tables, 1 manifests");

	h.m.rows++;
	put_manifest(f, &h.m);
	assert_verify(f, 1, "verify: " H23_MANIFEST ": says 60 rows, its files "
	    "hold 59");
	h.m.rows--;
	h.files[0].rows++;
	put_manifest(f, &h.m);
	assert_verify(f, 1, "verify: " H23_MANIFEST ": t+4+0+h.txt: says 11 "
	    "rows, its sidecar 10");
	h.files[0].rows--;
	/* a file the manifest does not list landed after it: it waits for
	 * the next revision, which is no violation (the totals then count
	 * only the files listed) */
	saved = h.m;
	h.m.nfiles = 1;
	h.m.rows = h.files[0].rows;
	h.m.bytes = h.files[0].bytes;
	h.m.late_rows = 0;
	h.m.min_event_us = h.files[0].min_event_us;
	h.m.max_event_us = h.files[0].max_event_us;
	h.m.nparts = 1;
	put_manifest(f, &h.m);
	assert_verify(f, 0, ", 1 manifests (1 files landed after their hour's "
	    "manifest, for its next revision)");
	h.m = saved;
	h.m.nfiles = 2;
	h.files[1].name = "t+3+149+h.txt.zst";
	put_manifest(f, &h.m);
	assert_verify(f, 1, "verify: " H23_MANIFEST ": lists t+3+149+h.txt.zst, "
	    "which is not there");
	h.files[1].name = strrchr(f->rel[P_ZST], '/') + 1;
	memcpy(h.m.hr, "22", 3);
	put_manifest(f, &h.m);
	assert_verify(f, 1, "verify: " H23_MANIFEST ": says it is the manifest "
	    "of access/" H22);
	memcpy(h.m.hr, "23", 3);
	put_text(f, H23_MANIFEST, "{}\n");
	assert_verify(f, 1, "verify: " H23_MANIFEST ": malformed manifest: no "
	    "\"kedge\"");
	remove_rel(f, H23_MANIFEST);
	assert_verify(f, 1, "verify: " H23_DIR ": _SUCCESS without "
	    "_MANIFEST.json");
	for (int i = 0; i < 2; i++)
		sidecar_clear(&h.sc[i]);
}

static void
test_sidecar_parse_example(void **state)
{
	static const char text[] = "{\"kedge\":1,\"table\":\"_rejects\","
	    "\"topic\":\"nginx-access\",\"partition\":3,\"host\":\"edge\\u00e9\","
	    "\"first_offset\":120000,\"rows\":3,\"bytes\":56789,"
	    "\"format\":\"jsonl\",\"codec\":\"zstd\",\"offsets\":[],"
	    "\"empty\":[],\"spill\":[],\"rejected\":{\"access\":"
	    "[[120003,120003],[120050,120051]]}}\n";
	struct sidecar sc;
	char err[256];

	(void)state;
	memset(&sc, 0, sizeof(sc));
	assert_int_equal(sidecar_parse(text, strlen(text), &sc, err,
	    sizeof(err)), 0);
	assert_string_equal(sc.topic, "nginx-access");
	assert_string_equal(sc.host, "edge\xc3\xa9");
	assert_int_equal(sc.partition, 3);
	assert_int_equal(sc.first_offset, 120000);
	assert_int_equal(sc.format, FORMAT_JSONL);
	assert_int_equal(sc.codec, CODEC_ZSTD);
	assert_string_equal(sc.sha256, "");  /* written before "sha256" */
	assert_string_equal(sc.crc32c, "");
	assert_false(sc.has_event_range);
	assert_int_equal(sc.nrejected, 1);
	assert_string_equal(sc.rejected[0].table, "access");
	assert_int_equal(sc.rejected[0].ranges.n, 2);
	assert_int_equal(sc.rejected[0].ranges.v[1].first, 120050);
	assert_int_equal(sidecar_ranges_count(&sc.rejected[0].ranges), 3);
	sidecar_clear(&sc);
	sidecar_clear(&sc);
}

/* The keys earlier versions lack: "sha256" and the event range, negative
 * for a time before 1970, null for a file of no row. */
static void
test_sidecar_parse_digest_and_events(void **state)
{
	static const char rows[] = "{\"kedge\":1,\"table\":\"access\","
	    "\"topic\":\"t\",\"partition\":0,\"host\":\"h\","
	    "\"first_offset\":7,\"rows\":2,\"bytes\":4,"
	    "\"sha256\":\"" SHA_EMPTY "\",\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"min_event_us\":-1000,"
	    "\"max_event_us\":1795946400000000,\"offsets\":[[7,8]],"
	    "\"empty\":[],\"spill\":[]}\n";
	static const char none[] = "{\"kedge\":1,\"table\":\"access\","
	    "\"topic\":\"t\",\"partition\":0,\"host\":\"h\","
	    "\"first_offset\":7,\"rows\":0,\"bytes\":0,"
	    "\"sha256\":\"" SHA_EMPTY "\",\"format\":\"hive-text\","
	    "\"codec\":\"none\",\"min_event_us\":null,"
	    "\"max_event_us\":null,\"offsets\":[],\"empty\":[[7,7]],"
	    "\"spill\":[]}\n";
	struct sidecar sc;
	char err[256];

	(void)state;
	memset(&sc, 0, sizeof(sc));
	if (sidecar_parse(rows, strlen(rows), &sc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(sc.sha256, SHA_EMPTY);
	assert_true(sc.has_event_range);
	assert_int_equal(sc.min_event_us, -1000);
	assert_int_equal(sc.max_event_us, 1795946400000000);
	sidecar_clear(&sc);
	if (sidecar_parse(none, strlen(none), &sc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(sc.sha256, SHA_EMPTY);
	assert_false(sc.has_event_range);
	sidecar_clear(&sc);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_good_tree),
		T(test_empty_dir),
		T(test_unreadable_dir),
		T(test_duplicate),
		T(test_gap_and_reject_filling_it),
		T(test_reject_over_data),
		T(test_spill_not_covered),
		T(test_truncated_gzip),
		T(test_truncated_zstd),
		T(test_corrupt_streams),
		T(test_byte_changed_in_place),
		T(test_legacy_sidecars),
		T(test_no_line_end),
		T(test_rows_mismatch),
		T(test_bytes_mismatch),
		T(test_too_few_rows),
		T(test_part_without_sidecar),
		T(test_sidecar_without_part),
		T(test_first_by_path),
		T(test_name_and_table),
		T(test_malformed_sidecars),
		T(test_big_files),
		T(test_manifests),
		cmocka_unit_test(test_sidecar_parse_example),
		cmocka_unit_test(test_sidecar_parse_digest_and_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
