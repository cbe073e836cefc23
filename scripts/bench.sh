#!/bin/sh
# The benchmark (never a test), on mock topics of generated nginx lines,
# every figure a ratio to a reference measured in the same run:
#
# 1. End to end: each kedge variant alternated with kcat in pairs (kedge,
#    kcat, kedge, kcat, ... BENCH_PAIRS times, whole processes, the same
#    topic), medians compared.  Both read a static assignment (kcat -C, no
#    group_id).  The variants: kedge's consumer alone dropping every
#    record unparsed (`kedge bench consume`: what fetching costs), then the
#    nginx UDTF into hive-text with codec none, zstd and gzip, and into
#    Parquet with snappy and zstd.  Printed: records/s over the whole
#    process and from the first record to the last (steady), their ratios
#    to kcat, CPU time per record as a ratio to kcat's, peak RSS.
# 2. How the cost grows (codec zstd, median of BENCH_ROUNDS): partitions
#    1, 8, 64, 256; tables 1 and 4 reading one topic; open hours 1, 100,
#    1000 (records of that many hours interleaved: late data).
# 3. Checkpoints, in a consumer group, codec gzip: interval 1 against 30,
#    alternated round by round.
# 4. Memory by the producer's batch.size (the mock above produces 4 MB
#    batches): the same records produced again in batches of 16 KiB (the
#    Java producer's default), 1 MB (librdkafka's) and 4 MB; kedge (zstd)
#    and kcat, peak RSS and rate, median of BENCH_ROUNDS.
#
# Sizes: BENCH_RECORDS (720000), BENCH_PARTITIONS (8), BENCH_PAIRS (5),
# BENCH_GROW_RECORDS (96000), BENCH_HOURS_RECORDS (12000), BENCH_ROUNDS (3).
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

PARTS=${BENCH_PARTITIONS:-8}
RECORDS=${BENCH_RECORDS:-720000}   # the mock keeps ~100k records a partition
PAIRS=${BENCH_PAIRS:-5}
GROW=${BENCH_GROW_RECORDS:-96000}  # fits one mock partition
HOURS_N=${BENCH_HOURS_RECORDS:-12000}
ROUNDS=${BENCH_ROUNDS:-3}
B=$(mktemp -d /tmp/kedge-bench.XXXXXX)
trap 'mock_stop; rm -rf "$B"' EXIT

# gen NAME RECORDS PARTITIONS HOURS: records in $B/NAME.records
gen() {
	$FIX/gen_nginx --records "$2" --partitions "$3" --seed 1 \
		--start 1796000000 --hours "$4" --tz UTC --malformed-permille 1 \
		--out-records "$B/$1.records" --out-expected /dev/null \
		--out-rejects /dev/null
}
gen bench "$RECORDS" "$PARTS" 4
gen p1 "$GROW" 1 4
gen h1 "$HOURS_N" 8 1
gen h100 "$HOURS_N" 8 100
gen h1000 "$HOURS_N" 8 1000
# late data: the hours' records in a fixed random order
for h in h100 h1000; do
	shuf --random-source="$B/h1.records" "$B/$h.records" >"$B/$h.shuf"
	mv "$B/$h.shuf" "$B/$h.records"
done
mock_start "$B" --topic bench:"$PARTS" --produce "bench=$B/bench.records" \
	--topic p1:1 --produce "p1=$B/p1.records" \
	--topic p8:8 --produce "p8=$B/p1.records" \
	--topic p64:64 --produce "p64=$B/p1.records" \
	--topic p256:256 --produce "p256=$B/p1.records" \
	--topic h1:8 --produce "h1=$B/h1.records" \
	--topic h100:8 --produce "h100=$B/h100.records" \
	--topic h1000:8 --produce "h1000=$B/h1000.records"
mv "$B/bench.records" "$B/mem.lines"
rm -f "$B"/*.records

# conf NAME TOPIC FORMAT CODEC [TABLES [GROUP [INTERVAL]]]: $B/NAME.conf;
# with OPEN_FILES set, output.roll.max_open_files is that.
conf() {
	_tables=
	_i=0
	while [ "$_i" -lt "${5:-1}" ]; do
		_tables="$_tables${_tables:+,} { name = \"t$_i\"; topics = [ \"$2\" ];
		  udtf = \"nginx\"; event_time = \"time_local\"; format = \"$3\";
		  codec = \"$4\"; }"
		_i=$((_i + 1))
	done
	_group=
	[ -z "${6:-}" ] || _group="group_id = \"$6\";"
	_roll=
	[ -z "${OPEN_FILES:-}" ] || _roll="roll = { max_open_files = $OPEN_FILES; };"
	cat >"$B/$1.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; $_group
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( $_tables );
output = { $OLD_EVENTS spool_dir = "$B/spool"; local_dir = "$B/warehouse";
           timezone = "UTC"; $_roll };
checkpoint = { interval = ${7:-30}; };
metrics = { enabled = false; };
CONF
}

steady_run() { sed -n 's/.*consumed [0-9]* records in \([0-9.]*\) s.*/\1/p' "$1"; }
steady_consume() {
	sed -n 's/.* in \([0-9.]*\) s from the first to the last.*/\1/p' "$1"
}

# run_kedge NAME RECORDS OUT: kedge run of $B/NAME.conf to the end of its
# topic, timed into OUT; every table must have read RECORDS records.
run_kedge() {
	rm -rf "$B/spool" "$B/warehouse"
	bench_timed "$3" steady_run $KEDGE run -c "$B/$1.conf" --exit-at-end ||
		die "kedge ($1) failed: $(tail -3 "$3.err")"
	[ "$(grep -c "table t[0-9]*: $2 records" "$3.err")" -eq \
		"$(grep -c 'name = "t' "$B/$1.conf")" ] ||
		die "kedge ($1) did not read $2 records: $(tail -3 "$3.err")"
}
run_consume() {
	bench_timed "$2" steady_consume $KEDGE bench consume -c "$B/$1.conf" ||
		die "kedge bench consume failed: $(tail -3 "$2.err")"
	grep -q "^consumed $RECORDS records" "$2.err" ||
		die "kedge bench consume did not read $RECORDS records"
}
# kcat without -G assigns every partition; -e prints, per partition, the
# offset it reached, which must add up to RECORDS.
run_kcat() {
	bench_timed "$1" - kcat -C -b "$BOOTSTRAP" -t bench -o beginning -e \
		-f '' || die "kcat failed: $(tail -3 "$1.err")"
	_n=$(sed -n 's/.*Reached end of topic bench \[[0-9]*\] at offset \([0-9]*\).*/\1/p' \
		"$1.err" | tail -n "$PARTS" | awk '{ s += $1 } END { print s + 0 }')
	[ "$_n" -eq "$RECORDS" ] || die "kcat read $_n of $RECORDS"
}

VARIANTS="consume none zstd gzip pq_snappy pq_zstd"
conf consume bench hive-text none
conf none bench hive-text none
conf zstd bench hive-text zstd
conf gzip bench hive-text gzip
conf pq_snappy bench parquet snappy
conf pq_zstd bench parquet zstd
p=0
while [ "$p" -lt "$PAIRS" ]; do
	for v in $VARIANTS; do
		if [ "$v" = consume ]; then
			run_consume consume "$B/consume.t"
		else
			run_kedge "$v" "$RECORDS" "$B/$v.t"
		fi
		run_kcat "$B/kcat-$v.t"
	done
	p=$((p + 1))
done

echo "kedge bench: $RECORDS nginx records in $PARTS partitions of one mock topic;"
echo "each run alternated with kcat -C (static assignment, to /dev/null) $PAIRS times, medians"
bench_pair_header
bench_pair_row "kcat -C (the reference)" "$RECORDS" "$B/kcat-none.t" "$B/kcat-none.t"
bench_pair_row "kedge consume, dropped unparsed" "$RECORDS" "$B/consume.t" "$B/kcat-consume.t"
bench_pair_row "kedge nginx -> hive-text, none" "$RECORDS" "$B/none.t" "$B/kcat-none.t"
bench_pair_row "kedge nginx -> hive-text, zstd" "$RECORDS" "$B/zstd.t" "$B/kcat-zstd.t"
bench_pair_row "kedge nginx -> hive-text, gzip" "$RECORDS" "$B/gzip.t" "$B/kcat-gzip.t"
bench_pair_row "kedge nginx -> parquet, snappy" "$RECORDS" "$B/pq_snappy.t" "$B/kcat-pq_snappy.t"
bench_pair_row "kedge nginx -> parquet, zstd" "$RECORDS" "$B/pq_zstd.t" "$B/kcat-pq_zstd.t"
echo "(steady: from the first record to the last, as kedge logs it; the rest of"
echo " the wall time is start, recovery, the final roll, publish and fsync; a"
echo " Parquet file is converted when it rolls, here at the end: in the wall time)"
# mean, p50 and p99 of the UDTF's ns/record, as the last none run logged
read -r _mean _p50 _p99 <<EOF
$(sed -n 's/.*UDTF [^ ]* ns\/record: mean \([0-9]*\) p50 \([0-9]*\) .*p99 \([0-9]*\) .*/\1 \2 \3/p' \
	"$B/none.t.err" | tail -1)
EOF
echo "UDTF cost per record (none runs): mean $_mean, p50 $_p50, p99 $_p99 ns"
# The floor of CPU per record against kcat: kedge's consumer alone (its
# ratio above) plus parsing alone (the UDTF's median), before a row is
# formatted, compressed or written.
_kns=$(echo "$(bench_median "$B/kcat-none.t" cpu) * 1000000000 / $RECORDS" | bc -l)
_cons=$(echo "$(bench_median "$B/consume.t" cpu) / $(bench_median "$B/kcat-consume.t" cpu)" | bc -l)
printf "floor: kcat spends %.0f ns of CPU a record; kedge's consumer %.2f of that, parsing\n" \
	"$_kns" "$_cons"
printf "alone (UDTF p50) %s ns, %.2f more: kedge run spends at least %.2f of kcat's CPU a\n" \
	"$_p50" "$(echo "$_p50 / $_kns" | bc -l)" "$(echo "$_cons + $_p50 / $_kns" | bc -l)"
echo "record before a row is formatted, compressed or written"
grep '^librdkafka:' "$B/consume.t.err" | tail -1

# 2. growth: median of ROUNDS kedge runs each, codec zstd
grow_row() { # LABEL NAME RECORDS
	rm -f "$B/g.t"
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		run_kedge "$2" "$3" "$B/g.t"
		_r=$((_r + 1))
	done
	printf '%-40s %11.0f %11.0f %6d MiB %8d\n' "$1" \
		"$(echo "$3 / $(bench_median "$B/g.t" 1)" | bc -l)" \
		"$(echo "$3 / $(bench_median "$B/g.t" 5)" | bc -l)" \
		"$(($(bench_median "$B/g.t" 4 | cut -d. -f1) / 1024))" \
		"$(find "$B/warehouse" -name '[!._]*' -type f | wc -l)"
}
echo
echo "how the cost grows: codec zstd, median of $ROUNDS; max_open_files 64 (the"
echo "default) and 1024; files: part files landed"
printf '%-40s %11s %11s %10s %8s\n' run records/s "steady r/s" "peak RSS" files
for o in 64 1024; do
	for n in 1 8 64 256; do
		OPEN_FILES=$o conf "p$n" "p$n" hive-text zstd
		grow_row "$GROW rec, $n partition(s), open $o" "p$n" "$GROW"
	done
done
OPEN_FILES=
conf t4 p8 hive-text zstd 4
grow_row "$GROW rec, 8 parts, 4 tables, open 64" t4 "$GROW"
for o in 64 1024; do
	for h in 1 100 1000; do
		OPEN_FILES=$o conf "h$h" "h$h" hive-text zstd
		grow_row "$HOURS_N rec, 8 parts, $h hour(s), open $o" "h$h" "$HOURS_N"
	done
done

# 3. checkpoints: in a group every round needs a group of its own, so that
# it reads from the start; steady time (the join takes seconds).
echo
echo "checkpoints, in a consumer group, codec gzip, the two intervals alternated,"
echo "median of $ROUNDS each (steady):"
OPEN_FILES=
rm -f "$B/ck30.t" "$B/ck1.t"
_r=0
while [ "$_r" -lt "$ROUNDS" ]; do
	for i in 30 1; do
		conf "ck$i" bench hive-text gzip 1 "bench-$i-$_r" "$i"
		run_kedge "ck$i" "$RECORDS" "$B/ck$i.t"
	done
	_r=$((_r + 1))
done
s30=$(bench_median "$B/ck30.t" 5)
s1=$(bench_median "$B/ck1.t" 5)
printf '%-34s %9.3f s %12.0f records/s\n' "checkpoint.interval = 30" "$s30" \
	"$(echo "$RECORDS / $s30" | bc -l)"
printf '%-34s %9.3f s %12.0f records/s   ratio to 30 s: %.2f\n' \
	"checkpoint.interval = 1" "$s1" "$(echo "$RECORDS / $s1" | bc -l)" \
	"$(echo "$s30 / $s1" | bc -l)"
echo "interval 1: $(sed -n 's/.*checkpoints: \(.*\)/\1/p' "$B/ck1.t.err" | tail -1)"

# 4. memory: a consumer holds every fetched batch whole, decompressed, for
# as long as one of its records is queued or being parsed.
echo
echo "peak RSS by the producer's batch.size: $RECORDS records, $PARTS partitions,"
echo "codec zstd, median of $ROUNDS (records/s steady for kedge, whole for kcat)"
printf '%-14s %12s %10s %12s %10s\n' batch.size "kedge r/s" "kedge RSS" \
	"kcat r/s" "kcat RSS"
mock_stop
for bb in 16384 1000000 4000000; do
	mock_start "$B" --batch-bytes "$bb" --topic bench:"$PARTS" \
		--produce "bench=$B/mem.lines"
	conf mem bench hive-text zstd
	rm -f "$B/m.t" "$B/mk.t"
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		run_kedge mem "$RECORDS" "$B/m.t"
		run_kcat "$B/mk.t"
		_r=$((_r + 1))
	done
	printf '%-14s %12.0f %6d MiB %12.0f %6d MiB\n' "$bb" \
		"$(echo "$RECORDS / $(bench_median "$B/m.t" 5)" | bc -l)" \
		"$(($(bench_median "$B/m.t" 4 | cut -d. -f1) / 1024))" \
		"$(echo "$RECORDS / $(bench_median "$B/mk.t" 1)" | bc -l)" \
		"$(($(bench_median "$B/mk.t" 4 | cut -d. -f1) / 1024))"
	mock_stop
done
