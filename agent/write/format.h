/*
 * format: one row of typed values -> bytes of a part file.
 *
 * hive-text: Hive's LazySimpleSerDe text, fields separated by a delimiter
 * (\001 by default), NULL as \N, rows ended by \n, and the escaping of
 * "ESCAPED BY '\\'": a backslash before the delimiter and before a
 * backslash, \n as backslash-n and \r as backslash-r.  Timestamps as local
 * "YYYY-MM-DD HH:MM:SS[.fff]"; booleans true/false; doubles in the shortest
 * form that reads back the same ("%.17g" trimmed).
 *
 * jsonl: one JSON object per line, keys are the column names, NULL as null,
 * strings escaped per RFC 8259 (bytes that are not valid UTF-8 as \u00XX of
 * the byte, so the line stays valid JSON), timestamps as ISO 8601 strings
 * with the zone offset.
 *
 * parquet: while a file is open, its rows go to a log that can be cut back
 * (rowlog.h), which becomes the Parquet file (parquet.h) when the file is
 * finalized.
 */
#ifndef KEDGE_FORMAT_H
#define KEDGE_FORMAT_H

#include "agent/udtf/udtf.h"
#include "agent/write/tz.h"
#include "lib/buf.h"
#include "lib/codec.h"

enum format_kind { FORMAT_HIVE_TEXT, FORMAT_JSONL, FORMAT_PARQUET };

struct format {
	enum format_kind kind;
	char delim;           /* hive-text field delimiter */
	struct tz *tz;        /* renders timestamps; not owned */
};

/* Appends one row (with its line end) to out.  cols and vals have n
 * entries; a value's type is its column's type or UDTF_NULL.  Returns 0 or
 * -ENOMEM. */
int format_row(const struct format *f, const struct udtf_column *cols,
    const struct udtf_value *vals, size_t n, struct buf *out);

/* format_row() of a hive-text row (whatever f->kind says) that also
 * writes to ends[i] where value i's text ends, counted from the row's
 * first byte: at the delimiter after it, or at the line end.  Returns 0 or
 * -ENOMEM. */
int format_hive_row_ends(const struct format *f, const struct udtf_value *vals,
    size_t n, struct buf *out, size_t *ends);

/* Appends s[0..len) with hive-text escaping for delimiter delim (no field
 * separators, no line end).  Returns 0 or -ENOMEM. */
int format_hive_escape(const char *s, size_t len, char delim, struct buf *out);

/* Appends i in decimal to out.  Returns 0 or -ENOMEM. */
int format_int64(int64_t i, struct buf *out);

/* Appends s[0..len) as a JSON string, quotes included, escaped as jsonl
 * values are.  Returns 0 or -ENOMEM. */
int format_json_string(const char *s, size_t len, struct buf *out);

/* Parses a format name ("hive-text", "jsonl", "parquet"); returns 0 or
 * -EINVAL. */
int format_kind_parse(const char *name, enum format_kind *out);
/* The file name extension of a format: "txt", "jsonl" or "parquet". */
const char *format_kind_ext(enum format_kind kind);
/* What a part file's name has after the format's extension for its
 * codec: codec_kind_ext(codec), or nothing for Parquet, whose pages say
 * their codec. */
const char *format_codec_ext(enum format_kind kind, enum codec_kind codec);
/* The name format_kind_parse() reads. */
const char *format_kind_name(enum format_kind kind);

#endif /* KEDGE_FORMAT_H */
