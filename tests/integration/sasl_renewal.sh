#!/bin/sh
# Consuming over SASL_PLAINTEXT across Kerberos renewals: the KDC issues
# 20-second tickets, kedge logs in again every ~10 s (renew_at 0.5), and
# the SASL front closes every connection at 8 s, so librdkafka must
# connect and authenticate again and again, each time with the tickets
# kedge holds by then.  Records keep arriving for ~40 s, two lifetimes of
# the first ticket: without renewals the reconnects would fail once it
# expired, and kedge would stop.  Every record lands exactly once, and
# kedge never starts kinit: it runs with a kinit first in its PATH that
# records its runs, and that one never runs.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
FRONT_PID=
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      [ -n "$FRONT_PID" ] && kill "$FRONT_PID" 2>/dev/null || :
      krb_stop; mock_stop; rm -rf "$T"' EXIT

krb_start "$T" --lifetime 20 --renewable 60
krb_kinit_stub "$T"
START=$(date -u -d '2026-06-01 00:00:00' +%s)
$FIX/gen_nginx --records 8000 --partitions 2 --seed 29 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --brokers 2 --topic web:2

$FIX/saslfront --bootstrap "$BOOTSTRAP" --keytab "$KRB_DIR/kafka.keytab" \
	--max-connection-age 8 --ready-file "$T/front.ready" \
	>"$T/front.out" 2>"$T/front.err" &
FRONT_PID=$!
wait_for "saslfront" 10 test -s "$T/front.ready"
FRONT=$(sed -n 's/^bootstrap=//p' "$T/front.ready")

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$FRONT"; group_id = "kedge-renewal";
          security = { protocol = "SASL_PLAINTEXT"; }; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           roll = { max_age = 5; inactive = 2; }; };
checkpoint = { interval = 1; };
kerberos = { principal = "kedge/localhost@$KRB_REALM";
             keytab = "$KRB_DIR/kedge.keytab"; renew_at = 0.5; };
metrics = { enabled = false; };
CONF
PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/k.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "kedge's first login" 20 grep -q "kerberos: logged in as" "$T/kedge.log"
# 8000 records in 20 chunks, 2 s apart: about 40 s of traffic.
feed_start "$T" web "$T/records" 400 2
feed_wait "$T"
all_landed() { [ "$(landed_count "$T/warehouse")" -ge 8000 ]; }
wait_for "every record landed" 60 all_landed
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(tail -5 "$T/kedge.log")"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"

renewals=$(grep -c "kerberos: logged in again" "$T/kedge.log")
auths=$(grep -c "authenticated kedge/localhost@$KRB_REALM" "$T/front.err")
closed=$(grep -c "closed at --max-connection-age" "$T/front.err")
[ "$renewals" -ge 3 ] || die "only $renewals renewals in ~40 s of 20 s tickets"
[ "$closed" -ge 4 ] || die "the front closed only $closed connections"
[ "$auths" -gt "$closed" ] ||
	die "$auths authentications for $closed closed connections"
[ ! -e "$T/kinit-ran" ] || die "kedge ran kinit: $(cat "$T/kinit-ran")"
! grep -q "refused" "$T/front.err" || die "the front refused kedge: $(grep refused "$T/front.err" | head -3)"
echo "ok: $CHECK_ROWS rows, $CHECK_REJECTS rejects; $renewals renewals, $auths authentications, $closed connections recycled"
