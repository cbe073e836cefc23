#!/bin/sh
# Two hosts in one consumer group, each with its own spool and host name,
# both publishing into one target directory, while traffic keeps arriving:
# host-b is killed -9 again and again (and started again each time) while
# host-a keeps running, so partitions move between them with undecided
# rows left behind.  Then host-b starts once more, both get SIGTERM (each
# must exit 0), and one clean run reads to the end.  Every record must
# have landed exactly once (rows and rejects, row by row; kedge verify),
# files of both hosts among them, and neither spool may keep a file in
# open/ or ready/.  See crash_kill9.sh for the session timeout.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
APID=
KPID=
FEED_PID=
trap 'for p in "$APID" "$KPID"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null; done
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null
      mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

P=4
N=100000
FIRST=20000       # in the topic before host-a starts; the rest is fed
ROUNDS=10         # at least; more while the feed lasts, up to MAX_ROUNDS
MAX_ROUNDS=16
SEED=${KEDGE_CRASH_SEED:-20261130}

START=$(date -u -d '2026-08-01 21:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 23 --start "$START" \
	--hours 4 --tz Europe/Berlin --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic access:$P --produce "access=$T/first"

# conf HOST: host HOST's configuration.
conf() {
	cat <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-two";
  rdkafka = { session_timeout_ms = "3500"; heartbeat_interval_ms = "1000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { spool_dir = "$T/spool-$1"; local_dir = "$T/warehouse";
           timezone = "Europe/Berlin"; host = "$1";
           roll = { max_bytes = 16384; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}
conf host-a >"$T/a.conf"
conf host-b >"$T/b.conf"

# assigned LOG PID: the kedge writing LOG has partitions; fails the test
# if it exited instead.
assigned() {
	grep -qs 'kafka: assigned' "$1" && return 0
	kill -0 "$2" 2>/dev/null ||
		die "$(basename "$1" .log) exited: $(grep '^<[0-4]>' "$1" | head -5)"
	return 1
}

$KEDGE run -c "$T/a.conf" 2>"$T/a.log" &
APID=$!
wait_for "host-a to get partitions" 30 assigned "$T/a.log" "$APID"

# 2,000 records every 1.5 s: traffic for the whole loop.
feed_start "$T" access "$T/rest" 2000 1.5
random_delays "$SEED" $MAX_ROUNDS 0.2 2 >"$T/delays"

round=0
while [ $round -lt $ROUNDS ] ||
	{ kill -0 "$FEED_PID" 2>/dev/null && [ $round -lt $MAX_ROUNDS ]; }; do
	log=$T/b$round.log
	$KEDGE run -c "$T/b.conf" 2>"$log" &
	KPID=$!
	wait_for "host-b to get partitions in round $round" 30 \
		assigned "$log" "$KPID"
	# Fault injection after a pseudo-random delay, not a wait.
	sleep "$(sed -n "$((round + 1))p" "$T/delays")"
	kill -9 "$KPID" 2>/dev/null ||
		die "host-b exited by itself in round $round: $(grep '^<[0-4]>' "$log" | head -5)"
	wait "$KPID" 2>/dev/null || true
	KPID=
	kill -0 "$APID" 2>/dev/null ||
		die "host-a exited in round $round: $(grep '^<[0-4]>' "$T/a.log" | head -5)"
	round=$((round + 1))
done
feed_wait "$T"
! grep -q 'kept only' "$T/mock.err" ||
	die "the mock cluster dropped records: $(grep 'kept only' "$T/mock.err")"

# Both running, then both stopped cleanly.
$KEDGE run -c "$T/b.conf" 2>"$T/b-last.log" &
KPID=$!
wait_for "host-b to get partitions once more" 30 \
	assigned "$T/b-last.log" "$KPID"
kill -TERM "$APID" "$KPID"
for h in a b; do
	if [ $h = a ]; then pid=$APID; log=$T/a.log; else pid=$KPID; log=$T/b-last.log; fi
	exits_within "$pid" 60 || die "host-$h did not stop within 60 s of SIGTERM"
	rc=0
	wait "$pid" || rc=$?
	[ $rc -eq 0 ] || die "host-$h exited $rc on SIGTERM: $(grep '^<[0-4]>' "$log" | head -5)"
done
APID=
KPID=

timeout 120 $KEDGE run -c "$T/a.conf" --exit-at-end 2>"$T/final.log" ||
	die "the clean run failed: $(tail -5 "$T/final.log")"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool-host-a" "$T/spool-host-b"
for h in host-a host-b; do
	[ -n "$(find "$T/warehouse/access" -type f -name "*+$h.*" ! -name '.*' |
		head -1)" ] || die "no part file of $h landed"
done
echo "ok: host-b killed -9 in $round rounds while host-a ran; $CHECK_ROWS rows," \
	"$CHECK_REJECTS rejects; $CHECK_VERIFY"
