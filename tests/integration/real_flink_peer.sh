#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up): the Flink job that
# `make bench` measures kedge against (bench/peers/flink) still builds,
# runs to the topic's end and lands the rows kedge lands, so the bench's
# peer cannot rot unnoticed.  A few thousand nginx records over three
# hours, some malformed and some with nginx's escapes, produced with lz4
# (the bench's second topic) to 4 partitions; kedge (static assignment,
# hive-text, codec none) and the Flink job (parallelism 1) each read the
# topic to its end: both read every record, in every hour of Asia/Shanghai
# both landed the same rows (bench/peers/hours: the count and the SHA-256
# of the sorted rows), as many as gen_nginx made well-formed, and both
# counted as rejects the records gen_nginx made malformed.
set -eu
. tests/lib.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'real_stop; rm -rf "$T"' EXIT

bench/peers/flink/build || die "the Flink peer does not build"
real_kafka "$T"
N=3000
P=4
ZONE=Asia/Shanghai
$FIX/gen_nginx --records $N --partitions $P --seed 38 \
	--start "$(date -u -d '2026-11-29 23:10:00' +%s)" --hours 3 --tz "$ZONE" \
	--malformed-permille 20 --out-records "$T/records" \
	--out-expected "$T/expected" --out-rejects "$T/expected-rejects"
want_rejects=$(wc -l <"$T/expected-rejects")
[ "$want_rejects" -gt 0 ] || die "gen_nginx made no malformed record"
TOPIC=real-flink-peer-$$
real_topic "$TOPIC" $P
real_produce "$TOPIC" $P "$T/records" --compression lz4

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$KAFKA_PLAINTEXT"; };
tables = ( { name = "access"; topics = [ "$TOPIC" ]; udtf = "nginx";
             event_time = "time_local"; format = "hive-text"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "$ZONE"; };
metrics = { enabled = false; };
CONF
timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/kedge.log" ||
	die "kedge failed: $(tail -3 "$T/kedge.log")"
grep -q "table access: $N records, $((N - want_rejects)) rows, $want_rejects rejects" \
	"$T/kedge.log" || die "kedge: $(grep 'table access: ' "$T/kedge.log" | head -1)"

timeout 300 bench/peers/flink/run --brokers "$KAFKA_PLAINTEXT" --topic "$TOPIC" \
	--out "$T/flink" --zone "$ZONE" --group "real-flink-peer-$$" \
	>"$T/flink.out" 2>"$T/flink.err" ||
	die "the Flink job failed: $(grep -v WARN "$T/flink.err" | tail -5)"
grep -q "^flink peer: $N records, $((N - want_rejects)) rows, $want_rejects rejects;" \
	"$T/flink.out" || die "the Flink job: $(cat "$T/flink.out")"

bench/peers/hours "$T/warehouse/access" >"$T/kedge.hours"
bench/peers/hours "$T/flink" >"$T/flink.hours"
[ "$(wc -l <"$T/kedge.hours")" -ge 3 ] ||
	die "kedge landed rows in $(wc -l <"$T/kedge.hours") hours, want 3 or more"
same_or_die "$T/kedge.hours" "$T/flink.hours" \
	"kedge and the Flink job landed other rows (hour, rows, SHA-256 of the sorted rows)"
echo "real_flink_peer: $N records, $((N - want_rejects)) rows in $(wc -l <"$T/kedge.hours") hours the same from kedge and Flink, $want_rejects rejects each"
