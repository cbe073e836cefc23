"""Checks that a Parquet table holds exactly the rows of a hive-text table
of the same records, hour by hour, as multisets (kedge's kill loops end
with the text table proven exactly once against the generator).

    same_rows.py DIR TEXT_TABLE PARQUET_TABLE

The text table's files may be gzip (.gz) or none; the columns' types are
the Parquet files' own.  Prints the rows compared; exits 1 naming the
first hour that differs.
"""
import collections
import gzip
import json
import os
import sys

import pyarrow.parquet as pq

import hive_rows

KIND = {"string": "string", "int64": "int64", "double": "double",
        "bool": "bool", "timestamp[us, tz=UTC]": "timestamp"}


def part_files(top, ext):
    for d, _, names in os.walk(top):
        for n in sorted(names):
            if not n.startswith((".", "_")) and n.endswith(ext):
                yield os.path.relpath(d, top), os.path.join(d, n)


def main():
    top, text, parquet = sys.argv[1:4]
    got = collections.defaultdict(collections.Counter)
    kinds = None
    for hour, path in part_files(os.path.join(top, parquet), ".parquet"):
        t = pq.ParquetFile(path).read()
        if kinds is None:
            kinds = [KIND[str(f.type)] for f in t.schema]
        cols = [t.column(i).to_pylist() for i in range(t.num_columns)]
        for row in zip(*cols):
            got[hour][json.dumps([hive_rows.micros(v) for v in row])] += 1
    if kinds is None:
        sys.exit("FAIL: %s has no Parquet file" % parquet)
    want = collections.defaultdict(collections.Counter)
    for ext, opener in ((".txt", open), (".txt.gz", gzip.open)):
        for hour, path in part_files(os.path.join(top, text), ext):
            with opener(path, "rb") as f:
                for row in hive_rows.rows(kinds, path, f):
                    want[hour][json.dumps(row)] += 1
    for hour in sorted(set(got) | set(want)):
        if got[hour] != want[hour]:
            lost = want[hour] - got[hour]
            extra = got[hour] - want[hour]
            sys.exit("FAIL: %s/%s: %d rows of %s missing, %d extra, e.g. %s"
                     % (parquet, hour, sum(lost.values()), text,
                        sum(extra.values()),
                        next(iter(lost or extra))))
    print("%d rows in %d hours" % (sum(sum(c.values()) for c in got.values()),
                                   len(got)))


main()
