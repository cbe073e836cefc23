"""Checks a Parquet file kedge wrote against the rows it was written from,
with readers kedge does not contain: pyarrow, DuckDB and, given what it
read (--parquet-mr, tests/real/parquet_mr.sh's output), parquet-mr.

    parquet_check.py FILE.parquet ROWS.jsonl [--expect-dict] [--expect-plain]
        [--min-row-groups N] [--codec NAME] [--parquet-mr READ.json]

ROWS.jsonl holds one JSON array per row (null for NULL, timestamps as
microseconds since the epoch), as tests/fixtures/pqwrite writes it.  Checks
the schema's types, every value and NULL, per row group and column chunk
the statistics (min, max, null count) against the rows of that group, the
codec, the encodings asked for, and the key-value metadata.  Exits 1 with
the first difference.
"""
import argparse
import datetime
import json
import math
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

ARROW_TYPES = {
    "city": pa.string(), "id": pa.string(), "n": pa.int64(),
    "x": pa.float64(), "ok": pa.bool_(),
    "ts": pa.timestamp("us", tz="UTC"), "constant": pa.string(),
    "empty": pa.int64(),
}
MR_TYPES = {
    "city": "optional binary city (STRING)", "id": "optional binary id (STRING)",
    "n": "optional int64 n", "x": "optional double x",
    "ok": "optional boolean ok",
    "ts": "optional int64 ts (TIMESTAMP(MICROS,true))",
    "constant": "optional binary constant (STRING)",
    "empty": "optional int64 empty",
}
DUCK_TYPES = {
    "city": "VARCHAR", "id": "VARCHAR", "n": "BIGINT", "x": "DOUBLE",
    "ok": "BOOLEAN", "ts": "TIMESTAMP WITH TIME ZONE", "constant": "VARCHAR",
    "empty": "BIGINT",
}


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def micros(v):
    if isinstance(v, datetime.datetime):
        d = v - EPOCH
        return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) is type(b)


def check_rows(who, got, want, names):
    if len(got) != len(want):
        fail("%s: %d rows, written %d" % (who, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        for j, name in enumerate(names):
            gv, wv = micros(g[j]), w[j]
            if name == "x" and isinstance(wv, int):
                wv = float(wv)
            if not same(gv, wv):
                fail("%s: row %d column %s: read %r, written %r" %
                     (who, i, name, gv, wv))


def expected_stats(part, j, name):
    """(null count, min, max) of column j of rows part; min and max None
    when all are NULL; strings ordered by their UTF-8 bytes."""
    vals = [r[j] for r in part if r[j] is not None]
    if name == "x":
        vals = [float(v) for v in vals]
    if not vals:
        return len(part), None, None
    key = (lambda v: v.encode()) if isinstance(vals[0], str) else None
    return (len(part) - len(vals), min(vals, key=key), max(vals, key=key))


def check_pyarrow(path, rows, args):
    f = pq.ParquetFile(path)
    names = f.schema_arrow.names
    for field in f.schema_arrow:
        if field.type != ARROW_TYPES[field.name]:
            fail("pyarrow: column %s is %s" % (field.name, field.type))
    table = f.read()
    got = list(zip(*[table.column(n).to_pylist() for n in names])) \
        if table.num_rows else []
    check_rows("pyarrow", got, rows, names)

    md = f.metadata
    kv = md.metadata or {}
    for key in (b"kedge.version", b"kedge.table", b"kedge.offsets"):
        if key not in kv:
            fail("pyarrow: no key-value metadata %s" % key.decode())
    if md.num_row_groups < args.min_row_groups:
        fail("pyarrow: %d row groups, expected at least %d" %
             (md.num_row_groups, args.min_row_groups))
    seen_dict = seen_plain = False
    at = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        part = rows[at:at + rg.num_rows]
        at += rg.num_rows
        for j, name in enumerate(names):
            col = rg.column(j)
            if col.compression != args.codec:
                fail("pyarrow: row group %d column %s codec %s" %
                     (g, name, col.compression))
            if "RLE_DICTIONARY" in col.encodings:
                seen_dict = True
                if not col.has_dictionary_page:
                    fail("pyarrow: %s dictionary-encoded, no dictionary"
                         % name)
            else:
                seen_plain = True
            st = col.statistics
            if st is None:
                fail("pyarrow: row group %d column %s has no statistics"
                     % (g, name))
            nulls, lo, hi = expected_stats(part, j, name)
            got = (st.null_count, micros(st.min) if st.has_min_max else None,
                   micros(st.max) if st.has_min_max else None)
            if not all(same(a, b) for a, b in zip(got, (nulls, lo, hi))):
                fail("pyarrow: row group %d column %s statistics %r, "
                     "written %r" % (g, name, got, (nulls, lo, hi)))
    if at != len(rows):
        fail("pyarrow: row groups hold %d rows, written %d" % (at, len(rows)))
    if args.expect_dict and not seen_dict:
        fail("pyarrow: no dictionary-encoded column chunk")
    if args.expect_plain and not seen_plain:
        fail("pyarrow: no PLAIN column chunk")
    return names


def check_duckdb(path, rows, names):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    desc = con.execute("DESCRIBE SELECT * FROM read_parquet(?)",
                       [path]).fetchall()
    for name, typ, *_ in desc:
        if typ != DUCK_TYPES[name]:
            fail("duckdb: column %s is %s" % (name, typ))
    cols = ", ".join("epoch_us(ts)" if n == "ts" else '"%s"' % n
                     for n in names)
    got = con.execute("SELECT %s FROM read_parquet(?)" % cols,
                      [path]).fetchall()
    check_rows("duckdb", got, rows, names)
    nulls = con.execute(
        "SELECT path_in_schema, sum(stats_null_count) "
        "FROM parquet_metadata(?) GROUP BY 1", [path]).fetchall()
    for name, n in nulls:
        j = names.index(name)
        want = sum(1 for r in rows if r[j] is None)
        if n != want:
            fail("duckdb: column %s null count %d, written %d" %
                 (name, n, want))


def check_parquet_mr(read_path, rows, names, args):
    with open(read_path, encoding="utf-8") as f:
        got = json.load(f)
    for name, typ in zip(names, got["types"]):
        if typ != MR_TYPES[name]:
            fail("parquet-mr: column %s is %s" % (name, typ))
    for key in ("kedge.version", "kedge.table", "kedge.offsets"):
        if key not in got["kv"]:
            fail("parquet-mr: no key-value metadata %s" % key)
    check_rows("parquet-mr", got["rows"], rows, names)
    at = 0
    for g, group in enumerate(got["groups"]):
        part = rows[at:at + group["rows"]]
        at += group["rows"]
        for j, (name, col) in enumerate(zip(names, group["columns"])):
            if col["codec"] != args.codec:
                fail("parquet-mr: row group %d column %s codec %s" %
                     (g, name, col["codec"]))
            want = expected_stats(part, j, name)
            have = (col["null_count"], col["min"], col["max"])
            if not all(same(a, b) for a, b in zip(have, want)):
                fail("parquet-mr: row group %d column %s statistics %r, "
                     "written %r" % (g, name, have, want))
    if at != len(rows):
        fail("parquet-mr: row groups hold %d rows, written %d" %
             (at, len(rows)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("parquet")
    ap.add_argument("rows")
    ap.add_argument("--expect-dict", action="store_true")
    ap.add_argument("--expect-plain", action="store_true")
    ap.add_argument("--min-row-groups", type=int, default=1)
    ap.add_argument("--codec", default="UNCOMPRESSED")
    ap.add_argument("--parquet-mr", metavar="READ.json")
    args = ap.parse_args()
    with open(args.rows, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    names = check_pyarrow(args.parquet, rows, args)
    check_duckdb(args.parquet, rows, names)
    readers = "pyarrow %s, duckdb %s" % (pa.__version__, duckdb.__version__)
    if args.parquet_mr:
        check_parquet_mr(args.parquet_mr, rows, names, args)
        readers += ", parquet-mr"
    print("ok %s: %d rows, %s" % (args.parquet, len(rows), readers))


main()
