#!/bin/sh
# HDFS over https that redirects to http: the WebHDFS fake
# (tests/fixtures/webhdfs.py) serves its namenode with TLS (a test CA,
# tests/tls.sh) and sends every CREATE to its datanode with a 307 to an
# http:// Location, as a misconfigured or hostile cluster would.  kedge
# talks to the namenode over TLS (check-config --online answers, without
# the warning an http:// URL gets), refuses each redirect with a sentence
# that names both schemes, and never sends a byte to the http datanode,
# so neither the data nor a delegation token travel in the clear.
set -eu
. tests/lib.sh
. tests/tls.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      webhdfs_stop || :; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

BASE=/warehouse
tls_make "$T/tls"
START=$(date -u -d '2026-07-14 08:00:00' +%s)
$FIX/gen_nginx --records 2000 --partitions 1 --seed 31 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 0 --out-records "$T/records" \
	--out-expected "$T/expected" --out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:1 --produce "web=$T/records"
webhdfs_start "$T/h" --tls-cert "$T/tls/server.pem" \
	--tls-key "$T/tls/server.key"
case $WEBHDFS_URL in
https://localhost:*) ;;
*) die "the fake with --tls-cert serves $WEBHDFS_URL, not https://" ;;
esac

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-tls-redirect"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { spool_dir = "$T/spool"; timezone = "UTC"; host = "tls-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE";
                       auth = "simple"; user = "kedge";
                       ca_file = "$T/tls/ca.pem";
                       connect_timeout = 2; timeout = 20; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

out=$($KEDGE check-config -c "$T/k.conf" --online 2>"$T/check.err") ||
	die "check-config --online over TLS: $out $(cat "$T/check.err")"
case $out in
*"; HDFS $WEBHDFS_URL: $BASE is not there yet, the first file creates it") ;;
*) die "check-config --online over TLS printed \"$out\"" ;;
esac
[ ! -s "$T/check.err" ] ||
	die "check-config warned about an https:// URL: $(cat "$T/check.err")"

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
REFUSED="HDFS redirected from $WEBHDFS_URL to ${WEBHDFS_DATANODE:?}; "
wait_for "kedge to refuse a redirect from https to http" 60 \
	grep -qF "$REFUSED" "$T/run.log"
kill "$KPID"
wait_for "kedge to stop" 30 sh -c "! kill -0 $KPID 2>/dev/null"
wait "$KPID" 2>/dev/null || :
KPID=

grep -F "$REFUSED" "$T/run.log" | head -1 |
	grep -q 'kedge follows https only, so that neither the data nor a delegation token travel in the clear' ||
	die "the refusal does not say why: $(grep -F "$REFUSED" "$T/run.log" | head -1)"
grep -q '^PUT CREATE .* -> 307 kedge$' "$WEBHDFS_LOG" ||
	die "no CREATE reached the namenode over TLS: $(tail -3 "$WEBHDFS_LOG")"
if grep -q ' datanode$' "$WEBHDFS_LOG"; then
	die "kedge followed the redirect to http: $(grep ' datanode$' "$WEBHDFS_LOG" | head -2)"
fi
[ -z "$(find "$WEBHDFS_ROOT" -type f | head -1)" ] ||
	die "files landed through http: $(find "$WEBHDFS_ROOT" -type f | head -3)"
webhdfs_stop || die "the WebHDFS fake did not stop cleanly"
echo "ok: over https, $(grep -c '^PUT CREATE .* -> 307' "$WEBHDFS_LOG") CREATEs redirected to http were refused; nothing reached the http datanode"
