#!/bin/sh
# The benchmark against the real Apache Kafka broker (tests/real/up), never
# a test: one topic of generated nginx lines (no per-partition cap as in
# the mock), read by
#   kcat -C, all partitions assigned statically, -e, to /dev/null
#   kedge, static assignment (no group), nginx UDTF -> hive-text,
#   codec none and codec zstd
# alternated kedge/kcat in pairs, best of BENCH_ROUNDS each; prints the
# load time (not part of the ratio), records/s, the ratio kedge/kcat and
# kedge's peak RSS.  Over the broker's PLAINTEXT listener: the bench
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

# kcat without -G assigns every partition; -e prints, per partition, the
# offset it reached, which must add up to the records produced.
run_kcat() {
	kcat -C -b "$KAFKA_PLAINTEXT" -t bench -o beginning -e \
		>/dev/null 2>"$B/kcat.log" || return 1
	n=$(sed -n 's/.*Reached end of topic bench \[[0-9]*\] at offset \([0-9]*\).*/\1/p' \
		"$B/kcat.log" | awk '{ s += $1 } END { print s + 0 }')
	[ "$n" -eq "$RECORDS" ] || { echo "kcat read $n of $RECORDS" >&2; return 1; }
}
run_kedge() {
	rm -rf "$B/spool" "$B/warehouse"
	$KEDGE run -c "$B/$1.conf" --exit-at-end 2>"$B/$1.run"
	grep -q "table access: $RECORDS records" "$B/$1.run" || {
		echo "kedge ($1) did not read $RECORDS records: $(tail -2 "$B/$1.run")" >&2
		return 1
	}
}

# timed NAME COMMAND...: runs COMMAND once, keeps the best time in
# best_NAME (and, for kedge, the best run's log in $B/NAME.log).
timed() {
	_n=$1
	shift
	_t0=$(bench_now)
	"$@" || die "$_n failed"
	_t=$(bench_since "$_t0")
	eval "_b=\${best_$_n:-}"
	if bench_faster "$_t" "$_b"; then
		eval "best_$_n=$_t"
		[ ! -e "$B/$_n.run" ] || cp "$B/$_n.run" "$B/$_n.log"
	fi
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
	timed none run_kedge none
	timed kcat run_kcat
	timed zstd run_kedge zstd
	timed kcat run_kcat
	r=$((r + 1))
done

echo "kedge bench, real broker: $RECORDS nginx records in $PARTS partitions of one topic (PLAINTEXT), best of $ROUNDS"
printf 'loaded with kproduce in %.3f s (%.0f records/s), not part of the ratio\n' \
	"$t_load" "$(echo "$RECORDS / $t_load" | bc -l)"
bench_kcat_kedge "$RECORDS" "$best_kcat" "$best_none" "$best_zstd" "$B"
