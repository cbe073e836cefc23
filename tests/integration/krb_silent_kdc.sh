#!/bin/sh
# A KDC that takes requests and never answers (SIGSTOP: its sockets still
# accept, so libkrb5 waits out its own timeouts, about 27 s) does not stall
# the run loop: with 20-second tickets renewed at half their life, the KDC
# is stopped right after the login, and systemd's watchdog pings (as
# notify.sh observes them, every 0.5 s) keep coming past the renewal time
# while that renewal hangs, with no result yet; its thread blocks the
# loop's signals.  Once the KDC runs again
# the renewal succeeds, and SIGTERM during all that stops kedge cleanly.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -z "${KRB_PID:-}" ] || kill -CONT "$KRB_PID" 2>/dev/null || :; krb_stop; notify_stop; mock_stop; rm -rf "$T"' EXIT

krb_start "$T" --lifetime 20 --renewable 20
P=kedge/localhost@$KRB_REALM
notify_start "$T"
START=$(date -u -d '2026-06-01 10:00:00' +%s)
$FIX/gen_nginx --records 200 --partitions 2 --seed 5 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-silent-kdc"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC"; };
checkpoint = { interval = 1; };
kerberos = { principal = "$P"; keytab = "$KRB_DIR/kedge.keytab"; renew_at = 0.5; };
metrics = { enabled = false; };
CONF

NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1000000 \
	$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "the login" 20 grep -q "kerberos: logged in as $P" "$T/run.log"
kill -STOP "$KRB_PID"
stopped=$(notify_count WATCHDOG=1)

# renewal_hangs_fed: 30 more pings (15 s, past the renewal time 10 s after
# the login) have come, the renewal has started, and it has no result yet.
# A loop blocked in libkrb5 sends no ping until the renewal's result is
# logged, so this never holds for it.
renewal_hangs_fed() {
	[ "$(notify_count WATCHDOG=1)" -ge $((stopped + 30)) ] &&
		grep -q "kerberos: logging in again as $P" "$T/run.log" &&
		! grep -q "kerberos: logged in again\|kerberos: .*trying again\|kerberos: .*expired" "$T/run.log"
}
wait_for "30 watchdog pings during a hanging renewal" 30 renewal_hangs_fed
kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(tail -3 "$T/run.log")"
# The renewal thread, there while it hangs (kedge's own threads are named
# as the process, librdkafka's rdk:...: the publisher and it), blocks the
# loop's signals like every thread but the loop's.
own=$(cat /proc/$KPID/task/*/comm | grep -cx kedge)
[ "$own" -ge 3 ] || die "$own threads named kedge, want the loop's, the publisher's and the renewal's"
bad=$(signal_masks "$KPID" 2)
[ -z "$bad" ] || die "threads that can take the loop's signals:$bad"

kill -CONT "$KRB_PID"
wait_for "the renewal to succeed" 60 grep -q "kerberos: logged in again as $P" "$T/run.log"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5)"
echo "ok: $(($(notify_count WATCHDOG=1) - stopped)) watchdog pings while the KDC was silent or after; the renewal succeeded once it answered"
