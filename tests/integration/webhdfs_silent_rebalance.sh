#!/bin/sh
# A rebalance while HDFS does not answer does not hold the run loop: kedge
# publishes through the WebHDFS protocol fake (tests/fixtures/webhdfs.py),
# which is then stopped (SIGSTOP: its sockets still accept, nothing
# answers, as an HDFS that hangs, which a real one cannot be made to do on
# demand); a second consumer (kcat, committing nothing) joins kedge's
# group, and kedge's partitions are assigned again.  The hold of each one
# (its progress written pending, so that no hour completes on an earlier
# owner's word) waits for HDFS in the publisher, not in the loop:
# systemd's watchdog pings (as notify.sh observes them) keep coming after
# the new assignment while HDFS stays silent.  Once it answers again,
# SIGTERM stops kedge with exit 0.
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
CPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$CPID" ] && kill "$CPID" 2>/dev/null || :
      [ -z "${WEBHDFS_PID:-}" ] || kill -CONT "$WEBHDFS_PID" 2>/dev/null || :
      webhdfs_stop || :; notify_stop; mock_stop; rm -rf "$T"' EXIT
command -v kcat >/dev/null || die "kcat is needed (Debian package kcat)"

$FIX/gen_nginx --records 2000 --partitions 4 --seed 71 \
	--start "$(date -u -d '2026-11-02 07:00:00' +%s)" --hours 1 --tz UTC \
	--malformed-permille 0 --out-records "$T/records" \
	--out-expected "$T/expected" --out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:4 --produce "web=$T/records"
webhdfs_start "$T/h" --user-allowed kedge
notify_start "$T"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-silent";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC";
           roll = { max_age = 1; inactive = 1; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "/warehouse";
                       auth = "simple"; user = "kedge"; timeout = 120; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1000000 \
	$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "READY=1" 30 notify_got READY=1
wait_for "every record read" 30 status_consumed_at_least "$T/spool" 2000
wait_for "a file published" 30 sh -c \
	"find '$WEBHDFS_ROOT/warehouse/access' -type f 2>/dev/null | grep -q ."

kill -STOP "$WEBHDFS_PID"
assigned=$(grep -c 'kafka: assigned' "$T/run.log")
kcat -b "$BOOTSTRAP" -G kedge-silent -X enable.auto.commit=false \
	-X session.timeout.ms=6000 -q -e web >/dev/null 2>"$T/kcat.err" &
CPID=$!
# reassigned: kedge got partitions again after kcat joined; fails the test
# if it exited.
reassigned() {
	[ "$(grep -c 'kafka: assigned' "$T/run.log")" -gt "$assigned" ] && return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
	return 1
}
wait_for "kedge's partitions assigned again" 60 reassigned
since=$(notify_count WATCHDOG=1)
# fed: 20 more pings (10 s at WATCHDOG_USEC 1 s) while HDFS is silent
fed() {
	[ "$(notify_count WATCHDOG=1)" -ge $((since + 20)) ]
}
wait_for "20 watchdog pings while HDFS is silent after the rebalance" 30 fed

kill -CONT "$WEBHDFS_PID"
kill "$CPID" 2>/dev/null || :
CPID=
kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/run.log"
KPID=
echo "ok: $(($(notify_count WATCHDOG=1) - since)) watchdog pings after a" \
	"rebalance while HDFS was silent; kedge stopped cleanly"
