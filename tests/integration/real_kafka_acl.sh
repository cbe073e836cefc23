#!/bin/sh
# Against the real Apache Kafka broker (tests/real/up) with its
# StandardAuthorizer: a principal that may describe the topic but not
# READ it, and one that may read the topic but not its consumer group,
# make `kedge run` stop by itself, exit 1 and name the missing ACL
# (TOPIC_AUTHORIZATION_FAILED / GROUP_AUTHORIZATION_FAILED), and
# `check-config --online` say the same; nothing lands.  Once the ACL is
# there, check-config --online is OK.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; real_stop; rm -rf "$T"' EXIT

real_kafka "$T"
krb_kinit_stub "$T"
TOPIC=real-acl-$$
real_topic "$TOPIC" 2
printf 'x\ny\nz\n' >"$T/records"
# Names of this run's own: the realm and the broker may be shared.
NR=noread$$
NG=nogroup$$
real_produce "$TOPIC" 2 "$T/records"

# refused NAME TOPIC|GROUP: principal NAME/localhost, refused READ on
# kafka.topics' topic or on group kedge-NAME.
refused() {
	_rf=$1
	case $2 in
	TOPIC) _what="topic $TOPIC"; _opt="--topic $TOPIC" ;;
	GROUP) _what="consumer group kedge-$_rf"; _opt="--group kedge-$_rf" ;;
	esac
	_want="kafka: the brokers' ACLs do not let $_rf/localhost@$KRB_REALM read $_what (${2}_AUTHORIZATION_FAILED): allow it READ on ${_opt#--} (kafka-acls --add --allow-principal User:$_rf --operation Read $_opt)"
	real_conf "$_rf" SASL_PLAINTEXT "$TOPIC" |
		sed "s|$CLIENT_KEYTAB|$T/$_rf.keytab|; s|$CLIENT_PRINCIPAL|$_rf/localhost@$KRB_REALM|" \
		>"$T/$_rf.conf"
	rc=0
	out=$(PATH=$KRB_KINIT_PATH $KEDGE check-config --online -c "$T/$_rf.conf" 2>&1) ||
		rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "$T/$_rf.conf: $_want" ] ||
		die "check-config --online refused $2 READ: exit $rc: $out"
	PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/$_rf.conf" 2>"$T/$_rf.log" &
	KPID=$!
	exits_within "$KPID" 60 ||
		die "kedge refused $2 READ still runs after 60 s: $(log_lines "$T/$_rf.log" | grep -E '^(err|warning) ' | tail -3)"
	rc=0
	wait "$KPID" || rc=$?
	KPID=
	[ "$rc" -eq 1 ] || die "kedge refused $2 READ exited $rc: $(tail -3 "$T/$_rf.log")"
	log_lines "$T/$_rf.log" | grep -qxF "err $_want; stopping" ||
		die "kedge refused $2 READ said: $(log_lines "$T/$_rf.log" | grep '^err ' | tail -2)"
	[ "$(landed_count "$T/$_rf")" -eq 0 ] || die "rows landed without READ on the $2"
}

# DESCRIBE on the topic (so the topic's metadata shows), READ on the group.
real_principal "$NR" "$T/$NR.keytab"
real_acl --add --allow-principal User:$NR --operation Describe --topic "$TOPIC"
real_acl --add --allow-principal User:$NR --operation Read --group kedge-$NR
refused "$NR" TOPIC
# READ on the topic, nothing on the group.
real_principal "$NG" "$T/$NG.keytab"
real_acl --add --allow-principal User:$NG --operation Read --topic "$TOPIC"
refused "$NG" GROUP
# Given the group, it may.
real_acl --add --allow-principal User:$NG --operation Read --group kedge-$NG
out=$(PATH=$KRB_KINIT_PATH $KEDGE check-config --online -c "$T/$NG.conf" 2>&1) ||
	die "check-config --online with both ACLs: $out"
[ ! -e "$T/kinit-ran" ] || die "kinit ran: $(cat "$T/kinit-ran")"
echo "real_kafka_acl: the missing topic and group ACLs named"
