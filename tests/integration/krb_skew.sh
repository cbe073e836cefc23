#!/bin/sh
# Clock skew against a real MIT KDC started here (tests/krb.sh, --skew):
# the KDC's clock runs off this host's under libfaketime, and krb5.conf
# says kdc_timesync = 0, so the client does not adopt the KDC's time.  With
# the KDC 15 minutes ahead, and 15 minutes behind, more than the allowed 5,
# check-config --online and run exit 1 with the sentence that names the
# clock skew and the fix, for a principal with +requires_preauth (the KDC
# refuses the request's timestamp: KRB5KRB_AP_ERR_SKEW) and for one without
# (the client's own check of the KDC's reply: KRB5_KDCREP_SKEW).  The same
# realm with the clocks 0 and 2 minutes apart logs both in, so the test
# fails both ways.  The KDC leaves nothing in /dev/shm.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'krb_stop; mock_stop; rm -rf "$T"' EXIT

krb_start "$T" --skew 0
kdcs=$KRB_PID
krb_addprinc preauth/localhost "$T/preauth.keytab"
krb_kadmin modprinc +requires_preauth preauth/localhost
# Each principal takes the path it is here for.
attrs() {
	kadmin.local -r "$KRB_REALM" -q "getprinc $1" 2>/dev/null |
		sed -n 's/^Attributes: *//p'
}
case $(attrs preauth/localhost) in
*REQUIRES_PRE_AUTH*) ;;
*) die "preauth/localhost does not require preauthentication: $(attrs preauth/localhost)" ;;
esac
case $(attrs kedge/localhost) in
*REQUIRES_PRE_AUTH*) die "kedge/localhost requires preauthentication" ;;
esac
mock_start "$T" --topic web:1

# conf NAME: a config that logs in as NAME/localhost with its keytab.
conf() {
	case $1 in
	preauth) _kt=$T/preauth.keytab ;;
	*) _kt=$KRB_DIR/$1.keytab ;;
	esac
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "t"; topics = [ "web" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
kerberos = { principal = "$1/localhost@$KRB_REALM"; keytab = "$_kt"; };
metrics = { enabled = false; };
CONF
}

# logs_in NAME: check-config --online logs in as NAME/localhost.
logs_in() {
	conf "$1" >"$T/k.conf"
	rc=0
	out=$(timeout 30 $KEDGE check-config --online -c "$T/k.conf" 2>&1) ||
		rc=$?
	[ "$rc" -eq 0 ] && [ "$out" = "configuration OK: logged in as $1/localhost@$KRB_REALM; 1 broker(s); web (1 partitions)" ] ||
		die "clocks $KRB_SKEW s apart: check-config --online as $1 exited $rc: $out"
}

# skew_refused NAME COMMAND...: kedge COMMAND (check-config --online or
# run) as NAME/localhost exits 1, and its error names the skew and the fix.
skew_refused() {
	_name=$1
	shift
	conf "$_name" >"$T/k.conf"
	rc=0
	timeout 30 $KEDGE "$@" -c "$T/k.conf" >"$T/out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] ||
		die "KDC $KRB_SKEW s off: $* as $_name exited $rc, want 1: $(cat "$T/out")"
	grep -qF "this host's clock and the KDC's differ" "$T/out" &&
		grep -qF "set the time right" "$T/out" ||
		die "KDC $KRB_SKEW s off: $* as $_name said: $(cat "$T/out")
want: this host's clock and the KDC's differ ...: set the time right ..."
}

for skew in 0 120; do
	[ "$skew" -eq 0 ] || { krb_kdc_skew "$skew"; kdcs="$kdcs $KRB_PID"; }
	logs_in preauth
	logs_in kedge
done
for skew in 900 -900; do
	krb_kdc_skew "$skew"
	kdcs="$kdcs $KRB_PID"
	skew_refused preauth check-config --online
	skew_refused kedge check-config --online
done
# kedge run stops before it consumes, with the sentence in its log.
skew_refused preauth run
skew_refused kedge run
grep -q "kerberos: this host's clock" "$T/out" ||
	die "run's log lacks the kerberos error: $(cat "$T/out")"
line=$(grep "kerberos: this host's clock" "$T/out")

krb_stop
for pid in $kdcs; do
	[ ! -e "/dev/shm/faketime_shm_$pid" ] &&
		[ ! -e "/dev/shm/sem.faketime_sem_$pid" ] ||
		die "the KDC $pid left libfaketime's files in /dev/shm"
done
echo "ok: logged in 0 and 120 s apart, refused 900 s ahead and behind, with and without preauth: $line"
