#!/bin/sh
# kedge against a real HDFS, through its WebHDFS (or an HttpFS gateway):
# the cluster that KEDGE_TEST_WEBHDFS_URL names, or without it the
# Kerberized MiniDFSCluster of tests/real/up (REAL_ENV's, or one of the
# test's own: tests/real/hdfs-lib.sh), as its client principal in
# HDFS_BASE.
#
#   KEDGE_TEST_WEBHDFS_URL        http[s]://namenode:9870 (or HttpFS :14000)
#   KEDGE_TEST_WEBHDFS_PRINCIPAL  with _KEYTAB: SPNEGO as this principal,
#   KEDGE_TEST_WEBHDFS_KEYTAB       from this keytab (chmod 600)
#   KEDGE_TEST_WEBHDFS_USER       or: simple authentication as this user
#   KEDGE_TEST_WEBHDFS_BASE       the HDFS directory the test makes its own
#                                 fresh kedge-test-<random> directory in
#                                 (default: /tmp)
#   KEDGE_TEST_WEBHDFS_CA         PEM CAs of an https URL (default: the
#                                 system's)
#   KEDGE_TEST_WEBHDFS_KEEP       1: leave the directory in HDFS afterwards
#
# Kerberos uses the host's krb5.conf (or KRB5_CONFIG).  A small topic of
# the mock cluster (nginx traffic with malformed records) lands in the
# fresh directory; then the test reads back everything under it with curl
# (LISTSTATUS and OPEN, authenticated the same way), and checks the copy as
# the other tests check a local directory: every row and reject exactly
# once, `kedge verify`, an empty spool, no temporary file.  `kedge
# check-config --online` must find the directory.  The directory is
# deleted at the end unless KEDGE_TEST_WEBHDFS_KEEP=1.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
CREATED=
trap 'mock_stop; [ -z "$CREATED" ] || [ "${KEDGE_TEST_WEBHDFS_KEEP:-}" = 1 ] ||
      hdfs DELETE "$DIR" "&recursive=true" >/dev/null 2>&1 || :
      real_hdfs_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

if [ -z "${KEDGE_TEST_WEBHDFS_URL:-}" ]; then
	real_hdfs "$T"
	KEDGE_TEST_WEBHDFS_URL=$WEBHDFS_URL
	KEDGE_TEST_WEBHDFS_PRINCIPAL=$CLIENT_PRINCIPAL
	KEDGE_TEST_WEBHDFS_KEYTAB=$CLIENT_KEYTAB
	KEDGE_TEST_WEBHDFS_BASE=$HDFS_BASE
fi
URL=${KEDGE_TEST_WEBHDFS_URL%/}
PRINCIPAL=${KEDGE_TEST_WEBHDFS_PRINCIPAL:-}
KEYTAB=${KEDGE_TEST_WEBHDFS_KEYTAB:-}
HUSER=${KEDGE_TEST_WEBHDFS_USER:-}
CA=${KEDGE_TEST_WEBHDFS_CA:-}
if [ -n "$PRINCIPAL" ] || [ -n "$KEYTAB" ]; then
	[ -n "$PRINCIPAL" ] && [ -n "$KEYTAB" ] ||
		die "set both KEDGE_TEST_WEBHDFS_PRINCIPAL and KEDGE_TEST_WEBHDFS_KEYTAB"
	[ -z "$HUSER" ] ||
		die "set KEDGE_TEST_WEBHDFS_USER or the principal and keytab, not both"
elif [ -z "$HUSER" ]; then
	die "KEDGE_TEST_WEBHDFS_URL is set: set KEDGE_TEST_WEBHDFS_PRINCIPAL and KEDGE_TEST_WEBHDFS_KEYTAB (Kerberos) or KEDGE_TEST_WEBHDFS_USER (simple)"
fi
command -v curl >/dev/null || die "the curl command-line tool is not installed"
command -v jq >/dev/null || die "jq is not installed"

PARENT=${KEDGE_TEST_WEBHDFS_BASE:-/tmp}
PARENT=${PARENT%/}
DIR=$PARENT/kedge-test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')

# curl's authentication: SPNEGO from a ccache of the test's own, or
# user.name.
if [ -n "$PRINCIPAL" ]; then
	KRB5CCNAME=FILE:$T/ccache
	export KRB5CCNAME
	kinit -kt "$KEYTAB" "$PRINCIPAL" 2>"$T/kinit.err" ||
		die "kinit -kt $KEYTAB $PRINCIPAL: $(cat "$T/kinit.err")"
fi

# hdfs GET PATH op=OP[&...] | hdfs DELETE PATH [&...]: one WebHDFS request
# on PATH, following redirects (OPEN's to a datanode); the body on stdout.
# Fails unless HDFS answers 2xx.
hdfs() {
	_m=$1
	_p=$(printf '%s' "$2" | jq -sRr @uri | sed 's|%2F|/|g')
	_q=${3:-}
	case $_m in
	DELETE) _q="op=DELETE$_q" ;;
	esac
	[ -z "$HUSER" ] || _q="$_q&user.name=$HUSER"
	set -- -sS --fail --max-time 60 -L -X "$_m"
	[ -z "$CA" ] || set -- "$@" --cacert "$CA"
	[ -z "$PRINCIPAL" ] || set -- "$@" --negotiate -u :
	curl "$@" "$URL/webhdfs/v1$_p?$_q"
}

# mirror HDFS-DIR LOCAL-DIR: copies every file under HDFS-DIR.
mirror() {
	mkdir -p "$2"
	hdfs GET "$1" "op=LISTSTATUS" >"$T/ls.json" ||
		die "LISTSTATUS $1 failed"
	jq -r '.FileStatuses.FileStatus[] | "\(.type)\t\(.pathSuffix)"' \
		"$T/ls.json" >"$2.entries" || die "LISTSTATUS $1: $(head -c 300 "$T/ls.json")"
	while IFS='	' read -r _type _name; do
		case $_type in
		DIRECTORY) mirror "$1/$_name" "$2/$_name" ;;
		FILE) hdfs GET "$1/$_name" "op=OPEN" >"$2/$_name" ||
			die "OPEN $1/$_name failed" ;;
		esac
	done <"$2.entries"
	rm -f "$2.entries"
}

N=3000
START=$(date -u -d '2026-10-10 11:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 37 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic real:2 --produce "real=$T/records"

if [ -n "$PRINCIPAL" ]; then
	AUTH='auth = "kerberos";'
	KRB="kerberos = { principal = \"$PRINCIPAL\"; keytab = \"$KEYTAB\"; };"
else
	AUTH="auth = \"simple\"; user = \"$HUSER\";"
	KRB=
fi
CAKEY=
[ -z "$CA" ] || CAKEY="ca_file = \"$CA\";"
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "real" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "kedge-test";
           roll = { max_bytes = 65536; };
           target = "webhdfs";
           webhdfs = { url = "$URL"; base_dir = "$DIR"; $AUTH $CAKEY }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
$KRB
CONF

out=$($KEDGE check-config -c "$T/k.conf" --online 2>&1) ||
	die "check-config --online: $out"
case $out in
*"; HDFS $URL: $DIR is not there yet, the first file creates it") ;;
*) die "the fresh $DIR: check-config --online printed \"$out\"" ;;
esac
CREATED=1
timeout 300 $KEDGE run -c "$T/k.conf" --exit-at-end 2>"$T/run.log" ||
	die "kedge run failed: $(log_lines "$T/run.log" | grep '^err ' | head -5) ... $(tail -3 "$T/run.log")"
grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' \
	"$T/run.log" || die "$(grep 'published' "$T/run.log")"
out=$($KEDGE check-config -c "$T/k.conf" --online 2>&1) ||
	die "check-config --online after the run: $out"
case $out in
*"; HDFS $URL: $DIR is there") ;;
*) die "after the run, check-config --online printed \"$out\"" ;;
esac

mirror "$DIR" "$T/copy"
tmp=$(find "$T/copy" -name '.*.tmp' | head -3)
[ -z "$tmp" ] || die "temporary files left in HDFS: $tmp"
check_exactly_once "$T/copy" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"
secs=$(($(date +%s) - began))
echo "ok: $URL$DIR as ${PRINCIPAL:-$HUSER}: $CHECK_ROWS rows," \
	"$CHECK_REJECTS rejects; $CHECK_VERIFY; ${secs} s"
