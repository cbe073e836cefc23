#!/bin/sh
# Kafka over SASL_PLAINTEXT with GSSAPI, against a real MIT KDC started
# here (tests/krb.sh): saslfront (tests/fixtures/saslfront.c), a test-only
# front that authenticates with the kafka/localhost key and then relays to
# the mock cluster, stands before each mock broker.  kedge logs in from its
# keytab, authenticates to every broker it talks to and lands every record;
# a front that holds no kafka/localhost key, or that lets in only another
# client, refuses it with SASL_AUTHENTICATION_FAILED, and kedge says so.
set -eu
. tests/lib.sh
. tests/krb.sh

SASLFRONT=${SASLFRONT:-$FIX/saslfront}
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
FRONT_PID=
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -n "$FRONT_PID" ] && kill "$FRONT_PID" 2>/dev/null || :; krb_stop; mock_stop; rm -rf "$T"' EXIT

# front_start KEYTAB [ARGS...]: starts saslfront before the mock's brokers
# with the acceptor keys of KEYTAB and ARGS; sets FRONT_PID and FRONT.
front_start() {
	rm -f "$T/front.ready"
	_kt=$1
	shift
	"$SASLFRONT" --bootstrap "$BOOTSTRAP" --keytab "$_kt" "$@" \
		--ready-file "$T/front.ready" >"$T/front.out" 2>>"$T/front.err" &
	FRONT_PID=$!
	wait_for "saslfront" 10 test -s "$T/front.ready"
	FRONT=$(sed -n 's/^bootstrap=//p' "$T/front.ready")
}

front_stop() {
	kill "$FRONT_PID"
	wait "$FRONT_PID" 2>/dev/null || :
	FRONT_PID=
}

krb_start "$T"
START=$(date -u -d '2026-05-01 00:00:00' +%s)
$FIX/gen_nginx --records 5000 --partitions 2 --seed 7 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --brokers 2 --topic web:2 --produce "web=$T/records"

# conf SERVICE DIR: kedge over SASL_PLAINTEXT to the front, landing in DIR,
# with librdkafka's broker debugging in its log.
conf() {
	cat <<CONF
kafka = { brokers = "$FRONT"; group_id = "kedge-sasl";
          rdkafka = { debug = "broker"; };
          security = { protocol = "SASL_PLAINTEXT";
                       kerberos_service_name = "$1"; }; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-$2"; local_dir = "$T/$2"; timezone = "UTC"; };
checkpoint = { interval = 1; };
kerberos = { principal = "kedge/localhost@$KRB_REALM";
             keytab = "$KRB_DIR/kedge.keytab"; };
log = { level = "debug"; };
metrics = { enabled = false; };
CONF
}

# Authenticated: every record lands, through the front only.
front_start "$KRB_DIR/kafka.keytab"
conf kafka ok >"$T/ok.conf"
run_to_end "$T/ok.conf" "$T/ok.log" "kedge over SASL"
check_exactly_once "$T/ok" access "$T/expected" "$T/expected-rejects" "$T/spool-ok"
[ $((CHECK_ROWS + CHECK_REJECTS)) -eq 5000 ] ||
	die "landed $CHECK_ROWS rows and $CHECK_REJECTS rejects, want 5000 in all"
[ "$(landed_count "$T/ok")" -eq 5000 ] || die "sidecars count $(landed_count "$T/ok") rows"
# The brokers kedge learns from Metadata are the front's, never the mock's.
for port in $(echo "$FRONT" | tr ',' ' ' | sed 's/[^ ]*://g'); do
	grep -q "sasl_plaintext://localhost:$port/[0-9]" "$T/ok.log" ||
		die "kedge never used broker localhost:$port: $(grep -m3 'sasl_plaintext://' "$T/ok.log")"
done
for port in $(echo "$BOOTSTRAP" | tr ',' ' ' | sed 's/[^ ]*://g'); do
	! grep -q ":${port}[/ ]" "$T/ok.log" ||
		die "kedge reached a mock broker directly: $(grep -m3 ":${port}[/ ]" "$T/ok.log")"
done
grep -q "authenticated kedge/localhost@$KRB_REALM" "$T/front.err" ||
	die "the front authenticated nobody: $(cat "$T/front.err")"
! grep -q "refused" "$T/front.err" || die "the front refused: $(cat "$T/front.err")"
auths=$(grep -c "authenticated kedge/localhost@$KRB_REALM" "$T/front.err")
front_stop

# Refused: the front holds only HTTP/localhost's key, so its acceptor
# fails and it answers SaslAuthenticate with error 58 and GSSAPI's words.
# check-config --online fails with the reason as its last line; kedge run
# stops by itself (librdkafka would retry for ever), exits 1 and lands
# nothing.
: >"$T/front.err"
front_start "$KRB_DIR/http.keytab"
conf kafka refused >"$T/refused.conf"
WANT="SASL authentication error: GSSAPI: Unspecified GSS failure.  Minor code may provide more information: Request ticket server kafka/localhost@$KRB_REALM not found in keytab"
rc=0
timeout 60 $KEDGE check-config --online -c "$T/refused.conf" >"$T/cc.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || die "check-config --online exited $rc, want 1: $(tail -3 "$T/cc.log")"
tail -1 "$T/cc.log" | grep -q "^$T/refused.conf: kafka: the brokers refused kedge's authentication: .*$WANT" ||
	die "check-config --online said: $(cat "$T/cc.log")"
rc=0
timeout 90 $KEDGE run -c "$T/refused.conf" --exit-at-end 2>"$T/refused.log" || rc=$?
[ "$rc" -eq 1 ] || die "kedge run exited $rc, want 1: $(tail -3 "$T/refused.log")"
log_lines "$T/refused.log" | grep -q "^err kafka: the brokers refused kedge's authentication: .*$WANT.*; stopping$" ||
	die "kedge run said: $(tail -5 "$T/refused.log")"
grep -q "refused: GSSAPI" "$T/front.err" || die "the front did not refuse: $(cat "$T/front.err")"
! grep -q "authenticated" "$T/front.err" || die "the front let a client in: $(cat "$T/front.err")"
[ "$(landed_count "$T/refused")" -eq 0 ] || die "rows landed without authentication"
front_stop

# Refused: the front lets in only another client principal.
: >"$T/front.err"
front_start "$KRB_DIR/kafka.keytab" --allow "other/localhost@$KRB_REALM"
conf kafka refused >"$T/refused.conf"
rc=0
timeout 60 $KEDGE check-config --online -c "$T/refused.conf" >"$T/cc2.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || die "check-config --online exited $rc, want 1: $(tail -3 "$T/cc2.log")"
grep -qF "SASL authentication error: principal kedge/localhost@$KRB_REALM is not allowed (only other/localhost@$KRB_REALM)" "$T/cc2.log" ||
	die "check-config --online said: $(cat "$T/cc2.log")"

# A service name the KDC does not know: kedge cannot get a ticket for the
# brokers, says which setting to fix, and stops.
conf nokafka wrongsvc >"$T/wrongsvc.conf"
WANT_SVC="kafka: the KDC knows no service nokafka/localhost@$KRB_REALM, so kedge cannot get a ticket for the brokers: set kafka.security.kerberos_service_name (now \"nokafka\")"
rc=0
timeout 60 $KEDGE check-config --online -c "$T/wrongsvc.conf" >"$T/cc3.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || die "check-config --online exited $rc, want 1: $(tail -3 "$T/cc3.log")"
tail -1 "$T/cc3.log" | grep -qF "$WANT_SVC" ||
	die "check-config --online said: $(tail -1 "$T/cc3.log")"
rc=0
timeout 90 $KEDGE run -c "$T/wrongsvc.conf" --exit-at-end 2>"$T/wrongsvc.log" || rc=$?
[ "$rc" -eq 1 ] || die "kedge run exited $rc, want 1: $(tail -3 "$T/wrongsvc.log")"
log_lines "$T/wrongsvc.log" | grep "^err " | grep -F "$WANT_SVC" | grep -q "; stopping$" ||
	die "kedge run said: $(log_lines "$T/wrongsvc.log" | grep '^err ' | tail -2)"
[ "$(landed_count "$T/wrongsvc")" -eq 0 ] || die "rows landed without a service ticket"
front_stop
echo "ok: $CHECK_ROWS rows and $CHECK_REJECTS rejects over SASL/GSSAPI ($auths authentications); refused with \"$WANT\" for a principal not allowed, and for a wrong service name"
