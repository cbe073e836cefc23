/*
 * The checkpoint record's text and the commit metadata: what is written
 * reads back the same, and what is not kedge's is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "checkpoint/ckpt.h"

static void
test_round_trip(void **state)
{
	struct ckpt_record r = { 0 }, back = { 0 };
	struct buf b = { 0 };
	char err[256];

	(void)state;
	r.id = 1795946400123;
	r.host = strdup("edge-01.example");
	assert_int_equal(ckpt_record_add(&r, "nginx-access", 3, 120345), 0);
	assert_int_equal(ckpt_record_add(&r, "other.topic", 0, 0), 0);
	assert_int_equal(ckpt_record_encode(&r, &b), 0);
	assert_int_equal(ckpt_record_decode(b.data, b.len, &back, err,
	    sizeof(err)), 0);
	assert_int_equal(back.id, r.id);
	assert_string_equal(back.host, "edge-01.example");
	assert_int_equal(back.nparts, 2);
	assert_string_equal(back.parts[0].topic, "nginx-access");
	assert_int_equal(back.parts[0].partition, 3);
	assert_int_equal(back.parts[0].next, 120345);
	assert_string_equal(back.parts[1].topic, "other.topic");
	ckpt_record_clear(&r);
	ckpt_record_clear(&back);
	buf_clear(&b);
}

static void
expect_refused(const char *text, const char *why)
{
	struct ckpt_record r = { 0 };
	char err[256] = "";

	assert_int_equal(ckpt_record_decode(text, strlen(text), &r, err,
	    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, why));
	ckpt_record_clear(&r);
}

static void
test_refused(void **state)
{
	(void)state;
	expect_refused("", "lacks");
	expect_refused("kedge-checkpoint 2\nid 1\nhost h\n", "not a kedge");
	expect_refused("kedge-checkpoint 1\nhost h\n", "lacks its id");
	expect_refused("kedge-checkpoint 1\nid 1\nid 2\nhost h\n", "line 3");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t x 1\n",
	    "line 4: the partition");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 -5\n",
	    "line 4");
}

/* What a damaged or forged record may say: numbers out of their range,
 * trailing words, names that are not names, repeats, NUL bytes, a cut. */
static void
test_refused_damage(void **state)
{
	static const char nul[] = "kedge-checkpoint 1\nid 1\0\nhost h\n";
	static const char max[] = "kedge-checkpoint 1\nid 9223372036854775807\n"
	    "host h\npart t 2147483647 9223372036854775807\n";
	struct ckpt_record r = { 0 };
	char err[256] = "";

	(void)state;
	/* ids: overflow, sign, zero, trailing bytes */
	expect_refused("kedge-checkpoint 1\nid 18446744073709551616\nhost h\n",
	    "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid 9223372036854775808\nhost h\n",
	    "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid -1\nhost h\n", "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid 0\nhost h\n", "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid 5x\nhost h\n", "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid 5 6\nhost h\n", "line 2");
	expect_refused("kedge-checkpoint 1\nid  5\nhost h\n", "line 2");
	/* partitions and offsets past int32 and int64, or signed */
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 2147483648 1\n",
	    "line 4: the partition");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 4294967297 1\n",
	    "line 4: the partition");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t -1 1\n",
	    "line 4: the partition");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\n"
	    "part t 1 9223372036854775808\n", "line 4: the offset");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 +5\n",
	    "line 4: the offset");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 01 5\n",
	    "line 4: the partition");
	expect_refused("kedge-checkpoint 1\nid 07\nhost h\n", "line 2: the id");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 5 6\n",
	    "line 4");
	/* names that would reach paths */
	expect_refused("kedge-checkpoint 1\nid 1\nhost ../..\n",
	    "line 3: the host");
	expect_refused("kedge-checkpoint 1\nid 1\nhost a/b\n", "line 3: the host");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart ../x 1 1\n",
	    "line 4: the topic");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart .. 1 1\n",
	    "line 4: the topic");
	/* repeats, a cut, a NUL */
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\nhost g\n",
	    "line 4: a second host");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 5\n"
	    "part t 1 7\n", "line 5: a second line for this partition");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 5",
	    "cut short");
	expect_refused("kedge-checkpoint 1 \nid 1\nhost h\n", "not a kedge");
	assert_int_equal(ckpt_record_decode(nul, sizeof(nul) - 1, &r, err,
	    sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL"));
	ckpt_record_clear(&r);
	/* the largest values still read */
	assert_int_equal(ckpt_record_decode(max, strlen(max), &r, err,
	    sizeof(err)), 0);
	assert_true(r.id == UINT64_C(9223372036854775807));
	assert_int_equal(r.parts[0].partition, 2147483647);
	assert_true(r.parts[0].next == INT64_C(9223372036854775807));
	ckpt_record_clear(&r);
}

/* Metadata that must be foreign: it names no host kedge could be, or its
 * id is not an id.  None may reach a path. */
static void
expect_foreign(const char *md, size_t len)
{
	char host[CKPT_HOST_MAX + 1] = "untouched";
	uint64_t id = 7;

	assert_int_equal(ckpt_metadata_parse(md, len, host, sizeof(host), &id),
	    -EINVAL);
	assert_string_equal(host, "untouched");
	assert_int_equal(id, 7);
}

static void
test_metadata_foreign(void **state)
{
	char md[400], host[CKPT_HOST_MAX + 1];
	uint64_t id;

	(void)state;
	expect_foreign("kedge:../../..:5", 16);
	expect_foreign("kedge:../../../spool/checkpoint/checkpoint.a:5", 46);
	expect_foreign("kedge:a/b:5", 11);
	expect_foreign("kedge:.:5", 9);
	expect_foreign("kedge:..:5", 10);
	expect_foreign("kedge:.hidden:5", 15);
	expect_foreign("kedge::5", 8);
	expect_foreign("kedge:edge\n<0>forged:5", 22);
	expect_foreign("kedge:edge\001:5", 13);
	expect_foreign("kedge:ed\0ge:5", 13);
	expect_foreign("kedge:edge\x7f:5", 13);
	expect_foreign("kedge:edge 01:5", 15);
	expect_foreign("kedge:a:b:5", 11);
	/* a 300-byte host */
	memcpy(md, "kedge:", 6);
	memset(md + 6, 'h', 300);
	memcpy(md + 306, ":5", 2);
	expect_foreign(md, 308);
	/* 65 bytes is one too many; 64 is a host */
	memset(md + 6, 'h', 65);
	memcpy(md + 71, ":5", 2);
	expect_foreign(md, 73);
	memcpy(md + 70, ":5", 2);
	assert_int_equal(ckpt_metadata_parse(md, 72, host, sizeof(host), &id), 0);
	assert_int_equal(strlen(host), 64);
	/* a host buffer too small for it is a refusal, not an overflow */
	assert_int_equal(ckpt_metadata_parse(md, 72, host, 64, &id), -EINVAL);
	/* ids out of range or not plain decimal */
	expect_foreign("kedge:edge01:18446744073709551616", 33);
	expect_foreign("kedge:edge01:99999999999999999999999", 36);
	expect_foreign("kedge:edge01:9223372036854775808", 32);
	expect_foreign("kedge:edge01:0", 14);
	expect_foreign("kedge:edge01:-1", 15);
	expect_foreign("kedge:edge01:+1", 15);
	expect_foreign("kedge:edge01: 1", 15);
	expect_foreign("kedge:edge01:1 ", 15);
	expect_foreign("kedge:edge01:1\n", 15);
	/* one spelling per id: what kedge writes */
	expect_foreign("kedge:edge01:042", 16);
	expect_foreign("kedge:edge01:00", 15);
	assert_int_equal(ckpt_metadata_parse("kedge:edge01:9223372036854775807",
	    32, host, sizeof(host), &id), 0);
	assert_true(id == UINT64_C(9223372036854775807));
}

/* The one check of a host name, as output.host and metadata use it. */
static void
test_host_check(void **state)
{
	char why[128];

	(void)state;
	assert_int_equal(ckpt_host_check("edge-01.example.com", 19, why,
	    sizeof(why)), 0);
	assert_int_equal(ckpt_host_check("..", 2, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "may not start with '.'");
	assert_int_equal(ckpt_host_check("a/b", 3, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "only letters"));
	assert_int_equal(ckpt_host_check("", 0, why, sizeof(why)), -EINVAL);
	assert_int_equal(ckpt_host_check("a\nb", 3, NULL, 0), -EINVAL);
}

static void
test_metadata(void **state)
{
	char md[64], host[32];
	uint64_t id = 0;

	(void)state;
	assert_int_equal(ckpt_metadata_format("edge01", 42, md, sizeof(md)), 15);
	assert_string_equal(md, "kedge:edge01:42");
	assert_int_equal(ckpt_metadata_parse(md, strlen(md), host, sizeof(host),
	    &id), 0);
	assert_string_equal(host, "edge01");
	assert_int_equal(id, 42);
	assert_int_equal(ckpt_metadata_parse("", 0, host, sizeof(host), &id),
	    -EINVAL);
	assert_int_equal(ckpt_metadata_parse("flink:x:1", 9, host, sizeof(host),
	    &id), -EINVAL);
	assert_int_equal(ckpt_metadata_parse("kedge:h:", 8, host, sizeof(host),
	    &id), -EINVAL);
	assert_int_equal(ckpt_metadata_parse("kedge:h:12x", 11, host,
	    sizeof(host), &id), -EINVAL);
	assert_int_equal(ckpt_metadata_format("edge01", 42, md, 8),
	    -ENAMETOOLONG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_refused_damage),
		cmocka_unit_test(test_metadata_foreign),
		cmocka_unit_test(test_host_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
