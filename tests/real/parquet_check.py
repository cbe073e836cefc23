"""Checks a Parquet file kedge wrote against the rows it was written from,
with readers kedge does not contain: pyarrow, DuckDB and, given what it
read (--parquet-mr, tests/real/parquet_mr.sh's output), parquet-mr.

    parquet_check.py FILE.parquet ROWS.jsonl [--expect-dict] [--expect-plain]
        [--min-row-groups N] [--codec NAME] [--parquet-mr READ.json]
        [--columns NAME:TYPE,...] [--kv KEY=VALUE ...] [--hive-text]
    parquet_check.py --batch CHECKS

ROWS.jsonl holds one JSON array per row (null for NULL, timestamps as
microseconds since the epoch), as tests/fixtures/pqwrite writes it; with
--hive-text ROWS is a hive-text part file, read as hive_rows.py reads it.
--batch runs one check for each line of CHECKS (the arguments above,
shell-quoted) in one process, and stops at the first that fails.
--columns gives the columns and their UDTF types (string, int64, double,
bool, timestamp) when they are not pqwrite's; --kv the key-value metadata
the file must hold, with its values (else the keys pqwrite writes).  Checks
the schema's types, every value and NULL, per row group and column chunk
the statistics (min, max, null count) against the rows of that group, the
codec, the encodings asked for, and the key-value metadata.  Exits 1 with
the first difference.
"""
import argparse
import json
import math
import shlex
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import hive_rows
from hive_rows import micros

KINDS = {
    "string": (pa.string(), "optional binary %s (STRING)", "VARCHAR"),
    "int64": (pa.int64(), "optional int64 %s", "BIGINT"),
    "double": (pa.float64(), "optional double %s", "DOUBLE"),
    "bool": (pa.bool_(), "optional boolean %s", "BOOLEAN"),
    "timestamp": (pa.timestamp("us", tz="UTC"),
                  "optional int64 %s (TIMESTAMP(MICROS,true))",
                  "TIMESTAMP WITH TIME ZONE"),
}
# pqwrite's columns, by UDTF type
KIND_OF = {"city": "string", "id": "string", "n": "int64", "x": "double",
           "ok": "bool", "ts": "timestamp", "constant": "string",
           "empty": "int64"}
REQUIRED_KV = {"kedge.version": None, "kedge.table": None,
               "kedge.offsets": None}
PQWRITE_KINDS, PQWRITE_KV = dict(KIND_OF), dict(REQUIRED_KV)


ARROW_TYPES, MR_TYPES, DUCK_TYPES = {}, {}, {}


def set_columns(spec):
    """The columns, NAME:TYPE,... (None: pqwrite's), and what each reader
    must call their types."""
    KIND_OF.clear()
    if not spec:
        KIND_OF.update(PQWRITE_KINDS)
    else:
        for item in spec.split(","):
            name, kind = item.split(":")
            if kind not in KINDS:
                fail("--columns: %s is no UDTF type" % kind)
            KIND_OF[name] = kind
    for table, at in ((ARROW_TYPES, 0), (MR_TYPES, 1), (DUCK_TYPES, 2)):
        for name, kind in KIND_OF.items():
            t = KINDS[kind][at]
            table[name] = t % name if at == 1 else t


def check_kv(who, kv):
    for key, want in REQUIRED_KV.items():
        if key not in kv:
            fail("%s: no key-value metadata %s" % (who, key))
        if want is not None and kv[key] != want:
            fail("%s: key-value metadata %s is %r, expected %r" %
                 (who, key, kv[key], want))


CHECKING = [None]  # the file being checked, named in a failure


def fail(msg):
    print("FAIL: %s: %s" % (CHECKING[0], msg), file=sys.stderr)
    sys.exit(1)


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
            if KIND_OF[name] == "double" and isinstance(wv, int):
                wv = float(wv)
            if not same(gv, wv):
                fail("%s: row %d column %s: read %r, written %r" %
                     (who, i, name, gv, wv))


def expected_stats(part, j, name):
    """(null count, min, max) of column j of rows part; min and max None
    when all are NULL; strings ordered by their UTF-8 bytes."""
    vals = [r[j] for r in part if r[j] is not None]
    if KIND_OF[name] == "double":
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
    check_kv("pyarrow", {k.decode(): v.decode()
                         for k, v in (md.metadata or {}).items()})
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
    desc = con.execute("DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning = false)",
                       [path]).fetchall()
    for name, typ, *_ in desc:
        if typ != DUCK_TYPES[name]:
            fail("duckdb: column %s is %s" % (name, typ))
    cols = ", ".join('epoch_us("%s")' % n if KIND_OF[n] == "timestamp"
                     else '"%s"' % n for n in names)
    got = con.execute("SELECT %s FROM read_parquet(?, hive_partitioning = false)" % cols,
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
    check_kv("parquet-mr", got["kv"])
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


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("parquet")
    ap.add_argument("rows")
    ap.add_argument("--expect-dict", action="store_true")
    ap.add_argument("--expect-plain", action="store_true")
    ap.add_argument("--min-row-groups", type=int, default=1)
    ap.add_argument("--codec", default="UNCOMPRESSED")
    ap.add_argument("--parquet-mr", metavar="READ.json")
    ap.add_argument("--columns", metavar="NAME:TYPE,...")
    ap.add_argument("--kv", action="append", metavar="KEY=VALUE")
    ap.add_argument("--hive-text", action="store_true")
    args = ap.parse_args(argv)
    CHECKING[0] = args.parquet
    set_columns(args.columns)
    REQUIRED_KV.clear()
    if args.kv:
        REQUIRED_KV.update(item.split("=", 1) for item in args.kv)
    else:
        REQUIRED_KV.update(PQWRITE_KV)
    if args.hive_text:
        with open(args.rows, "rb") as f:
            rows = list(hive_rows.rows(list(KIND_OF.values()), args.rows, f))
    else:
        with open(args.rows, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    names = check_pyarrow(args.parquet, rows, args)
    check_duckdb(args.parquet, rows, names)
    readers = "pyarrow %s, duckdb %s" % (pa.__version__, duckdb.__version__)
    if args.parquet_mr:
        check_parquet_mr(args.parquet_mr, rows, names, args)
        readers += ", parquet-mr"
    print("ok %s: %d rows, %s" % (args.parquet, len(rows), readers))


if sys.argv[1:2] == ["--batch"]:
    with open(sys.argv[2], encoding="utf-8") as checks:
        for line in checks:
            main(shlex.split(line))
else:
    main(sys.argv[1:])
