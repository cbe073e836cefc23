"""Reads hive-text part files (codec none) as kedge writes them and prints
their rows as parquet_check.py's ROWS.jsonl: one JSON array per row, null
for \\N, values typed by the columns' UDTF types, timestamps (written in
UTC) as microseconds since the epoch.

    hive_rows.py NAME:TYPE,... FILE.txt ... >ROWS.jsonl
Strings are read as kedge's Parquet files hold them: a byte that is not
valid UTF-8 is the character U+0080..U+00FF of its value.
"""
import codecs
import datetime
import json
import sys

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
codecs.register_error("kedge", lambda e: (
    "".join(chr(b) for b in e.object[e.start:e.end]), e.end))
UNESCAPE = {"\\": "\\", "\x01": "\x01", "n": "\n", "r": "\r"}


def fields(line):
    """Splits a line at unescaped \\x01; a field that is \\N is None."""
    out, cur, i = [], [], 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line) and line[i + 1] in UNESCAPE:
            cur.append(UNESCAPE[line[i + 1]])
            i += 2
            continue
        if c == "\\" and line[i + 1:i + 2] == "N" and not cur:
            cur.append(None)
            i += 2
            continue
        if c == "\x01":
            out.append(cur)
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append(cur)
    return [None if f == [None] else "".join(f) for f in out]


def micros(v):
    """A datetime as microseconds since the epoch; anything else as it is."""
    if isinstance(v, datetime.datetime):
        d = v - EPOCH
        return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    return v


def typed(kind, v):
    if v is None:
        return None
    if kind == "int64":
        return int(v)
    if kind == "double":
        return float(v)
    if kind == "bool":
        return {"true": True, "false": False}[v]
    if kind == "timestamp":
        fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in v else "%Y-%m-%d %H:%M:%S"
        return micros(datetime.datetime.strptime(v, fmt).replace(
            tzinfo=datetime.timezone.utc))
    return v


def rows(kinds, path, f):
    """The typed rows of the hive-text lines of file f (named path)."""
    for raw in f:
        vals = fields(raw[:-1].decode("utf-8", "kedge"))
        if len(vals) != len(kinds):
            sys.exit("%s: %d fields, %d columns" % (path, len(vals),
                                                   len(kinds)))
        yield [typed(k, v) for k, v in zip(kinds, vals)]


def main():
    kinds = [c.split(":")[1] for c in sys.argv[1].split(",")]
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            for row in rows(kinds, path, f):
                print(json.dumps(row))


if __name__ == "__main__":
    main()
