#!/bin/sh
# An expired ticket with no KDC pauses consumption, and kedge resumes by
# itself once it can log in again: against a real MIT KDC (tests/krb.sh)
# with 8-second tickets, the KDC is stopped after kedge has read the first
# half of the topic.  Once the ticket has expired kedge says consumption is
# paused, and records produced then are not read (its status says paused
# and still counts the first half, two status writes later); the KDC comes
# back, kedge logs in, resumes, and every record lands exactly once.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; krb_stop; mock_stop; rm -rf "$T"' EXIT

N=4000
krb_start "$T" --lifetime 8 --renewable 8
P=kedge/localhost@$KRB_REALM
START=$(date -u -d '2026-06-01 10:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 11 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $((N / 2)) "$T/records" >"$T/first"
tail -n +$((N / 2 + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic web:2 --produce "web=$T/first"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-pause"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC"; };
checkpoint = { interval = 1; };
kerberos = { principal = "$P"; keytab = "$KRB_DIR/kedge.keytab"; renew_at = 0.5; };
metrics = { enabled = false; };
CONF

# status_says PATTERN: the status file written last matches PATTERN.
status_says() {
	grep -q "$1" "$T/spool/status" 2>/dev/null
}
# written: when the status file was last written, as it says.
written() {
	sed -n '1s/.* written \([^ ]*\).*/\1/p' "$T/spool/status" 2>/dev/null
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "the login" 20 grep -q "kerberos: logged in as $P" "$T/run.log"
wait_for "the first half read" 30 status_says "^consumed $((N / 2)) records"
krb_kdc_down
wait_for "consumption to pause" 40 grep -q \
	"kerberos: the ticket of $P expired and no new one could be had: consumption paused until a login succeeds" \
	"$T/run.log"
mock_ctl "$T" produce web "$T/rest"
# Two status writes after the produce: kedge had time to read the second
# half, had it not paused.
for _ in 1 2; do
	w=$(written)
	wait_for "a status write" 20 sh -c "[ \"\$(sed -n '1s/.* written \([^ ]*\).*/\1/p' '$T/spool/status')\" != '$w' ]"
done
status_says "^consumption paused: the Kerberos ticket expired" ||
	die "the status does not say paused: $(cat "$T/spool/status")"
status_says "^consumed $((N / 2)) records" ||
	die "kedge read while paused: $(sed -n 2p "$T/spool/status")"
kill -0 "$KPID" 2>/dev/null || die "kedge exited while paused: $(tail -3 "$T/run.log")"

krb_kdc_up
wait_for "consumption to resume" 90 grep -q "kafka: consumption resumed" "$T/run.log"
wait_for "every record read" 30 status_says "^consumed $N records"
! status_says "^consumption paused" ||
	die "the status still says paused: $(cat "$T/spool/status")"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5)"
check_exactly_once "$T/warehouse" access "$T/expected" "$T/expected-rejects" "$T/spool"
echo "ok: paused while the ticket was expired and the KDC down, resumed by itself;" \
	"$CHECK_ROWS rows, $CHECK_REJECTS rejects; $CHECK_VERIFY"
