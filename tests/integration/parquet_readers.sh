#!/bin/sh
# Parquet files of agent/parquet/parquet.c read by readers kedge does not contain,
# pyarrow and DuckDB (tests/real/requirements.txt) and parquet-mr, Hive's
# and Spark's (tests/real/parquet-mr): for every codec, with
# dictionary and PLAIN pages, many pages and several row groups, NULLs and
# every column type, each reader returns the values written, with their
# types, and the statistics of every column chunk match its rows; the same
# rows give the same bytes.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

PY=tests/real/python.sh
CHECK=tests/real/parquet_check.py
$PY -c 'pass' || die "pyarrow and duckdb are missing (scripts/install-py-deps.sh)"

for c in none:UNCOMPRESSED snappy:SNAPPY gzip:GZIP zstd:ZSTD; do
	name=${c%%:*}
	# 64 KiB row groups, 2 KiB dictionaries (city stays a dictionary, id
	# falls back to PLAIN), 4 KiB pages
	"$FIX/pqwrite" "$name" 12000 65536 2048 4096 "$T/$name.parquet" \
		"$T/$name.jsonl" || die "pqwrite $name failed"
	tests/real/parquet_mr.sh "$T/$name.parquet" >"$T/$name.mr.json" ||
		die "$name: parquet-mr cannot read the file"
	$PY "$CHECK" "$T/$name.parquet" "$T/$name.jsonl" --codec "${c##*:}" \
		--expect-dict --expect-plain --min-row-groups 4 \
		--parquet-mr "$T/$name.mr.json" ||
		die "$name: the readers disagree with the rows written"
	"$FIX/pqwrite" "$name" 12000 65536 2048 4096 "$T/again.parquet" \
		"$T/again.jsonl" || die "pqwrite $name failed"
	cmp -s "$T/$name.parquet" "$T/again.parquet" ||
		die "$name: the same rows gave other bytes"
done

# One row per page and per row group; an empty file; one dictionary for
# a whole large row group.
"$FIX/pqwrite" snappy 500 1 1048576 1 "$T/tiny.parquet" "$T/tiny.jsonl"
$PY "$CHECK" "$T/tiny.parquet" "$T/tiny.jsonl" --codec SNAPPY \
	--min-row-groups 500 || die "one row per row group: readers disagree"
"$FIX/pqwrite" zstd 0 65536 2048 4096 "$T/empty.parquet" "$T/empty.jsonl"
$PY "$CHECK" "$T/empty.parquet" "$T/empty.jsonl" --codec ZSTD \
	--min-row-groups 0 || die "empty file: readers disagree"
"$FIX/pqwrite" gzip 50000 268435456 268435456 1048576 "$T/big.parquet" \
	"$T/big.jsonl"
$PY "$CHECK" "$T/big.parquet" "$T/big.jsonl" --codec GZIP --expect-dict ||
	die "one large row group: readers disagree"
echo "ok parquet_readers"
