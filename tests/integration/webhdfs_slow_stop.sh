#!/bin/sh
# Stopping the publisher waits for no pass of it, however slowly HDFS
# answers: the WebHDFS fake (tests/fixtures/webhdfs.py; a real NameNode
# cannot be made to answer slowly on demand) delays every answer by 1.5 s
# while kedge has some fifty part files to publish (4 partitions, 12
# hours), each a few requests:
#  - SIGHUP with a new output.webhdfs.timeout starts a new publisher: the
#    one publishing stops after the file in hand, or, that taking longer
#    than its 5 s of grace, abandons its request in flight, and the reload
#    is applied: no more than one file is published between the SIGHUP
#    and "reload: applied" (the new publisher's requests, with a 1 s
#    timeout, cannot succeed meanwhile);
#  - after SIGTERM's bounded drain, likewise: no more than one file is
#    published after kedge says files are left, and kedge exits 0;
#  - a run to the end with HDFS answering at once publishes what was left:
#    every record once (row by row; kedge verify), no temporary file left.
# What happened in which order is read from kedge's log, which every
# thread writes in turn: nothing here compares clocks.
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      webhdfs_stop || :; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

BASE=/warehouse
START=$(date -u -d '2026-08-03 10:00:00' +%s)
$FIX/gen_nginx --records 4000 --partitions 4 --seed 35 --start "$START" \
	--hours 12 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:4 --produce "web=$T/records"
webhdfs_start "$T/h" --user-allowed kedge

# conf TIMEOUT: static assignment, files rolled a second after they open,
# no completion (only the part files' requests), debug lines ("publish:
# FILE" for each file).
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC";
           roll = { max_age = 1; inactive = 1; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE";
                       auth = "simple"; user = "kedge"; timeout = $1; }; };
completion = { enabled = false; };
checkpoint = { interval = 1; };
log = { level = "debug"; };
metrics = { enabled = false; };
CONF
}
conf 30 >"$T/k.conf"

# published_between FROM TO: how many files kedge's log says it published
# after its first line matching FROM (grep, on log_lines' "LEVEL
# message") and before the next matching TO; kedge logs the lines of
# every thread in the order they happened.
published_between() {
	log_lines "$T/run.log" | awk -v from="$1" -v to="$2" '
		!on && $0 ~ from { on = 1; next }
		on && to != "" && $0 ~ to { exit }
		on && /^debug publish: / { n++ } END { print n + 0 }'
}
# reloaded N: "reload: applied" was logged N times at least; fails the
# test if kedge exited.
reloaded() {
	[ "$(log_lines "$T/run.log" | grep -c '^notice reload: applied ')" -ge "$1" ] &&
		return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
	return 1
}
logged() {
	log_lines "$T/run.log" | grep -q "$1"
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "kedge to be ready" 30 logged '^notice ready: '
webhdfs_ctl "$T/h" slow 1500
wait_for "every record read" 60 status_consumed_at_least "$T/spool" 4000
wait_for "a file published slowly" 60 logged '^debug publish: '

# SIGHUP: a new timeout, 1 s, which no answer of the slow fake can meet.
# From "reload: reading", the loop has taken the SIGHUP.
conf 1 >"$T/k.conf"
kill -HUP "$KPID"
wait_for "the reload to be applied" 120 reloaded 1
logged '^notice reload: applied output.webhdfs.timeout$' ||
	die "the reload said: $(grep 'reload: ' "$T/run.log")"
n=$(published_between '^info reload: reading ' '^notice reload: applied ')
[ "$n" -le 1 ] ||
	die "$n files published between SIGHUP and the reload: the publisher finished its pass"

# Back to 30 s: the next publisher publishes, slowly, until SIGTERM.
conf 30 >"$T/k.conf"
kill -HUP "$KPID"
wait_for "the second reload" 120 reloaded 2
kill -TERM "$KPID"
exits_within "$KPID" 120 || die "kedge did not stop within 120 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] ||
	die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
logged '^warning publish: files are left in ' ||
	die "the drain published everything: HDFS was not slow enough to tell"
n=$(published_between '^warning publish: files are left in ' '')
[ "$n" -le 1 ] ||
	die "$n files published after the drain: the publisher finished its pass"

# HDFS at full speed: the rest lands.
webhdfs_ctl "$T/h" slow 0
run_to_end "$T/k.conf" "$T/end.log" "the run to the end"
check_exactly_once "$WEBHDFS_ROOT$BASE" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
tmp=$(find "$WEBHDFS_ROOT$BASE" -name '.*.tmp' | head -3)
[ -z "$tmp" ] || die "temporary files left in HDFS: $tmp"
echo "ok: a reload and a stop of the publisher each let one file at most" \
	"through a slow HDFS; $CHECK_ROWS rows, $CHECK_REJECTS rejects, exactly once"
