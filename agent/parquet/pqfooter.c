#include "agent/parquet/pqfooter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/parquet/rle.h"
#include "agent/parquet/thrift.h"
#include "lib/err.h"
#include "lib/grow.h"
#include "lib/le.h"

/* Compact protocol types beyond what the writer writes (thrift.h). */
enum {
	PQF_T_BYTE = 3,
	PQF_T_DOUBLE = 7,
	PQF_T_SET = 10,
	PQF_T_MAP = 11,
	PQF_T_UUID = 13
};

/* A cursor over the footer; bad is set by the first read that fails, and
 * every later read returns zeroes. */
struct pqf_in {
	const unsigned char *p, *end;
	int bad;
	int depth;
};

static uint64_t
pqf_varint(struct pqf_in *in)
{
	uint64_t v = 0;

	if (in->bad || rle_uleb128_get(&in->p, in->end, &v) < 0) {
		in->bad = 1;
		return 0;
	}
	return v;
}

static int64_t
pqf_zigzag(struct pqf_in *in)
{
	return rle_unzigzag(pqf_varint(in));
}

static unsigned char
pqf_byte(struct pqf_in *in)
{
	if (in->bad || in->p >= in->end) {
		in->bad = 1;
		return 0;
	}
	return *in->p++;
}

/* Bytes of a binary value: a pointer into the footer and its length. */
static const unsigned char *
pqf_binary(struct pqf_in *in, size_t *len)
{
	uint64_t n = pqf_varint(in);
	const unsigned char *p = in->p;

	if (in->bad || n > (uint64_t)(in->end - in->p)) {
		in->bad = 1;
		*len = 0;
		return NULL;
	}
	in->p += n;
	*len = (size_t)n;
	return p;
}

static char *
pqf_string(struct pqf_in *in, int *nomem)
{
	size_t len;
	const unsigned char *p = pqf_binary(in, &len);
	char *s;

	if (p == NULL)
		return NULL;
	if ((s = strndup((const char *)p, len)) == NULL)
		*nomem = 1;
	return s;
}

/* A list or set header: its element type and count; the count is
 * bounded by the bytes left (an element takes one at least). */
static size_t
pqf_list(struct pqf_in *in, int *etype)
{
	unsigned char h = pqf_byte(in);
	uint64_t n = h >> 4;

	*etype = h & 0x0f;
	if (n == 15)
		n = pqf_varint(in);
	if (in->bad || n > (uint64_t)(in->end - in->p)) {
		in->bad = 1;
		return 0;
	}
	return (size_t)n;
}

static void pqf_skip(struct pqf_in *in, int type);

/* Skips an element of a list, set or map: a bool there is a byte of its
 * own, not part of a field header. */
static void
pqf_skip_element(struct pqf_in *in, int type)
{
	pqf_skip(in, type == THRIFT_BOOL_TRUE || type == THRIFT_BOOL_FALSE ?
	    PQF_T_BYTE : type);
}

/* Reads the next field header of a struct whose previous field id is
 * *last: returns its type, or 0 at the struct's end; *id gets its id. */
static int
pqf_field(struct pqf_in *in, int16_t *last, int16_t *id)
{
	unsigned char h = pqf_byte(in);
	int64_t v;

	if (h == 0 || in->bad)
		return 0;
	if (h >> 4) {
		*id = (int16_t)(*last + (h >> 4));
	} else {
		v = pqf_zigzag(in);
		if (v < INT16_MIN || v > INT16_MAX)
			in->bad = 1;
		*id = (int16_t)v;
	}
	*last = *id;
	return h & 0x0f;
}

/* Skips the rest of a struct whose fields are all unknown. */
static void
pqf_skip_struct(struct pqf_in *in)
{
	int16_t last = 0, id;
	int type;

	if (++in->depth > PQF_MAX_DEPTH)
		in->bad = 1;
	while (!in->bad && (type = pqf_field(in, &last, &id)) != 0)
		pqf_skip(in, type);
	in->depth--;
}

static void
pqf_skip(struct pqf_in *in, int type)
{
	size_t n, len;
	int et, kt, vt;

	if (in->bad)
		return;
	switch (type) {
	case THRIFT_BOOL_TRUE:
	case THRIFT_BOOL_FALSE:
		return; /* the value is in the field header */
	case PQF_T_BYTE:
		pqf_byte(in);
		return;
	case THRIFT_I16:
	case THRIFT_I32:
	case THRIFT_I64:
		pqf_varint(in);
		return;
	case PQF_T_DOUBLE:
	case PQF_T_UUID:
		len = type == PQF_T_DOUBLE ? 8 : 16;
		if ((size_t)(in->end - in->p) < len)
			in->bad = 1;
		else
			in->p += len;
		return;
	case THRIFT_BINARY:
		pqf_binary(in, &len);
		return;
	case THRIFT_LIST:
	case PQF_T_SET:
		n = pqf_list(in, &et);
		if (++in->depth > PQF_MAX_DEPTH)
			in->bad = 1;
		for (size_t i = 0; i < n && !in->bad; i++)
			pqf_skip_element(in, et);
		in->depth--;
		return;
	case PQF_T_MAP:
		n = (size_t)pqf_varint(in);
		if (n == 0)
			return;
		kt = pqf_byte(in);
		vt = kt & 0x0f;
		kt >>= 4;
		if (n > (size_t)(in->end - in->p))
			in->bad = 1;
		if (++in->depth > PQF_MAX_DEPTH)
			in->bad = 1;
		for (size_t i = 0; i < n && !in->bad; i++) {
			pqf_skip_element(in, kt);
			pqf_skip_element(in, vt);
		}
		in->depth--;
		return;
	case THRIFT_STRUCT:
		pqf_skip_struct(in);
		return;
	default:
		in->bad = 1;
	}
}

/* Reads an integer field of type type (i16, i32 or i64); any other type
 * is damage. */
static int64_t
pqf_int(struct pqf_in *in, int type)
{
	if (type != THRIFT_I16 && type != THRIFT_I32 && type != THRIFT_I64) {
		in->bad = 1;
		return 0;
	}
	return pqf_zigzag(in);
}

/* TimestampType {1: isAdjustedToUTC, 2: unit (union: 1 MILLIS, 2 MICROS,
 * 3 NANOS)}: 1 when UTC and microseconds. */
static int
pqf_timestamp(struct pqf_in *in)
{
	int16_t last = 0, id, ulast, uid;
	int type, utc = 0, micros = 0;

	while ((type = pqf_field(in, &last, &id)) != 0) {
		if (id == 1 && (type == THRIFT_BOOL_TRUE ||
		    type == THRIFT_BOOL_FALSE)) {
			utc = type == THRIFT_BOOL_TRUE;
		} else if (id == 2 && type == THRIFT_STRUCT) {
			ulast = 0;
			while ((type = pqf_field(in, &ulast, &uid)) != 0) {
				if (uid == 2 && type == THRIFT_STRUCT)
					micros = 1;
				pqf_skip(in, type);
			}
		} else {
			pqf_skip(in, type);
		}
	}
	return utc && micros;
}

/* LogicalType, a union: 1 STRING, 8 TIMESTAMP, others. */
static enum pqf_logical
pqf_logical(struct pqf_in *in)
{
	enum pqf_logical l = PQF_LOGICAL_OTHER;
	int16_t last = 0, id;
	int type;

	if (++in->depth > PQF_MAX_DEPTH)
		in->bad = 1;
	while (!in->bad && (type = pqf_field(in, &last, &id)) != 0) {
		if (id == 1 && type == THRIFT_STRUCT) {
			l = PQF_LOGICAL_STRING;
			pqf_skip(in, type);
		} else if (id == 8 && type == THRIFT_STRUCT) {
			l = pqf_timestamp(in) ? PQF_LOGICAL_TIMESTAMP_US_UTC :
			    PQF_LOGICAL_OTHER;
		} else {
			pqf_skip(in, type);
		}
	}
	in->depth--;
	return l;
}

/* One SchemaElement: its leaf fields into c, its children into *children
 * (-1: none, a leaf). */
static void
pqf_schema_element(struct pqf_in *in, struct pqf_column *c, int64_t *children,
    int *nomem)
{
	int16_t last = 0, id;
	int type;

	*children = -1;
	c->physical = -1;
	while ((type = pqf_field(in, &last, &id)) != 0) {
		switch (id) {
		case 1:
			c->physical = (int)pqf_int(in, type);
			break;
		case 3:
			c->repetition = (int)pqf_int(in, type);
			break;
		case 4:
			if (type != THRIFT_BINARY || c->name != NULL)
				in->bad = 1;
			else
				c->name = pqf_string(in, nomem);
			break;
		case 5:
			*children = pqf_int(in, type);
			break;
		case 10:
			if (type != THRIFT_STRUCT)
				in->bad = 1;
			else
				c->logical = pqf_logical(in);
			break;
		default:
			pqf_skip(in, type);
		}
	}
}

/* The schema: a root whose children are all leaves. */
static int
pqf_schema(struct pqf_in *in, struct pqf_meta *m, char *err, size_t errlen)
{
	struct pqf_column root = { 0 };
	int64_t children, leaf_children;
	size_t n, cap = 0;
	int et, nomem = 0;

	n = pqf_list(in, &et);
	if (in->bad || et != THRIFT_STRUCT || n == 0)
		return err_set(err, errlen, -EINVAL, "its footer's schema is "
		    "damaged");
	pqf_schema_element(in, &root, &children, &nomem);
	free(root.name);
	if (!in->bad && (children < 0 || (uint64_t)children != n - 1))
		return err_set(err, errlen, -EINVAL, "its schema's root has %"
		    PRId64 " children, and %zu elements follow it (kedge writes "
		    "flat files)", children, n - 1);
	for (size_t i = 1; i < n && !in->bad && !nomem; i++) {
		if (grow_array((void **)&m->cols, &cap, m->ncols + 1,
		    sizeof(*m->cols)) < 0)
			return -ENOMEM;
		memset(&m->cols[m->ncols], 0, sizeof(*m->cols));
		pqf_schema_element(in, &m->cols[m->ncols++], &leaf_children,
		    &nomem);
		if (in->bad)
			break;
		if (leaf_children >= 0)
			return err_set(err, errlen, -EINVAL, "its schema has a "
			    "nested group (kedge writes flat files)");
		if (m->cols[m->ncols - 1].name == NULL ||
		    m->cols[m->ncols - 1].physical < 0)
			return err_set(err, errlen, -EINVAL, "its schema has a "
			    "column without a name or a type");
	}
	if (nomem)
		return -ENOMEM;
	return in->bad ? err_set(err, errlen, -EINVAL, "its footer's schema is "
	    "damaged") : 0;
}

/* ColumnMetaData into c. */
static void
pqf_column_meta(struct pqf_in *in, struct pqf_chunk *c)
{
	int16_t last = 0, id, slast, sid;
	int type;

	if (++in->depth > PQF_MAX_DEPTH)
		in->bad = 1;
	while (!in->bad && (type = pqf_field(in, &last, &id)) != 0) {
		switch (id) {
		case 4:
			c->codec = (int)pqf_int(in, type);
			break;
		case 5:
			c->num_values = pqf_int(in, type);
			break;
		case 7:
			c->total_compressed_size = pqf_int(in, type);
			break;
		case 9:
			c->data_page_offset = pqf_int(in, type);
			break;
		case 11:
			c->dictionary_page_offset = pqf_int(in, type);
			break;
		case 12:
			if (type != THRIFT_STRUCT) {
				in->bad = 1;
				break;
			}
			slast = 0;
			while ((type = pqf_field(in, &slast, &sid)) != 0) {
				if (sid == 3) {
					c->null_count = pqf_int(in, type);
					c->has_null_count = 1;
				} else {
					pqf_skip(in, type);
				}
			}
			break;
		default:
			pqf_skip(in, type);
		}
	}
	in->depth--;
}

/* One RowGroup: its rows into m->rg_rows, its chunks appended to
 * m->chunks (*cap of them allocated). */
static int
pqf_row_group(struct pqf_in *in, struct pqf_meta *m, size_t *cap,
    char *err, size_t errlen)
{
	int16_t last = 0, id, clast, cid;
	size_t n, first = m->nrow_groups * m->ncols, got = 0;
	int64_t rows = -1;
	int type, et;

	while ((type = pqf_field(in, &last, &id)) != 0) {
		if (id == 3) {
			rows = pqf_int(in, type);
			continue;
		}
		if (id != 1 || type != THRIFT_LIST) {
			pqf_skip(in, type);
			continue;
		}
		n = pqf_list(in, &et);
		if (in->bad || et != THRIFT_STRUCT || n != m->ncols || got > 0)
			return err_set(err, errlen, -EINVAL, "a row group of "
			    "its footer has %zu column chunks, its schema %zu "
			    "columns", n, m->ncols);
		for (size_t i = 0; i < n && !in->bad; i++) {
			struct pqf_chunk *c;

			if (grow_array((void **)&m->chunks, cap, first + i + 1,
			    sizeof(*m->chunks)) < 0)
				return -ENOMEM;
			c = &m->chunks[first + i];
			memset(c, 0, sizeof(*c));
			c->dictionary_page_offset = -1;
			c->data_page_offset = -1;
			clast = 0;
			while ((type = pqf_field(in, &clast, &cid)) != 0) {
				if (cid == 3 && type == THRIFT_STRUCT)
					pqf_column_meta(in, c);
				else
					pqf_skip(in, type);
			}
			got++;
		}
	}
	if (in->bad)
		return err_set(err, errlen, -EINVAL, "its footer's row groups "
		    "are damaged");
	if (got != m->ncols || rows < 0)
		return err_set(err, errlen, -EINVAL, "a row group of its footer "
		    "has no %s", rows < 0 ? "row count" : "column chunks");
	m->rg_rows[m->nrow_groups++] = rows;
	return 0;
}

static int
pqf_row_groups(struct pqf_in *in, struct pqf_meta *m, char *err,
    size_t errlen)
{
	size_t n, cap = 0, rgcap = 0;
	int et, r;

	n = pqf_list(in, &et);
	if (in->bad || (n > 0 && et != THRIFT_STRUCT))
		return err_set(err, errlen, -EINVAL, "its footer's row groups "
		    "are damaged");
	for (size_t i = 0; i < n; i++) {
		if (grow_array((void **)&m->rg_rows, &rgcap, m->nrow_groups + 1,
		    sizeof(*m->rg_rows)) < 0)
			return -ENOMEM;
		if ((r = pqf_row_group(in, m, &cap, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int
pqf_key_values(struct pqf_in *in, struct pqf_meta *m, char *err,
    size_t errlen)
{
	size_t n, kcap = 0, vcap = 0;
	int16_t last, id;
	int et, type, nomem = 0;

	n = pqf_list(in, &et);
	if (in->bad || (n > 0 && et != THRIFT_STRUCT))
		return err_set(err, errlen, -EINVAL, "its footer's key-value "
		    "metadata is damaged");
	for (size_t i = 0; i < n && !in->bad && !nomem; i++) {
		if (grow_array((void **)&m->kv_keys, &kcap, m->nkv + 1,
		    sizeof(char *)) < 0 || grow_array((void **)&m->kv_values,
		    &vcap, m->nkv + 1, sizeof(char *)) < 0)
			return -ENOMEM;
		m->kv_keys[m->nkv] = m->kv_values[m->nkv] = NULL;
		m->nkv++;
		last = 0;
		while ((type = pqf_field(in, &last, &id)) != 0) {
			char **to = id == 1 ? &m->kv_keys[m->nkv - 1] :
			    id == 2 ? &m->kv_values[m->nkv - 1] : NULL;

			if (to == NULL) {
				pqf_skip(in, type);
			} else if (type != THRIFT_BINARY || *to != NULL) {
				in->bad = 1;
			} else {
				*to = pqf_string(in, &nomem);
			}
		}
		if (!in->bad && m->kv_keys[m->nkv - 1] == NULL)
			in->bad = 1;
	}
	if (nomem)
		return -ENOMEM;
	return in->bad ? err_set(err, errlen, -EINVAL, "its footer's key-value "
	    "metadata is damaged") : 0;
}

/* The checks across the footer's parts. */
static int
pqf_check(const struct pqf_meta *m, uint64_t data_end, char *err,
    size_t errlen)
{
	int64_t sum = 0;

	if (m->ncols == 0)
		return err_set(err, errlen, -EINVAL, "its footer has no schema");
	if (m->num_rows < 0)
		return err_set(err, errlen, -EINVAL, "its footer says %" PRId64
		    " rows", m->num_rows);
	for (size_t g = 0; g < m->nrow_groups; g++) {
		if (m->rg_rows[g] < 0 || m->rg_rows[g] > INT64_MAX - sum)
			return err_set(err, errlen, -EINVAL, "row group %zu of "
			    "its footer says %" PRId64 " rows", g, m->rg_rows[g]);
		sum += m->rg_rows[g];
		for (size_t i = 0; i < m->ncols; i++) {
			const struct pqf_chunk *c = &m->chunks[g * m->ncols + i];

			if (c->data_page_offset < 4 ||
			    (uint64_t)c->data_page_offset >= data_end ||
			    (c->dictionary_page_offset != -1 &&
			    (c->dictionary_page_offset < 4 ||
			    (uint64_t)c->dictionary_page_offset >= data_end)))
				return err_set(err, errlen, -EINVAL, "column %s "
				    "of row group %zu starts outside the file's "
				    "data", m->cols[i].name, g);
		}
	}
	if (sum != m->num_rows)
		return err_set(err, errlen, -EINVAL, "its row groups hold %"
		    PRId64 " rows, its footer says %" PRId64, sum, m->num_rows);
	return 0;
}

int
pqf_parse(const void *tail, size_t taillen, uint64_t filelen,
    struct pqf_meta *out, char *err, size_t errlen)
{
	const unsigned char *t = tail;
	struct pqf_in in;
	uint64_t flen;
	int16_t last = 0, id;
	int type, r = 0, nomem = 0, seen_schema = 0, seen_rows = 0;

	memset(out, 0, sizeof(*out));
	if (taillen < 8 || taillen > filelen || filelen < 12 ||
	    memcmp(t + taillen - 4, "PAR1", 4) != 0)
		return err_set(err, errlen, -EINVAL, "not a Parquet file (no "
		    "PAR1 at its end)");
	flen = le_get32(t + taillen - 8);
	if (flen > filelen - 12)
		return err_set(err, errlen, -EINVAL, "its footer would be %"
		    PRIu64 " bytes, in a file of %" PRIu64, flen, filelen);
	if (flen > taillen - 8)
		return err_set(err, errlen, -E2BIG, "its footer is %" PRIu64
		    " bytes: %" PRIu64 " bytes of the file's end are needed",
		    flen, flen + 8);
	in = (struct pqf_in){ t + taillen - 8 - flen, t + taillen - 8, 0, 0 };
	while (r == 0 && (type = pqf_field(&in, &last, &id)) != 0) {
		switch (id) {
		case 1:
			out->version = (int32_t)pqf_int(&in, type);
			break;
		case 2:
			r = type == THRIFT_LIST && !seen_schema++ ?
			    pqf_schema(&in, out, err, errlen) :
			    err_set(err, errlen, -EINVAL, "its footer's schema "
			    "is damaged");
			break;
		case 3:
			out->num_rows = pqf_int(&in, type);
			seen_rows = 1;
			break;
		case 4:
			/* row groups need the schema: parquet.thrift orders
			 * the fields so, and kedge writes them so */
			r = type == THRIFT_LIST && seen_schema &&
			    out->rg_rows == NULL ?
			    pqf_row_groups(&in, out, err, errlen) :
			    err_set(err, errlen, -EINVAL, "its footer's row "
			    "groups are damaged or come before its schema");
			break;
		case 5:
			r = type == THRIFT_LIST && out->kv_keys == NULL ?
			    pqf_key_values(&in, out, err, errlen) :
			    err_set(err, errlen, -EINVAL, "its footer's "
			    "key-value metadata is damaged");
			break;
		case 6:
			if (type != THRIFT_BINARY || out->created_by != NULL)
				in.bad = 1;
			else
				out->created_by = pqf_string(&in, &nomem);
			break;
		default:
			pqf_skip(&in, type);
		}
		if (nomem)
			r = -ENOMEM;
	}
	if (r == -ENOMEM)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if (r < 0)
		return r;
	if (in.bad)
		return err_set(err, errlen, -EINVAL, "its footer is damaged");
	if (!seen_schema || !seen_rows)
		return err_set(err, errlen, -EINVAL, "its footer has no %s",
		    seen_schema ? "row count" : "schema");
	return pqf_check(out, filelen - 8 - flen, err, errlen);
}

/* Reads len bytes of fd at off: 0, -EIO for a file shorter than that, or
 * -errno. */
static int
pqf_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n < 0 ? -errno : (size_t)n < len ? -EIO : 0;
}

int
pqf_read(int fd, uint64_t filelen, struct pqf_meta *out, char *err,
    size_t errlen)
{
	unsigned char head[4], end[8], *tail;
	uint64_t flen;
	size_t taillen;
	int r;

	memset(out, 0, sizeof(*out));
	if (filelen < 12)
		return err_set(err, errlen, -EINVAL, "not a Parquet file (no "
		    "PAR1 at its start and its end)");
	if ((r = pqf_pread(fd, head, 4, 0)) < 0 ||
	    (r = pqf_pread(fd, end, 8, filelen - 8)) < 0)
		return err_set(err, errlen, r, "cannot read it: %s",
		    strerror(-r));
	if (memcmp(head, "PAR1", 4) != 0 || memcmp(end + 4, "PAR1", 4) != 0)
		return err_set(err, errlen, -EINVAL, "not a Parquet file (no "
		    "PAR1 at its start and its end)");
	/* a footer longer than the file is pqf_parse()'s to tell */
	flen = le_get32(end);
	taillen = (size_t)(flen > filelen - 12 ? 0 : flen) + 8;
	if ((tail = malloc(taillen)) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if ((r = pqf_pread(fd, tail, taillen, filelen - taillen)) < 0)
		err_set(err, errlen, r, "cannot read it: %s", strerror(-r));
	else
		r = pqf_parse(tail, taillen, filelen, out, err, errlen);
	free(tail);
	return r;
}

void
pqf_meta_clear(struct pqf_meta *m)
{
	for (size_t i = 0; i < m->ncols; i++)
		free(m->cols[i].name);
	free(m->cols);
	free(m->rg_rows);
	free(m->chunks);
	for (size_t i = 0; i < m->nkv; i++) {
		free(m->kv_keys[i]);
		free(m->kv_values[i]);
	}
	free(m->kv_keys);
	free(m->kv_values);
	free(m->created_by);
	memset(m, 0, sizeof(*m));
}

const char *
pqf_meta_value(const struct pqf_meta *m, const char *key)
{
	for (size_t i = 0; i < m->nkv; i++)
		if (strcmp(m->kv_keys[i], key) == 0)
			return m->kv_values[i];
	return NULL;
}
