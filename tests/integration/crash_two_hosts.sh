#!/bin/sh
# Two hosts in one consumer group, each with its own spool and host name,
# both publishing into one target directory, while traffic keeps arriving
# (200,000 records in 4 partitions): host-a keeps running while host-b
# dies at least 30 times and is started again each time.  Even rounds
# start host-b with a KEDGE_CRASH_AT point, cycling through all of them
# (during the seal, between the seal and the Kafka commit, after the
# commit, between the sidecar's and the part file's rename into the
# target, in the store's write and before its rename), and let it abort
# there; odd rounds, and a crash round whose point is not reached in time,
# kill it -9 after a pseudo-random delay.  Every fifth round host-a takes
# every partition over before host-b comes back; in the others the
# assignor decides who gets what, so partitions move between the hosts
# with undecided rows left behind either way.  Then host-b starts once
# more, both get SIGTERM (each must exit 0), and one clean run reads to
# the end.  Every record must have landed exactly once (rows and rejects,
# row by row; kedge verify), files of both hosts among them; neither spool
# may keep a file in open/ or ready/; every point must have crashed host-b
# at least once; host-a must have taken partitions over from host-b, and
# host-b must have found rows of its own undecided at a start.  See
# crash_kill9.sh for the session timeout; KEDGE_CRASH_SEED picks other
# delays.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
APID=
KPID=
FEED_PID=
trap 'for p in "$APID" "$KPID"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || :; done
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

P=4
N=200000
FIRST=40000       # in the topic before host-a starts; the rest is fed
ROUNDS=30         # at least; more while the feed lasts, up to MAX_ROUNDS
MAX_ROUNDS=40
SEED=${KEDGE_CRASH_SEED:-20261130}
# Each point comes twice or more in the first 30 rounds; rounds 4, 14 and
# 24, which host-a takes everything over after, crash right after a seal.
POINTS="store-write-mid seal-mid:1 after-seal:1 store-before-rename
	after-commit:1 publish-mid:1 seal-mid:2 after-seal:2 after-commit:2
	publish-mid:2"

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
output = { $OLD_EVENTS spool_dir = "$T/spool-$1"; local_dir = "$T/warehouse";
           timezone = "Europe/Berlin"; host = "$1";
           roll = { max_bytes = 16384; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}
conf host-a >"$T/a.conf"
conf host-b >"$T/b.conf"

# host_a_alive: host-a still runs; fails the test if it exited.
host_a_alive() {
	kill -0 "$APID" 2>/dev/null ||
		die "host-a exited: $(log_lines "$T/a.log" | grep -E '^(err|warning) ' | head -5)"
}

# b_assigned_or_gone: this round's host-b has its partitions, or has
# exited (a crash point may come first); host-a must still run.
b_assigned_or_gone() {
	host_a_alive
	round_assigned_or_gone
}

# a_has_all: host-a holds every partition (its last rebalance gave it all
# of them); host-a must still run.
a_has_all() {
	host_a_alive
	grep 'kafka: \(assigned\|revoked\) ' "$T/a.log" | tail -1 |
		grep -q "kafka: assigned $P partition(s)"
}

$KEDGE run -c "$T/a.conf" 2>"$T/a.log" &
APID=$!
wait_for "host-a to get partitions" 30 kafka_assigned "$T/a.log" "$APID"

# 2,000 records every 1.5 s: about two minutes of traffic, as long as 30
# rounds take, so that every round has new rows to write, seal, commit and
# publish.
feed_start "$T" access "$T/rest" 2000 1.5
random_delays "$SEED" $MAX_ROUNDS 0.2 1.2 >"$T/delays"

# start_b: this round's host-b, once it has its partitions or exited.
start_b() {
	ROUND_LOG=$T/b$ROUND.log
	KEDGE_CRASH_AT=$POINT $KEDGE run -c "$T/b.conf" 2>"$ROUND_LOG" &
	KPID=$!
	wait_for "host-b to get partitions in round $ROUND" 30 \
		b_assigned_or_gone
}
# after_b: host-a still runs.  Every fifth round, it takes host-b's
# partitions over before host-b comes back; otherwise the group's
# assignor alone decides whether partitions move.
after_b() {
	host_a_alive
	[ $((ROUND % 5)) -ne 4 ] ||
		wait_for "host-a to take every partition in round $ROUND" 30 \
			a_has_all
}
# Even rounds crash at the next point, odd ones are only killed.
kill_rounds host-b $ROUNDS $MAX_ROUNDS "$T/delays" "$T/rounds" start_b \
	after_b $POINTS
feed_wait "$T"
mock_kept_all "$T"

# Both running, then both stopped cleanly.
$KEDGE run -c "$T/b.conf" 2>"$T/b-last.log" &
KPID=$!
wait_for "host-b to get partitions once more" 30 \
	kafka_assigned "$T/b-last.log" "$KPID"
kill -TERM "$APID" "$KPID"
stopped_cleanly host-a "$APID" "$T/a.log"
stopped_cleanly host-b "$KPID" "$T/b-last.log"
APID=
KPID=

run_to_end "$T/a.conf" "$T/final.log" "the clean run"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool-host-a" "$T/spool-host-b"
for h in host-a host-b; do
	[ -n "$(find "$T/warehouse/access" -type f -name "*+$h.*" ! -name '.*' |
		head -1)" ] || die "no part file of $h landed"
done

# Every point must have been reached, and partitions must have moved
# from host-b to host-a while host-b had rows it never decided, or the
# test proves less than it says.
crash_points_reached "$T/rounds" $POINTS
takeovers=$(grep -c 'checkpoint: took access \[[0-9]*\] over from host-b ' \
	"$T/a.log") || die "host-a never took a partition over from host-b"
dropped=$(cat "$T"/b[0-9]*.log |
	grep -c 'recovered from .*, [1-9][0-9]* with nothing decided removed') ||
	die "no start of host-b found rows of its own left undecided"
echo "ok: host-b died in $ROUND rounds (seed $SEED) while host-a ran:" \
	"$CRASH_TALLY; host-a took $takeovers partition(s) over from host-b;" \
	"$dropped start(s) of host-b removed undecided files; $CHECK_ROWS rows," \
	"$CHECK_REJECTS rejects; $CHECK_VERIFY"
