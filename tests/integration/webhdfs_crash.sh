#!/bin/sh
# kedge dies while it publishes to HDFS (the WebHDFS protocol fake,
# tests/fixtures/webhdfs.py), and a clean restart finishes the job exactly
# once.  Four crashes, each on a new chunk of the topic and each followed
# by a clean run to the end of the topic:
#   1. kill -9 in the middle of an upload: the fake answers slowly, and
#      kedge is killed once the fake's log shows a CREATE redirected (307)
#      whose datanode step has not been answered (no 201 yet);
#   2. KEDGE_CRASH_AT=webhdfs-before-rename: a sidecar written under its
#      temporary name, not yet RENAMEd;
#   3. KEDGE_CRASH_AT=webhdfs-before-rename:2: the same for a part file,
#      whose sidecar is in place;
#   4. KEDGE_CRASH_AT=publish-mid: a sidecar published, its part file not.
# After each clean run the spool is empty, `kedge verify` passes on what
# landed, and no temporary file is left in HDFS: kedge writes a file again
# under the same temporary name (overwrite=true) and RENAMEs it, so what a
# crash left there is replaced, never counted.  At the end every record has
# landed exactly once (rows and rejects, row by row).
#
# kedge runs without a consumer group (it assigns itself every partition),
# so a restart after a kill does not wait for the group to expire the dead
# member.
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      webhdfs_stop || :; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

N=12000
CHUNK=3000
BASE=/hive
START=$(date -u -d '2026-09-01 20:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 31 --start "$START" \
	--hours 4 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
split -l $CHUNK -d -a 1 "$T/records" "$T/chunk."
mock_start "$T" --topic events:3
webhdfs_start "$T/h" --user-allowed kedge
H=$T/h
ROOT=$WEBHDFS_ROOT$BASE

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "events" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "crash-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE";
                       auth = "simple"; user = "kedge"; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/k.conf" >/dev/null

# in_progress: writes to $T/in-progress the temporary name of an upload
# the fake has redirected (CREATE 307 on the namenode) more often than it
# has answered it on the datanode (201, or any other end); fails while
# there is none.
in_progress() {
	awk '$1 == "PUT" && $2 == "CREATE" { n[$3] += $5 == "307" ? 1 : -1 }
		END { for (p in n) if (n[p] > 0) { print p; found = 1; exit }
			exit !found }' "$WEBHDFS_LOG" >"$T/in-progress"
}
# final_of TMP: the final HDFS path of the temporary one.
final_of() {
	_b=$(basename "$1" .tmp)
	echo "$(dirname "$1")/${_b#.}"
}
# hdfs_tmp: the temporary files in HDFS, one a line.
hdfs_tmp() {
	find "$WEBHDFS_ROOT" -type f -name '.*.tmp'
}
# crash_run NAME POINT: runs kedge with KEDGE_CRASH_AT=POINT until it
# aborts there (bounded); fails the test if it exits otherwise.
crash_run() {
	KEDGE_CRASH_AT=$2 $KEDGE run -c "$T/k.conf" 2>"$T/$1.log" &
	KPID=$!
	exits_within "$KPID" 30 ||
		die "$1: KEDGE_CRASH_AT=$2 was not reached in 30 s: $(tail -3 "$T/$1.log")"
	rc=0
	wait "$KPID" || rc=$?
	KPID=
	[ "$rc" -eq 134 ] && crashed_on_purpose "$2" "$T/$1.log" ||
		die "$1: KEDGE_CRASH_AT=$2: exit $rc: $(log_lines "$T/$1.log" | grep '^err ' | head -3)"
}
# clean_run NAME: a run to the end of the topic; then the spool is empty,
# kedge verify passes on what landed, and no temporary file is in HDFS.
clean_run() {
	timeout 120 $KEDGE run -c "$T/k.conf" --exit-at-end 2>"$T/$1.log" ||
		die "$1: the clean run failed: $(log_lines "$T/$1.log" | grep '^err ' | head -5) ... $(tail -3 "$T/$1.log")"
	_left=$(find "$T/spool/open" "$T/spool/ready" -type f | head -3)
	[ -z "$_left" ] || die "$1: left in the spool: $_left"
	_out=$($KEDGE verify "$ROOT" 2>&1) || die "$1: kedge verify: $_out"
	[ -z "$(hdfs_tmp)" ] || die "$1: temporary files left in HDFS: $(hdfs_tmp)"
}

############ 1. kill -9 in the middle of an upload
mock_ctl "$T" produce events "$T/chunk.0"
# Every answer 2 s late: the datanode has the bytes and kedge waits for
# its 201 for 2 s, plenty to see it and kill kedge then.
webhdfs_ctl "$H" slow 2000
$KEDGE run -c "$T/k.conf" 2>"$T/kill.log" &
KPID=$!
wait_for "an upload in progress" 40 in_progress
kill -9 "$KPID"
rc=0
wait "$KPID" 2>/dev/null || rc=$?
KPID=
[ "$rc" -eq 137 ] || die "kill -9 mid-upload: kedge exited $rc first"
tmp=$(cat "$T/in-progress")
final=$(final_of "$tmp")
webhdfs_ctl "$H" slow 0
[ ! -e "$WEBHDFS_ROOT$final" ] ||
	die "$final is in HDFS: kedge was killed after its RENAME, not mid-upload"
clean_run after-kill
grep -q "^PUT RENAME $tmp -> 200 kedge\$" "$WEBHDFS_LOG" &&
	[ -f "$WEBHDFS_ROOT$final" ] ||
	die "the upload cut by the kill was not done again: $(grep -F " $tmp " "$WEBHDFS_LOG")"

############ 2. a sidecar written, not yet RENAMEd
mock_ctl "$T" produce events "$T/chunk.1"
crash_run before-rename-1 webhdfs-before-rename
tmp=$(hdfs_tmp | head -1)
case $tmp in
*/..*.json.tmp) ;;
*) die "webhdfs-before-rename:1 left \"$tmp\", not a sidecar's temporary file" ;;
esac
[ ! -e "$(final_of "$tmp")" ] || die "$(final_of "$tmp") exists already"
clean_run after-before-rename-1
[ -f "$(final_of "$tmp")" ] || die "$(final_of "$tmp") not published after the crash"

############ 3. a part file written, not yet RENAMEd
mock_ctl "$T" produce events "$T/chunk.2"
crash_run before-rename-2 webhdfs-before-rename:2
tmp=$(hdfs_tmp | head -1)
final=$(final_of "$tmp")
case $tmp in
*/..*) die "webhdfs-before-rename:2 left a sidecar's \"$tmp\"" ;;
*/.*.tmp) ;;
*) die "webhdfs-before-rename:2 left no temporary file: \"$tmp\"" ;;
esac
[ ! -e "$final" ] && [ -f "$(dirname "$final")/.$(basename "$final").json" ] ||
	die "before the part file $final: want its sidecar in place and not it"
clean_run after-before-rename-2
[ -f "$final" ] || die "$final not published after the crash"

############ 4. a sidecar published, its part file not
mock_ctl "$T" produce events "$T/chunk.3"
find "$ROOT" -type f | LC_ALL=C sort >"$T/before"
crash_run publish-mid publish-mid
find "$ROOT" -type f | LC_ALL=C sort >"$T/after"
new=$(LC_ALL=C comm -13 "$T/before" "$T/after")
case $new in
*/.*.json) ;;
*) die "publish-mid: want one new sidecar in HDFS, got: $new" ;;
esac
[ "$(printf '%s\n' "$new" | wc -l)" -eq 1 ] || die "publish-mid: new in HDFS: $new"
part=$(dirname "$new")/$(basename "$new" .json | sed 's/^\.//')
[ ! -e "$part" ] || die "publish-mid: $part is there already"
clean_run after-publish-mid
[ -f "$part" ] || die "$part not published after the crash"

check_exactly_once "$ROOT" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"
secs=$(($(date +%s) - began))
echo "ok: killed mid-upload, crashed before a sidecar's and a part file's" \
	"RENAME and between a sidecar and its part file; each restart" \
	"finished; no temporary file left; $CHECK_ROWS rows, $CHECK_REJECTS" \
	"rejects; $CHECK_VERIFY; ${secs} s"
