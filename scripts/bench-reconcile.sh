#!/bin/sh
# How long `kedge reconcile` takes for a day of hours of the bench's
# traffic (never a test): scripts/bench.sh's generator at its rate, 720,000
# nginx lines in 4 hours, so 4,320,000 in 24, landed by kedge from a mock
# topic as hive-text (gzip), and the same lines as a raw offline dump by
# load hour (gzip).  Each a median of BENCH_ROUNDS (3), wall and CPU
# seconds and peak RSS, for the 24 hours:
#   manifests   kedge's side from its manifests, the offline side a TSV
#               of counts (what --print-sql's query gives): --offline-counts
#   file mode   the offline dump read through the table's UDTF chain,
#               kedge's side from its manifests: --offline DIR
#   kedge files kedge's side from its part files read back (--columns, all
#               of them in another order), the offline side counts
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

RECORDS=${BENCH_RECORDS:-720000}
N=$((RECORDS * 6))
PARTS=48   # the mock keeps ~100k records a partition
ROUNDS=${BENCH_ROUNDS:-3}
START=1796000000
B=$(mktemp -d /tmp/kedge-bench-reconcile.XXXXXX)
trap 'mock_stop; rm -rf "$B"' EXIT

$FIX/gen_nginx --records $N --partitions $PARTS --seed 1 --start $START \
	--hours 24 --tz UTC --malformed-permille 1 --out-records "$B/records" \
	--out-expected /dev/null --out-rejects /dev/null
mock_start "$B" --topic bench:$PARTS --produce "bench=$B/records"
cat >"$B/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "bench" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$B/spool"; local_dir = "$B/warehouse";
           timezone = "UTC"; };
metrics = { enabled = false; };
CONF
$KEDGE run -c "$B/k.conf" --exit-at-end 2>"$B/run.log" ||
	die "kedge run: $(tail -3 "$B/run.log")"
mock_stop
# the dump: line i in the load hour it reached the topic, START + i * 24 h / N
awk -v s=$START -v n=$N -v d="$B/dump" '{
	f = d "/" strftime("dt=%Y%m%d/hr=%H", s + int((NR - 1) * 24 * 3600 / n), 1)
	if (f != last) { close(out); system("mkdir -p " f); last = f }
	out = f "/part-00000.log"
	print > out
}' "$B/records"
rm "$B/records"
find "$B/dump" -name '*.log' -exec gzip {} +

FROM=$(date -u -d @$START +%Y%m%d%H)
TO=$(date -u -d @$((START + 23 * 3600)) +%Y%m%d%H)
R="-c $B/k.conf --table access --from $FROM --to $TO"
COLUMNS=time_local,remote_addr,remote_user,request,status,body_bytes_sent,http_referer,http_user_agent
# counts NAME ARGS...: the offline side's counts as --offline-counts takes
# them, into $B/NAME.tsv
counts() {
	_n=$1
	shift
	$KEDGE reconcile $R --offline "$B/dump" "$@" >"$B/$_n.out" ||
		die "the dump does not reconcile: $(tail -3 "$B/$_n.out")"
	awk -F'\t' '$1 == "access" { print $2 "\t" $3 "\t" $5 "\t" $8 }' \
		"$B/$_n.out" >"$B/$_n.tsv"
}
counts counts
counts counts-columns --columns "$COLUMNS"

# timed NAME ARGS...: kedge reconcile ARGS, ROUNDS times, into $B/NAME.
timed() {
	_n=$1
	shift
	for _i in $(seq "$ROUNDS"); do
		/usr/bin/time -f '%e %U %S %M' -o "$B/$_n.time" \
			$KEDGE reconcile $R "$@" >"$B/$_n.out" 2>&1 ||
			die "reconcile $*: $(tail -3 "$B/$_n.out")"
		cat "$B/$_n.time" >>"$B/$_n"
	done
	grep -q '^reconcile: 24 hours: 24 match' "$B/$_n.out" ||
		die "reconcile $*: $(tail -1 "$B/$_n.out")"
	printf '%-12s %8.2f %8.2f %8d\n' "$_n" "$(bench_median "$B/$_n" 1)" \
		"$(bench_median "$B/$_n" cpu)" "$(bench_median "$B/$_n" 4)"
}
echo "kedge reconcile, 24 hours, $N records ($(du -sh "$B/dump" | cut -f1) of gzip dump)"
printf '%-12s %8s %8s %8s\n' mode wall_s cpu_s rss_kb
timed manifests --offline-counts "$B/counts.tsv"
timed file_mode --offline "$B/dump"
timed kedge_files --offline-counts "$B/counts-columns.tsv" --columns "$COLUMNS"
