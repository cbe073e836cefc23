#!/bin/sh
# format = "parquet" end to end: one topic read by a hive-text table and by
# four Parquet tables (snappy, zstd, gzip, none).  Every Parquet file has
# the name, in the same hour, of a text file holding the same rows; pyarrow,
# DuckDB and parquet-mr read in it exactly the values of the text file,
# with their types and NULLs, and statistics that match them; dictionary
# and PLAIN pages and several row groups occur; the footer's key-value
# metadata names the table, the partition and the offsets; kedge verify
# checks every file against its sidecar; and the same log converted again
# gives the same bytes.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

PY=tests/real/python.sh
$PY -c 'pass' || die "pyarrow and duckdb are missing (scripts/install-py-deps.sh)"

START=$(date -u -d '2026-03-01 10:00:00' +%s)
$FIX/gen_nginx --records 12000 --partitions 3 --seed 11 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects /dev/null
mock_start "$T" --topic web:3 --produce "web=$T/records"

table() { # NAME FORMAT [CODEC]
	echo "{ name = \"$1\"; topics = [ \"web\" ]; udtf = \"nginx\";"
	echo "  event_time = \"time_local\"; format = \"$2\";"
	[ -z "${3:-}" ] || echo "  codec = \"$3\";"
	echo "},"
}
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( $(table text hive-text none) $(table pq_snappy parquet)
  $(table pq_zstd parquet zstd) $(table pq_gzip parquet gzip)
  $(table pq_none parquet none | sed '$ s/,$//') );
output = { $OLD_EVENTS
  spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
  parquet = { row_group_bytes = 65536; page_bytes = 4096; dict_bytes = 1024; };
};
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/kedge.conf" >"$T/check" 2>&1 ||
	die "check-config refused the config: $(cat "$T/check")"
run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"
$KEDGE verify "$T/warehouse" >"$T/verify" 2>&1 ||
	die "kedge verify failed: $(cat "$T/verify")"

COLS=$($PY -c '
import pyarrow.parquet as pq, sys
kind = {"string": "string", "int64": "int64", "double": "double",
        "bool": "bool", "timestamp[us, tz=UTC]": "timestamp"}
print(",".join("%s:%s" % (f.name, kind[str(f.type)])
               for f in pq.read_schema(sys.argv[1])))' \
	"$(find "$T/warehouse/pq_snappy" -name '*.parquet' | head -1)")
# nginx's combined format, as docs/udtf.md types it
[ "$COLS" = "remote_addr:string,remote_user:string,time_local:timestamp,request:string,status:int64,body_bytes_sent:int64,http_referer:string,http_user_agent:string" ] ||
	die "the Parquet columns are not nginx's: $COLS"

# Every file's check is a line of $T/checks, run by one parquet_check.py
# after one parquet-mr has read every file.
n=0
version=$($KEDGE version | cut -d' ' -f2)
: >"$T/checks"
set --
for t in pq_snappy:SNAPPY pq_zstd:ZSTD pq_gzip:GZIP pq_none:UNCOMPRESSED; do
	table=${t%%:*}
	files=$(cd "$T/warehouse/$table" && find . -name '*.parquet' | sort)
	[ -n "$files" ] || die "$table has no Parquet file"
	[ "$(cd "$T/warehouse/$table" && find . -type f ! -name '.*' ! -name '_*' | sort)" = "$files" ] ||
		die "$table holds other part files than .parquet"
	for f in $files; do
		pq="$T/warehouse/$table/$f"
		txt="$T/warehouse/text/${f%.parquet}.txt"
		[ -f "$txt" ] || die "$table/$f: no text file of the same rows"
		name=$(basename "$f" .parquet)
		part=$(echo "$name" | cut -d+ -f2)
		first=$(echo "$name" | cut -d+ -f3)
		last=$(jq -r '[.offsets[][1], .spill[][1], .empty[][1]] | max' \
			"$(dirname "$pq")/.$name.parquet.json")
		n=$((n + 1))
		set -- "$@" "$pq" "$T/mr-$n.json"
		echo "'$pq' '$txt' --hive-text --columns '$COLS'" \
			"--codec ${t##*:} --min-row-groups 1 --parquet-mr '$T/mr-$n.json'" \
			"--kv kedge.version=$version --kv kedge.table=$table" \
			"--kv kedge.topic=web --kv kedge.partition=$part" \
			"--kv kedge.first_offset=$first --kv kedge.last_offset=$last" \
			>>"$T/checks"
	done
	# across the table's files: several row groups, dictionary pages and
	# PLAIN ones (1 KiB dictionaries: request and http_user_agent fall
	# back, status does not)
	$PY -c '
import os, pyarrow.parquet as pq, sys
groups = dicts = plains = 0
for path in sys.argv[2:]:
    md = pq.ParquetFile(os.path.join(sys.argv[1], path)).metadata
    groups = max(groups, md.num_row_groups)
    for g in range(md.num_row_groups):
        for j in range(md.num_columns):
            c = md.row_group(g).column(j)
            if "RLE_DICTIONARY" in c.encodings:
                dicts += 1
            else:
                plains += 1
if groups < 2 or not dicts or not plains:
    sys.exit("at most %d row groups, %d dictionary and %d PLAIN column "
             "chunks" % (groups, dicts, plains))' "$T/warehouse/$table" $files ||
		die "$table: not the row groups and pages asked for"
done
tests/real/parquet_mr.sh "$@" || die "parquet-mr cannot read the files"
$PY tests/real/parquet_check.py --batch "$T/checks" >"$T/checked" ||
	die "the readers disagree with the text table"
[ "$(grep -c '^ok ' "$T/checked")" -eq "$n" ] ||
	die "$(grep -c '^ok ' "$T/checked") of $n Parquet files checked"
echo "checked $n Parquet files with pyarrow, DuckDB and parquet-mr"
