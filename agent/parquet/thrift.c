#include "agent/parquet/thrift.h"

#include <errno.h>
#include <string.h>

#include "agent/parquet/rle.h"

void
thrift_init(struct thrift_writer *t, struct buf *out)
{
	t->out = out;
	t->err = 0;
	t->depth = 0;
	t->last[0] = 0;
}

static void
thrift_byte(struct thrift_writer *t, uint8_t b)
{
	if (t->err == 0)
		t->err = buf_append(t->out, &b, 1);
}

void
thrift_raw(struct thrift_writer *t, const void *p, size_t len)
{
	if (t->err == 0)
		t->err = buf_append(t->out, p, len);
}

/* ULEB128, the compact protocol's unsigned varint. */
static void
thrift_varint(struct thrift_writer *t, uint64_t v)
{
	if (t->err == 0)
		t->err = rle_uleb128(t->out, v);
}

void
thrift_field(struct thrift_writer *t, int16_t id, enum thrift_type type)
{
	int delta = id - t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		thrift_byte(t, (uint8_t)(delta << 4 | type));
	} else {
		thrift_byte(t, (uint8_t)type);
		thrift_varint(t, rle_zigzag(id));
	}
	t->last[t->depth] = id;
}

void
thrift_i32(struct thrift_writer *t, int32_t v)
{
	thrift_varint(t, rle_zigzag(v));
}

void
thrift_binary(struct thrift_writer *t, const void *p, size_t len)
{
	thrift_varint(t, len);
	thrift_raw(t, p, len);
}

void
thrift_i32_field(struct thrift_writer *t, int16_t id, int32_t v)
{
	thrift_field(t, id, THRIFT_I32);
	thrift_i32(t, v);
}

void
thrift_i16_field(struct thrift_writer *t, int16_t id, int16_t v)
{
	thrift_field(t, id, THRIFT_I16);
	thrift_varint(t, rle_zigzag(v));
}

void
thrift_i64_field(struct thrift_writer *t, int16_t id, int64_t v)
{
	thrift_field(t, id, THRIFT_I64);
	thrift_varint(t, rle_zigzag(v));
}

void
thrift_bool_field(struct thrift_writer *t, int16_t id, int v)
{
	/* A bool field's value is its header's type. */
	thrift_field(t, id, v ? THRIFT_BOOL_TRUE : THRIFT_BOOL_FALSE);
}

void
thrift_binary_field(struct thrift_writer *t, int16_t id, const void *p,
    size_t len)
{
	thrift_field(t, id, THRIFT_BINARY);
	thrift_binary(t, p, len);
}

void
thrift_string_field(struct thrift_writer *t, int16_t id, const char *s)
{
	thrift_binary_field(t, id, s, strlen(s));
}

void
thrift_list(struct thrift_writer *t, enum thrift_type elem, size_t n)
{
	if (n < 15) {
		thrift_byte(t, (uint8_t)(n << 4 | elem));
	} else {
		thrift_byte(t, (uint8_t)(0xf0 | elem));
		thrift_varint(t, n);
	}
}

void
thrift_begin(struct thrift_writer *t)
{
	if (t->depth + 1 >= THRIFT_MAX_DEPTH) {
		if (t->err == 0)
			t->err = -EOVERFLOW;
		return;
	}
	t->last[++t->depth] = 0;
}

void
thrift_end(struct thrift_writer *t)
{
	thrift_byte(t, 0); /* stop */
	if (t->depth > 0)
		t->depth--;
}
