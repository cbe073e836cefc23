# Helpers for the integration tests against the real HDFS (tests/real/up
# DIR hdfs).  Source it after tests/lib.sh and tests/krb.sh, from the
# repository root.
#
#   real_hdfs DIR     the cluster of the run if REAL_ENV names the DIR of a
#                     running tests/real/up with hdfs (its env is sourced),
#                     else one of the test's own under DIR/real
#   real_hdfs_stop    stops the test's own cluster, if any; for EXIT traps
#   hdfs_admin ARGS...   tests/real/hdfs-admin on that cluster
#   hdfs_user NAME KEYTAB DIR [LIFETIME]   a principal NAME/localhost (its
#                     tickets LIFETIME seconds, default the realm's) with
#                     KEYTAB, and the HDFS directory DIR that it owns
#   hdfs_kinit NAME KEYTAB   a ccache of the test's own for curl
#   hdfs_me NAME KEYTAB DIR [LIFETIME]   hdfs_user, then hdfs_kinit as
#                     it; sets ME to its principal
#   hdfs_rnd          8 random hex digits, to name the test's directories
#   hdfs_curl URL METHOD PATH QUERY   one WebHDFS request with SPNEGO (and
#                     the CA CURL_CA for https, if set)
#   hdfs_mirror URL HDFS-DIR LOCAL-DIR   copies a tree with curl
#
# After real_hdfs the variables of tests/real/up's env are exported
# (WEBHDFS_URL, HTTPFS_URL, HDFS_BASE, KRB5_CONFIG, CLIENT_PRINCIPAL,
# CLIENT_KEYTAB, KRB_REALM, KRB_DIR, KRB5_KDC_PROFILE, REAL_DIR).  Each
# test works in HDFS directories named after itself.

HDFS_OWN=0

real_hdfs() {
	if [ -n "${REAL_ENV:-}" ]; then
		[ -s "$REAL_ENV/env" ] ||
			die "REAL_ENV=$REAL_ENV: no $REAL_ENV/env (start it with tests/real/up $REAL_ENV kafka hdfs)"
		. "$REAL_ENV/env"
		[ -n "${WEBHDFS_URL:-}" ] ||
			die "REAL_ENV=$REAL_ENV runs no HDFS (start it with tests/real/up $REAL_ENV kafka hdfs)"
	else
		HDFS_OWN=1
		_rh_t0=$(date +%s)
		tests/real/up "$1/real" hdfs >"$1/up.log" 2>&1 ||
			die "tests/real/up: $(tail -1 "$1/up.log")"
		HDFS_UP_SECS=$(($(date +%s) - _rh_t0))
		. "$1/real/env"
	fi
	command -v curl >/dev/null || die "the curl command-line tool is not installed"
	command -v jq >/dev/null || die "jq is not installed"
	command -v kinit >/dev/null || die "kinit (krb5-user) is not installed"
	KRB5CCNAME=FILE:$1/ccache
	export KRB5CCNAME
}

real_hdfs_stop() {
	[ "$HDFS_OWN" -eq 0 ] || tests/real/down "$REAL_DIR" >/dev/null 2>&1 || :
	HDFS_OWN=0
}

hdfs_admin() {
	tests/real/hdfs-admin "$REAL_DIR" "$@" || die "hdfs-admin $*"
}

hdfs_user() {
	# A realm shared by the tests of a run may have it from a test before.
	kadmin.local -r "$KRB_REALM" -q "getprinc $1/localhost" 2>/dev/null |
		grep -q '^Principal: ' || krb_kadmin addprinc -randkey "$1/localhost"
	[ -z "${4:-}" ] || krb_kadmin modprinc -maxlife "$4 seconds" \
		-maxrenewlife "$4 seconds" "$1/localhost"
	krb_kadmin ktadd -k "$2" -norandkey "$1/localhost"
	chmod 600 "$2"
	hdfs_admin mkdir "$3" >/dev/null
	hdfs_admin chown "$1:$1" "$3" >/dev/null
}

hdfs_kinit() {
	kinit -k -t "$2" "$1" 2>"$T/kinit.err" ||
		die "kinit -kt $2 $1: $(cat "$T/kinit.err")"
}

hdfs_me() {
	hdfs_user "$@"
	ME=$1/localhost@$KRB_REALM
	hdfs_kinit "$ME" "$2"
}

hdfs_rnd() {
	od -An -N4 -tx1 /dev/urandom | tr -d ' \n'
}

# hdfs_curl URL METHOD PATH [QUERY]: the body on stdout, following
# redirects (OPEN's to a datanode); fails unless HDFS answers 2xx.
hdfs_curl() {
	_hc_p=$(printf '%s' "$3" | jq -sRr @uri | sed 's|%2F|/|g')
	curl -sS --fail --max-time 60 -L --negotiate -u : -X "$2" \
		${CURL_CA:+--cacert "$CURL_CA"} "$1/webhdfs/v1$_hc_p?${4:-op=GETFILESTATUS}"
}

# hdfs_mirror URL HDFS-DIR LOCAL-DIR: copies every file under HDFS-DIR
# (temporary ones too) with curl.
hdfs_mirror() {
	mkdir -p "$3"
	hdfs_curl "$1" GET "$2" op=LISTSTATUS >"$3.json" ||
		die "LISTSTATUS $2 failed"
	jq -r '.FileStatuses.FileStatus[] | "\(.type)\t\(.pathSuffix)"' \
		"$3.json" >"$3.entries" || die "LISTSTATUS $2: $(head -c 300 "$3.json")"
	while IFS='	' read -r _hm_type _hm_name; do
		case $_hm_type in
		DIRECTORY) hdfs_mirror "$1" "$2/$_hm_name" "$3/$_hm_name" ;;
		FILE) hdfs_curl "$1" GET "$2/$_hm_name" op=OPEN >"$3/$_hm_name" ||
			die "OPEN $2/$_hm_name failed" ;;
		esac
	done <"$3.entries"
	rm -f "$3.entries" "$3.json"
}
