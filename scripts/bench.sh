#!/bin/sh
# The benchmark (never a test): on one mock topic of generated nginx lines,
# measured in this run, best of 3 each:
#   kcat consuming the topic to /dev/null      (the ceiling)
#   kedge: consume + nginx UDTF + hive-text, codec none and codec zstd
#   kedge in a consumer group, codec gzip, checkpoint.interval 1 and 30
# and prints records/s, the ratios, kedge's peak RSS and how long its
# checkpoints (seal + decide) take.
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

PARTS=${BENCH_PARTITIONS:-8}
RECORDS=${BENCH_RECORDS:-720000}   # the mock keeps ~100k records a partition
ROUNDS=${BENCH_ROUNDS:-3}
B=$(mktemp -d /tmp/kedge-bench.XXXXXX)
trap 'mock_stop; rm -rf "$B"' EXIT

$FIX/gen_nginx --records "$RECORDS" --partitions "$PARTS" --seed 1 \
	--start 1796000000 --hours 4 --tz UTC --malformed-permille 1 \
	--out-records "$B/records" --out-expected /dev/null --out-rejects /dev/null
mock_start "$B" --topic bench:"$PARTS" --produce "bench=$B/records"

# kedge_conf CODEC [INTERVAL GROUP]
kedge_conf() {
	_group=
	[ -n "${3:-}" ] && _group="group_id = \"$3\";"
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; $_group
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "bench" ]; udtf = "nginx";
             event_time = "time_local"; format = "hive-text"; codec = "$1"; } );
output = { $OLD_EVENTS spool_dir = "$B/spool"; local_dir = "$B/warehouse"; timezone = "UTC"; };
checkpoint = { interval = ${2:-30}; };
metrics = { enabled = false; };
CONF
}
kedge_conf none >"$B/none.conf"
kedge_conf zstd >"$B/zstd.conf"

# best_of NAME COMMAND...: runs COMMAND $ROUNDS times, prints the best time.
best_of() {
	_name=$1
	shift
	_best=
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		rm -rf "$B/spool" "$B/warehouse"
		_t0=$(bench_now)
		"$@" || die "$_name failed"
		_t=$(bench_since "$_t0")
		if bench_faster "$_t" "$_best"; then
			_best=$_t
		fi
		_r=$((_r + 1))
	done
	echo "$_best"
}

run_kcat() {
	n=$(kcat -C -b "$BOOTSTRAP" -t bench -o beginning -e -q -f '%s\n' | wc -l)
	[ "$n" -eq "$RECORDS" ] || { echo "kcat read $n of $RECORDS" >&2; return 1; }
}
run_kedge() {
	$KEDGE run -c "$B/$1.conf" --exit-at-end 2>"$B/$1.log"
	grep -q "table access: $RECORDS records" "$B/$1.log" || {
		echo "kedge ($1) did not read $RECORDS records" >&2
		return 1
	}
}

# In a group every round needs a group of its own, so that it reads from
# the start; the time counts from the first record (the group's join takes
# seconds and is not what is measured).
round=0
run_group() {
	round=$((round + 1))
	kedge_conf gzip "$1" "bench-$1-$round" >"$B/ck$1.conf"
	$KEDGE run -c "$B/ck$1.conf" --exit-at-end 2>"$B/ck$1.log"
	grep -q "table access: $RECORDS records" "$B/ck$1.log"
}
consumed_secs() { sed -n 's/.*consumed [0-9]* records in \([0-9.]*\) s.*/\1/p' "$1"; }
best_consumed() {
	_best=
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		rm -rf "$B/spool" "$B/warehouse"
		run_group "$1" || die "kedge (checkpoint.interval $1) failed: $(tail -3 "$B/ck$1.log")"
		_t=$(consumed_secs "$B/ck$1.log")
		if bench_faster "$_t" "$_best"; then
			_best=$_t
			cp "$B/ck$1.log" "$B/ck$1.best"
		fi
		_r=$((_r + 1))
	done
	echo "$_best"
}

t_kcat=$(best_of kcat run_kcat)
t_none=$(best_of "kedge none" run_kedge none)
t_zstd=$(best_of "kedge zstd" run_kedge zstd)
t_ck1=$(best_consumed 1)
t_ck30=$(best_consumed 30)
ns() { sed -n 's/.*UDTF [^ ]* ns\/record: mean \([0-9]*\) p50 \([0-9]*\) .*p99 \([0-9]*\) .*/mean \1, p50 \2, p99 \3/p' "$B/$1.log"; }

echo "kedge bench: $RECORDS nginx records in $PARTS partitions of one mock topic, best of $ROUNDS"
bench_kcat_kedge "$RECORDS" "$t_kcat" "$t_none" "$t_zstd" "$B"
echo "UDTF cost per record (none run): $(ns none) ns"
echo
echo "checkpoints, in a consumer group, codec gzip (time from the first record to the last):"
printf '%-34s %9.3f %12.0f\n' "checkpoint.interval = 30" "$t_ck30" \
	"$(echo "$RECORDS / $t_ck30" | bc -l)"
printf '%-34s %9.3f %12.0f   ratio to 30 s: %.2f\n' "checkpoint.interval = 1" \
	"$t_ck1" "$(echo "$RECORDS / $t_ck1" | bc -l)" "$(echo "$t_ck30 / $t_ck1" | bc -l)"
echo "interval 1: $(sed -n 's/.*checkpoints: \(.*\)/\1/p' "$B/ck1.best")"
