#!/bin/sh
# Static assignment (no group), JSON lines, zstd, UTC, small files: every
# record once, each file a whole zstd stream of valid JSON objects with the
# nginx columns typed (status a number, NULL as null).
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-03-01 10:00:00' +%s)
$FIX/gen_nginx --records 12000 --partitions 3 --seed 5 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:3 --produce "web=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( {
  name = "web"; topics = [ "web" ]; udtf = "nginx";
  event_time = "time_local"; format = "jsonl"; codec = "zstd";
} );
output = { $OLD_EVENTS
  spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
  roll = { max_bytes = 8192; };
  rejects = { format = "jsonl"; codec = "zstd"; };
};
metrics = { enabled = false; };
CONF

run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"

for f in $(find "$T/warehouse" -path '*/_kedge' -prune -o -type f ! -name ".*" ! -name '_*' -print); do
	zstd -qt "$f" || die "$f is not a whole zstd file"
	zstd -qdc "$f" | jq -e 'type == "object"' >/dev/null ||
		die "$f holds a line that is not a JSON object"
done

# Rows per hour and the typed status column match the generator's.
cut -f1 "$T/expected" | sort | uniq -c >"$T/want-hours"
for d in "$T"/warehouse/web/dt=*/hr=*; do
	h=$(echo "$d" | sed 's|.*/\(dt=[0-9]*/hr=[0-9]*\)$|\1|')
	for f in "$d"/[!_]*; do zstd -qdc "$f"; done | sed "s|.*|$h|"
done | sort | uniq -c >"$T/got-hours"
same_or_die "$T/want-hours" "$T/got-hours" "rows per hour differ"
# The typed columns, against the generator's: remote_addr, remote_user
# (NULL for "-") and status.
cut -f2- "$T/expected" | hive_cut 1 2 5 | sed 's/	\\N	/	NULL	/' |
	sort >"$T/want-cols"
find "$T/warehouse/web" -type f ! -name ".*" ! -name '_*' | while read -r f; do zstd -qdc "$f"; done |
	jq -r '[.remote_addr, (.remote_user // "NULL"),
	        (if (.status | type) == "number" then .status else "BAD" end)] | @tsv' |
	sort >"$T/got-cols"
same_or_die "$T/want-cols" "$T/got-cols" "remote_addr, remote_user or status differ"

# Every malformed record is in the rejects, as JSON, with its offset.
find "$T/warehouse/_rejects" -type f ! -name ".*" ! -name '_*' | while read -r f; do zstd -qdc "$f"; done |
	jq -r '[.partition, .offset, .raw] | @tsv' | sort >"$T/got-rejects"
sort "$T/expected-rejects" >"$T/want-rejects"
same_or_die "$T/want-rejects" "$T/got-rejects" "rejects differ"
$KEDGE verify "$T/warehouse" || die "kedge verify failed"

# kedge status: the daemon's last report, with the counts above and a
# latency line per table.
rc=0
$KEDGE status -c "$T/kedge.conf" >"$T/status" || rc=$?
[ "$rc" -eq 3 ] || die "kedge status of a stopped kedge exited $rc, not 3"
rows=$(wc -l <"$T/want-cols")
rejects=$(wc -l <"$T/want-rejects")
grep -qx "not running; its last status:" "$T/status" ||
	die "status does not say kedge stopped: $(cat "$T/status")"
grep -qx "table web: UDTF nginx: 12000 records, $rows rows, $rejects rejects, 0 gave no row" \
	"$T/status" || die "status counts differ: $(cat "$T/status")"
grep -Eq "^table web: ns/record: mean [1-9][0-9]* p50 [1-9][0-9]* p90 [0-9]+ p99 [0-9]+ p99.9 [0-9]+ max [0-9]+$" \
	"$T/status" || die "status has no latency line: $(cat "$T/status")"
[ "$(grep -c "^table web: slow record web \[[0-2]\] offset [0-9]*: [0-9]* ns$" "$T/status")" -eq 10 ] ||
	die "status does not list the 10 slowest records: $(cat "$T/status")"
# The shutdown summary names the slowest of them the same way, in one
# line (the ten are debug lines).
slowest=$(sed -n 's/^table web: slow record //p' "$T/status" | head -1)
grep 'slow record' "$T/kedge.log" >"$T/log-slow" || :
[ "$(wc -l <"$T/log-slow")" -eq 1 ] &&
	log_lines "$T/log-slow" | grep -qxF "info table web: slowest record $slowest ($(
		echo "$slowest" | sed 's/.*: \([0-9]*\) ns$/\1/' |
		awk '{ printf "%.3f", $1 / 1e6 }') ms), of 10 slow records kept; kedge status lists them" ||
	die "the log does not sum up the slowest records in one line: $(cat "$T/log-slow")"
echo "ok: $(wc -l <"$T/want-cols") rows in $(find "$T/warehouse/web" -type f ! -name ".*" ! -name '_*' | wc -l) files"
