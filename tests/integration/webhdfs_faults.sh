#!/bin/sh
# HDFS misbehaving while traffic keeps arriving: kedge publishes through
# WebHDFS (simple authentication) to the protocol fake
# (tests/fixtures/webhdfs.py) while the topic is fed, and the fake, one
# fault after the other:
#   - answers 503 (RetriableException) to the next requests;
#   - closes the connection halfway through uploads, with nothing left,
#     then with the half-written temporary file left behind;
#   - performs RENAMEs but loses their answers: kedge must find the file in
#     place and go on, without a second copy and without counting an error;
#   - goes down for long enough that the spool passes spool.max_bytes:
#     kedge pauses consumption and says so in its log and its status, and
#     reads nothing more (the status file's count, two writes apart) while
#     records wait in the topic; HDFS comes back, the spool drains and
#     consumption resumes by itself.
# Then every record has landed exactly once (rows and rejects, row by row;
# kedge verify), the spool is empty, the fake holds no temporary file, and
# the status counts the publish errors.
# The lost RENAME answers and the bursts of RetriableException are proven
# against the real NameNode as well, with the same claims, by
# real_hdfs_proxy.sh (through tests/real/hdfs-proxy); the cut uploads (on
# the DataNode's side, where the proxy is not) and HDFS down with the
# spool filling up are this fake's alone.
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      webhdfs_stop || :; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

# 1,000 records to start with (a backlog of more would fill the 1 MiB
# spool with open files before the first roll), then 500 every 0.5 s.
N=30000
FIRST=1000
CHUNK=500
BASE=/warehouse
START=$(date -u -d '2026-07-14 08:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 29 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 15 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic web:3 --produce "web=$T/first"
webhdfs_start "$T/h" --user-allowed kedge
H=$T/h

# Uncompressed 16 KiB part files and the smallest spool.max_bytes, 1 MiB:
# a few seconds of the feed fill it.
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-hdfs-faults"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "faults-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE";
                       auth = "simple"; user = "kedge";
                       connect_timeout = 2; timeout = 20; }; };
spool = { max_bytes = 1048576; min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/k.conf" >/dev/null

# logged PATTERN: how many lines of the fake's log match PATTERN (ERE).
logged() {
	grep -Ec "$1" "$WEBHDFS_LOG" || :
}
# at_least N PATTERN: the fake's log has N lines matching PATTERN.
at_least() {
	[ "$(logged "$2")" -ge "$1" ]
}
# status_says PATTERN: the status file written last matches PATTERN.
status_says() {
	grep -q "$1" "$T/spool/status" 2>/dev/null
}
# written: when the status file was last written, as it says.
written() {
	sed -n '1s/.* written \([^ ]*\).*/\1/p' "$T/spool/status" 2>/dev/null
}
# next_status: waits (bounded) for the status file to be written again.
next_status() {
	_w=$(written)
	wait_for "a status write" 20 sh -c "[ \"\$(sed -n '1s/.* written \([^ ]*\).*/\1/p' '$T/spool/status')\" != '$_w' ]"
}
# produced: the records in the topic so far (the feed's chunks acknowledged
# by the mock cluster, and the first ones).
produced() {
	echo $((FIRST + CHUNK * $(grep -c '^ok produce web ' "$T/mock.out")))
}
# more_produced N: the topic holds more than N records.
more_produced() {
	[ "$(produced)" -gt "$1" ]
}
# paused_count: how many times kedge has paused for a full spool so far.
paused_count() {
	grep -c 'consumption paused until the publisher brings it under' "$T/run.log" || :
}
# resumed_count: how many times it has resumed since.
resumed_count() {
	grep -c 'spool: .* bytes; consumption resumed' "$T/run.log" || :
}
# not_paused: kedge has resumed after every pause for a full spool.
not_paused() {
	[ "$(paused_count)" -eq "$(resumed_count)" ]
}
# paused_again / resumed_again: a pause, a resumption since the counts
# PAUSES and RESUMES were taken.
paused_again() {
	[ "$(paused_count)" -gt "$PAUSES" ]
}
resumed_again() {
	[ "$(resumed_count)" -gt "$RESUMES" ]
}
alive() {
	kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | tail -3)"
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
# The topic keeps growing through every fault.
feed_start "$T" web "$T/rest" $CHUNK 0.5
wait_for "the first file in HDFS" 30 at_least 1 '^PUT RENAME .* -> 200 kedge$'

# 503 to the next 6 requests, whichever they are.
webhdfs_ctl "$H" fail 6 503
wait_for "six 503 answers" 30 at_least 6 ' -> 503 '
alive
# Uploads cut off halfway: nothing left, then the half-file left under its
# temporary name.
webhdfs_ctl "$H" drop-upload 2
wait_for "two dropped uploads" 30 at_least 2 '^PUT CREATE .* -> drop kedge datanode$'
webhdfs_ctl "$H" drop-upload 2 partial
wait_for "two half-done uploads" 30 at_least 4 '^PUT CREATE .* -> drop kedge datanode$'
alive
# RENAMEs done whose answers are lost.
webhdfs_ctl "$H" lose-rename-response 3
wait_for "three lost RENAME answers" 30 at_least 3 '^PUT RENAME .* -> drop kedge$'
alive

# HDFS down while kedge is not paused: the spool passes spool.max_bytes and
# consumption pauses.
wait_for "kedge not to be paused" 60 not_paused
PAUSES=$(paused_count)
RESUMES=$(resumed_count)
webhdfs_ctl "$H" down
wait_for "consumption to pause" 40 paused_again
grep -q "spool: $T/spool holds [0-9]* bytes in [0-9]* files not yet published, over spool.max_bytes (1048576); [0-9]* bytes free: consumption paused until the publisher brings it under 943713 bytes" \
	"$T/run.log" || die "the pause message: $(grep 'spool:' "$T/run.log")"
# Nothing read while paused, though records wait in the topic: the status
# file's count stays the same over two status writes (5 s apart) after
# the feed has produced more than that.
next_status
rc=0
out=$($KEDGE status -c "$T/k.conf") || rc=$?
[ "$rc" -eq 1 ] || die "kedge status exited $rc while paused: $out"
case $out in
"running (pid $KPID);"*"
consumption paused: the spool is full; waiting for the publisher
"*) ;;
*) die "kedge status does not say paused: $out" ;;
esac
paused_at=$(status_consumed "$T/spool")
spool_bytes=$(sed -n 's/^spool: \([0-9]*\) bytes.*/\1/p' "$T/spool/status")
[ "$spool_bytes" -gt 1048576 ] ||
	die "paused with $spool_bytes bytes in the spool: $(cat "$T/spool/status")"
wait_for "records waiting in the topic" 20 more_produced "$paused_at"
for _ in 1 2; do
	next_status
	status_says "^consumption paused: the spool is full" ||
		die "the status no longer says paused: $(cat "$T/spool/status")"
	[ "$(status_consumed "$T/spool")" = "$paused_at" ] ||
		die "kedge read while paused: $paused_at, then $(status_consumed "$T/spool") records"
done
alive

# HDFS back: the publisher drains the spool, consumption resumes by itself
# and reads the rest.
webhdfs_ctl "$H" up
# The publisher retries on its own backoff (up to 30 s) once no new file
# kicks it.
wait_for "consumption to resume" 60 resumed_again
feed_wait "$T"
wait_for "every record read" 40 status_says "^consumed $N records"
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop within 60 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5) ... $(tail -3 "$T/run.log")"
status_says "(at exit)" || die "no status at exit: $(head -1 "$T/spool/status")"
! status_says "^consumption paused" ||
	die "the status at exit says paused: $(cat "$T/spool/status")"

check_exactly_once "$WEBHDFS_ROOT$BASE" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
left=$(find "$WEBHDFS_ROOT" -name '.*.tmp' | head -3)
[ -z "$left" ] || die "temporary files left in HDFS: $left"

# The errors are counted: each failed try of a file once, as logged (the
# six 503s, the four cut uploads, and more while HDFS was down).  A lost
# RENAME answer is no error.
errors=$(sed -n 's/.*; \([0-9]*\) publish errors$/\1/p' "$T/spool/status")
warned=$(log_lines "$T/run.log" | grep -Ec '^(err|warning) publish: ' || :)
[ "$errors" -ge 11 ] && [ "$errors" -eq "$warned" ] ||
	die "publish errors: $errors in the status, $warned logged"
log_lines "$T/run.log" | grep -q '^warning publish: GETFILESTATUS .*: HDFS answered 503 RetriableException: ' ||
	die "no 503 logged: $(grep publish: "$T/run.log" | head -3)"
log_lines "$T/run.log" | grep -q '^warning publish: CREATE .*: no answer from ' ||
	die "no cut upload logged: $(grep publish: "$T/run.log" | head -3)"

# Each lost RENAME answer: kedge looked for the file afterwards and found
# it in place (GETFILESTATUS 200; the fake logs a drop before it closes the
# connection, so that look is logged after it).  libcurl may send the
# RENAME again by itself on a fresh connection when a reused one dies
# unanswered; that second RENAME finds no source and answers false, which
# kedge must take as well.
[ "$(logged '^PUT RENAME .* -> drop kedge$')" -eq 3 ] ||
	die "$(logged '^PUT RENAME .* -> drop kedge$') lost RENAME answers, want 3"
awk '
	$1 == "PUT" && $2 == "RENAME" && $5 == "drop" {
		tmp = $3; n = split(tmp, p, "/"); name = p[n]
		sub(/^\./, "", name); sub(/\.tmp$/, "", name)
		lost[tmp] = substr(tmp, 1, length(tmp) - length(p[n])) name
		next }
	$1 == "GET" && $2 == "GETFILESTATUS" && $5 == "200" {
		for (t in lost) if (lost[t] == $3) found[t] = 1 }
	END { for (t in lost) if (!(t in found)) {
		print "not looked for after its lost RENAME: " lost[t]; bad = 1 }
		exit bad }' "$WEBHDFS_LOG" >&2 || die "lost RENAME answers (above)"
! grep 'RENAME .*: no answer from' "$T/run.log" >&2 ||
	die "a lost RENAME answer was reported as an error (above)"

secs=$(($(date +%s) - began))
echo "ok: 503s, cut uploads, lost RENAME answers, HDFS down until the" \
	"spool was full (paused at $paused_at records, $spool_bytes bytes" \
	"spooled; $PAUSES pauses before) and back; $errors publish errors;" \
	"$CHECK_ROWS rows," \
	"$CHECK_REJECTS rejects; $CHECK_VERIFY; ${secs} s"
