#!/bin/sh
# Regression: two hosts in one group, SIGTERM to one, then, while the group
# rebalances, SIGTERM to the other.  The second one's revoke can reach it
# only inside rd_kafka_consumer_close(), after the group handler has
# terminated, when rd_kafka_rebalance_protocol() returns NULL: kedge must
# take that as an eager revoke, not crash (it did: SIGSEGV in strcmp).
# The interleaving is a race; each round hits it about every other time,
# so the test runs ROUNDS rounds and can only pass wrongly, never fail
# wrongly.  Both must exit 0 and the target must verify.
set -eu
. tests/lib.sh

ROUNDS=${ROUNDS:-3}
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
APID= BPID= FEED_PID=
trap 'for p in "$APID" "$BPID"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || :; done
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-08-01 21:00:00' +%s)
$FIX/gen_nginx --records 40000 --partitions 4 --seed 23 --start "$START" \
	--hours 4 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected /dev/null \
	--out-rejects /dev/null
head -n 10000 "$T/records" >"$T/first"
tail -n +10001 "$T/records" >"$T/rest"

conf() {
	cat <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-revoke-$2";
  rdkafka = { session_timeout_ms = "3500"; heartbeat_interval_ms = "1000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/$2/spool-$1"; local_dir = "$T/$2/warehouse";
           timezone = "UTC"; host = "$1"; roll = { max_bytes = 16384; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}

round=1
while [ "$round" -le "$ROUNDS" ]; do
	mock_start "$T" --topic access:4 --produce "access=$T/first"
	conf host-a "$round" >"$T/a.conf"
	conf host-b "$round" >"$T/b.conf"
	$KEDGE run -c "$T/a.conf" 2>"$T/a.log" &
	APID=$!
	wait_for "host-a's assignment (round $round)" 30 grep -qs 'kafka: assigned' "$T/a.log"
	feed_start "$T" access "$T/rest" 1000 0.3
	$KEDGE run -c "$T/b.conf" 2>"$T/b.log" &
	BPID=$!
	wait_for "host-b's assignment (round $round)" 30 grep -qs 'kafka: assigned' "$T/b.log"
	# host-b has its share: now host-a leaves, and host-b is told to
	# stop while the group moves host-a's partitions.
	kill -TERM "$APID"
	sleep 0.5    # not a wait for a result: the moment of the second TERM
	kill -TERM "$BPID"
	rca=0; wait "$APID" || rca=$?
	rcb=0; wait "$BPID" || rcb=$?
	APID= BPID=
	kill "$FEED_PID" 2>/dev/null || true
	wait "$FEED_PID" 2>/dev/null || true
	FEED_PID=
	[ "$rca" -eq 0 ] || die "round $round: host-a exited $rca: $(tail -3 "$T/a.log")"
	[ "$rcb" -eq 0 ] || die "round $round: host-b exited $rcb: $(tail -3 "$T/b.log")"
	$KEDGE verify "$T/$round/warehouse" >"$T/verify" ||
		die "round $round: $(cat "$T/verify")"
	mock_stop
	rm -rf "$T/feed"
	round=$((round + 1))
done
echo "ok: $ROUNDS rounds, both hosts stopped cleanly"
