#!/bin/sh
# Against a real Apache Kafka broker of its own (tests/real/up) whose
# connections.max.reauth.ms (30 s) is shorter than the realm's ticket
# lifetime (2 minutes): kedge (SASL_SSL, GSSAPI from its keytab
# in-process) consumes while a producer keeps writing, through more than
# three ticket lifetimes (6.5 minutes), renewing its login from the keytab
# each lifetime.  The broker closes each connection whose session ended
# without re-authentication (librdkafka 2.0 has no KIP-368), kedge connects
# again with a fresh ticket: no error in its log, no authentication
# failure at the broker, every record landed exactly once.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -n "$FEED" ] && kill "$FEED" 2>/dev/null || :; real_stop; rm -rf "$T"' EXIT

LIFETIME=120
SPAN=390 # seconds of traffic: more than three lifetimes
P=2
N=39000  # 100 records a second
KRB_LIFETIME=$LIFETIME KAFKA_REAUTH_MS=30000 real_own "$T"
grep -qx 'connections.max.reauth.ms=30000' "$REAL_DIR/kafka/server.properties" ||
	die "the broker was not given connections.max.reauth.ms"
krb_kinit_stub "$T"
START=$(date -u -d '2026-12-01 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 37 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
real_topic reauth $P

real_conf r SASL_SSL reauth >"$T/r.conf"
PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/r.conf" 2>"$T/r.log" &
KPID=$!
started=$(date +%s)
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic reauth --partitions $P \
	--file "$T/records" --pause-ms $((SPAN * 1000 / (N / 100))) \
	2>"$T/produce.err" &
FEED=$!
rc=0
wait "$FEED" || rc=$?
FEED=
[ "$rc" -eq 0 ] || die "the producer failed: $(tail -3 "$T/produce.err")"
wait_for "kedge to read all $N records" 120 status_consumed_at_least "$T/spool-r" $N
kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(log_lines "$T/r.log" | grep '^err ' | tail -3)"
span=$(($(date +%s) - started))
[ "$span" -gt $((3 * LIFETIME)) ] ||
	die "kedge ran only $span s, not through three ticket lifetimes"
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop on SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/r.log" | grep '^err ' | tail -3)"
logins=$(log_lines "$T/r.log" | grep -c '^notice kerberos: logged in\( again\)\{0,1\} as ') || :
[ "$logins" -ge 3 ] ||
	die "kedge logged in $logins times in $span s of 120-s tickets: $(grep 'kerberos' "$T/r.log" | tail -3)"
! log_lines "$T/r.log" | grep -B3 '^err ' | head -12 | grep . ||
	die "kedge logged errors across re-authentication (above, each with the three lines before it)"
! grep -q 'Failed authentication\|SaslAuthenticationException' "$REAL_DIR/kafka/server.log" ||
	die "the broker refused an authentication: $(grep -m2 'Failed authentication' "$REAL_DIR/kafka/server.log")"
check_exactly_once "$T/r" access "$T/expected" "$T/expected-rejects" "$T/spool-r"
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_reauth: $span s through ${LIFETIME}-s tickets with connections.max.reauth.ms 30000, $logins logins; $CHECK_VERIFY"
