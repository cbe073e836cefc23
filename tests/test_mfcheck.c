/*
 * mfcheck: an hour of three part files (two of one partition, the second
 * late) and the manifest that agrees with them, in memory.  It passes, also
 * with a partition's offsets written as one range where its files have two
 * that touch; each way a manifest can disagree (a file listed twice, a
 * file's topic or offsets, a total, late rows, event times, a partition
 * missing, twice, of no file, with other rows or offsets) fails with the
 * sentence that says what differs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/complete/mfcheck.h"

static struct sidecar_range r_a[] = { { 0, 9 } }, r_b[] = { { 10, 19 } },
    r_c[] = { { 5, 5 }, { 7, 8 } }, r_ab[] = { { 0, 9 }, { 10, 19 } },
    r_joined[] = { { 0, 19 } }, r_short[] = { { 0, 18 } };

#define RANGES(r) { r, sizeof(r) / sizeof(r[0]), sizeof(r) / sizeof(r[0]) }

/* The hour: a+0 (t[0], 10 rows), a+1 (t[1], 3 rows), b+0 (t[0], 12 rows,
 * late). */
struct hour {
	struct sidecar sc[3];
	struct mfcheck_file files[3];
	struct manifest_file mf[3];
	struct manifest_partition parts[2];
	struct manifest m;
};

static void
hour_init(struct hour *h)
{
	static const struct {
		const char *name;
		int32_t partition;
		int64_t rows, bytes;
		struct sidecar_ranges offsets;
		int64_t min, max;
		uint64_t revision;
	} f[3] = {
		{ "t+0+0+a.txt", 0, 10, 100, RANGES(r_a), 1000, 1500, 1 },
		{ "t+1+5+a.txt", 1, 3, 30, RANGES(r_c), 900, 2000, 1 },
		{ "t+0+10+b.txt", 0, 12, 120, RANGES(r_b), 1200, 1300, 2 },
	};

	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 3; i++) {
		h->sc[i].table = "access";
		h->sc[i].topic = "t";
		h->sc[i].host = "a";
		h->sc[i].partition = f[i].partition;
		h->sc[i].rows = f[i].rows;
		h->sc[i].bytes = f[i].bytes;
		h->sc[i].offsets = f[i].offsets;
		h->sc[i].has_fingerprint = 1;
		h->sc[i].fingerprint = UINT64_MAX - i;
		h->mf[i] = (struct manifest_file){ (char *)f[i].name,
		    (uint64_t)f[i].bytes, (uint64_t)f[i].rows, "", "", "t",
		    f[i].partition, f[i].offsets, f[i].min, f[i].max,
		    f[i].revision };
	}
	/* mfcheck wants the hour's files sorted by name */
	h->files[0] = (struct mfcheck_file){ f[0].name, &h->sc[0] };
	h->files[1] = (struct mfcheck_file){ f[2].name, &h->sc[2] };
	h->files[2] = (struct mfcheck_file){ f[1].name, &h->sc[1] };
	h->parts[0] = (struct manifest_partition){ "t", 0, RANGES(r_ab), 22 };
	h->parts[1] = (struct manifest_partition){ "t", 1, RANGES(r_c), 3 };
	h->m = (struct manifest){ "access", "20261129", "23", 2, "a",
	    "2026-11-29T16:05:00Z", 0, 25, 250, 0, 12, 900, 2000, h->mf, 3,
	    h->parts, 2, 2, 1, UINT64_MAX - 5 };
}

static void
assert_agrees(const struct hour *h)
{
	char why[512] = "";

	if (mfcheck_hour(&h->m, h->files, 3, why, sizeof(why)) != 0)
		fail_msg("%s", why);
}

static void
assert_differs(const struct hour *h, const char *want)
{
	char why[512] = "";
	int r = mfcheck_hour(&h->m, h->files, 3, why, sizeof(why));

	if (r != 1 || strcmp(why, want) != 0)
		fail_msg("%d \"%s\", want 1 \"%s\"", r, why, want);
}

static void
test_agrees(void **state)
{
	struct manifest_partition p;
	struct manifest_file f;
	struct hour h;

	(void)state;
	hour_init(&h);
	assert_agrees(&h);
	h.parts[0].offsets = (struct sidecar_ranges)RANGES(r_joined);
	assert_agrees(&h);
	/* the lists are in no particular order */
	f = h.mf[0];
	h.mf[0] = h.mf[2];
	h.mf[2] = f;
	p = h.parts[0];
	h.parts[0] = h.parts[1];
	h.parts[1] = p;
	assert_agrees(&h);
}

/* The fingerprint is the sum modulo 2^64 of the sidecars'; a manifest
 * of an earlier kedge has none, and one with it needs every sidecar's. */
static void
test_fingerprint(void **state)
{
	struct hour h;

	(void)state;
	hour_init(&h);
	h.m.fingerprint++;
	assert_differs(&h, "says fingerprint fffffffffffffffb, its files' "
	    "sidecars add up to fffffffffffffffa");
	hour_init(&h);
	h.m.has_fingerprint = 0;
	assert_agrees(&h);
	hour_init(&h);
	h.sc[2].has_fingerprint = 0;
	assert_differs(&h, "has a fingerprint, and the sidecar of "
	    "t+0+10+b.txt none");
}

static void
test_files(void **state)
{
	struct hour h;

	(void)state;
	hour_init(&h);
	h.mf[2].name = "t+0+0+a.txt";
	assert_differs(&h, "lists t+0+0+a.txt twice");
	hour_init(&h);
	h.mf[1].name = "t+1+6+a.txt";
	assert_differs(&h, "lists t+1+6+a.txt, which is not there");
	hour_init(&h);
	h.m.nfiles = 2;
	assert_differs(&h, "does not list t+0+10+b.txt");
	hour_init(&h);
	h.mf[0].bytes = 99;
	assert_differs(&h, "t+0+0+a.txt: says 99 bytes, its sidecar 100");
	hour_init(&h);
	h.mf[0].topic = "u";
	assert_differs(&h, "t+0+0+a.txt: says u[0], its sidecar t[0]");
	hour_init(&h);
	h.mf[0].offsets = (struct sidecar_ranges)RANGES(r_b);
	assert_differs(&h, "t+0+0+a.txt: says other offsets than its sidecar");
}

/* A file's crc32c and sha256, each when both sides have it, are its
 * sidecar's. */
static void
test_digests(void **state)
{
	static const char sha[] = "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef";
	struct hour h;

	(void)state;
	hour_init(&h);
	strcpy(h.sc[0].crc32c, "e3069283");
	assert_agrees(&h);          /* an earlier manifest has none */
	strcpy(h.mf[0].crc32c, "e3069283");
	assert_agrees(&h);
	strcpy(h.mf[0].crc32c, "e3069284");
	assert_differs(&h, "t+0+0+a.txt: says crc32c e3069284, its sidecar "
	    "e3069283");
	hour_init(&h);
	strcpy(h.sc[0].sha256, sha);
	strcpy(h.mf[0].sha256, sha);
	assert_agrees(&h);
	h.mf[0].sha256[63] = '0';
	assert_differs(&h, "t+0+0+a.txt: says sha256 0123456789abcdef0123456789"
	    "abcdef0123456789abcdef0123456789abcde0, its sidecar "
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
}

static void
test_totals(void **state)
{
	struct hour h;

	(void)state;
	hour_init(&h);
	h.m.bytes = 251;
	assert_differs(&h, "says 251 bytes, its files hold 250");
	hour_init(&h);
	h.m.late_rows = 0;
	assert_differs(&h, "says 0 late rows, its files of later revisions "
	    "hold 12");
	hour_init(&h);
	h.m.max_event_us = 1500;
	assert_differs(&h, "says events from 900 to 1500, its files from 900 "
	    "to 2000");
	hour_init(&h);
	h.mf[1].min_event_us = h.mf[1].max_event_us = MANIFEST_NO_TIME;
	assert_differs(&h, "says events from 900 to 2000, its files from 1000 "
	    "to 1500");
}

static void
test_partitions(void **state)
{
	struct hour h;

	(void)state;
	hour_init(&h);
	h.m.nparts = 1;
	assert_differs(&h, "lists no partition t[1] for t+1+5+a.txt");
	hour_init(&h);
	h.parts[0].rows = 10;
	assert_differs(&h, "says 10 rows in t[0], its files hold 22");
	hour_init(&h);
	h.parts[0].offsets = (struct sidecar_ranges)RANGES(r_short);
	assert_differs(&h, "the offsets of t[0] are not the union of its "
	    "files'");
	hour_init(&h);
	h.parts[1].offsets = (struct sidecar_ranges)RANGES(r_a);
	assert_differs(&h, "the offsets of t[1] are not the union of its "
	    "files'");
}

/* The manifest's partitions with a third one. */
static void
test_partition_more(void **state)
{
	struct manifest_partition parts[3];
	struct hour h;

	(void)state;
	hour_init(&h);
	memcpy(parts, h.parts, sizeof(h.parts));
	h.m.parts = parts;
	h.m.nparts = 3;
	parts[2] = (struct manifest_partition){ "t", 7, RANGES(r_a), 0 };
	assert_differs(&h, "lists partition t[7], of none of its files");
	parts[2] = parts[0];
	assert_differs(&h, "lists partition t[0] twice");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_digests),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_partition_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
