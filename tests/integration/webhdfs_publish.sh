#!/bin/sh
# Publishing to HDFS end to end, against the WebHDFS/HttpFS protocol fake
# (tests/fixtures/webhdfs.py): nginx traffic with malformed records in a
# mock topic -> the real kedge binary with output.target "webhdfs" -> the
# fake's namespace, which is a local directory, so the invariant is checked
# there as for the local target (rows and rejects row by row, kedge verify,
# an empty spool).
#
# First WebHDFS with Kerberos: kedge logs in from its own keytab (a real
# MIT KDC, tests/krb.sh) and authenticates with SPNEGO to the fake's real
# GSSAPI acceptor; the fake's log shows each file written in CREATE's two
# steps (307 on the namenode, 201 on the datanode) under a temporary name
# and RENAMEd into place, all as kedge/localhost@KEDGE.TEST, and no CREATE
# of a final name.  Then HttpFS with simple authentication (user.name).
# `kedge check-config --online` reports base_dir while the fake serves and
# refuses in one sentence while it is down.  The fake speaks http://: both
# check-config and each run warn, once, that the data and the tokens
# travel in the clear.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'webhdfs_stop || :; krb_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

N=6000
BASE=/data/kedge
ME=kedge/localhost@$KRB_REALM
krb_start "$T"
START=$(date -u -d '2026-03-08 23:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 23 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
[ -s "$T/expected-rejects" ] || die "the generator made no malformed records"
mock_start "$T" --topic access:3 --produce "access=$T/records"

# conf FILE GROUP SPOOL OUTPUT-EXTRA [TOP-EXTRA]: a configuration that
# publishes to the running fake's WEBHDFS_URL.
conf() {
	cat >"$1" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "$2"; };
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$3"; timezone = "UTC"; host = "hdfs-host";
           roll = { max_bytes = 32768; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE"; $4 }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
${5:-}
CONF
}

# land NAME CONF: one kedge run to the end of the topic; fails the test
# unless it exits 0 with every record consumed.
land() {
	timeout 120 $KEDGE run -c "$2" --exit-at-end 2>"$T/$1.log" ||
		die "$1: kedge run failed: $(log_lines "$T/$1.log" | grep '^err ' | head -5) ... $(tail -3 "$T/$1.log")"
	grep -q "table access: $N records" "$T/$1.log" ||
		die "$1: not every record consumed: $(grep 'table access' "$T/$1.log")"
	grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' \
		"$T/$1.log" || die "$1: $(grep 'published' "$T/$1.log")"
	[ "$(grep -cF "$CLEAR" "$T/$1.log")" -eq 1 ] ||
		die "$1: kedge run did not warn once that $WEBHDFS_URL is not https: $(grep -F 'output.webhdfs.url' "$T/$1.log")"
}

# The warning for an http:// URL, as check-config and the run say it.
CLEAR=
# check_online CONF: kedge check-config --online, its stdout in out; its
# stderr must be the one warning that the URL is http://.
check_online() {
	CLEAR="output.webhdfs.url $WEBHDFS_URL is http://, not https://: the data"
	out=$($KEDGE check-config -c "$1" --online 2>"$T/check.err") ||
		die "check-config --online: $out $(cat "$T/check.err")"
	[ "$(wc -l <"$T/check.err")" -eq 1 ] &&
		grep -q "^warning: $1:[0-9]*: $CLEAR, and the SPNEGO token .* travel in the clear" \
			"$T/check.err" ||
		die "check-config did not warn that $WEBHDFS_URL is not https: $(cat "$T/check.err")"
}

# log_checks WHO [datanode]: the fake's log shows only two-step CREATEs of
# temporary names, each a 307 and a 201 on the datanode (httpfs: on the
# same port), RENAMEs answered 200, all as WHO; and every landed file was
# RENAMEd into place.
log_checks() {
	_who=$1
	_dn=${2:-}
	# the data files; manifests, _SUCCESS and the progress files under
	# _kedge are written again as hours complete (docs/completion.md)
	grep -v ' [^ ]*/_' "$WEBHDFS_LOG" >"$T/data.log"
	grep ' CREATE ' "$T/data.log" >"$T/creates"
	[ -s "$T/creates" ] || die "no CREATE in the fake's log"
	# Every CREATE path is a hidden temporary name: .<name>.tmp.
	awk '{ n = split($3, p, "/"); f = p[n] }
		f !~ /^\..*\.tmp$/ { print; bad = 1 } END { exit bad }' \
		"$T/creates" >&2 || die "a CREATE of a final name (above)"
	# Each temporary name: one 307 on the namenode and one 201 on the
	# datanode (httpfs: the same port).  The fake logs a request once it
	# has answered it, so the datanode's line may come first.
	awk -v who="$_who" -v dn="$_dn" '
		$1 != "PUT" || $6 != who { print "who: " $0; bad = 1; next }
		$5 == "307" && $7 == "" { nn[$3]++; next }
		$5 == "201" && $7 == dn { dn201[$3]++; next }
		{ print "unexpected: " $0; bad = 1 }
		END { for (p in nn) if (nn[p] != 1 || dn201[p] != 1) {
			print p ": " nn[p] " 307, " dn201[p] + 0 " 201"; bad = 1 }
			for (p in dn201) if (!(p in nn)) { print p ": no 307"; bad = 1 }
			exit bad }' "$T/creates" >&2 ||
		die "the CREATEs are not one 307 and one 201 each, as $_who (above)"
	grep ' RENAME ' "$T/data.log" >"$T/renames"
	awk -v who="$_who" '$1 != "PUT" || $5 != "200" || $6 != who { print; bad = 1 }
		END { exit bad }' "$T/renames" >&2 ||
		die "a RENAME not answered 200 as $_who (above)"
	# Every file that landed was written once under its temporary name and
	# renamed once: as many CREATEs as RENAMEs as files (part files and
	# sidecars).
	_files=$(find "$WEBHDFS_ROOT$BASE" -path '*/_kedge' -prune -o -type f \
		! -name '_*' -print | wc -l)
	_c=$(grep -c ' 201 ' "$T/creates")
	_r=$(wc -l <"$T/renames")
	[ "$_files" -gt 0 ] && [ "$_c" -eq "$_files" ] && [ "$_r" -eq "$_files" ] ||
		die "$_files files landed, $_c CREATEs, $_r RENAMEs"
	# What is under base_dir now is all final names: no temporary file.
	_tmp=$(find "$WEBHDFS_ROOT$BASE" -name '.*.tmp' | head -3)
	[ -z "$_tmp" ] || die "temporary files left in HDFS: $_tmp"
}

############ WebHDFS, Kerberos (SPNEGO from kedge's own login)
webhdfs_start "$T/k" --keytab "$KRB_DIR/http.keytab" --user-allowed kedge
KRBCONF="kerberos = { principal = \"$ME\"; keytab = \"$KRB_DIR/kedge.keytab\"; };"
conf "$T/k.conf" kedge-k "$T/k-spool" 'auth = "kerberos";' "$KRBCONF"
# kedge must not borrow a ticket from the test's environment.
export KRB5CCNAME=FILE:$T/no-such-ccache

check_online "$T/k.conf"
case $out in
"configuration OK: logged in as $ME; "*"; HDFS $WEBHDFS_URL: $BASE is not there yet, the first file creates it") ;;
*) die "check-config --online printed \"$out\"" ;;
esac
grep -q "GET GETFILESTATUS $BASE -> 404 $ME\$" "$WEBHDFS_LOG" ||
	die "check-config did not ask HDFS as $ME: $(tail -3 "$WEBHDFS_LOG")"

land k "$T/k.conf"
check_exactly_once "$WEBHDFS_ROOT$BASE" access "$T/expected" \
	"$T/expected-rejects" "$T/k-spool"
log_checks "$ME" datanode
k_files=$(grep -c ' CREATE .* 201 ' "$T/data.log")
[ -n "$(find "$WEBHDFS_ROOT$BASE/access" -name _MANIFEST.json)" ] ||
	die "no hour got its manifest in HDFS"
k_rows=$CHECK_ROWS

check_online "$T/k.conf"
case $out in
*"; HDFS $WEBHDFS_URL: $BASE is there") ;;
*) die "check-config --online printed \"$out\"" ;;
esac

# HDFS down: check-config --online refuses in one sentence that names the
# URL (and warns of http:// still).
webhdfs_ctl "$T/k" down
rc=0
out=$($KEDGE check-config -c "$T/k.conf" --online 2>&1) || rc=$?
[ "$rc" -eq 1 ] || die "check-config --online with HDFS down exited $rc: $out"
[ "$(printf '%s\n' "$out" | grep -vc '^warning: ')" -eq 1 ] ||
	die "check-config --online with HDFS down said more than one line: $out"
out=$(printf '%s\n' "$out" | grep -v '^warning: ')
case $out in
"$T/k.conf: GETFILESTATUS $BASE: no answer from $WEBHDFS_URL: "*) ;;
*) die "check-config --online with HDFS down printed \"$out\"" ;;
esac
case $out in *configuration\ OK*) die "\"$out\" says OK" ;; esac
webhdfs_ctl "$T/k" up
webhdfs_stop || die "stopping the Kerberos WebHDFS fake"

############ HttpFS, simple authentication (user.name)
webhdfs_start "$T/h" --mode httpfs --user-allowed kedge
conf "$T/h.conf" kedge-h "$T/h-spool" 'auth = "simple"; user = "kedge";'
check_online "$T/h.conf"
case $out in
"configuration OK: "*"; HDFS $WEBHDFS_URL: $BASE is not there yet, the first file creates it") ;;
*) die "check-config --online (httpfs) printed \"$out\"" ;;
esac
land h "$T/h.conf"
check_exactly_once "$WEBHDFS_ROOT$BASE" access "$T/expected" \
	"$T/expected-rejects" "$T/h-spool"
log_checks kedge
grep -q ' CREATE .* -> 201 kedge$' "$WEBHDFS_LOG" ||
	die "no CREATE by user.name kedge: $(grep CREATE "$WEBHDFS_LOG" | head -2)"
h_files=$(grep -c ' CREATE .* 201 ' "$T/data.log")
# kedge verify reads HDFS itself through the URL (here as user.name kedge)
out=$($KEDGE verify "$WEBHDFS_URL$BASE" --user kedge 2>&1) ||
	die "kedge verify $WEBHDFS_URL$BASE: $out"
[ "$out" = "$CHECK_VERIFY" ] ||
	die "verify through the URL said \"$out\", of the directory \"$CHECK_VERIFY\""
webhdfs_stop || die "stopping the HttpFS fake"

secs=$(($(date +%s) - began))
echo "ok: WebHDFS + SPNEGO as $ME: $k_rows rows, $k_files files;" \
	"HttpFS + user.name: $CHECK_ROWS rows, $h_files files;" \
	"$CHECK_REJECTS rejects each; $CHECK_VERIFY; ${secs} s"
