#include "checkpoint/ckpt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/grow.h"

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

	if (grow_array((void **)&r->parts, &r->parts_cap, r->nparts + 1,
	    sizeof(*r->parts)) < 0)
		return -ENOMEM;
	parts = r->parts;
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

/* Parses the decimal s[0..len) into *v: digits only, without leading
 * zeros (as kedge writes numbers: one spelling each), at most max.
 * Returns 0, -EINVAL for anything else, -ERANGE over max. */
static int
ckpt_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (len == 0 || (len > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (n > (max - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int
ckpt_id_parse(const char *s, size_t len, uint64_t *id)
{
	uint64_t v;
	int r;

	if ((r = ckpt_parse_dec(s, len, CKPT_ID_MAX, &v)) < 0)
		return r;
	if (v == 0)
		return -ERANGE;
	*id = v;
	return 0;
}

static int
ckpt_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-';
}

static int
ckpt_why(char *why, size_t whylen, const char *text)
{
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", text);
	return -EINVAL;
}

int
ckpt_host_check(const char *host, size_t len, char *why, size_t whylen)
{
	if (len == 0)
		return ckpt_why(why, whylen, "is empty");
	if (len > CKPT_HOST_MAX)
		return ckpt_why(why, whylen, "is longer than the 64 bytes of a "
		    "host name");
	for (size_t i = 0; i < len; i++)
		if (!ckpt_host_char(host[i]))
			return ckpt_why(why, whylen, "may hold only letters, "
			    "digits, '.' and '-'");
	if (host[0] == '.')
		return ckpt_why(why, whylen, "may not start with '.'");
	return 0;
}

/* The fields of one line, split at single spaces. */
#define CKPT_FIELDS_MAX 4
struct ckpt_fields {
	const char *p[CKPT_FIELDS_MAX];
	size_t len[CKPT_FIELDS_MAX];
	size_t n;
};

/* Splits line[0..len) at each space.  Returns 0, or -EINVAL for an empty
 * field (two spaces, a space at either end) or too many fields. */
static int
ckpt_split(const char *line, size_t len, struct ckpt_fields *f)
{
	size_t start = 0;

	f->n = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start || f->n == CKPT_FIELDS_MAX)
			return -EINVAL;
		f->p[f->n] = line + start;
		f->len[f->n++] = i - start;
		start = i + 1;
	}
	return 0;
}

static int
ckpt_is(const struct ckpt_fields *f, const char *word, size_t n)
{
	return f->n == n && f->len[0] == strlen(word) &&
	    memcmp(f->p[0], word, f->len[0]) == 0;
}

/* A topic as the record names it: a name that fits a file name, as the
 * spool uses it in one. */
static int
ckpt_topic_ok(const char *s, size_t len)
{
	if (len == 0 || len > CKPT_NAME_MAX || (s[0] == '.' && (len == 1 ||
	    (len == 2 && s[1] == '.'))))
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == '/' || s[i] == 0x7f)
			return 0;
	return 1;
}

static int
ckpt_has_part(const struct ckpt_record *r, const char *topic, size_t len,
    int32_t partition)
{
	for (size_t i = 0; i < r->nparts; i++)
		if (r->parts[i].partition == partition &&
		    strlen(r->parts[i].topic) == len &&
		    memcmp(r->parts[i].topic, topic, len) == 0)
			return 1;
	return 0;
}

/* Parses one line of a record into r.  Returns 0, -EINVAL with what is
 * wrong in why, or -ENOMEM. */
static int
ckpt_decode_line(const char *line, size_t len, struct ckpt_record *r,
    int *have, const char **why)
{
	struct ckpt_fields f;
	uint64_t partition, next;
	char topic[CKPT_NAME_MAX + 1];

	*why = "not understood";
	if (ckpt_split(line, len, &f) < 0)
		return -EINVAL;
	if (ckpt_is(&f, "id", 2)) {
		*why = have[0]++ ? "a second id" : "the id is not 1 to "
		    "9223372036854775807 in decimal";
		return have[0] > 1 ? -EINVAL :
		    ckpt_id_parse(f.p[1], f.len[1], &r->id) < 0 ? -EINVAL : 0;
	}
	if (ckpt_is(&f, "host", 2)) {
		*why = have[1]++ ? "a second host" : "the host is not a host name";
		if (have[1] > 1 || ckpt_host_check(f.p[1], f.len[1], NULL, 0) < 0)
			return -EINVAL;
		return (r->host = strndup(f.p[1], f.len[1])) == NULL ? -ENOMEM : 0;
	}
	if (!ckpt_is(&f, "part", 4))
		return -EINVAL;
	*why = "the topic is not a topic name";
	if (!ckpt_topic_ok(f.p[1], f.len[1]))
		return -EINVAL;
	*why = "the partition is not 0 to 2147483647 in decimal";
	if (ckpt_parse_dec(f.p[2], f.len[2], INT32_MAX, &partition) < 0)
		return -EINVAL;
	*why = "the offset is not 0 to 9223372036854775807 in decimal";
	if (ckpt_parse_dec(f.p[3], f.len[3], INT64_MAX, &next) < 0)
		return -EINVAL;
	*why = "a second line for this partition";
	if (ckpt_has_part(r, f.p[1], f.len[1], (int32_t)partition))
		return -EINVAL;
	memcpy(topic, f.p[1], f.len[1]);
	topic[f.len[1]] = '\0';
	return ckpt_record_add(r, topic, (int32_t)partition, (int64_t)next);
}

int
ckpt_record_decode(const char *data, size_t len, struct ckpt_record *r,
    char *err, size_t errlen)
{
	int have[2] = { 0, 0 }, lineno = 0, rc;
	const char *why;
	size_t pos = 0;

	if (memchr(data, '\0', len) != NULL)
		return err_set(err, errlen, -EINVAL,
		    "the record holds a NUL byte");
	if (len > 0 && data[len - 1] != '\n')
		return err_set(err, errlen, -EINVAL,
		    "the record does not end with a newline "
		    "(cut short)");
	while (pos < len) {
		const char *line = data + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = (size_t)(nl - line);

		lineno++;
		pos += n + 1;
		if (lineno == 1) {
			if (n != strlen(CKPT_MAGIC) ||
			    memcmp(line, CKPT_MAGIC, n) != 0)
				return err_set(err, errlen, -EINVAL,
				    "not a kedge checkpoint record");
			continue;
		}
		if ((rc = ckpt_decode_line(line, n, r, have, &why)) < 0)
			return err_set(err, errlen, rc, "line %d: %s", lineno,
			    rc == -ENOMEM ? "out of memory" : why);
	}
	if (have[0] != 1 || have[1] != 1)
		return err_set(err, errlen, -EINVAL,
		    "the record lacks its id or host");
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
	const char *text = md, *colon;
	size_t hlen;

	if (md == NULL || len < 6 || memcmp(text, "kedge:", 6) != 0)
		return -EINVAL;
	if ((colon = memrchr(text + 6, ':', len - 6)) == NULL)
		return -EINVAL;
	hlen = (size_t)(colon - text - 6);
	if (ckpt_host_check(text + 6, hlen, NULL, 0) < 0 || hlen >= hostlen ||
	    ckpt_id_parse(colon + 1, len - (size_t)(colon + 1 - text), id) < 0)
		return -EINVAL;
	memcpy(host, text + 6, hlen);
	host[hlen] = '\0';
	return 0;
}
