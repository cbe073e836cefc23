#!/bin/sh
# systemd's notification protocol, with a datagram socket this test owns
# as $NOTIFY_SOCKET and WATCHDOG_USEC set, as systemd does for Type=notify
# and WatchdogSec=:
#  - while the brokers are down kedge is not ready, says why, and sends no
#    READY=1; once they answer (and the target does), READY=1 comes;
#  - STATUS= lines and WATCHDOG=1 pings come while the loop runs;
#  - a loop stalled on purpose (KEDGE_STALL_AT=loop) sends no more pings,
#    which is what makes systemd restart it;
#  - SIGTERM sends STOPPING=1, ends with the last checkpoint and exits 0.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; notify_stop; mock_stop; rm -rf "$T"' EXIT

notify_start "$T"

START=$(date -u -d '2026-03-01 00:00:00' +%s)
$FIX/gen_nginx --records 2000 --partitions 2 --seed 3 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"
mock_ctl "$T" broker-down -1

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-notify";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           roll = { max_age = 1; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

landed_all() {
	[ "$(landed_count "$T/warehouse")" -eq 2000 ]
}

# Brokers down: not ready, and it says why.
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1000000 \
	$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "kedge to say it is not ready" 30 \
	grep -q "not ready yet: the brokers .* have not answered for topic web yet" "$T/run.log"
wait_for "a watchdog ping before READY" 10 notify_got WATCHDOG=1
[ "$(notify_count READY=1)" -eq 0 ] || die "READY=1 while the brokers are down"
mock_ctl "$T" broker-up -1
wait_for "READY=1" 30 notify_got READY=1
grep -q "ready: the brokers and $T/warehouse answered" "$T/run.log" ||
	die "no ready line: $(grep -i ready "$T/run.log")"
wait_for "a STATUS= line" 20 notify_got 'STATUS=[0-9]* records/s; lag [0-9]*; spool .*'
wait_for "every record landed" 60 landed_all

# SIGTERM: STOPPING=1, the last checkpoint, exit 0.
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc on SIGTERM: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
notify_got STOPPING=1 || die "no STOPPING=1: $(cat "$T/notify.log")"
check_exactly_once "$T/warehouse" access "$T/expected" "$T/expected-rejects" "$T/spool"

# The loop stalls at its 60th turn (about 6 s of an idle loop, after
# READY=1): the pings stop.
: >"$T/notify.log"
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1000000 KEDGE_STALL_AT=loop:60 \
	$KEDGE run -c "$T/k.conf" 2>"$T/run2.log" &
KPID=$!
wait_for "READY=1 again" 30 notify_got READY=1
wait_for "the stall" 60 grep -q "KEDGE_STALL_AT: stalling on purpose" "$T/run2.log"
sleep 0.6   # a ping already on its way may still arrive
before=$(notify_count WATCHDOG=1)
# A running loop pings every 0.5 s: three seconds would have brought six.
sleep 3
after=$(notify_count WATCHDOG=1)
[ "$after" -eq "$before" ] ||
	die "$((after - before)) pings from a stalled loop"
[ "$before" -ge 4 ] || die "only $before pings before the stall"
kill -9 "$KPID"
wait "$KPID" 2>/dev/null || :
KPID=
echo "ok: no READY=1 while the brokers were down, then READY=1 and STATUS=;" \
	"STOPPING=1 and exit 0 on SIGTERM; $before pings, none from a stalled loop"
