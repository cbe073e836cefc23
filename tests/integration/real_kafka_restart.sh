#!/bin/sh
# Against a real Apache Kafka broker of its own (tests/real/up): while a
# producer keeps writing and kedge (SASL_PLAINTEXT, GSSAPI from its keytab)
# reads, the broker is killed -9, stays down for a minute and is started
# again on its log.  kedge keeps running, says in its log and in `kedge
# status` that no broker answers, resumes by itself, and lands every
# record exactly once (rows and rejects, row by row; kedge verify).
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
PPID_=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -n "$PPID_" ] && kill "$PPID_" 2>/dev/null || :; real_stop; rm -rf "$T"' EXIT

DOWN=${DOWN:-60} # seconds the broker stays down
P=2
N=30000
real_own "$T"
krb_kinit_stub "$T"
START=$(date -u -d '2026-09-01 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 17 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
real_topic restart $P
real_produce restart $P "$T/records" --count 10000

real_conf c SASL_PLAINTEXT restart >"$T/c.conf"
PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/c.conf" 2>"$T/c.log" &
KPID=$!
wait_for "kedge to read the first 10000 records" 60 status_consumed_at_least "$T/spool-c" 10000
# The rest comes while kedge reads, 2000 records a second.
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic restart --partitions $P \
	--file "$T/records" --from 10000 --pause-ms 50 2>"$T/produce.err" &
PPID_=$!
wait_for "kedge to read records of the second batch" 60 status_consumed_at_least "$T/spool-c" 12000
tests/real/kafka "$REAL_DIR" kill
killed_at=$(status_consumed "$T/spool-c")
wait_for "kedge to say that no broker answers" 60 \
	log_has "$T/c.log" '^warning kafka: no broker answers (.*); waiting for them, kedge resumes by itself$'
wait_for "kedge status to say that no broker answers" 60 \
	grep -q '^kafka: no broker answers since .* s); waiting for them$' "$T/spool-c/status"
rc=0
out=$($KEDGE status -c "$T/c.conf") || rc=$?
[ "$rc" -eq 1 ] || die "kedge status exited $rc with no broker: $out"
echo "$out" | grep -q '^not healthy: brokers: no broker has answered for ' ||
	die "kedge status does not name the brokers: $out"
echo "$out" | grep -q '^kafka: no broker answers since ' ||
	die "kedge status does not say the brokers are down: $out"
kill -0 "$KPID" 2>/dev/null || die "kedge exited with the broker down: $(tail -3 "$T/c.log")"
sleep "$DOWN"
kill -0 "$KPID" 2>/dev/null || die "kedge exited with the broker down: $(tail -3 "$T/c.log")"
tests/real/kafka "$REAL_DIR" start
tests/real/kafka "$REAL_DIR" wait 300
rc=0
wait "$PPID_" || rc=$?
PPID_=
[ "$rc" -eq 0 ] || die "the producer failed across the restart: $(tail -3 "$T/produce.err")"
wait_for "kedge to say the brokers answer again" 120 \
	log_has "$T/c.log" '^info kafka: the brokers answer again, after [0-9]* s$'
wait_for "kedge to read all $N records" 120 status_consumed_at_least "$T/spool-c" $N
wait_for "kedge status to stop saying the brokers are down" 30 \
	sh -c '! grep -q "^kafka: no broker answers" "$1"' sh "$T/spool-c/status"
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop on SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/c.log" | grep '^err ' | tail -3)"
check_exactly_once "$T/c" access "$T/expected" "$T/expected-rejects" "$T/spool-c"
[ $((CHECK_ROWS + CHECK_REJECTS)) -eq $N ] ||
	die "landed $CHECK_ROWS rows and $CHECK_REJECTS rejects, want $N"
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_restart: broker killed -9 after $killed_at records, down ${DOWN} s; $CHECK_VERIFY"
