/*
 * thrift: a writer of Apache Thrift's compact protocol, the encoding of
 * Parquet's footer and page headers.  Only what Parquet needs: structs,
 * lists, bool, i16, i32, i64 and binary fields.
 *
 * Errors are sticky: the first failure (out of memory) is kept in
 * thrift_writer.err and later calls do nothing, so a caller writes a
 * whole struct and checks once.
 *
 * A struct written at depth 0 into its own buffer reads the same as that
 * struct nested anywhere (field ids are deltas from the struct's own
 * previous field), so callers may serialize parts early and splice them.
 */
#ifndef KEDGE_THRIFT_H
#define KEDGE_THRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* Compact protocol type ids (field headers and list element types). */
enum thrift_type {
	THRIFT_BOOL_TRUE = 1,
	THRIFT_BOOL_FALSE = 2,
	THRIFT_I16 = 4,
	THRIFT_I32 = 5,
	THRIFT_I64 = 6,
	THRIFT_BINARY = 8,
	THRIFT_LIST = 9,
	THRIFT_STRUCT = 12
};

#define THRIFT_MAX_DEPTH 16

struct thrift_writer {
	struct buf *out;
	int err;                          /* 0 or the first negative errno */
	int depth;
	int16_t last[THRIFT_MAX_DEPTH];   /* previous field id per level */
};

/* Starts writing a top-level struct's fields into out (appending). */
void thrift_init(struct thrift_writer *t, struct buf *out);

/* Field headers and values.  thrift_field() writes only the header of a
 * field of type type; the thrift_*_field() helpers write header and
 * value. */
void thrift_field(struct thrift_writer *t, int16_t id, enum thrift_type type);
void thrift_i16_field(struct thrift_writer *t, int16_t id, int16_t v);
void thrift_i32_field(struct thrift_writer *t, int16_t id, int32_t v);
void thrift_i64_field(struct thrift_writer *t, int16_t id, int64_t v);
void thrift_bool_field(struct thrift_writer *t, int16_t id, int v);
void thrift_binary_field(struct thrift_writer *t, int16_t id, const void *p,
    size_t len);
void thrift_string_field(struct thrift_writer *t, int16_t id, const char *s);

/* Bare values, as list elements. */
void thrift_i32(struct thrift_writer *t, int32_t v);
void thrift_binary(struct thrift_writer *t, const void *p, size_t len);
/* Appends bytes already in compact encoding (a struct serialized at depth
 * 0 by another writer). */
void thrift_raw(struct thrift_writer *t, const void *p, size_t len);

/* A list header of n elements of type elem; the elements follow. */
void thrift_list(struct thrift_writer *t, enum thrift_type elem, size_t n);

/* Enters a struct (after its field header, or as a list element) and
 * leaves it, writing its stop byte.  thrift_end() at depth 0 ends the
 * top-level struct. */
void thrift_begin(struct thrift_writer *t);
void thrift_end(struct thrift_writer *t);

#endif /* KEDGE_THRIFT_H */
