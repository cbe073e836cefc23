#!/bin/sh
# The daemon's own listings against a server that answers every
# LISTSTATUS with 20 million empty objects, 60 MiB (the fake's hostile-list
# huge fault, tests/fixtures/webhdfs.py; jansson, reading it whole, made
# 4.6 GB of it): kedge publishes three hours of nginx traffic to the fake
# with simple authentication and runs to the end of the topic; every
# listing of its completer is refused with one sentence and retried, every
# file is published all the same, the run ends cleanly, and its peak RSS
# stays under 200 MB (/usr/bin/time).
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'webhdfs_stop || :; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (scripts/install-deps.sh)"

N=3000
START=$(date -u -d '2026-04-04 04:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 37 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:2 --produce "access=$T/records"
webhdfs_start "$T/wh"
webhdfs_ctl "$T/wh" hostile-list huge
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-listing-bound"; };
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC";
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "/w"; auth = "simple";
                       user = "kedge"; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
# Under AddressSanitizer, what kedge frees waits in ASan's quarantine (256
# MB by default), which is no memory kedge holds: a small one, so that the
# peak RSS measures kedge.  (No effect on a build without ASan.)
ASAN_OPTIONS="quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS

rc=0
timeout 300 /usr/bin/time -f %M -o "$T/rss" $KEDGE run -c "$T/k.conf" \
	--exit-at-end 2>"$T/run.log" || rc=$?
[ "$rc" -eq 0 ] ||
	die "kedge run exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5)"
rss=$(tail -1 "$T/rss")
[ "$rss" -lt 204800 ] || die "kedge run peaked at $rss KiB"
log_lines "$T/run.log" |
	grep -q '^warning complete: LISTSTATUS /w/access: a FileStatus in the answer lacks a string type' ||
	die "the completer's listing was not refused: $(grep 'complete' "$T/run.log" | head -3)"
grep -q 'published [1-9][0-9]* files, [0-9]* bytes; 0 publish errors' "$T/run.log" ||
	die "$(grep 'published' "$T/run.log")"
webhdfs_stop || die "the WebHDFS fake did not stop cleanly"
echo "ok: every listing of a 60 MiB hostile answer refused, every file published, peak RSS $rss KiB"
