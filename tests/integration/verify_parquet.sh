#!/bin/sh
# kedge verify of Parquet files: a table kedge wrote passes; then, each in
# a fresh copy, a footer naming another table, a sidecar with one row more
# than the footer, a file cut before its closing magic and a sidecar
# naming another codec than the pages' each exit 1 with the one line that
# names the file and what is wrong.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-03-01 10:00:00' +%s)
$FIX/gen_nginx --records 3000 --partitions 1 --seed 3 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected /dev/null --out-rejects /dev/null
mock_start "$T" --topic web:1 --produce "web=$T/records"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access_pq"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/good";
           timezone = "UTC"; };
metrics = { enabled = false; };
CONF
timeout 60 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/kedge.log" ||
	die "kedge run failed: $(tail -5 "$T/kedge.log")"
out=$($KEDGE verify "$T/good" 2>&1) || die "verify of kedge's own files: $out"

REL=$(cd "$T/good" && find access_pq -name '*.parquet' | sort | head -1)
[ -n "$REL" ] || die "kedge wrote no Parquet file"
SC=$(dirname "$REL")/.$(basename "$REL").json
ROWS=$(jq -r .rows "$T/good/$SC")

# fresh: a copy of the good tree in $W
fresh() {
	rm -rf "$T/w"
	cp -a "$T/good" "$T/w"
	W=$T/w
}

# resum: the sidecar's bytes and crc32c made those of the file again, so
# that only the footer tells
resum() {
	jq -c --argjson b "$(wc -c <"$W/$REL")" \
		--arg c "$(crc32c "$W/$REL")" \
		'.bytes = $b | .crc32c = $c' "$W/$SC" >"$T/sc" &&
		mv "$T/sc" "$W/$SC"
}

expect_violation() {
	rc=0
	out=$($KEDGE verify "$W" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || die "verify exits $rc, want 1: $out"
	[ "$out" = "$1" ] || die "verify printed \"$out\", want \"$1\""
}

fresh
python3 -c '
import sys
p = sys.argv[1]
b = open(p, "rb").read()
i = b.rindex(b"access_pq")
open(p, "wb").write(b[:i] + b"access_qq" + b[i + 9:])' "$W/$REL"
resum
expect_violation "verify: $REL: its footer says kedge.table access_qq, its sidecar access_pq"

fresh
jq -c '.rows += 1' "$W/$SC" >"$T/sc" && mv "$T/sc" "$W/$SC"
expect_violation "verify: $REL: its footer says $ROWS rows, its sidecar $((ROWS + 1))"

fresh
truncate -s -4 "$W/$REL"
resum
expect_violation "verify: $REL: not a Parquet file (no PAR1 at its start and its end)"

fresh
jq -c '.codec = "zstd"' "$W/$SC" >"$T/sc" && mv "$T/sc" "$W/$SC"
expect_violation "verify: $REL: a column chunk of row group 0 has codec 1, its sidecar says zstd"
echo "ok verify_parquet"
