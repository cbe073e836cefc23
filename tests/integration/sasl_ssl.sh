#!/bin/sh
# Kafka over TLS, end to end: saslfront (tests/fixtures/saslfront.c)
# stands before each mock broker and speaks TLS with a certificate of a
# CA made here (tests/tls.sh).  kedge lands every record over SASL_SSL
# (Kerberos from a real MIT KDC, tests/krb.sh) and over SSL, trusting the
# CA of its ca_file.  The brokers' host names are verified by default: a
# certificate for another name, an expired one, or one whose CA kedge does
# not trust makes kedge stop, exit 1, and say the TLS handshake failed,
# with nothing landed.  A front that wants a client certificate lets kedge
# in with its cert_file and key_file (an encrypted key too, with its
# password in kafka.rdkafka ssl_key_password), and refuses it without them
# or with one of another CA.  Everything listens on 127.0.0.1 only.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/tls.sh

SASLFRONT=${SASLFRONT:-$FIX/saslfront}
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
C=$T/tls
FRONT_PID=
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -n "$FRONT_PID" ] && kill "$FRONT_PID" 2>/dev/null || :; krb_stop; mock_stop; rm -rf "$T"' EXIT

# front_start ARGS...: starts saslfront before the mock's brokers with
# ARGS; sets FRONT_PID and FRONT.  Its stderr goes to a fresh front.err.
front_start() {
	rm -f "$T/front.ready"
	"$SASLFRONT" --bootstrap "$BOOTSTRAP" "$@" \
		--ready-file "$T/front.ready" >"$T/front.out" 2>"$T/front.err" &
	FRONT_PID=$!
	wait_for "saslfront" 10 test -s "$T/front.ready"
	FRONT=$(sed -n 's/^bootstrap=//p' "$T/front.ready")
}

front_stop() {
	kill "$FRONT_PID"
	wait "$FRONT_PID" 2>/dev/null || :
	FRONT_PID=
}

# conf NAME PROTOCOL [SETTING...]: kedge over PROTOCOL to the front, in
# consumer group kedge-NAME, landing in $T/NAME, with more
# kafka.security SETTINGs and $RDKAFKA's kafka.rdkafka ones; Kerberos for
# SASL_SSL; librdkafka's TLS and broker debugging in its log.
conf() {
	_name=$1
	_proto=$2
	shift 2
	cat <<CONF
kafka = { brokers = "$FRONT"; group_id = "kedge-$_name";
          rdkafka = { debug = "security,broker"; ${RDKAFKA:-} };
          security = { protocol = "$_proto"; $* }; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-$_name"; local_dir = "$T/$_name";
           timezone = "UTC"; };
checkpoint = { interval = 1; };
log = { level = "debug"; };
metrics = { enabled = false; };
CONF
	[ "$_proto" != SASL_SSL ] || cat <<CONF
kerberos = { principal = "kedge/localhost@$KRB_REALM";
             keytab = "$KRB_DIR/kedge.keytab"; };
CONF
}

# lands NAME PROTOCOL [SETTING...]: kedge lands every record through the
# front, over TLS, to the front's brokers only.
lands() {
	_name=$1
	_scheme=$(echo "$2" | tr '[:upper:]' '[:lower:]')
	conf "$@" >"$T/$_name.conf"
	timeout 60 $KEDGE run -c "$T/$_name.conf" --exit-at-end \
		2>"$T/$_name.log" ||
		die "kedge over $2 failed: $(tail -5 "$T/$_name.log")"
	check_exactly_once "$T/$_name" access "$T/expected" \
		"$T/expected-rejects" "$T/spool-$_name"
	[ $((CHECK_ROWS + CHECK_REJECTS)) -eq "$RECORDS" ] ||
		die "$_name: landed $CHECK_ROWS rows and $CHECK_REJECTS rejects, want $RECORDS in all"
	for _port in $(echo "$FRONT" | tr ',' ' ' | sed 's/[^ ]*://g'); do
		grep -Eq "(^|[^_])$_scheme://localhost:$_port/[0-9]" \
			"$T/$_name.log" ||
			die "$_name: kedge never used broker $_scheme://localhost:$_port: $(grep -m3 '://' "$T/$_name.log")"
	done
	for _port in $(echo "$BOOTSTRAP" | tr ',' ' ' | sed 's/[^ ]*://g'); do
		! grep -q ":${_port}[/ ]" "$T/$_name.log" ||
			die "$_name: kedge reached a mock broker directly: $(grep -m3 ":${_port}[/ ]" "$T/$_name.log")"
	done
	grep -q ': TLS TLSv1\.[23] ' "$T/front.err" ||
		die "$_name: the front made no TLS session: $(cat "$T/front.err")"
	# A connection still in its handshake when kedge stops ends in an
	# unexpected EOF; any other failure is a refusal.
	! grep 'TLS handshake failed' "$T/front.err" |
		grep -qv 'unexpected eof while reading$' ||
		die "$_name: a TLS handshake failed: $(grep -m3 'TLS handshake failed' "$T/front.err")"
}

# stops ALERT NAME WANT PROTOCOL [SETTING...]: kedge refuses the front's
# certificate, which the front learns from kedge's TLS alert ALERT; kedge
# stops by itself within 20 s, exits 1 and says that the TLS handshake
# failed, and why: WANT (a grep pattern); nothing lands.
stops() {
	_alert=$1
	_name=$2
	_want=$3
	shift 3
	set -- "$_name" "$@"
	conf "$@" >"$T/$_name.conf"
	$KEDGE run -c "$T/$_name.conf" 2>"$T/$_name.log" &
	KPID=$!
	wait_for "kedge's alert \"$_alert\" ($_name)" 20 \
		grep -q "TLS handshake failed: .*alert $_alert$" "$T/front.err"
	exits_within "$KPID" 20 ||
		die "$_name: kedge still runs 20 s on: $(grep -m3 'SSL handshake failed' "$T/$_name.log")"
	rc=0
	wait "$KPID" || rc=$?
	KPID=
	[ "$rc" -eq 1 ] || die "$_name: kedge exited $rc, want 1: $(tail -3 "$T/$_name.log")"
	log_lines "$T/$_name.log" | grep -q "^err kafka: the TLS handshake with a broker failed: $_want.*; stopping\$" ||
		die "$_name: kedge said: $(log_lines "$T/$_name.log" | grep '^err ' | tail -2)"
	[ "$(landed_count "$T/$_name")" -eq 0 ] || die "$_name: rows landed"
}

# refused NAME PROTOCOL [SETTING...]: the front refuses kedge's TLS
# handshake; nothing lands.  kedge may go on retrying: stopped here.
refused() {
	_name=$1
	conf "$@" >"$T/$_name.conf"
	$KEDGE run -c "$T/$_name.conf" 2>"$T/$_name.log" &
	KPID=$!
	wait_for "the front to refuse kedge ($_name)" 30 \
		grep -q 'TLS handshake failed' "$T/front.err"
	kill -TERM "$KPID" 2>/dev/null || :
	exits_within "$KPID" 20 || kill -9 "$KPID" 2>/dev/null || :
	wait "$KPID" 2>/dev/null || :
	KPID=
	! grep -q ': TLS TLSv' "$T/front.err" ||
		die "$_name: the front let kedge in: $(grep -m3 ': TLS TLSv' "$T/front.err")"
	[ "$(landed_count "$T/$_name")" -eq 0 ] || die "$_name: rows landed"
}

krb_start "$T"
tls_make "$C"
RECORDS=3000
START=$(date -u -d '2026-07-01 00:00:00' +%s)
$FIX/gen_nginx --records "$RECORDS" --partitions 2 --seed 41 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --brokers 2 --topic web:2 --produce "web=$T/records"

SERVER="--tls-cert $C/server.pem --tls-key $C/server.key"

# SASL_SSL: TLS first, then Kerberos inside it.
front_start --keytab "$KRB_DIR/kafka.keytab" $SERVER
lands sasl_ssl SASL_SSL "ca_file = \"$C/ca.pem\";"
grep -q "authenticated kedge/localhost@$KRB_REALM" "$T/front.err" ||
	die "the front authenticated nobody: $(cat "$T/front.err")"
sessions=$(grep -c ': TLS TLSv' "$T/front.err")
front_stop

# SSL: TLS alone.
front_start --no-sasl $SERVER
lands ssl SSL "ca_file = \"$C/ca.pem\";"
! grep -q authenticated "$T/front.err" || die "the front ran SASL with --no-sasl"
front_stop

# A certificate for another host name, signed by the trusted CA.
front_start --no-sasl --tls-cert "$C/wrongname.pem" --tls-key "$C/wrongname.key"
stops "bad certificate" wrongname \
	"the certificate of localhost:[0-9]* does not name that host (hostname mismatch): name the brokers in kafka.brokers as their certificates do" \
	SSL "ca_file = \"$C/ca.pem\";"
front_stop

# A certificate that expired in 2020.
front_start --no-sasl --tls-cert "$C/expired.pem" --tls-key "$C/expired.key"
stops "certificate expired" expired \
	"the certificate of localhost:[0-9]* has expired: renew it" \
	SSL "ca_file = \"$C/ca.pem\";"
front_stop

# A CA file of another CA, over SASL_SSL: TLS fails before SASL begins.
front_start --keytab "$KRB_DIR/kafka.keytab" $SERVER
stops "unknown ca" otherca \
	"the certificate of localhost:[0-9]* is refused (unable to get local issuer certificate): kafka.security.ca_file ($C/other-ca.pem) must hold the CA" \
	SASL_SSL "ca_file = \"$C/other-ca.pem\";"
! grep -q authenticated "$T/front.err" || die "SASL ran over a refused TLS session"
front_stop

# Mutual TLS: the front wants a client certificate signed by the CA.
MTLS="--no-sasl $SERVER --tls-ca $C/ca.pem --tls-verify-client"
front_start $MTLS
lands mtls SSL "ca_file = \"$C/ca.pem\"; cert_file = \"$C/client.pem\";
                key_file = \"$C/client.key\";"
grep -q ': TLS TLSv.*, client certificate /CN=client$' "$T/front.err" ||
	die "the front saw no client certificate: $(cat "$T/front.err")"
front_stop
openssl pkey -in "$C/client.key" -aes256 -passout pass:s3cret \
	-out "$C/crypt.key" || die "openssl could not encrypt client.key"
chmod 600 "$C/crypt.key"
front_start $MTLS
RDKAFKA='ssl_key_password = "s3cret";' lands mtls_crypt SSL \
	"ca_file = \"$C/ca.pem\"; cert_file = \"$C/client.pem\";
	 key_file = \"$C/crypt.key\";"
grep -q ': TLS TLSv.*, client certificate /CN=client$' "$T/front.err" ||
	die "encrypted key: the front saw no client certificate: $(cat "$T/front.err")"
front_stop
front_start $MTLS
refused nocert SSL "ca_file = \"$C/ca.pem\";"
grep -q 'TLS handshake failed: .*peer did not return a certificate' "$T/front.err" ||
	die "nocert: the front said: $(cat "$T/front.err")"
front_stop
front_start $MTLS
refused othercert SSL "ca_file = \"$C/ca.pem\"; cert_file = \"$C/other-client.pem\";
                       key_file = \"$C/other-client.key\";"
grep -q 'TLS handshake failed: .*certificate verify failed (client certificate: unable to get local issuer certificate)' "$T/front.err" ||
	die "othercert: the front said: $(cat "$T/front.err")"
front_stop
echo "ok: $RECORDS records over SASL_SSL ($sessions TLS sessions), SSL and mutual TLS (an encrypted key too); stopped for a wrong host name, an expired certificate and an untrusted CA; refused without a client certificate and with another CA's"
