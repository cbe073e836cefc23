#!/bin/sh
# Kerberos login against a real MIT KDC started here (tests/krb.sh):
# check-config names the fix for a missing keytab, one others can read and
# one without the principal's key; kedge run refuses, with the fix, a
# rekeyed principal (wrong key version), an unknown realm and a KDC that
# does not answer; a running kedge logs in again before its 20-second
# tickets expire, rides out a KDC outage with warnings, and logs in again
# once the KDC is back, all without starting kinit: every kedge here runs
# with a kinit first in its PATH that records that it ran, and none does.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; krb_stop; mock_stop; rm -rf "$T"' EXIT

# Every kedge runs with a kinit first in its PATH that records its runs
# in $T/kinit-ran (librdkafka's kinit command goes through /bin/sh).
krb_kinit_stub "$T"
krb_start "$T" --lifetime 20 --renewable 60
KT=$KRB_DIR/kedge.keytab
P=kedge/localhost@KEDGE.TEST
mock_start "$T" --topic web:1

# conf PRINCIPAL KEYTAB: a config with Kerberos.
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "t"; topics = [ "web" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
kerberos = { principal = "$1"; keytab = "$2"; renew_at = 0.5; };
metrics = { enabled = false; };
CONF
}

# refused COMMAND WANT: kedge COMMAND (check-config or run) with $T/k.conf
# exits 1 and its error holds WANT.
refused() {
	rc=0
	PATH=$KRB_KINIT_PATH timeout 30 $KEDGE "$1" -c "$T/k.conf" >"$T/out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || die "$1 exited $rc, want 1: $(cat "$T/out")"
	grep -qF "$2" "$T/out" || die "$1 said: $(cat "$T/out")
want: $2"
}

conf "$P" "$T/none.keytab" >"$T/k.conf"
refused check-config "keytab $T/none.keytab: No such file or directory; export the key of $P into it (kadmin: ktadd -k $T/none.keytab $P)"
cp "$KT" "$T/open.keytab"
chmod 644 "$T/open.keytab"
conf "$P" "$T/open.keytab" >"$T/k.conf"
refused check-config "keytab $T/open.keytab is readable or writable by others (mode 0644): it holds $P's key; chmod 600 $T/open.keytab"
conf "nobody/localhost@KEDGE.TEST" "$KT" >"$T/k.conf"
refused check-config "keytab $KT holds no key for nobody/localhost@KEDGE.TEST (it holds: $P)"
conf "$P" "$KT" >"$T/k.conf"
PATH=$KRB_KINIT_PATH $KEDGE check-config -c "$T/k.conf" >/dev/null || die "check-config refused a good keytab"
# A relative keytab is a systemd credential: under $CREDENTIALS_DIRECTORY,
# where the mode may show 0440 (an ACL) and the file is still private.
mkdir -p "$T/creds"
cp "$KT" "$T/creds/kedge.keytab"
chmod 440 "$T/creds/kedge.keytab"
conf "$P" kedge.keytab >"$T/cred.conf"
CREDENTIALS_DIRECTORY=$T/creds $KEDGE check-config -c "$T/cred.conf" >/dev/null ||
	die "check-config refused a keytab credential"
# The same mode outside the credentials directory is refused.
rc=0
$KEDGE check-config -c "$T/cred.conf" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || die "a relative keytab without \$CREDENTIALS_DIRECTORY: exit $rc"
# --online logs in and asks the brokers for the topics.
out=$(PATH=$KRB_KINIT_PATH $KEDGE check-config --online -c "$T/k.conf" 2>&1) || die "check-config --online: $out"
[ "$out" = "configuration OK: logged in as $P; 1 broker(s); web (1 partitions)" ] ||
	die "check-config --online said: $out"
sed 's/"web"/"nope"/' "$T/k.conf" >"$T/nope.conf"
rc=0
out=$(PATH=$KRB_KINIT_PATH $KEDGE check-config --online -c "$T/nope.conf" 2>&1) || rc=$?
[ "$rc" -eq 1 ] && [ "$out" = "$T/nope.conf: kafka: topic nope: not on the brokers" ] ||
	die "check-config --online of a missing topic: $rc: $out"

# Login failures at start: kedge run stops before it consumes.
# a keytab of a realm krb5.conf does not name, made with ktutil
printf 'addent -password -p kedge/localhost@NOPE.TEST -k 1 -e aes256-cts-hmac-sha1-96\nsecret\nwkt %s\nquit\n' \
	"$T/nope.keytab" | ktutil >/dev/null 2>&1
chmod 600 "$T/nope.keytab"
conf "kedge/localhost@NOPE.TEST" "$T/nope.keytab" >"$T/k.conf"
refused run "realm NOPE.TEST is unknown"
krb_addprinc other/localhost "$T/other.keytab"
krb_rekey other/localhost
conf "other/localhost@KEDGE.TEST" "$T/other.keytab" >"$T/k.conf"
refused run "the KDC refused the key of other/localhost@KEDGE.TEST in $T/other.keytab"
krb_kdc_down
conf "$P" "$KT" >"$T/k.conf"
refused run "no KDC of realm KEDGE.TEST answers"
krb_kdc_up

# A running kedge: logged in, then again every ~10 s (renew_at 0.5 of a
# 20 s ticket), through an outage of the KDC.
PATH=$KRB_KINIT_PATH $KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "the first login" 20 grep -q "kerberos: logged in as $P" "$T/run.log"
wait_for "a second login" 30 grep -q "kerberos: logged in again as $P" "$T/run.log"
krb_kdc_down
wait_for "a warning while the KDC is down" 30 \
	grep -q "kerberos: no KDC of realm KEDGE.TEST answers.*the ticket has [0-9]* s left, trying again" "$T/run.log"
before=$(grep -c "kerberos: logged in again" "$T/run.log")
krb_kdc_up
wait_for "a login once the KDC is back" 40 \
	sh -c "[ \$(grep -c 'kerberos: logged in again' '$T/run.log') -gt $before ]"
$KEDGE status -c "$T/k.conf" | grep -q "^kerberos: $P, ticket valid until .* ([0-9]* s left)$" ||
	die "kedge status shows no ticket: $($KEDGE status -c "$T/k.conf")"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(tail -3 "$T/run.log")"
[ ! -e "$T/kinit-ran" ] || die "kedge ran kinit: $(cat "$T/kinit-ran")"
! grep -q "kinit" "$T/run.log" || die "kedge's log names kinit: $(grep kinit "$T/run.log" | head -3)"
[ ! -e /tmp/krb5cc_0 ] || [ /tmp/krb5cc_0 -ot "$T/k.conf" ] ||
	die "kedge wrote the default credential cache"
echo "ok: checks, refusals, $(grep -c 'logged in again' "$T/run.log") renewals through a KDC outage"
