#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up): kedge lands a
# topic's first records and stops; more come, and the broker's retention
# deletes the oldest segments, the unread ones among them, while kedge is
# stopped, so that its committed offset is out of range.  The next kedge
# follows kafka.start (earliest), says in its log how many offsets it could
# not read, lands the rest, and `kedge verify` and the hours' manifests
# account for the hole (the sidecar's "unread") instead of calling it a
# gap.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'real_stop; rm -rf "$T"' EXIT

real_kafka "$T"
krb_kinit_stub "$T"
N=3000
START=$(date -u -d '2026-07-15 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 1 --seed 43 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected-all" \
	--out-rejects "$T/expected-rejects"
TOPIC=real-retention-$$
real_topic "$TOPIC" 1

# log_start: the partition's first offset on the broker.
log_start() {
	timeout 30 kcat -b "$KAFKA_PLAINTEXT" -Q -t "$TOPIC:0:-2" 2>/dev/null |
		sed -n 's/.* offset \([0-9]*\)$/\1/p'
}
log_start_is() {
	[ "$(log_start)" = "$1" ]
}
# retention VALUE: the topic's retention.ms (or, with -, the broker's).
retention() {
	if [ "$1" = - ]; then
		set -- --delete-config retention.ms
	else
		set -- --add-config "retention.ms=$1"
	fi
	tests/real/kafka "$REAL_DIR" java kafka.admin.ConfigCommand \
		--bootstrap-server "$KAFKA_PLAINTEXT" --alter --entity-type topics \
		--entity-name "$TOPIC" "$@" >"$T/config.log" 2>&1 ||
		die "ConfigCommand: $(tail -3 "$T/config.log")"
}

real_produce "$TOPIC" 1 "$T/records" --count 1000
real_conf ret SASL_PLAINTEXT "$TOPIC" >"$T/ret.conf"
PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/ret.conf" --exit-at-end \
	2>"$T/1.log" || die "the first kedge run failed: $(tail -5 "$T/1.log")"
# With kedge stopped: records 1000..1999 come, and retention deletes
# every segment (the active one rolled first), so the log starts at 2000;
# then, retention back to the broker's week, records 2000..2999.
real_produce "$TOPIC" 1 "$T/records" --from 1000 --count 1000
retention 1000
wait_for "retention to delete the topic's segments" 120 log_start_is 2000
retention -
real_produce "$TOPIC" 1 "$T/records" --from 2000 --count 1000

PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/ret.conf" --exit-at-end \
	2>"$T/2.log" || die "the second kedge run failed: $(tail -5 "$T/2.log")"
log_lines "$T/2.log" | grep -qxF "warning kafka: $TOPIC [0]: the broker deleted offsets 1000..1999 before kedge read them (retention); 1000 offsets not read, going on at 2000 (kafka.start = earliest)" ||
	die "kedge did not say what it could not read: $(log_lines "$T/2.log" | grep -E '^(err|warning) ' | tail -3)"
# Rows: the first and the last thousand.
sed -n '1,1000p; 2001,3000p' "$T/expected-all" >"$T/expected"
check_exactly_once "$T/ret" access "$T/expected" "$T/expected-rejects" \
	"$T/spool-ret"
[ "$CHECK_ROWS" -eq 2000 ] || die "landed $CHECK_ROWS rows, want 2000"
[ "$(log_start)" = 2000 ] || die "retention deleted the last records too"
case $CHECK_VERIFY in
*"; 1000 offsets deleted by the broker before kedge read them") ;;
*) die "kedge verify does not account for the hole: $CHECK_VERIFY" ;;
esac
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_retention: $CHECK_VERIFY"
