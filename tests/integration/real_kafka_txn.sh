#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up): a transactional
# producer (tests/fixtures/kproduce.c) commits some transactions and aborts
# every third, and leaves its last one open.  kedge (SASL_SSL, GSSAPI from
# its keytab) with --exit-at-end stops at the last stable offset, before
# the open transaction, having landed exactly the committed records; the
# offsets that commit markers and aborted records take are no gap for
# `kedge verify`.  A second run after the open transaction is aborted
# lands nothing more and finds nothing to complain about.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
PPID_=
trap '[ -n "$PPID_" ] && kill "$PPID_" 2>/dev/null || :; real_stop; rm -rf "$T"' EXIT

real_kafka "$T"
krb_kinit_stub "$T"
P=3
N=6000
OPEN=200 # records of the transaction left open, then aborted
LAST=200 # records of a transaction committed after it
START=$(date -u -d '2026-10-01 00:00:00' +%s)
# Well-formed records only: expected row k is record k's.
$FIX/gen_nginx --records $N --partitions $P --seed 23 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected-all" \
	--out-rejects "$T/expected-rejects"
[ ! -s "$T/expected-rejects" ] || die "gen_nginx made malformed records"
TOPIC=real-txn-$$
real_topic "$TOPIC" $P
# Transactions of 150 records (50 a partition), every third aborted; the
# last $OPEN records in one left open, until its stdin closes.
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$TOPIC" --partitions $P \
	--file "$T/records" --transactional-id "kedge-test-$$" \
	--txn-records 150 --abort-every 3 --out-committed "$T/committed" \
	--count $((N - OPEN - LAST)) >"$T/produce.out" 2>"$T/produce.err" </dev/null ||
	die "the transactional producer failed: $(tail -3 "$T/produce.err")"
mkfifo "$T/hold"
# The open one, by another producer of another transactional id.
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$TOPIC" --partitions $P \
	--file "$T/records" --transactional-id "kedge-test-open-$$" \
	--txn-records $((OPEN + 1)) --abort-every 1000 --leave-open \
	--out-committed "$T/committed-open" --from $((N - OPEN - LAST)) \
	--count $OPEN \
	>"$T/open.out" 2>"$T/open.err" <"$T/hold" &
PPID_=$!
exec 9>"$T/hold"
wait_for "the open transaction's records on the broker" 60 \
	grep -qx open "$T/open.out"
# Only the committed records are expected.
awk 'NR == FNR { want[$1 + 1] = 1; next } FNR in want' "$T/committed" \
	"$T/expected-all" >"$T/expected"
committed=$(wc -l <"$T/expected")
[ "$committed" -gt 0 ] && [ "$committed" -lt $((N - OPEN - LAST)) ] ||
	die "kproduce committed $committed of $((N - OPEN - LAST)) records"
[ ! -s "$T/committed-open" ] || die "the open transaction was committed"

real_conf txn SASL_SSL "$TOPIC" >"$T/txn.conf"
PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/txn.conf" --exit-at-end \
	2>"$T/txn.log" ||
	die "kedge --exit-at-end with a transaction open failed or did not end: $(tail -5 "$T/txn.log")"
log_lines "$T/txn.log" | grep -q '^info every partition is at its end; stopping$' ||
	die "kedge did not stop at the partitions' end: $(tail -3 "$T/txn.log")"
check_exactly_once "$T/txn" access "$T/expected" "$T/expected-rejects" \
	"$T/spool-txn"
[ "$CHECK_ROWS" -eq "$committed" ] ||
	die "landed $CHECK_ROWS rows, want the $committed committed"

# The open transaction ends (its producer gone, a new one with its id
# fences and aborts it), and one more is committed: the next kedge starts
# at the open one's first offset, reads past its records and its abort
# marker, and lands the last one's, with no gap.
exec 9>&-
wait "$PPID_" || die "the open transaction's producer failed: $(tail -3 "$T/open.err")"
PPID_=
"$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$TOPIC" --partitions $P \
	--file "$T/records" --transactional-id "kedge-test-open-$$" \
	--txn-records $LAST --abort-every 1000 --out-committed "$T/committed-last" \
	--from $((N - LAST)) 2>"$T/fence.err" ||
	die "fencing the open transaction failed: $(tail -3 "$T/fence.err")"
cat "$T/committed" "$T/committed-last" >"$T/committed-all"
awk 'NR == FNR { want[$1 + 1] = 1; next } FNR in want' "$T/committed-all" \
	"$T/expected-all" >"$T/expected"
committed=$(wc -l <"$T/expected")
PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/txn.conf" --exit-at-end \
	2>"$T/txn2.log" || die "the second kedge run failed: $(tail -5 "$T/txn2.log")"
check_exactly_once "$T/txn" access "$T/expected" "$T/expected-rejects" \
	"$T/spool-txn"
[ "$CHECK_ROWS" -eq "$committed" ] ||
	die "after the abort: $CHECK_ROWS rows, want the $committed committed"
[ "$(wc -l <"$T/committed-last")" -eq $LAST ] || die "the last transaction was not committed whole"
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_txn: $committed of $N records committed, $OPEN aborted after kedge stopped at the LSO; $CHECK_VERIFY"
