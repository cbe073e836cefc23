#!/bin/sh
# kedge reconcile against offline copies of the same generated nginx
# traffic (malformed lines among it) that the real kedge landed from a
# mock topic, 21:20 to 01:20 UTC: the hours straddle a change of date.
#
# The offline dump holds the records by the hour they were "loaded" (their
# place in the stream), so rows of an event hour sit in two load
# partitions (the generator's records up to 120 s early): an untouched
# dump reconciles (exit 0) in every format (raw through the UDTF chain,
# gzip and zstd; hive-text and jsonl copies of kedge's own rows; csv), from
# the manifests and from the files (a Parquet table from its manifests
# only: --explain is refused); read without --lateness it shows the
# load-hour trap.  A planted copy: 3 lines removed in one hour, 2
# duplicated in another, a field changed in a third, lines moved to the
# next load hour: exactly those hours with exactly those counts, and
# --explain names exactly those rows (kedge's by topic, partition and
# offset, the offline side's by file and line; duplicates as such).  Then
# America/New_York across the end of summer time (local hour 01 twice),
# and bad inputs, each a clear error naming the file or flag, exit 2.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT
W=$T/warehouse
N=8000

START=$(date -u -d '2026-08-01 21:20:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 36 --start "$START" \
	--hours 4 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"

# conf FILE ZONE: kedge landing topic web as hive-text (gzip), jsonl
# (zstd) and Parquet.
conf() {
	cat >"$1" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-reconcile-$2"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; },
           { name = "access_j"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; format = "jsonl"; codec = "zstd"; },
           { name = "access_p"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-$2"; local_dir = "$T/w-$2";
           timezone = "$2"; host = "it-host"; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}
conf "$T/utc.conf" UTC
timeout 120 $KEDGE run -c "$T/utc.conf" --exit-at-end 2>"$T/kedge.log" ||
	die "kedge run: $(tail -5 "$T/kedge.log")"
W=$T/w-UTC
[ "$(find "$W/access" -name _SUCCESS | wc -l)" -eq 5 ] ||
	die "not every hour is complete: $(find "$W/access" -name _SUCCESS)"

# dump DIR ZONE [RECORDS]: the records as a Camus-style hourly dump: line i
# in the partition of the hour it reached the topic, START + i * 4 h / N,
# in ZONE; the partitions alternately plain, gzip and zstd.
dump() {
	awk -v s="$START" -v n=$N -v d="$1" -v z="$2" '
	{
		key = int((s + int((NR - 1) * 4 * 3600 / n)) / 3600)
		if (!(key in dir)) {
			c = "TZ=" z " date -d @" key * 3600 " +dt=%Y%m%d/hr=%H"
			c | getline dir[key]; close(c)
			system("mkdir -p " d "/" dir[key])
		}
		print > (d "/" dir[key] "/part-00000.log")
	}' "${3:-$T/records}"
	i=0
	for f in $(find "$1" -name part-00000.log | sort); do
		case $((i % 3)) in
		1) gzip "$f" ;;
		2) zstd -q --rm "$f" ;;
		esac
		i=$((i + 1))
	done
}
dump "$T/dump" UTC

# reconcile NAME ARGS...: kedge reconcile of access into $T/NAME.out and
# .err; its exit status in rc.
reconcile() {
	_n=$1
	shift
	rc=0
	$KEDGE reconcile -c "$T/utc.conf" "$@" >"$T/$_n.out" 2>"$T/$_n.err" ||
		rc=$?
}
# hours NAME: the hour lines of NAME's report, "dt hr kedge offline diff
# verdict".
hours() {
	awk -F'\t' '$1 != "table" && $1 != "explain" && $1 !~ /^reconcile:/ {
		print $2, $3, $4, $5, $6, $9 }' "$T/$1.out"
}

RANGE="--from 2026080121 --to 2026080200"
reconcile clean --table access $RANGE --offline "$T/dump"
[ "$rc" -eq 0 ] || die "an untouched dump: exit $rc: $(cat "$T/clean.out" "$T/clean.err")"
[ "$(hours clean | awk '$6 == "match"' | wc -l)" -eq 4 ] ||
	die "an untouched dump: $(cat "$T/clean.out")"
# the rows are the generator's, hour by hour (its expected rows)
want=$(cut -f1 "$T/expected" | sort | uniq -c | head -4 | awk '{ print $1 }' | tr '\n' ' ')
got=$(hours clean | awk '{ print $3 }' | tr '\n' ' ')
[ "$got" = "$want" ] || die "kedge's rows per hour $got, the generator's $want"
# the malformed lines of the load partitions 21..00 (record i is at
# partition i % 2, offset i / 2)
END=$(date -u -d '2026-08-02 01:00:00' +%s)
rejects=$(awk -F'\t' -v s="$START" -v n=$N -v e="$END" '
	s + int(($2 * 2 + $1) * 4 * 3600 / n) < e' "$T/rejects" | wc -l)
tail -1 "$T/clean.out" | grep -qx "reconcile: 4 hours: 4 match, 0 missing, 0 extra, 0 differ, 0 incomplete, 0 empty; rejects: kedge 0, offline $rejects" ||
	die "summary: $(tail -1 "$T/clean.out")"
# from the files rather than the manifests (columns in another order),
# and the jsonl table
reconcile files --table access $RANGE --offline "$T/dump" \
	--columns time_local,remote_addr,remote_user,request,status,body_bytes_sent,http_referer,http_user_agent
[ "$rc" -eq 0 ] || die "from the files: exit $rc: $(cat "$T/files.out" "$T/files.err")"
reconcile jsonl --table access_j $RANGE --offline "$T/dump" --json
[ "$rc" -eq 0 ] || die "the jsonl table: exit $rc: $(cat "$T/jsonl.out" "$T/jsonl.err")"
jq -e '.summary.match == 4 and (.hours | length) == 4' "$T/jsonl.out" >/dev/null ||
	die "--json: $(cat "$T/jsonl.out")"
# a Parquet table's hours from the fingerprints of its manifests
reconcile parquet --table access_p $RANGE --offline "$T/dump"
[ "$rc" -eq 0 ] || die "the Parquet table: exit $rc: $(cat "$T/parquet.out" "$T/parquet.err")"
# the same fingerprints from kedge's hive-text and jsonl files
[ "$(jq -r '.hours[].kedge_fingerprint' "$T/jsonl.out" | tr '\n' ' ')" = \
	"$(awk -F'\t' '$1 == "access" { print $7 }' "$T/clean.out" | tr '\n' ' ')" ] ||
	die "the jsonl table's fingerprints differ from the hive-text one's"

# The load-hour trap: without --lateness, the rows of 22 that reached the
# topic in 23 are not read.
reconcile trap --table access --from 2026080121 --to 2026080122 \
	--offline "$T/dump" --lateness 0
[ "$rc" -eq 1 ] && hours trap | grep -q '^20260801 22 .* extra$' ||
	die "--lateness 0: exit $rc: $(cat "$T/trap.out" "$T/trap.err")"

# Typed copies: kedge's own rows as hive-text (event hour = load hour
# here), its jsonl rows, and those as csv.
for d in $(cd "$W/access" && find . -name 'hr=*' -type d); do
	mkdir -p "$T/hive/$d" "$T/json/$d"
	zcat "$W/access/$d"/*.txt.gz >"$T/hive/$d/000000_0"
	zstdcat "$W/access_j/$d"/*.jsonl.zst >"$T/json/$d/part-0.json"
done
reconcile hive --table access $RANGE --offline "$T/hive" --offline-format hive-text
[ "$rc" -eq 0 ] || die "hive-text: exit $rc: $(cat "$T/hive.out" "$T/hive.err")"
reconcile json --table access $RANGE --offline "$T/json" --offline-format jsonl
[ "$rc" -eq 0 ] || die "jsonl: exit $rc: $(cat "$T/json.out" "$T/json.err")"
python3 - "$T/json" "$T/csv" <<'PY'
import csv, json, os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        out = os.path.join(sys.argv[2], os.path.relpath(root, sys.argv[1]))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(root, f), encoding="utf-8") as i, \
             open(os.path.join(out, "part-0.csv"), "w", newline="",
                  encoding="utf-8") as o:
            w = None
            for line in i:
                row = json.loads(line)
                if w is None:
                    w = csv.writer(o, lineterminator="\n")
                    w.writerow(list(row))
                # Spark's csv: null empty, an empty string quoted
                w.writerow(["" if v is None else
                            csv.QUOTE_ALL and (v if v != "" else '""')
                            for v in row.values()])
PY
sed -i 's/""""/""/g' $(find "$T/csv" -name '*.csv')
reconcile csv --table access $RANGE --offline "$T/csv" --offline-format csv
[ "$rc" -eq 0 ] || die "csv: exit $rc: $(cat "$T/csv.out" "$T/csv.err")"

# The planted copy.  well N FILE: the Nth well-formed line of FILE.
well() {
	awk -F'\t' -v n="$1" 'NR == FNR { bad[$3] = 1; next }
		!($0 in bad) && ++k == n { print FNR; exit }' "$T/rejects" "$2"
}
cp -r "$T/dump" "$T/planted"
P=$T/planted/dt=20260801
gunzip "$P/hr=22/part-00000.log.gz"
zstd -q -d --rm "$P/hr=23/part-00000.log.zst"
# 22: three lines removed
removed=""
for k in 300 500 700; do
	removed="$removed$(sed -n "$(well $k "$P/hr=22/part-00000.log")p" "$P/hr=22/part-00000.log")
"
done
printf '%s' "$removed" >"$T/removed"
grep -vxF -f "$T/removed" "$P/hr=22/part-00000.log" >"$T/x" && mv "$T/x" "$P/hr=22/part-00000.log"
# 23: two lines duplicated at its end
for k in 100 900; do
	sed -n "$(well $k "$P/hr=23/part-00000.log")p" "$P/hr=23/part-00000.log" >>"$T/dup"
done
dup_at=$(($(wc -l <"$P/hr=23/part-00000.log") + 1))
cat "$T/dup" >>"$P/hr=23/part-00000.log"
# 00 of the next day: one field changed (the status)
Q=$T/planted/dt=20260802/hr=00
ls "$Q"/part-00000.log* >/dev/null
f=$(ls "$Q"/part-00000.log*)
case $f in *.gz) gunzip "$f" ;; *.zst) zstd -q -d --rm "$f" ;; esac
changed=$(well 40 "$Q/part-00000.log")
sed -n "${changed}p" "$Q/part-00000.log" | grep -q '" [0-9][0-9][0-9] ' ||
	die "line $changed has no status"
sed -i "${changed}s/\" \([0-9][0-9][0-9]\) /\" 599 /" "$Q/part-00000.log"
# 21: 50 lines loaded an hour late (moved to the next load partition)
head -50 "$P/hr=21/part-00000.log" >>"$P/hr=22/part-00000.log"
sed -i '1,50d' "$P/hr=21/part-00000.log"

reconcile planted --table access $RANGE --offline "$T/planted" --explain 10
[ "$rc" -eq 1 ] || die "planted: exit $rc: $(cat "$T/planted.out" "$T/planted.err")"
k21=$(hours clean | awk '$2 == 21 { print $3 }')
k22=$(hours clean | awk '$2 == 22 { print $3 }')
k23=$(hours clean | awk '$2 == 23 { print $3 }')
k00=$(hours clean | awk '$2 == "00" { print $3 }')
want="20260801 21 $k21 $k21 0 match
20260801 22 $k22 $((k22 - 3)) 3 extra
20260801 23 $k23 $((k23 + 2)) -2 missing
20260802 00 $k00 $k00 0 differ"
[ "$(hours planted)" = "$want" ] ||
	die "planted: $(hours planted), want $want"
# explain: the 3 removed rows by their topic, partition and offset (record
# i of the topic is at partition i % 2, offset i / 2)
for line in $(grep -nxF -f "$T/removed" "$T/records" | cut -d: -f1); do
	i=$((line - 1))
	grep -q "^explain	access	20260801	22	kedge	only	1/0	topic web partition $((i % 2)) offset $((i / 2)), " "$T/planted.out" ||
		die "explain does not name record $i: $(grep ^explain "$T/planted.out")"
done
[ "$(grep -c '^explain	access	20260801	22	' "$T/planted.out")" -eq 3 ] ||
	die "explain of 22: $(grep ^explain "$T/planted.out")"
for at in $dup_at $((dup_at + 1)); do
	grep -q "^explain	access	20260801	23	offline	duplicate	2/1	$T/planted/dt=20260801/hr=23/part-00000.log:$at	" "$T/planted.out" ||
		die "explain does not name the duplicate at line $at: $(grep ^explain "$T/planted.out")"
done
[ "$(grep -c '^explain	access	20260801	23	' "$T/planted.out")" -eq 2 ] ||
	die "explain of 23: $(grep ^explain "$T/planted.out")"
grep -q "^explain	access	20260802	00	offline	only	1/0	$Q/part-00000.log:$changed	.*	599	" "$T/planted.out" &&
[ "$(grep -c '^explain	access	20260802	00	kedge	only	1/0	topic web partition ' "$T/planted.out")" -eq 1 ] &&
[ "$(grep -c '^explain	access	20260802	00	' "$T/planted.out")" -eq 2 ] ||
	die "explain of 00: $(grep ^explain "$T/planted.out")"

# America/New_York: summer time ends 2026-11-01 at 02:00 EDT, local hour 01
# comes twice and is one partition.
mock_stop
START=$(date -u -d '2026-11-01 04:30:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 37 --start "$START" \
	--hours 4 --tz America/New_York --malformed-permille 20 \
	--out-records "$T/ny-records" --out-expected "$T/ny-expected" \
	--out-rejects "$T/ny-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/ny-records"
conf "$T/ny.conf" America/New_York
timeout 120 $KEDGE run -c "$T/ny.conf" --exit-at-end 2>"$T/kedge-ny.log" ||
	die "kedge run (New York): $(tail -5 "$T/kedge-ny.log")"
dump "$T/ny-dump" America/New_York "$T/ny-records"
rc=0
$KEDGE reconcile -c "$T/ny.conf" --table access --from 2026110100 \
	--to 2026110103 --offline "$T/ny-dump" >"$T/ny.out" 2>&1 || rc=$?
want=$(cut -f1 "$T/ny-expected" | sort | uniq -c | head -4 | awk '{ print $1 }' | tr '\n' ' ')
got=$(hours ny | awk '{ print $3 }' | tr '\n' ' ')
[ "$rc" -eq 0 ] && [ "$(hours ny | awk '{ print $2 }' | tr '\n' ' ')" = "00 01 02 03 " ] &&
	[ "$got" = "$want" ] ||
	die "America/New_York: exit $rc, rows $got (want $want): $(cat "$T/ny.out")"

# Bad inputs: each names the file or flag, exit 2.
bad() {
	_want=$1
	shift
	rc=0
	$KEDGE reconcile -c "$T/utc.conf" "$@" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" -eq 2 ] && grep -qF -- "$_want" "$T/bad.err" ||
		die "reconcile $*: exit $rc, \"$(cat "$T/bad.err")\", want \"$_want\""
}
bad "kedge reconcile: --to 2026080120 is before --from 2026080121" \
	--table access --from 2026080121 --to 2026080120 --offline "$T/dump"
bad "kedge reconcile: --columns: the table has no column nosuch" \
	--table access $RANGE --offline "$T/dump" --columns remote_addr,nosuch
bad "kedge reconcile: --table nosuch: $T/utc.conf has no such table" \
	--table nosuch $RANGE --offline "$T/dump"
cp -r "$T/hive" "$T/badline"
printf 'a\001b\n' >>"$T/badline/dt=20260801/hr=22/000000_0"
n=$(wc -l <"$T/badline/dt=20260801/hr=22/000000_0")
bad "$T/badline/dt=20260801/hr=22/000000_0:$n: 2 fields, the table has 8 columns (--offline-format hive-text)" \
	--table access $RANGE --offline "$T/badline" --offline-format hive-text
bad "kedge reconcile: --explain: table access_p is Parquet, whose rows reconcile does not read back" \
	--table access_p $RANGE --offline "$T/dump" --explain 1
mkdir -p "$T/badpath/dt=2026-08-01"
bad "$T/badpath/dt=2026-08-01: not a partition of --offline-layout dt=%Y%m%d/hr=%H (a directory dt=%Y%m%d expected here)" \
	--table access $RANGE --offline "$T/badpath"
cp -r "$T/dump" "$T/fifo"
mkfifo "$T/fifo/dt=20260801/hr=22/part-00001.log"
bad "read $T/fifo/dt=20260801/hr=22/part-00001.log: not a regular file" \
	--table access $RANGE --offline "$T/fifo"
cp -r "$T/dump" "$T/cut"
f=$(find "$T/cut" -name '*.gz' | head -1)
head -c 3000 "$f" >"$T/x" && mv "$T/x" "$f"
bad "$f: truncated gzip stream" --table access $RANGE --offline "$T/cut"
bad "kedge reconcile: --offline $T/nowhere: No such file or directory" \
	--table access $RANGE --offline "$T/nowhere"

echo "reconcile OK: 4 hours across a change of date match in 5 formats, the planted 3 removed, 2 duplicated, 1 changed named; America/New_York's 01 twice; 9 bad inputs refused"
