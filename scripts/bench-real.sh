#!/bin/sh
# The benchmark against the real Apache Kafka broker (tests/real/up), never
# a test: kedge against kcat, the floor, and against the Flink job its
# users run for the same work (bench/peers/flink), on one topic of
# generated nginx lines produced twice, uncompressed and with lz4 (as most
# producers send), each read by
#   kcat -C, all partitions assigned statically, -e, to /dev/null
#   kedge, static assignment (no group), nginx UDTF -> hive-text, codec
#     none (and zstd, on the uncompressed topic), event-time hours in
#     BENCH_REAL_ZONE
#   the Flink job, parallelism 1 and 2: KafkaSource -> a java.util.regex
#     flatMap -> a FileSink of the same rows in the same hours
# alternated round by round, BENCH_ROUNDS rounds, medians.  Every round
# checks that kedge (codec none) and the Flink job landed the same rows in
# every hour (bench/peers/hours: the count and the SHA-256 of the sorted
# rows) and counted the same rejects.  Prints, for each run, the wall time,
# records/s over the whole process and from the first record to the last
# (kedge's log; the Flink job's own count of System.nanoTime() at the two,
# inside the job), CPU µs a record (user + system of the whole process, the
# JVM's for Flink) and the peak RSS; then kedge's ratios to kcat and to the
# Flink job.  Over the broker's PLAINTEXT listener: the bench measures
# consuming, not SASL or TLS.  Everything is overridable:
#   BENCH_REAL_RECORDS (2000000), BENCH_REAL_PARTITIONS (8),
#   BENCH_ROUNDS (3), BENCH_REAL_ZONE (Asia/Shanghai), KAFKA_HEAP (1g
#   here), FLINK_PEER_HEAP (1g: bench/peers/flink/run)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

PARTS=${BENCH_REAL_PARTITIONS:-8}
RECORDS=${BENCH_REAL_RECORDS:-2000000}
ROUNDS=${BENCH_ROUNDS:-3}
ZONE=${BENCH_REAL_ZONE:-Asia/Shanghai}
KAFKA_HEAP=${KAFKA_HEAP:-1g}
export KAFKA_HEAP
FLINK=$(sed -n 's/.*<flink.version>\(.*\)<\/flink.version>.*/\1/p' \
	bench/peers/flink/pom.xml)
B=$(mktemp -d /tmp/kedge-bench-real.XXXXXX)
trap 'tests/real/down "$B/real" >/dev/null 2>&1 || :; rm -rf "$B"' EXIT

# built before anything is timed (tests/real/fetch-deps built it once)
bench/peers/flink/build || die "the Flink peer is not built"
tests/real/up "$B/real" kafka >"$B/up.log" 2>&1 ||
	die "tests/real/up: $(tail -1 "$B/up.log")"
. "$B/real/env"

$FIX/gen_nginx --records "$RECORDS" --partitions "$PARTS" --seed 1 \
	--start 1796000000 --hours 4 --tz UTC --malformed-permille 1 \
	--out-records "$B/records" --out-expected /dev/null --out-rejects /dev/null
# load TOPIC CODEC: TOPIC made and loaded with the records, compressed by
# the producer with CODEC; prints the load time.
load() {
	tests/real/kafka "$REAL_DIR" topic "$1" "$PARTS" >"$B/topic.log" 2>&1 ||
		die "cannot create topic $1: $(tail -2 "$B/topic.log")"
	_t0=$(bench_now)
	timeout 1800 "$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$1" \
		--partitions "$PARTS" --file "$B/records" --compression "$2" ||
		die "kproduce failed"
	printf '%s %.3f s' "$2" "$(bench_since "$_t0")"
}
loaded=$(load bench none)
loaded="$loaded, $(load bench_lz4 lz4)"
rm -f "$B/records"

# kedge_conf TOPIC CODEC: a static assignment of every partition (no
# group_id).
kedge_conf() {
	cat <<CONF
kafka = { brokers = "$KAFKA_PLAINTEXT"; };
tables = ( { name = "access"; topics = [ "$1" ]; udtf = "nginx";
             event_time = "time_local"; format = "hive-text"; codec = "$2"; } );
output = { $OLD_EVENTS spool_dir = "$B/spool"; local_dir = "$B/warehouse"; timezone = "$ZONE"; };
checkpoint = { interval = 30; };
metrics = { enabled = false; };
CONF
}

steady_kedge() { sed -n 's/.*consumed [0-9]* records in \([0-9.]*\) s.*/\1/p' "$1"; }
steady_flink() { sed -n 's/.* \([0-9.]*\) s from the first record to the last.*/\1/p' "$1"; }

# same_hours DIR WHO: the hours of the rows in DIR are those of the first
# run checked (every run reads the same records).
same_hours() {
	bench/peers/hours "$1" >"$B/hours.now" || die "bench/peers/hours $1 failed"
	if [ ! -s "$B/hours" ]; then
		cp "$B/hours.now" "$B/hours"
		[ -s "$B/hours" ] || die "$2 landed no row"
		hours_first=$2
	fi
	cmp -s "$B/hours" "$B/hours.now" ||
		die "$2 landed other rows than $hours_first: $(diff "$B/hours" "$B/hours.now" | head -4)"
}
# same_rejects N WHO: N is the rejects the first run counted.
same_rejects() {
	[ -n "${rejects:-}" ] || rejects=$1
	[ "$1" = "$rejects" ] ||
		die "$2 counted $1 rejects, $hours_first $rejects"
}

# kcat without -G assigns every partition; -e prints, per partition, the
# offset it reached, which must add up to the records produced.
run_kcat() { # TOPIC OUT
	bench_timed "$2" - kcat -C -b "$KAFKA_PLAINTEXT" -t "$1" -o beginning \
		-e -f '' || die "kcat failed: $(tail -3 "$2.err")"
	_n=$(sed -n "s/.*Reached end of topic $1 \[[0-9]*\] at offset \([0-9]*\).*/\1/p" \
		"$2.err" | awk '{ s += $1 } END { print s + 0 }')
	[ "$_n" -eq "$RECORDS" ] || die "kcat read $_n of $RECORDS"
}
run_kedge() { # TOPIC CODEC OUT
	rm -rf "$B/spool" "$B/warehouse"
	kedge_conf "$1" "$2" >"$B/kedge.conf"
	bench_timed "$3" steady_kedge $KEDGE run -c "$B/kedge.conf" --exit-at-end ||
		die "kedge ($1, $2) failed: $(tail -3 "$3.err")"
	grep -q "table access: $RECORDS records" "$3.err" ||
		die "kedge ($1, $2) did not read $RECORDS records: $(tail -2 "$3.err")"
	[ "$2" != none ] && return 0
	same_hours "$B/warehouse/access" "kedge ($1)"
	same_rejects "$(sed -n 's/.*table access: .* \([0-9]*\) rejects.*/\1/p' "$3.err")" \
		"kedge ($1)"
}
run_flink() { # TOPIC PARALLELISM OUT
	rm -rf "$B/flink"
	bench_timed "$3" steady_flink bench/peers/flink/run \
		--brokers "$KAFKA_PLAINTEXT" --topic "$1" --out "$B/flink" \
		--zone "$ZONE" --parallelism "$2" ||
		die "the Flink job ($1, parallelism $2) failed: $(grep -v WARN "$3.err" | tail -3)"
	grep -q "^flink peer: $RECORDS records" "$3.err" ||
		die "the Flink job ($1) did not read $RECORDS records: $(tail -2 "$3.err")"
	same_hours "$B/flink" "the Flink job ($1, parallelism $2)"
	same_rejects "$(sed -n 's/.* \([0-9]*\) rejects;.*/\1/p' "$3.err")" \
		"the Flink job ($1, parallelism $2)"
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for t in bench bench_lz4; do
		run_kcat "$t" "$B/$t-kcat.t"
		run_kedge "$t" none "$B/$t-none.t"
		[ "$t" != bench ] || run_kedge "$t" zstd "$B/$t-zstd.t"
		run_flink "$t" 1 "$B/$t-flink1.t"
		run_flink "$t" 2 "$B/$t-flink2.t"
	done
	r=$((r + 1))
done

# row NAME FILE: a line of the table from the medians of a bench_timed
# FILE; kcat's first->last is its wall time, not shown.
row() {
	_w=$(bench_median "$2" 1)
	_s=-
	case $1 in
	kcat*) ;;
	*) _s=$(printf '%.0f' "$(echo "$RECORDS / $(bench_median "$2" 5)" | bc -l)") ;;
	esac
	printf '%-34s %7.3f %10.0f %12s %8.2f %6d MiB\n' "$1" "$_w" \
		"$(echo "$RECORDS / $_w" | bc -l)" "$_s" \
		"$(echo "$(bench_median "$2" cpu) * 1000000 / $RECORDS" | bc -l)" \
		"$(($(bench_median "$2" 4 | cut -d. -f1) / 1024))"
}
# ratios NAME KEDGE OTHER: kedge's figures as ratios to OTHER's, from the
# medians: records/s whole and first->last (against kcat's whole), CPU a
# record and peak RSS.
ratios() {
	printf '  %-32s %7.2f %10.2f %12.2f %8.2f\n' "$1" \
		"$(echo "$(bench_median "$3" 1) / $(bench_median "$2" 1)" | bc -l)" \
		"$(echo "$(bench_median "$3" 5) / $(bench_median "$2" 5)" | bc -l)" \
		"$(echo "$(bench_median "$2" cpu) / $(bench_median "$3" cpu)" | bc -l)" \
		"$(echo "$(bench_median "$2" 4) / $(bench_median "$3" 4)" | bc -l)"
}

echo "kedge bench, real broker (PLAINTEXT): $RECORDS nginx records in $PARTS partitions,"
echo "hours in $ZONE; kcat, kedge and the Flink job alternated, $ROUNDS rounds, medians"
echo "loaded with kproduce: $loaded (not part of the figures)"
echo "rows: kedge (none) and the Flink job landed the same in every hour, every round"
echo "($(awk '{ n++; s += $2 } END { print n " hours, " s " rows" }' "$B/hours"); $rejects rejects each)"
for t in bench bench_lz4; do
	echo
	[ "$t" = bench ] && echo "topic uncompressed" || echo "topic compressed by the producer with lz4"
	printf '%-34s %7s %10s %12s %8s %10s\n' run "wall s" "records/s" \
		"first->last" "CPU us/r" "peak RSS"
	row "kcat -C (the floor)" "$B/$t-kcat.t"
	row "kedge nginx -> hive-text, none" "$B/$t-none.t"
	[ "$t" != bench ] || row "kedge nginx -> hive-text, zstd" "$B/$t-zstd.t"
	row "Flink $FLINK, parallelism 1" "$B/$t-flink1.t"
	row "Flink $FLINK, parallelism 2" "$B/$t-flink2.t"
	printf "kedge (none)'s ratios: %-12s %7s %10s %12s %8s\n" "" whole \
		'first->last' "CPU a rec" "RSS"
	ratios "to kcat" "$B/$t-none.t" "$B/$t-kcat.t"
	ratios "to Flink, parallelism 1" "$B/$t-none.t" "$B/$t-flink1.t"
	ratios "to Flink, parallelism 2" "$B/$t-none.t" "$B/$t-flink2.t"
done
echo
echo "(records/s: of the whole process, and from the first record to the last as"
echo " kedge logs it and as the Flink job counts it inside; kcat's first->last is"
echo " its whole run; CPU: user + system of the whole process, the JVM's for Flink;"
echo " a ratio over 1 is kedge faster, or spending more CPU or memory)"
