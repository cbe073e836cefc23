#include "agent/parse/rejects.h"
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct udtf_column rejects_columns[] = {
	{ "table", UDTF_STRING },
	{ "topic", UDTF_STRING },
	{ "partition", UDTF_INT64 },
	{ "offset", UDTF_INT64 },
	{ "arrival_time", UDTF_TIMESTAMP },
	{ "reason", UDTF_STRING },
	{ "raw", UDTF_STRING },        /* its first max_raw bytes */
	{ "raw_bytes", UDTF_INT64 },   /* the record's length */
	{ "raw_truncated", UDTF_BOOL },
};
#define REJECTS_NCOLS (sizeof(rejects_columns) / sizeof(rejects_columns[0]))

struct rejects {
	struct writer *writer;
	struct tz *tz;
	size_t max_raw;   /* bytes of a record a row keeps */
};

struct rejects *
rejects_new(const struct conf *c, struct tz *tz, char *err, size_t errlen)
{
	struct writer_opts o = {
		.table = REJECTS_TABLE,
		.spool_dir = c->output.spool_dir,
		.host = c->output.host,
		.format = { c->output.rejects.format, '\001', tz },
		.codec = c->output.rejects.codec,
		.roll = roll_policy_of(c),
	};
	struct rejects *rj;

	if ((rj = calloc(1, sizeof(*rj))) == NULL) {
		snprintf(err, errlen, "rejects: out of memory");
		return NULL;
	}
	rj->tz = tz;
	rj->max_raw = (size_t)c->output.rejects.max_raw_bytes;
	rj->writer = writer_new(&o, rejects_columns, REJECTS_NCOLS, err, errlen);
	if (rj->writer == NULL) {
		free(rj);
		return NULL;
	}
	return rj;
}

void
rejects_free(struct rejects *rj)
{
	if (rj == NULL)
		return;
	writer_free(rj->writer);
	free(rj);
}

static struct udtf_value
rejects_str(const char *s, size_t len)
{
	struct udtf_value v = { .type = UDTF_STRING };

	v.u.s.ptr = s;
	v.u.s.len = len;
	return v;
}

int
rejects_add(struct rejects *rj, const char *table,
    const struct udtf_record *rec, const char *reason, char *err,
    size_t errlen)
{
	struct udtf_value vals[REJECTS_NCOLS];
	struct writer_origin o = { rec->topic, rec->partition, rec->offset, 1,
	    table, 0 };
	struct tz_hour hour;
	struct timespec now;
	int64_t now_us;

	clock_gettime(CLOCK_REALTIME, &now);
	now_us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
	o.event_us = now_us;    /* rejects are filed by their arrival */
	if (tz_hour_of(rj->tz, now_us, &hour) < 0) {
		return err_set(err, errlen, -ERANGE,
		    "rejects: the clock is out of range");
	}
	vals[0] = rejects_str(table, strlen(table));
	vals[1] = rejects_str(rec->topic, strlen(rec->topic));
	vals[2] = (struct udtf_value){ .type = UDTF_INT64, .u.i64 = rec->partition };
	vals[3] = (struct udtf_value){ .type = UDTF_INT64, .u.i64 = rec->offset };
	vals[4] = (struct udtf_value){ .type = UDTF_TIMESTAMP, .u.ts_us = now_us };
	vals[5] = rejects_str(reason, strlen(reason));
	/* a huge record would make a huge row: the row keeps its start, and
	 * says so; topic, partition and offset find the rest in Kafka */
	vals[6] = rejects_str(rec->data, rec->len < rj->max_raw ? rec->len :
	    rj->max_raw);
	vals[7] = (struct udtf_value){ .type = UDTF_INT64,
	    .u.i64 = (int64_t)rec->len };
	vals[8] = (struct udtf_value){ .type = UDTF_BOOL,
	    .u.b = rec->len > rj->max_raw };
	return writer_write(rj->writer, &hour, &o, vals, err, errlen);
}

struct writer *
rejects_writer(struct rejects *rj)
{
	return rj->writer;
}

struct roll_policy
roll_policy_of(const struct conf *c)
{
	return (struct roll_policy){ (uint64_t)c->output.roll.max_bytes,
	    c->output.roll.max_age, c->output.roll.inactive,
	    (unsigned)c->output.roll.max_open_files,
	    (unsigned)c->output.roll.max_parked_files };
}
