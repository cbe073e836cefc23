/*
 * source_probe: the brokers as check-config sees them, through a consumer
 * from source_new() that is not started (source_probe(), see source.h):
 * their metadata, each configured topic on them, and whether their ACLs
 * let kedge read the topics and use its group.  It reads the group's
 * committed offsets and never commits.  librdkafka's errors on the way
 * are debug lines, the last one quoted in a failure's sentence
 * (source->said): a terminal running check-config gets one answer, not
 * librdkafka's lines.
 */
#include "agent/source/source_int.h"
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* "; librdkafka's last error: <it>" when there is one, else "". */
static const char *
source_probe_said(const struct source *s, char *buf, size_t len)
{
	if (s->said[0] == '\0')
		return "";
	snprintf(buf, len, "; librdkafka's last error: %s", s->said);
	return buf;
}

/* For source_probe(): the brokers let kedge read: its group's committed
 * offsets (the group's ACL) and a fetch at the end of each topic's
 * partition 0 (the topic's READ), within timeout_ms. */
static int
source_probe_read(struct source *s, int timeout_ms, char *err, size_t errlen)
{
	const struct conf *c = s->conf;
	rd_kafka_topic_partition_list_t *list, *copy;
	rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
	time_t until = time(NULL) + (timeout_ms + 999) / 1000;
	char why[sizeof(s->failure)], said[sizeof(s->said) + 32];
	int ended = 0, r = 0;

	list = rd_kafka_topic_partition_list_new((int)c->kafka.topics.n);
	for (size_t i = 0; i < c->kafka.topics.n; i++)
		rd_kafka_topic_partition_list_add(list, c->kafka.topics.v[i],
		    0)->offset = RD_KAFKA_OFFSET_END;
	/* A refused group shows as the consumer's error while it looks for
	 * the group's coordinator, not as rd_kafka_committed()'s: look for it
	 * each second. */
	while (s->grouped) {
		rd_kafka_message_t *m;

		copy = rd_kafka_topic_partition_list_copy(list);
		e = source_parts_error(rd_kafka_committed(s->rk, copy, 1000),
		    copy);
		rd_kafka_topic_partition_list_destroy(copy);
		while (e == RD_KAFKA_RESP_ERR__TIMED_OUT &&
		    (m = rd_kafka_consumer_poll(s->rk, 0)) != NULL) {
			if (m->err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED)
				e = m->err;
			rd_kafka_message_destroy(m);
		}
		if (e != RD_KAFKA_RESP_ERR__TIMED_OUT || time(NULL) >= until)
			break;
	}
	if (e == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED) {
		source_acl_sentence(s, e, NULL, why, sizeof(why));
		snprintf(err, errlen, "kafka: %s", why);
		r = -EACCES;
	} else if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		snprintf(err, errlen, "kafka: cannot read the committed offsets "
		    "of group %s: %s%s", c->kafka.group_id, rd_kafka_err2str(e),
		    source_probe_said(s, said, sizeof(said)));
		r = -EIO;
	} else if ((e = rd_kafka_assign(s->rk, list)) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR) {
		snprintf(err, errlen, "kafka: cannot assign: %s",
		    rd_kafka_err2str(e));
		r = -EIO;
	}
	while (r == 0 && ended < list->cnt) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(s->rk, 100);

		if (m == NULL) {
			if (time(NULL) <= until)
				continue;
			snprintf(err, errlen, "kafka: no answer to a fetch from "
			    "%s within %d s%s", c->kafka.brokers, timeout_ms / 1000,
			    source_probe_said(s, said, sizeof(said)));
			r = -EIO;
			break;
		}
		if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			ended++;
		} else if (m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
			source_acl_sentence(s, m->err, m, why, sizeof(why));
			snprintf(err, errlen, "kafka: %s", why);
			r = -EACCES;
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_assign(s->rk, NULL);
	rd_kafka_topic_partition_list_destroy(list);
	return r;
}

int
source_probe(struct source *s, int timeout_ms, char *info, size_t infolen,
    char *err, size_t errlen)
{
	const struct conf *c = s->conf;
	const struct rd_kafka_metadata *md;
	char said[sizeof(s->said) + 32];
	rd_kafka_resp_err_t e;
	size_t used;
	int r = 0;

	s->quiet = 1;
	e = rd_kafka_metadata(s->rk, 1, NULL, &md, timeout_ms);
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(s->rk, 100);

		/* the poll serves the error callback: the reason, if any */
		if (m != NULL)
			rd_kafka_message_destroy(m);
		if (s->failure[0] != '\0') {
			return err_set(err, errlen, -EACCES, "kafka: %s",
			    s->failure);
		}
		return err_set(err, errlen, -EIO,
		    "kafka: no metadata from %s within %d s: %s%s; check "
		    "kafka.brokers and kafka.security, and that the brokers run",
		    c->kafka.brokers, timeout_ms / 1000, rd_kafka_err2str(e),
		    source_probe_said(s, said, sizeof(said)));
	}
	used = (size_t)snprintf(info, infolen, "%d broker(s)", md->broker_cnt);
	for (size_t i = 0; i < c->kafka.topics.n && r == 0; i++) {
		const struct rd_kafka_metadata_topic *t = NULL;

		for (int j = 0; j < md->topic_cnt; j++)
			if (strcmp(md->topics[j].topic, c->kafka.topics.v[i]) == 0)
				t = &md->topics[j];
		if (t == NULL || t->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
			snprintf(err, errlen, "kafka: topic %s: %s",
			    c->kafka.topics.v[i], t == NULL ? "not on the brokers" :
			    rd_kafka_err2str(t->err));
			r = -ENOENT;
		} else if (used < infolen) {
			used += (size_t)snprintf(info + used, infolen - used,
			    "; %s (%d partitions)", t->topic, t->partition_cnt);
		}
	}
	rd_kafka_metadata_destroy(md);
	if (r == 0)
		r = source_probe_read(s, timeout_ms, err, errlen);
	return r;
}
