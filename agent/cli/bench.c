#include "agent/cli/bench.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <inttypes.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "agent/parse/chain.h"
#include "agent/source/source.h"
#include "agent/parse/latency.h"
#include "agent/udtf/coltype.h"
#include "lib/buf.h"
#include "lib/grow.h"
#include "lib/tick.h"

#define BENCH_ROUNDS 3
#define BENCH_CONSUME_BATCH 1024

struct bench {
	struct udtf_record *recs; /* record i: topic "bench", offset i */
	size_t n;
	size_t read;              /* records in the input (n: those measured) */
	struct buf input;
	struct chain *chain;
	struct latency lat;
	uint64_t rows, rejects;   /* of one pass over the input */
	char first_reject[600];
	pcre2_code *re;
	pcre2_match_data *md;
	uint64_t sink;            /* keeps the regex's work observable */
	enum coltype_kind *kinds; /* group g+1 converts as column g; NULL:
	                           * the groups are not the columns */
};

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bench_read(struct bench *b, const char *path, char delimiter)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t got, cap = 0, start = 0;

	if (f == NULL) {
		fprintf(stderr, "kedge bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_append(&b->input, chunk, got) < 0)
			goto oom;
	fclose(f);
	for (size_t i = 0; i <= b->input.len; i++) {
		if (i < b->input.len && b->input.data[i] != delimiter)
			continue;
		if (i == b->input.len && i == start)
			break;
		if (grow_array((void **)&b->recs, &cap, b->n + 1,
		    sizeof(*b->recs)) < 0)
			return -1;
		b->recs[b->n] = (struct udtf_record){
			.data = b->input.data + start, .len = i - start,
			.topic = "bench", .offset = (int64_t)b->n,
			.timestamp_ms = -1 };
		b->n++;
		start = i + 1;
	}
	if (b->n == 0) {
		fprintf(stderr, "kedge bench: %s holds no record\n", path);
		return -1;
	}
	return 0;
oom:
	fclose(f);
	fprintf(stderr, "kedge bench: out of memory reading %s\n", path);
	return -1;
}

/* One pass over the input through the chain, every record timed as the
 * daemon times it, or none. */
static void
bench_pass_chain(struct bench *b, int timed, int count)
{
	struct chain_span spans[CHAIN_BATCH_MAX];

	for (size_t at = 0; at < b->n;) {
		size_t got = chain_parse_batch(b->chain, b->recs + at,
		    b->n - at, spans, timed ? &b->lat : NULL);

		for (size_t i = 0; count && i < got; i++) {
			if (spans[i].result < 0 && b->rejects++ == 0)
				snprintf(b->first_reject,
				    sizeof(b->first_reject), "record %zu: %s",
				    at + i, chain_reason(b->chain, &spans[i]));
			b->rows += spans[i].nrows;
		}
		at += got;
	}
}

/* The regex's pass: a match, then every group typed as the chain types
 * its column, when the groups are the columns. */
static void
bench_pass_regex(struct bench *b)
{
	uint32_t groups = pcre2_get_ovector_count(b->md);
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(b->md);
	struct udtf_value v;
	char why[128];

	for (size_t i = 0; i < b->n; i++) {
		const char *rec = b->recs[i].data;
		int rc = pcre2_jit_match(b->re, (PCRE2_SPTR)rec, b->recs[i].len,
		    0, 0, b->md, NULL);
		if (rc < 0)
			continue;
		for (uint32_t g = 1; g < groups && g < (uint32_t)rc; g++) {
			size_t len = ov[2 * g + 1] - ov[2 * g];
			b->sink += len;
			if (b->kinds != NULL &&
			    coltype_convert(b->kinds[g - 1], "", rec + ov[2 * g],
			    len, &v, why, sizeof(why)) == 0)
				b->sink += (uint64_t)v.u.i64;
		}
	}
}

/* Keeps the records the regex matches, so that the UDTF and the regex
 * are measured on the same lines: one that misses lines would be timed
 * on failed matches. */
static void
bench_keep_matched(struct bench *b)
{
	size_t kept = 0;

	for (size_t i = 0; i < b->n; i++)
		if (pcre2_jit_match(b->re, (PCRE2_SPTR)b->recs[i].data,
		    b->recs[i].len, 0, 0, b->md, NULL) >= 0)
			b->recs[kept++] = b->recs[i];
	b->read = b->n;
	b->n = kept;
}

/* When the regex has a group per column of the chain, its pass converts
 * each group to its column's type, as the UDTF does. */
static int
bench_regex_kinds(struct bench *b)
{
	const struct udtf_column *cols;
	uint32_t groups;
	size_t ncols;

	chain_columns(b->chain, &cols, &ncols);
	pcre2_pattern_info(b->re, PCRE2_INFO_CAPTURECOUNT, &groups);
	if (groups != ncols)
		return 0;
	if ((b->kinds = calloc(ncols, sizeof(*b->kinds))) == NULL)
		return -1;
	for (size_t i = 0; i < ncols; i++)
		b->kinds[i] = cols[i].type == UDTF_INT64 ? COLTYPE_INT64 :
		    cols[i].type == UDTF_DOUBLE ? COLTYPE_DOUBLE :
		    cols[i].type == UDTF_BOOL ? COLTYPE_BOOL :
		    cols[i].type == UDTF_TIMESTAMP ? COLTYPE_TIMESTAMP :
		    COLTYPE_STRING;
	return 0;
}

/* Runs passes of kind until `seconds` have gone; returns ns per record. */
static double
bench_measure(struct bench *b, int kind, double seconds)
{
	double t0 = bench_now(), t;
	uint64_t records = 0;

	do {
		if (kind == 2)
			bench_pass_regex(b);
		else
			bench_pass_chain(b, kind, 0);
		records += b->n;
	} while ((t = bench_now()) - t0 < seconds);
	return (t - t0) * 1e9 / (double)records;
}

static int
bench_is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* The regex a person would write for an nginx log_format: its text
 * literally, each variable a group up to the next literal byte.  Leaves a
 * NUL-terminated pattern in re. */
static int
bench_nginx_regex(const char *format, struct buf *re)
{
	const char *p = format;
	int r = buf_append(re, "^", 1);

	while (r == 0 && *p != '\0') {
		char esc[2] = { '\\', *p };
		int braced;

		if (*p != '$') {
			/* all but letters and digits get a backslash: then
			 * PCRE2 takes them literally */
			r = bench_is_alnum(*p) ? buf_append(re, p, 1) :
			    buf_append(re, esc, 2);
			p++;
			continue;
		}
		braced = p[1] == '{';
		for (p += 1 + braced; bench_is_alnum(*p) || *p == '_'; p++)
			;
		p += braced && *p == '}';
		if (*p == '\0') {
			r = buf_append(re, "(.*)", 4);
			break;
		}
		esc[1] = *p;
		if ((r = buf_append(re, "([^", 3)) == 0 &&
		    (r = buf_append(re, esc, 2)) == 0)
			r = buf_append(re, "]*)", 3);
	}
	return r == 0 ? buf_append(re, "$", 2) : r;  /* "$" and its NUL */
}

/* The reference regex: given, or derived from a lone nginx UDTF's
 * log_format.  Returns 0 (b->re may stay NULL: no reference) or -1. */
static int
bench_regex_init(struct bench *b, const struct conf_table *t,
    const char *given)
{
	struct buf derived = { 0 };
	const char *pattern = given;
	PCRE2_SIZE erroff;
	int errcode;

	if (pattern == NULL && t->n_udtf == 1 &&
	    strcmp(t->udtf[0].spec, "nginx") == 0)
		for (size_t i = 0; i < t->udtf[0].n_params; i++)
			if (strcmp(t->udtf[0].params[i].key, "log_format") == 0 &&
			    bench_nginx_regex(t->udtf[0].params[i].value,
			    &derived) == 0)
				pattern = derived.data;
	if (pattern == NULL)
		return 0;
	b->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0,
	    &errcode, &erroff, NULL);
	if (b->re == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		fprintf(stderr, "kedge bench: --regex at offset %zu: %s\n",
		    (size_t)erroff, (char *)msg);
		buf_clear(&derived);
		return -1;
	}
	buf_clear(&derived);
	if ((errcode = pcre2_jit_compile(b->re, PCRE2_JIT_COMPLETE)) != 0) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		fprintf(stderr, "kedge bench: PCRE2 JIT unavailable: %s\n",
		    (char *)msg);
		return -1;
	}
	if ((b->md = pcre2_match_data_create_from_pattern(b->re, NULL)) == NULL)
		return -1;
	return bench_regex_kinds(b);
}

static void
bench_report(struct bench *b, const struct bench_opts *o, double untimed,
    double timed, double regex, FILE *out)
{
	char line[512];

	fprintf(out, "table %s: UDTF %s over %zu records of %s\n", o->table,
	    chain_name(b->chain), b->n, o->input);
	if (b->re != NULL)
		fprintf(out, "  measured on     the %zu of %zu records the regex "
		    "matches\n", b->n, b->read);
	fprintf(out, "  records/s       %.0f (one core)\n", 1e9 / untimed);
	fprintf(out, "  ns/record       %.1f\n", untimed);
	latency_describe(&b->lat, line, sizeof(line));
	fprintf(out, "  latency ns      %s (%" PRIu64 " records timed)\n", line,
	    b->lat.hist.count);
	fprintf(out, "  rows out        %" PRIu64 " from %zu records; %" PRIu64
	    " rejects\n", b->rows, b->n, b->rejects);
	if (b->rejects > 0)
		fprintf(out, "  first reject    %s\n", b->first_reject);
	fprintf(out, "  timing cost     %.1f %% of the parse time (%.1f ns timed, "
	    "%.1f untimed; clock %s)\n", (timed - untimed) * 100 / untimed,
	    timed, untimed, tick_source());
	if (b->re != NULL)
		fprintf(out, "  PCRE2-JIT regex %.1f ns/record (%s); kedge/regex "
		    "speed ratio %.2f\n", regex, b->kinds != NULL ? "match, then "
		    "each group typed as its column" : "match only: its groups "
		    "are not the columns", regex / untimed);
	else
		fprintf(out, "  PCRE2-JIT regex not measured: pass --regex "
		    "PATTERN\n");
	for (size_t i = b->lat.nslow; i-- > 0;)
		fprintf(out, "  slow record     %" PRId64 ": %" PRIu64 " ns\n",
		    b->lat.slow[i].offset, b->lat.slow[i].ns);
}

int
bench_udtf(const struct conf *c, const struct bench_opts *o, FILE *out)
{
	double untimed = 1e300, timed = 1e300, regex = 1e300, v;
	struct bench b;
	char err[1024];
	size_t index;
	int status = 1;

	memset(&b, 0, sizeof(b));
	for (index = 0; index < c->n_tables; index++)
		if (strcmp(c->tables[index].name, o->table) == 0)
			break;
	if (index == c->n_tables) {
		fprintf(stderr, "kedge bench: %s has no table \"%s\"\n", c->path,
		    o->table);
		return 1;
	}
	tick_init();
	if ((b.chain = chain_new(c, index, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	if (bench_read(&b, o->input, o->delimiter) < 0 ||
	    bench_regex_init(&b, &c->tables[index], o->regex) < 0)
		goto out;
	if (b.re != NULL)
		bench_keep_matched(&b);
	if (b.n == 0) {
		fprintf(stderr, "kedge bench: no record of %s to measure%s\n",
		    o->input, b.re != NULL ? ": the regex matches none" : "");
		goto out;
	}
	if (o->passes > 0) {
		/* the UDTF as kedge runs it: every record timed */
		for (int p = 0; p < o->passes; p++) {
			if (o->only != BENCH_REGEX)
				bench_pass_chain(&b, 1, p == 0);
			if (o->only != BENCH_UDTF && b.re != NULL)
				bench_pass_regex(&b);
		}
		fprintf(out, "table %s: %d passes over %zu records (%s); %" PRIu64
		    " rows\n", o->table, o->passes, b.n, o->only == BENCH_UDTF ?
		    "UDTF" : o->only == BENCH_REGEX ? "regex" : "UDTF and regex",
		    b.rows);
		status = 0;
		goto out;
	}
	bench_pass_chain(&b, 0, 1);         /* counts rows; warms up */
	if (b.re != NULL)
		bench_pass_regex(&b);
	for (int round = 0; round < BENCH_ROUNDS; round++) {
		if ((v = bench_measure(&b, 0, o->seconds)) < untimed)
			untimed = v;
		if ((v = bench_measure(&b, 1, o->seconds)) < timed)
			timed = v;
		if (b.re != NULL && (v = bench_measure(&b, 2, o->seconds)) <
		    regex)
			regex = v;
	}
	bench_report(&b, o, untimed, timed, regex, out);
	status = 0;
out:
	chain_free(b.chain);
	pcre2_match_data_free(b.md);
	pcre2_code_free(b.re);
	free(b.kinds);
	buf_clear(&b.input);
	free(b.recs);
	return status;
}

/* The librdkafka settings that bound what the consumer holds in memory,
 * as they are in effect for c. */
static void
bench_memory_settings(const struct conf *c, FILE *out)
{
	static const char *const keys[] = { "queued.max.messages.kbytes",
	    "queued.min.messages", "fetch.max.bytes", "fetch.message.max.bytes",
	    "receive.message.max.bytes" };
	rd_kafka_conf_t *rc;
	char err[512], val[64];

	if ((rc = source_properties(c, err, sizeof(err))) == NULL)
		return;
	fprintf(out, "librdkafka:");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t len = sizeof(val);

		if (rd_kafka_conf_get(rc, keys[i], val, &len) == RD_KAFKA_CONF_OK)
			fprintf(out, " %s=%s", keys[i], val);
	}
	fprintf(out, "\n");
	rd_kafka_conf_destroy(rc);
}

/* A rebalance: nothing is kept, so there is nothing to make durable. */
static void
bench_parts(void *opaque, const rd_kafka_topic_partition_list_t *parts)
{
	(void)opaque;
	(void)parts;
}

int
bench_consume(const struct conf *c, double limit, FILE *out)
{
	struct source_hooks hooks = { bench_parts, bench_parts, bench_parts,
	    NULL };
	rd_kafka_message_t *msgs[BENCH_CONSUME_BATCH];
	double t0 = bench_now(), first = 0, last = 0, closed;
	uint64_t records = 0, bytes = 0;
	struct source *s;
	struct rusage ru;
	char err[512];

	if ((s = source_new(c, &hooks, err, sizeof(err))) == NULL ||
	    source_start(s, NULL, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "kedge bench consume: %s\n", err);
		source_close(s);
		return 1;
	}
	while (!source_at_end(s)) {
		size_t n = source_poll(s, msgs, BENCH_CONSUME_BATCH, 100);

		for (size_t i = 0; i < n; i++) {
			bytes += msgs[i]->len;
			source_done(s, msgs[i]);
			rd_kafka_message_destroy(msgs[i]);
		}
		if (n > 0) {
			last = bench_now();
			if (records == 0)
				first = last;
			records += n;
		}
		if (bench_now() - t0 > limit) {
			fprintf(stderr, "kedge bench consume: not at the end of "
			    "the partitions after %.0f s (%" PRIu64 " records)\n",
			    limit, records);
			source_close(s);
			return 1;
		}
	}
	closed = bench_now();
	source_close(s);
	closed = bench_now() - closed;
	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, "consumed %" PRIu64 " records (%" PRIu64 " bytes), "
	    "dropped unparsed, in %.3f s from the first to the last: %.0f "
	    "records/s\n", records, bytes, last - first,
	    last > first ? (double)records / (last - first) : 0.0);
	fprintf(out, "first record after %.3f s; at the end after %.3f s; "
	    "closed in %.3f s\n", records ? first - t0 : 0.0,
	    bench_now() - t0 - closed, closed);
	fprintf(out, "cpu user %.3f s sys %.3f s; peak RSS %ld KiB\n",
	    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	    ru.ru_maxrss);
	bench_memory_settings(c, out);
	return 0;
}
