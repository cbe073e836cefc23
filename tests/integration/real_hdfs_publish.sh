#!/bin/sh
# Publishing to the real HDFS (tests/real/up DIR hdfs: a MiniDFSCluster
# with Kerberos, WebHDFS, block tokens; and the real HttpFS as its proxy
# user), with SPNEGO from kedge's own keytab, first over WebHDFS then over
# HttpFS.
#
# WebHDFS: the principal's tickets last 2 minutes; kedge runs for longer
# than that while the topic is fed, and must log in again in-process (no
# kinit) without a failed request.  HttpFS: a run to the end of a second
# topic.  Then WebHDFS over HTTPS (the NameNode's HTTPS port, its
# certificate signed by the test CA, output.webhdfs.ca_file), a run to the
# end of a third topic.  Each tree is read back with curl --negotiate, not kedge, and
# checked row by row (rows, rejects; `kedge verify` of the copy); every
# hour that has a manifest has its _SUCCESS, and kedge verify of the URL
# (kedge reading HDFS itself) says what it says of the copy; `kedge
# report` calls exactly the hours with a manifest complete.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      real_hdfs_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

real_hdfs "$T"
LIFE=120
RND=$(hdfs_rnd)
DIR_W=$HDFS_BASE/publish-w-$RND
DIR_H=$HDFS_BASE/publish-h-$RND
DIR_S=$HDFS_BASE/publish-s-$RND
hdfs_me khpub "$T/k.keytab" "$DIR_W" $LIFE
for d in "$DIR_H" "$DIR_S"; do
	hdfs_admin mkdir "$d" >/dev/null
	hdfs_admin chown khpub:khpub "$d" >/dev/null
done
# kedge must not borrow a ticket from the test's environment.
KCC=FILE:$T/no-such-ccache

N=6000
START=$(date -u -d '2026-02-02 09:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 47 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:3 --topic fs:3 --topic tls:3 \
	--produce "fs=$T/records" --produce "tls=$T/records"

# conf NAME TOPIC URL DIR [WEBHDFS-EXTRA]: kedge publishing TOPIC to DIR
# through URL.
conf() {
	cat >"$T/$1.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-$1"; };
tables = ( { name = "access"; topics = [ "$2" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-$1"; timezone = "UTC"; host = "pub-host";
           roll = { max_bytes = 32768; };
           target = "webhdfs";
           webhdfs = { url = "$3"; base_dir = "$4"; auth = "kerberos"; ${5:-} }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
}

# check NAME URL DIR: the tree under DIR, read with curl, holds every
# record once; _SUCCESS beside every manifest; kedge verify of the URL and
# kedge report agree with the copy.
check() {
	# curl's own ticket, fresh: it too lasts 2 minutes
	hdfs_kinit "$ME" "$T/k.keytab"
	hdfs_mirror "$2" "$3" "$T/copy-$1"
	left=$(find "$T/copy-$1" -name '.*.tmp' | head -3)
	[ -z "$left" ] || die "$1: temporary files left in HDFS: $left"
	check_exactly_once "$T/copy-$1" access "$T/expected" \
		"$T/expected-rejects" "$T/spool-$1"
	manifests=$(find "$T/copy-$1/access" -name _MANIFEST.json | wc -l)
	[ "$manifests" -ge 2 ] || die "$1: $manifests hours got a manifest"
	for m in $(find "$T/copy-$1/access" -name _MANIFEST.json); do
		[ -e "$(dirname "$m")/_SUCCESS" ] || die "$1: no _SUCCESS beside $m"
	done
	out=$($KEDGE verify "$2$3" ${CURL_CA:+--ca-file "$CURL_CA"} 2>&1) ||
		die "$1: kedge verify $2$3: $out"
	[ "$out" = "$CHECK_VERIFY" ] ||
		die "$1: verify of the URL said \"$out\", of the copy \"$CHECK_VERIFY\""
	$KEDGE report -c "$T/$1.conf" --from 2026020200 --to 2026020300 \
		>"$T/report-$1" 2>&1 || die "$1: kedge report: $(tail -3 "$T/report-$1")"
	yes=$(awk -F'\t' '$11 == "yes"' "$T/report-$1" | wc -l)
	[ "$yes" -eq "$manifests" ] ||
		die "$1: kedge report calls $yes hours complete, $manifests have a manifest: $(cat "$T/report-$1")"
}

############ WebHDFS, through more than one ticket lifetime
conf w web "$WEBHDFS_URL" "$DIR_W"
out=$(KRB5CCNAME=$KCC $KEDGE check-config -c "$T/w.conf" --online \
	2>"$T/w.err") || die "check-config --online: $out $(cat "$T/w.err")"
# on stderr, only the warning that http:// carries the tokens in the clear
[ "$(grep -c . "$T/w.err")" -eq 1 ] &&
	grep -q "^warning: $T/w.conf:[0-9]*: output.webhdfs.url $WEBHDFS_URL is http://" "$T/w.err" ||
	die "check-config --online warned: $(cat "$T/w.err")"
case $out in
"configuration OK: logged in as $ME; "*"HDFS $WEBHDFS_URL: $DIR_W is there") ;;
*) die "check-config --online printed \"$out\"" ;;
esac
KRB5CCNAME=$KCC $KEDGE run -c "$T/w.conf" 2>"$T/w.log" &
KPID=$!
# 40 chunks 3.5 s apart: 140 s, past the first ticket's end.
feed_start "$T" web "$T/records" 150 3.5
feed_wait "$T"
consumed_all() {
	grep -q "^consumed $N records" "$T/spool-w/status" 2>/dev/null
}
wait_for "every record read" 60 consumed_all
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop within 60 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/w.log" | grep '^err ' | head -5)"
log_lines "$T/w.log" | grep -q "^notice kerberos: logged in again as $ME" ||
	die "kedge did not log in again: $(grep kerberos: "$T/w.log")"
# none but that http:// carries the tokens in the clear, and that the
# tests run kedge as root
! log_lines "$T/w.log" | grep -E '^(err|warning) ' |
	grep -v -e "^warning output.webhdfs.url $WEBHDFS_URL is http://" \
	-e '^warning kedge runs as root: ' >&2 ||
	die "warnings or errors in the log (above)"
grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' \
	"$T/w.log" || die "$(grep 'published' "$T/w.log")"
check w "$WEBHDFS_URL" "$DIR_W"
w_rows=$CHECK_ROWS
w_files=$(grep -o 'published [0-9]* files' "$T/w.log" | tail -1)
relogins=$(log_lines "$T/w.log" | grep -c "^notice kerberos: logged in again as $ME")

############ HttpFS
conf h fs "$HTTPFS_URL" "$DIR_H"
timeout 300 env KRB5CCNAME=$KCC $KEDGE run -c "$T/h.conf" --exit-at-end 2>"$T/h.log" ||
	die "HttpFS: kedge run failed: $(log_lines "$T/h.log" | grep '^err ' | head -5) ... $(tail -3 "$T/h.log")"
grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' \
	"$T/h.log" || die "HttpFS: $(grep 'published' "$T/h.log")"
check h "$HTTPFS_URL" "$DIR_H"

h_rows=$CHECK_ROWS

############ WebHDFS over HTTPS: the NameNode's HTTPS port, the test CA
conf s tls "$WEBHDFS_HTTPS_URL" "$DIR_S" "ca_file = \"$HDFS_CA\";"
timeout 300 env KRB5CCNAME=$KCC $KEDGE run -c "$T/s.conf" --exit-at-end 2>"$T/s.log" ||
	die "HTTPS: kedge run failed: $(log_lines "$T/s.log" | grep '^err ' | head -5) ... $(tail -3 "$T/s.log")"
grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' \
	"$T/s.log" || die "HTTPS: $(grep 'published' "$T/s.log")"
# curl checks the certificate with the same CA
CURL_CA=$HDFS_CA check s "$WEBHDFS_HTTPS_URL" "$DIR_S"

secs=$(($(date +%s) - began))
echo "ok: WebHDFS as $ME with $LIFE s tickets ($relogins logins again):" \
	"$w_rows rows, $w_files; HttpFS: $h_rows rows; HTTPS: $CHECK_ROWS rows; $CHECK_REJECTS" \
	"rejects each; $CHECK_VERIFY; ${HDFS_UP_SECS:-shared} s up, ${secs} s"
