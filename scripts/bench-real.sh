#!/bin/sh
# The benchmark against the real Apache Kafka broker (tests/real/up), never
# a test: one topic of generated nginx lines (no per-partition cap as in
# the mock), read by
#   kcat -C, all partitions assigned statically, -e, to /dev/null
#   kedge, static assignment (no group), nginx UDTF -> hive-text,
#   codec none and codec zstd
# alternated kedge/kcat in BENCH_ROUNDS pairs, medians compared (as
# scripts/bench.sh does); prints the load time (not part of the ratio),
# records/s whole and steady, the ratios to kcat, CPU per record against
# kcat's and the peak RSS.  Over the broker's PLAINTEXT listener: the bench
# measures consuming, not SASL or TLS.  Everything is overridable:
#   BENCH_REAL_RECORDS (2000000), BENCH_REAL_PARTITIONS (8),
#   BENCH_ROUNDS (3), KAFKA_HEAP (1g here)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

PARTS=${BENCH_REAL_PARTITIONS:-8}
RECORDS=${BENCH_REAL_RECORDS:-2000000}
ROUNDS=${BENCH_ROUNDS:-3}
KAFKA_HEAP=${KAFKA_HEAP:-1g}
export KAFKA_HEAP
B=$(mktemp -d /tmp/kedge-bench-real.XXXXXX)
trap 'tests/real/down "$B/real" >/dev/null 2>&1 || :; rm -rf "$B"' EXIT

tests/real/up "$B/real" kafka >"$B/up.log" 2>&1 ||
	die "tests/real/up: $(tail -1 "$B/up.log")"
. "$B/real/env"
tests/real/kafka "$REAL_DIR" topic bench "$PARTS" >"$B/topic.log" 2>&1 ||
	die "cannot create topic bench: $(tail -2 "$B/topic.log")"

$FIX/gen_nginx --records "$RECORDS" --partitions "$PARTS" --seed 1 \
	--start 1796000000 --hours 4 --tz UTC --malformed-permille 1 \
	--out-records "$B/records" --out-expected /dev/null --out-rejects /dev/null
t0=$(bench_now)
timeout 1800 "$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic bench \
	--partitions "$PARTS" --file "$B/records" || die "kproduce failed"
t_load=$(bench_since "$t0")
rm -f "$B/records"

# kedge_conf CODEC: a static assignment of every partition (no group_id).
kedge_conf() {
	cat <<CONF
kafka = { brokers = "$KAFKA_PLAINTEXT"; };
tables = ( { name = "access"; topics = [ "bench" ]; udtf = "nginx";
             event_time = "time_local"; format = "hive-text"; codec = "$1"; } );
output = { $OLD_EVENTS spool_dir = "$B/spool"; local_dir = "$B/warehouse"; timezone = "UTC"; };
checkpoint = { interval = 30; };
metrics = { enabled = false; };
CONF
}
kedge_conf none >"$B/none.conf"
kedge_conf zstd >"$B/zstd.conf"

steady_run() { sed -n 's/.*consumed [0-9]* records in \([0-9.]*\) s.*/\1/p' "$1"; }

# kcat without -G assigns every partition; -e prints, per partition, the
# offset it reached, which must add up to the records produced.
run_kcat() {
	bench_timed "$1" - kcat -C -b "$KAFKA_PLAINTEXT" -t bench -o beginning \
		-e -f '' || die "kcat failed: $(tail -3 "$1.err")"
	n=$(sed -n 's/.*Reached end of topic bench \[[0-9]*\] at offset \([0-9]*\).*/\1/p' \
		"$1.err" | awk '{ s += $1 } END { print s + 0 }')
	[ "$n" -eq "$RECORDS" ] || die "kcat read $n of $RECORDS"
}
run_kedge() {
	rm -rf "$B/spool" "$B/warehouse"
	bench_timed "$2" steady_run $KEDGE run -c "$B/$1.conf" --exit-at-end ||
		die "kedge ($1) failed: $(tail -3 "$2.err")"
	grep -q "table access: $RECORDS records" "$2.err" ||
		die "kedge ($1) did not read $RECORDS records: $(tail -2 "$2.err")"
}

# kedge and kcat alternated in pairs, medians compared (scripts/bench.sh)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for v in none zstd; do
		run_kedge "$v" "$B/$v.t"
		run_kcat "$B/kcat-$v.t"
	done
	r=$((r + 1))
done

echo "kedge bench, real broker: $RECORDS nginx records in $PARTS partitions of one topic (PLAINTEXT),"
echo "each run alternated with kcat -C $ROUNDS times, medians"
printf 'loaded with kproduce in %.3f s (%.0f records/s), not part of the ratio\n' \
	"$t_load" "$(echo "$RECORDS / $t_load" | bc -l)"
bench_pair_header
bench_pair_row "kcat -C (the reference)" "$RECORDS" "$B/kcat-none.t" "$B/kcat-none.t"
bench_pair_row "kedge nginx -> hive-text, none" "$RECORDS" "$B/none.t" "$B/kcat-none.t"
bench_pair_row "kedge nginx -> hive-text, zstd" "$RECORDS" "$B/zstd.t" "$B/kcat-zstd.t"
