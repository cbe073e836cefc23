# Helpers for the integration tests against the real Kafka broker
# (tests/real/up).  Source it after tests/lib.sh, from the repository root.
#
#   real_kafka DIR    the broker of the run if REAL_ENV names the DIR of a
#                     running tests/real/up (its env is sourced), else one
#                     of the test's own under DIR/real; sets REAL_OWN
#   real_own DIR      always one of the test's own (for tests that stop,
#                     kill or reconfigure the broker)
#   real_stop         stops the test's own broker, if any; for EXIT traps
#   real_topic NAME PARTITIONS [CONFIG=VALUE...]
#   real_produce TOPIC PARTITIONS FILE
#   real_conf NAME PROTOCOL TOPIC [EXTRA...]
#
# After real_kafka the variables of tests/real/up's env are exported
# (KAFKA_PLAINTEXT, KAFKA_SASL_PLAINTEXT, KAFKA_SASL_SSL, KAFKA_CA,
# KAFKA_SERVICE_NAME, KRB5_CONFIG, CLIENT_PRINCIPAL, CLIENT_KEYTAB,
# KRB_REALM, KRB_DIR, KRB5_KDC_PROFILE, REAL_DIR), and KRB5CCNAME is the
# test's own.  Each test names its topics and groups after itself, so that
# tests sharing one broker do not meet.

REAL_OWN=0

real_kafka() {
	if [ -n "${REAL_ENV:-}" ]; then
		[ -s "$REAL_ENV/env" ] ||
			die "REAL_ENV=$REAL_ENV: no $REAL_ENV/env (start it with tests/real/up $REAL_ENV kafka)"
		. "$REAL_ENV/env"
	else
		real_own "$1"
		return
	fi
	KRB5CCNAME=FILE:$1/ccache
	export KRB5CCNAME
}

real_own() {
	tests/real/up "$1/real" kafka >"$1/up.log" 2>&1 ||
		die "tests/real/up: $(tail -1 "$1/up.log")"
	REAL_OWN=1
	. "$1/real/env"
	KRB5CCNAME=FILE:$1/ccache
	export KRB5CCNAME
}

real_stop() {
	[ "$REAL_OWN" -eq 0 ] || tests/real/down "$REAL_DIR" >/dev/null 2>&1 || :
	REAL_OWN=0
}

# real_topic NAME PARTITIONS [CONFIG=VALUE...]: creates the topic.
real_topic() {
	tests/real/kafka "$REAL_DIR" topic "$@" || die "cannot create topic $1"
}

# real_produce TOPIC PARTITIONS FILE [KPRODUCE-ARGS...]: produces FILE's
# lines to TOPIC over PLAINTEXT with tests/fixtures/kproduce.c, line i to
# partition i % PARTITIONS, in order, so that line i lands at offset
# i / PARTITIONS of an empty topic (gen_nginx's placement); fails the test
# unless every line was acknowledged.
real_produce() {
	_rp_t=$1
	_rp_p=$2
	_rp_f=$3
	shift 3
	timeout 300 "$FIX/kproduce" --brokers "$KAFKA_PLAINTEXT" --topic "$_rp_t" \
		--partitions "$_rp_p" --file "$_rp_f" "$@" ||
		die "kproduce could not produce $_rp_f to $_rp_t"
}

# real_conf NAME PROTOCOL TOPIC [EXTRA...]: a kedge config consuming TOPIC
# over PROTOCOL (SASL_PLAINTEXT or SASL_SSL, GSSAPI from the client's
# keytab; PLAINTEXT) in group kedge-NAME, landing nginx rows in $T/NAME
# (spool $T/spool-NAME); EXTRA are more top-level settings.
real_conf() {
	case $2 in
	SASL_PLAINTEXT) _rc_b=$KAFKA_SASL_PLAINTEXT
		_rc_s="kerberos_service_name = \"$KAFKA_SERVICE_NAME\";" ;;
	SASL_SSL) _rc_b=$KAFKA_SASL_SSL
		_rc_s="kerberos_service_name = \"$KAFKA_SERVICE_NAME\"; ca_file = \"$KAFKA_CA\";" ;;
	PLAINTEXT) _rc_b=$KAFKA_PLAINTEXT; _rc_s= ;;
	*) die "real_conf: no protocol $2" ;;
	esac
	cat <<CONF
kafka = { brokers = "$_rc_b"; group_id = "kedge-$1";
          security = { protocol = "$2"; $_rc_s }; };
tables = ( { name = "access"; topics = [ "$3" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-$1"; local_dir = "$T/$1"; timezone = "UTC"; };
checkpoint = { interval = 1; };
log = { level = "info"; };
metrics = { enabled = false; };
CONF
	[ "$2" = PLAINTEXT ] || cat <<CONF
kerberos = { principal = "$CLIENT_PRINCIPAL"; keytab = "$CLIENT_KEYTAB"; };
CONF
	shift 3
	for _rc_x; do
		echo "$_rc_x"
	done
}

# real_principal NAME KEYTAB: adds principal NAME/localhost to the realm
# with a random key and writes it to KEYTAB (mode 0600); its Kafka user
# is User:NAME.  It has no ACL yet: real_acl gives it some.
real_principal() {
	krb_kadmin addprinc -randkey "$1/localhost"
	krb_kadmin ktadd -k "$2" -norandkey "$1/localhost"
	chmod 600 "$2"
}

# real_acl ACLCOMMAND-ARGS...: runs Kafka's AclCommand with ARGS over
# PLAINTEXT (for instance --add --allow-principal User:x --operation Read
# --topic t).
real_acl() {
	tests/real/kafka "$REAL_DIR" java org.apache.kafka.tools.AclCommand \
		--bootstrap-server "$KAFKA_PLAINTEXT" "$@" >"$T/acl.log" 2>&1 ||
		die "AclCommand $*: $(tail -3 "$T/acl.log")"
}
