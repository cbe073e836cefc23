#include "ckpt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_MAGIC "kedge-checkpoint 1"
#define CKPT_NAME_MAX 255

int
ckpt_record_encode(const struct ckpt_record *r, struct buf *out)
{
	char line[CKPT_NAME_MAX + 64];
	int n, rc;

	n = snprintf(line, sizeof(line), CKPT_MAGIC "\nid %" PRIu64 "\nhost %s\n",
	    r->id, r->host);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	if ((rc = buf_append(out, line, (size_t)n)) < 0)
		return rc;
	for (size_t i = 0; i < r->nparts; i++) {
		n = snprintf(line, sizeof(line), "part %s %" PRId32 " %" PRId64 "\n",
		    r->parts[i].topic, r->parts[i].partition, r->parts[i].next);
		if (n < 0 || (size_t)n >= sizeof(line))
			return -ENAMETOOLONG;
		if ((rc = buf_append(out, line, (size_t)n)) < 0)
			return rc;
	}
	return 0;
}

int
ckpt_record_add(struct ckpt_record *r, const char *topic, int32_t partition,
    int64_t next)
{
	struct ckpt_part *parts;

	parts = realloc(r->parts, (r->nparts + 1) * sizeof(*parts));
	if (parts == NULL)
		return -ENOMEM;
	r->parts = parts;
	if ((parts[r->nparts].topic = strdup(topic)) == NULL)
		return -ENOMEM;
	parts[r->nparts].partition = partition;
	parts[r->nparts].next = next;
	r->nparts++;
	return 0;
}

void
ckpt_record_clear(struct ckpt_record *r)
{
	for (size_t i = 0; i < r->nparts; i++)
		free(r->parts[i].topic);
	free(r->parts);
	free(r->host);
	memset(r, 0, sizeof(*r));
}

/* Parses one line of a record into r. */
static int
ckpt_decode_line(const char *line, struct ckpt_record *r, int *have)
{
	char name[CKPT_NAME_MAX + 1];
	int32_t partition;
	int64_t next;
	uint64_t id;

	if (sscanf(line, "id %" SCNu64, &id) == 1 && have[0]++ == 0) {
		r->id = id;
		return 0;
	}
	if (sscanf(line, "host %255s", name) == 1 && have[1]++ == 0)
		return (r->host = strdup(name)) == NULL ? -ENOMEM : 0;
	if (sscanf(line, "part %255s %" SCNd32 " %" SCNd64, name, &partition,
	    &next) == 3 && partition >= 0 && next >= 0)
		return ckpt_record_add(r, name, partition, next);
	return -EINVAL;
}

int
ckpt_record_decode(const char *data, size_t len, struct ckpt_record *r,
    char *err, size_t errlen)
{
	char line[CKPT_NAME_MAX + 64];
	int have[2] = { 0, 0 }, lineno = 0, rc;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - data - pos) : len - pos;

		lineno++;
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "line %d is too long", lineno);
			return -EINVAL;
		}
		memcpy(line, data + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (lineno == 1) {
			if (strcmp(line, CKPT_MAGIC) != 0) {
				snprintf(err, errlen, "not a kedge checkpoint record");
				return -EINVAL;
			}
			continue;
		}
		if ((rc = ckpt_decode_line(line, r, have)) < 0) {
			snprintf(err, errlen, "line %d: %s", lineno,
			    rc == -ENOMEM ? "out of memory" : "not understood");
			return rc;
		}
	}
	if (have[0] != 1 || have[1] != 1) {
		snprintf(err, errlen, "the record lacks its id or host");
		return -EINVAL;
	}
	return 0;
}

int
ckpt_metadata_format(const char *host, uint64_t id, char *buf, size_t len)
{
	int n = snprintf(buf, len, "kedge:%s:%" PRIu64, host, id);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int
ckpt_metadata_parse(const void *md, size_t len, char *host, size_t hostlen,
    uint64_t *id)
{
	char text[CKPT_NAME_MAX + 32], *colon, *end;

	if (md == NULL || len < 8 || len >= sizeof(text))
		return -EINVAL;
	memcpy(text, md, len);
	text[len] = '\0';
	if (strncmp(text, "kedge:", 6) != 0 ||
	    (colon = strrchr(text + 6, ':')) == NULL || colon == text + 6)
		return -EINVAL;
	*colon = '\0';
	errno = 0;
	*id = strtoull(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || end == colon + 1 ||
	    strlen(text + 6) >= hostlen)
		return -EINVAL;
	strcpy(host, text + 6);
	return 0;
}
