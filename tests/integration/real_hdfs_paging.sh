#!/bin/sh
# kedge lists HDFS a page at a time (LISTSTATUS_BATCH and startAfter),
# against the real NameNode of tests/real/up, whose dfs.ls.limit is 8
# (MiniHdfs.java): kedge publishes three hours of 8 partitions (an hour's
# directory holds 18 entries, files and sidecars) over WebHDFS through
# tests/real/hdfs-proxy, which relays every request unchanged and logs
# it.  The completer's listings of the hours, and
# `kedge verify` of the URL through the proxy, each take an hour's
# directory in pages of 8 entries, every page after the first asking
# startAfter the last name of the one before, never LISTSTATUS whole; and
# they miss nothing: every complete hour's manifest lists every part file
# curl finds there, and verify of the URL says what verify of curl's copy
# says.  HttpFS (whose LISTSTATUS_BATCH answers a directory whole)
# verifies the same.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
PROXY_PID=
trap '[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || :
      real_hdfs_stop; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

real_hdfs "$T"
began=$(date +%s)
DIR=$HDFS_BASE/paging-$(hdfs_rnd)
hdfs_me khpaging "$T/k.keytab" "$DIR"

tests/real/hdfs-proxy --upstream "$WEBHDFS_URL" --ready-file "$T/proxy.ready" \
	--log "$T/proxy.log" 2>"$T/proxy.err" &
PROXY_PID=$!
proxy_ready() {
	kill -0 "$PROXY_PID" 2>/dev/null ||
		die "tests/real/hdfs-proxy exited: $(tail -3 "$T/proxy.err")"
	[ -s "$T/proxy.ready" ]
}
wait_for "the proxy to serve" 20 proxy_ready
PROXY_URL=$(sed -n 's/^url=//p' "$T/proxy.ready")

N=4000
START=$(date -u -d '2026-09-09 09:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 8 --seed 71 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:8 --produce "web=$T/records"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-real-hdfs-paging"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC";
           host = "paging-host";
           target = "webhdfs";
           webhdfs = { url = "$PROXY_URL"; base_dir = "$DIR";
                       auth = "kerberos"; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
timeout 300 $KEDGE run -c "$T/k.conf" --exit-at-end 2>"$T/run.log" ||
	die "kedge run failed: $(log_lines "$T/run.log" | grep '^err ' | head -5)"
grep -q 'complete: [0-9]* hour(s) got a new manifest' "$T/run.log" ||
	die "no hour completed: $(grep -E 'complete' "$T/run.log" | head -3)"

# The tree as the NameNode has it, read with curl past the proxy.
hdfs_mirror "$WEBHDFS_URL" "$DIR" "$T/copy"
check_exactly_once "$T/copy" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"

# paged FROM: the hour directories whose last listing, in the proxy's log
# from line FROM on, took more than one page; fails when a directory under
# DIR was listed whole (LISTSTATUS), a page did not start after the last
# name of the page before, or the last page said more remain.  Prints
# "dir pages" a line.
paged() {
	tail -n +"$1" "$T/proxy.log" | awk -v base="$DIR/" '
	$2 == "LISTSTATUS" && index($3, base) == 1 { bad = 1 }
	$2 == "LISTSTATUS_BATCH" && index($3, base) == 1 && $5 == 200 {
		split($7, v, ",")
		if ($8 == "-")
			pages[$3] = 0
		else if (last[$3] != $8)
			bad = 1
		pages[$3]++
		last[$3] = substr(v[3], 6)
		if (substr(v[2], 11) + 0 > 0)
			more[$3] = 1
		else
			delete more[$3]
	}
	END {
		for (d in more)
			bad = 1
		if (bad)
			exit 1
		for (d in pages)
			if (pages[d] > 1)
				print d, pages[d]
	}'
}

paged 1 >"$T/paged.run" ||
	die "the daemon listed a directory whole, or a page out of turn: $(grep LISTSTATUS "$T/proxy.log" | head -5)"
grep -q '/hr=[0-9][0-9] ' "$T/paged.run" ||
	die "no hour listed in more than one page: $(grep LISTSTATUS_BATCH "$T/proxy.log" | head -5)"

# Every complete hour's manifest lists every part file in it; two hours,
# at least, hold more entries than a page.
manifests=0
for m in $(find "$T/copy/access" -name _MANIFEST.json); do
	h=$(dirname "$m")
	want=$(find "$h" -maxdepth 1 -type f ! -name '.*' ! -name '_*' | wc -l)
	got=$(jq '.files | length' "$m")
	[ "$got" -eq "$want" ] ||
		die "$m lists $got files, HDFS holds $want there"
	[ "$(find "$h" -maxdepth 1 -type f | wc -l)" -le 8 ] ||
		manifests=$((manifests + 1))
done
[ "$manifests" -ge 2 ] ||
	die "$manifests complete hours hold more entries than a page, want 2"

# verify of the URL through the proxy: paged too, and the same answer.
from=$(($(wc -l <"$T/proxy.log") + 1))
hdfs_kinit "$ME" "$T/k.keytab"
out=$($KEDGE verify "$PROXY_URL$DIR" 2>&1) || die "kedge verify $PROXY_URL$DIR: $out"
[ "$out" = "$CHECK_VERIFY" ] ||
	die "verify of the URL said \"$out\", of the copy \"$CHECK_VERIFY\""
paged "$from" >"$T/paged.verify" ||
	die "verify listed a directory whole, or a page out of turn: $(tail -n +"$from" "$T/proxy.log" | grep LISTSTATUS | head -5)"
[ "$(grep -c '/hr=[0-9][0-9] ' "$T/paged.verify")" -ge 3 ] ||
	die "verify paged these directories, want 3 hours: $(cat "$T/paged.verify")"

out=$($KEDGE verify "$HTTPFS_URL$DIR" 2>&1) || die "kedge verify $HTTPFS_URL$DIR: $out"
[ "$out" = "$CHECK_VERIFY" ] ||
	die "verify through HttpFS said \"$out\", of the copy \"$CHECK_VERIFY\""

secs=$(($(date +%s) - began))
echo "ok: dfs.ls.limit 8: the daemon paged $(wc -l <"$T/paged.run")" \
	"directories ($(awk '{ n += $2 } END { print n }' "$T/paged.run") pages)," \
	"verify $(wc -l <"$T/paged.verify"); the manifests list every file;" \
	"$CHECK_VERIFY (WebHDFS and HttpFS); ${HDFS_UP_SECS:-shared} s up, ${secs} s"
