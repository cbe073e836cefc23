#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up) and its group
# coordinator: two kedge processes in one consumer group, host-a over
# SASL_SSL and host-b over SASL_PLAINTEXT, both logged in with GSSAPI
# from their keytab in-process (no kinit runs), while a producer keeps
# writing (60,000 records in 4 partitions).  host-a keeps running while
# host-b is killed -9 at least 20 times at pseudo-random moments after it
# got partitions, and started again each time.  Then both stop on
# SIGTERM and one clean run reads to the end: every record landed exactly
# once (rows and rejects, row by row; kedge verify), files of both hosts
# among them.  KEDGE_CRASH_SEED picks other delays.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
APID=
KPID=
FEED=
trap 'for p in "$APID" "$KPID" "$FEED"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || :; done
      real_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

P=4
N=60000
FIRST=10000 # in the topic before host-a starts; the rest comes meanwhile
ROUNDS=20
SEED=${KEDGE_CRASH_SEED:-20261201}
real_kafka "$T"
krb_kinit_stub "$T"
START=$(date -u -d '2026-11-01 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 31 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
TOPIC=real-group-$$
real_topic "$TOPIC" $P
real_produce "$TOPIC" $P "$T/records" --count $FIRST

# conf HOST PROTOCOL: host HOST's configuration.
conf() {
	real_conf "$1" "$2" "$TOPIC" |
		sed "s|group_id = \"kedge-$1\";|group_id = \"kedge-$TOPIC\"; rdkafka = { session_timeout_ms = \"3500\"; heartbeat_interval_ms = \"1000\"; };|
		     s|local_dir = \"$T/$1\";|local_dir = \"$T/warehouse\"; host = \"$1\"; roll = { max_bytes = 16384; };|"
}
conf host-a SASL_SSL >"$T/a.conf"
conf host-b SASL_PLAINTEXT >"$T/b.conf"
grep -q 'host = "host-a"' "$T/a.conf" && grep -q session_timeout "$T/b.conf" ||
	die "the configurations were not made: $(cat "$T/a.conf")"

host_a_alive() {
	kill -0 "$APID" 2>/dev/null ||
		die "host-a exited: $(log_lines "$T/a.log" | grep -E '^(err|warning) ' | head -5)"
}

b_assigned() {
	host_a_alive
	kafka_assigned "$ROUND_LOG" "$KPID"
}

PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/a.conf" 2>"$T/a.log" &
APID=$!
wait_for "host-a to get partitions" 60 kafka_assigned "$T/a.log" "$APID"
# 50,000 records at about 500 a second: traffic through every round.
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$TOPIC" --partitions $P \
	--file "$T/records" --from $FIRST --pause-ms 200 2>"$T/produce.err" &
FEED=$!
random_delays "$SEED" $ROUNDS 0.2 2.0 >"$T/delays"
# start_b: this round's host-b, once it has its partitions.
start_b() {
	ROUND_LOG=$T/b$ROUND.log
	PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/b.conf" 2>"$ROUND_LOG" &
	KPID=$!
	wait_for "host-b to get partitions in round $ROUND" 60 b_assigned
}
kill_rounds host-b $ROUNDS $ROUNDS "$T/delays" "$T/rounds" start_b \
	host_a_alive
rc=0
wait "$FEED" || rc=$?
FEED=
[ "$rc" -eq 0 ] || die "the producer failed: $(tail -3 "$T/produce.err")"

# Both running, then both stopped cleanly.
PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/b.conf" 2>"$T/b-last.log" &
KPID=$!
wait_for "host-b to get partitions once more" 60 \
	kafka_assigned "$T/b-last.log" "$KPID"
kill -TERM "$APID" "$KPID"
stopped_cleanly host-a "$APID" "$T/a.log"
stopped_cleanly host-b "$KPID" "$T/b-last.log"
APID=
KPID=
PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/a.conf" --exit-at-end \
	2>"$T/final.log" || die "the clean run failed: $(tail -5 "$T/final.log")"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool-host-a" "$T/spool-host-b"
for h in host-a host-b; do
	[ -n "$(find "$T/warehouse/access" -type f -name "*+$h.*" ! -name '.*' |
		head -1)" ] || die "no part file of $h landed"
done
killed=$(grep -c ' killed$' "$T/rounds") || :
[ "$killed" -ge $ROUNDS ] || die "host-b was killed -9 only $killed times"
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_group: host-b killed -9 $killed times (seed $SEED) while host-a ran; $CHECK_ROWS rows, $CHECK_REJECTS rejects; $CHECK_VERIFY"
