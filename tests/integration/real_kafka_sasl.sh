#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up): over SASL_PLAINTEXT
# and over SASL_SSL (host name verified against a CA made at test time),
# kedge logs in with GSSAPI from its keytab in-process (a kinit in PATH
# would record any run), `check-config --online` names the principal, the
# broker and the topic's partitions, and `kedge run --exit-at-end` lands
# every record kcat produced, row by row and reject by reject, with
# `kedge verify` OK.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'real_stop; rm -rf "$T"' EXIT

real_kafka "$T"
krb_kinit_stub "$T"
RECORDS=4000
START=$(date -u -d '2026-08-01 00:00:00' +%s)
$FIX/gen_nginx --records "$RECORDS" --partitions 3 --seed 13 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
TOPIC=real-sasl-$$
real_topic "$TOPIC" 3
real_produce "$TOPIC" 3 "$T/records"

for proto in SASL_PLAINTEXT SASL_SSL; do
	name=$(echo "$proto" | tr '[:upper:]_' '[:lower:]-')
	real_conf "$name" "$proto" "$TOPIC" >"$T/$name.conf"
	out=$(PATH=$KRB_KINIT_PATH $KEDGE check-config --online \
		-c "$T/$name.conf" 2>&1) || die "check-config --online over $proto: $out"
	[ "$out" = "configuration OK: logged in as $CLIENT_PRINCIPAL; 1 broker(s); $TOPIC (3 partitions)" ] ||
		die "check-config --online over $proto said: $out"
	PATH=$KRB_KINIT_PATH timeout 120 $KEDGE run -c "$T/$name.conf" \
		--exit-at-end 2>"$T/$name.log" ||
		die "kedge over $proto failed: $(tail -5 "$T/$name.log")"
	check_exactly_once "$T/$name" access "$T/expected" \
		"$T/expected-rejects" "$T/spool-$name"
	[ $((CHECK_ROWS + CHECK_REJECTS)) -eq "$RECORDS" ] ||
		die "$proto: landed $CHECK_ROWS rows and $CHECK_REJECTS rejects, want $RECORDS"
	[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
done
echo "real_kafka_sasl: $RECORDS records over SASL_PLAINTEXT and SASL_SSL; $CHECK_VERIFY"
