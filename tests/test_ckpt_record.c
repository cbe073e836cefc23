/*
 * The checkpoint record's text and the commit metadata: what is written
 * reads back the same, and what is not kedge's is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
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
	buf_free(&b);
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
	    "line 4: not understood");
	expect_refused("kedge-checkpoint 1\nid 1\nhost h\npart t 1 -5\n",
	    "line 4");
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
