# Shell helpers for the integration tests, the demo and the benchmark.
# Source it; it expects the current directory to be the repository root.

KEDGE=${KEDGE:-./kedge}
FIX=${FIX:-build/fixtures}

# OLD_EVENTS: for the output group of a test whose records have fixed
# event times, months or years before the clock: the default
# output.event_window would reject them (event_hours.sh tests the window).
OLD_EVENTS='event_window = { past = 315360000; future = 315360000; };'

# die MESSAGE: fail the test with a message.
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# log_lines FILE: kedge's log lines in FILE, its stderr outside journald
# ("TIME LEVEL message", TIME RFC 3339 with milliseconds and the offset),
# as "LEVEL message"; lines of another shape (a fixture's, a crash's) are
# left out.  LEVEL is err, warning, notice, info or debug.
log_lines() {
	sed -n 's/^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}[+-][0-9][0-9]:[0-9][0-9] \(err\|warning\|notice\|info\|debug\) /\1 /p' "$1"
}

# log_has FILE PATTERN: one of kedge's log lines in FILE, as log_lines
# gives them, matches PATTERN (grep); for wait_for.
log_has() {
	log_lines "$1" | grep -q -- "$2"
}

# verify_json DIR: what kedge verify --json DIR answers, read with
# python3's json and written back as the line kedge verify DIR prints;
# returns verify's exit status.
verify_json() {
	_vj_rc=0
	_vj=$($KEDGE verify --json "$1") || _vj_rc=$?
	[ "$_vj_rc" -le 1 ] || return "$_vj_rc"
	printf '%s\n' "$_vj" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d["ok"]:
    s = ("verify OK: %d files (%d checked by crc32c, %d by sha256), %d rows, "
         "%d partitions in %d tables, %d manifests") % (
        d["files"], d["crc32c_files"], d["sha256_files"], d["rows"],
        d["partitions"], d["tables"], d["manifests"])
    if d["unread_offsets"]:
        s += "; %d offsets deleted by the broker before kedge read them" % d["unread_offsets"]
    if d["awaiting_files"]:
        s += " (%d files landed after their hour\x27s manifest, for its next revision)" % d["awaiting_files"]
else:
    assert sorted(d) == ["ok", "violation"], d
    s = "verify: " + d["violation"]
print(s)' || return 3
	return "$_vj_rc"
}

# crc32c FILE: the CRC-32C of FILE in 8 lowercase hex digits, as a
# sidecar's "crc32c" says it, computed here apart from kedge's.
crc32c() {
	python3 -c '
import sys
t = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
    t.append(c)
c = 0xffffffff
with open(sys.argv[1], "rb") as f:
    for b in f.read():
        c = t[(c ^ b) & 0xff] ^ (c >> 8)
print("%08x" % (c ^ 0xffffffff))' "$1"
}

# mock_start DIR ARGS...: starts the mock cluster with ARGS and its control
# FIFO DIR/mock.ctl (see mock_ctl), waits until it is ready (bounded), and
# sets MOCK_PID and BOOTSTRAP.
mock_start() {
	_dir=$1
	shift
	rm -f "$_dir/mock.ready"
	"$FIX/mockkafka" --ready-file "$_dir/mock.ready" \
		--control "$_dir/mock.ctl" "$@" \
		>"$_dir/mock.out" 2>"$_dir/mock.err" &
	MOCK_PID=$!
	_i=0
	while [ ! -s "$_dir/mock.ready" ]; do
		kill -0 "$MOCK_PID" 2>/dev/null ||
			die "mock cluster exited: $(cat "$_dir/mock.err")"
		_i=$((_i + 1))
		[ "$_i" -lt 1200 ] || die "mock cluster not ready after 120 s"
		sleep 0.1
	done
	BOOTSTRAP=$(sed -n 's/^bootstrap=//p' "$_dir/mock.ready")
	[ -n "$BOOTSTRAP" ] || die "mock cluster printed no bootstrap address"
}

mock_stop() {
	if [ -n "${MOCK_PID:-}" ]; then
		kill "$MOCK_PID" 2>/dev/null
		wait "$MOCK_PID" 2>/dev/null
		MOCK_PID=
	fi
}

# fixture_ctl WHAT DIR NAME PID COMMAND...: sends COMMAND through the
# control FIFO DIR/NAME.ctl to the fixture WHAT (process PID), and waits
# (bounded) for its "ok COMMAND" line in DIR/NAME.out; fails the test on
# "error COMMAND: ..." or when the fixture has died.  Replies are counted,
# so the same command can be sent again.
fixture_ctl() {
	_fc_what=$1
	_fc_out=$2/$3.out
	_fc_errlog=$2/$3.err
	_fc_ctl=$2/$3.ctl
	_fc_pid=$4
	shift 4
	_fc_cmd="$*"
	_fc_ok=$(fixture_replies ok)
	_fc_err=$(fixture_replies error)
	# Opening a FIFO blocks until it has a reader: bound it.
	timeout 10 sh -c 'printf "%s\n" "$1" >"$2"' sh "$_fc_cmd" "$_fc_ctl" ||
		die "cannot send \"$_fc_cmd\" to the $_fc_what"
	wait_for "the $_fc_what to answer \"$_fc_cmd\"" 120 fixture_answered
	[ "$(fixture_replies error)" -eq "$_fc_err" ] ||
		die "$_fc_what: $(grep -F "error $_fc_cmd: " "$_fc_out" | tail -1)"
}

# fixture_replies ok|error: how many times fixture_ctl's fixture has
# answered its command so far, with ok or with an error.
fixture_replies() {
	FIXTURE_REPLY="$1 $_fc_cmd" awk '
		BEGIN { want = ENVIRON["FIXTURE_REPLY"]; n = 0 }
		$0 == want || index($0, want ": ") == 1 { n++ }
		END { print n }' "$_fc_out"
}

# fixture_answered: fixture_ctl's condition; gives up at once if the
# fixture died.
fixture_answered() {
	[ "$(fixture_replies ok)" -gt "$_fc_ok" ] ||
		[ "$(fixture_replies error)" -gt "$_fc_err" ] ||
		{ kill -0 "$_fc_pid" 2>/dev/null ||
			die "the $_fc_what exited: $(tail -3 "$_fc_errlog")"; false; }
}

# mock_ctl DIR COMMAND...: COMMAND (see tests/fixtures/mockkafka.c:
# broker-down ID, broker-up ID, commit-errors N ERR, produce TOPIC FILE) to
# the mock cluster that mock_start started in DIR, through fixture_ctl.
mock_ctl() {
	_mc_dir=$1
	shift
	fixture_ctl "mock cluster" "$_mc_dir" mock "$MOCK_PID" "$@"
}

# decompress FILE: writes the file's bytes, whatever its codec, to stdout.
decompress() {
	case "$1" in
	*.gz) gzip -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*) cat "$1" ;;
	esac
}

# landed_rows DIR TABLE: every row under DIR/TABLE as "dt=../hr=..<TAB>row".
landed_rows() {
	[ -d "$1/$2" ] || return 0
	find "$1/$2" -type f ! -name '.*' ! -name '_*' | sort | while read -r f; do
		_hour=$(dirname "$f" | sed 's|.*/\(dt=[0-9]*/hr=[0-9]*\)$|\1|')
		decompress "$f" | sed "s|^|$_hour	|"
	done
}

# landed_count DIR: the rows landed under DIR, every table's and the
# rejects', as the part files' sidecars (docs/output.md) count them; cheap
# enough to poll.
landed_count() {
	find "$1" -type f -name '.*.json' -exec cat {} + 2>/dev/null |
		grep -o '"rows":[0-9]*' | awk -F: '{ n += $2 } END { print n + 0 }'
}

# run_to_end CONF LOG WHAT: kedge run -c CONF --exit-at-end, its log in
# LOG, two minutes at most; fails the test saying "WHAT failed", with the
# log's errors (or its last lines).
run_to_end() {
	timeout 120 $KEDGE run -c "$1" --exit-at-end 2>"$2" && return 0
	die "$3 failed: $(log_lines "$2" | grep '^err ' | head -3 | grep . || tail -5 "$2")"
}

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every 0.1 s until
# it succeeds; fails the test after SECONDS.
wait_for() {
	_what=$1
	_limit=$(($2 * 10))
	shift 2
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ "$_i" -lt "$_limit" ] || die "timed out waiting for $_what"
		sleep 0.1
	done
}

# status_consumed SPOOL: the records kedge's status file in SPOOL last
# counted; nothing before kedge writes it.  status_consumed_at_least SPOOL
# N: at least N (a wait_for condition).
status_consumed() {
	sed -n 's/^consumed \([0-9]*\) records.*/\1/p' "$1/status" 2>/dev/null
}

status_consumed_at_least() {
	[ "$(status_consumed "$1")" -ge "$2" ] 2>/dev/null
}

# bench_now: the time, in seconds with nanoseconds.  bench_since T0: the
# seconds since T0, a bench_now.
bench_now() { date +%s.%N; }
bench_since() { echo "$(bench_now) - $1" | bc; }

# bench_timed OUT STEADY COMMAND...: runs COMMAND (a program, not a
# function) under /usr/bin/time and appends to OUT "wall user sys
# peak-RSS-KiB steady": seconds, and the seconds from the first record to
# the last that the command STEADY prints (given the run's stderr file as
# $1; "-": the wall time).  Its output and stderr are in OUT.err.
bench_timed() {
	_bt_out=$1
	_bt_steady=$2
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$_bt_out.time" "$@" \
		>"$_bt_out.err" 2>&1 || return 1
	if [ "$_bt_steady" = - ]; then
		_bt_s=$(cut -d' ' -f1 "$_bt_out.time")
	else
		_bt_s=$($_bt_steady "$_bt_out.err")
	fi
	echo "$(cat "$_bt_out.time") $_bt_s" >>"$_bt_out"
}

# bench_median FILE COLUMN: the median of a column of numbers; COLUMN
# "cpu": of user + sys.
bench_median() {
	awk -v c="$2" '{ print c == "cpu" ? $2 + $3 : $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_pair_header; bench_pair_row NAME RECORDS KEDGE KCAT: a row of the
# paired table from the medians of the two bench_timed files KEDGE and
# KCAT, runs alternated in pairs: records/s over the whole process and
# from the first record to the last (steady), each as a ratio to kcat's
# whole run (its connect and first fetch take milliseconds), CPU time per
# record as a ratio to kcat's, and the peak RSS.
bench_pair_header() {
	printf '%-34s %8s %11s %6s %11s %6s %7s %9s\n' run "wall s" records/s \
		ratio "steady r/s" ratio "cpu/rec" "peak RSS"
}
bench_pair_row() {
	_w=$(bench_median "$3" 1)
	_st=$(bench_median "$3" 5)
	_kw=$(bench_median "$4" 1)
	_cpu=$(bench_median "$3" cpu)
	_kcpu=$(bench_median "$4" cpu)
	printf '%-34s %8.3f %11.0f %6.2f %11.0f %6.2f %7.2f %6d MiB\n' "$1" "$_w" \
		"$(echo "$2 / $_w" | bc -l)" "$(echo "$_kw / $_w" | bc -l)" \
		"$(echo "$2 / $_st" | bc -l)" "$(echo "$_kw / $_st" | bc -l)" \
		"$(echo "$_cpu / $_kcpu" | bc -l)" \
		"$(($(bench_median "$3" 4 | cut -d. -f1) / 1024))"
}

# hive_cut N...: from Hive text rows (\001 between fields, backslash
# escapes) on stdin, prints fields N... (1-based, still escaped) separated
# by tabs.  A field separator after a backslash belongs to the field.
hive_cut() {
	perl -ne '
		BEGIN { @idx = map { $_ - 1 } @ARGV; @ARGV = () }
		chomp;
		my @f = ("");
		while (/\G(\\.|\x01|[^\\\x01]+)/gs) {
			if ($1 eq "\x01") { push @f, "" } else { $f[-1] .= $1 }
		}
		print join("\t", map { $_ // "" } @f[@idx]), "\n";
	' "$@"
}

# same_or_die WANT GOT WHAT: fails the test, showing the first
# differences, unless files WANT and GOT are equal.
same_or_die() {
	cmp -s "$1" "$2" && return 0
	diff -a "$1" "$2" | head -10 >&2
	die "$3"
}

# feed_start DIR TOPIC FILE LINES PAUSE: traffic that keeps arriving while
# kedge runs: in the background, produces FILE to TOPIC through the control
# channel of the mock cluster in DIR, LINES lines at a time with PAUSE
# seconds between, continuing the topic's placement (line i of everything
# produced to TOPIC at partition i % P, offset i / P).  Sets FEED_PID;
# feed_wait DIR collects it.
feed_start() {
	mkdir -p "$1/feed"
	split -l "$4" -d -a 4 "$3" "$1/feed/chunk."
	(
		for _chunk in "$1"/feed/chunk.*; do
			mock_ctl "$1" produce "$2" "$_chunk"
			sleep "$5"
		done
	) >"$1/feed.log" 2>&1 &
	FEED_PID=$!
}

# feed_wait DIR: waits for the feeder that feed_start DIR started; fails
# the test if it failed.
feed_wait() {
	_rc=0
	wait "$FEED_PID" || _rc=$?
	FEED_PID=
	[ "$_rc" -eq 0 ] || die "feeding the topic failed: $(tail -3 "$1/feed.log")"
}

# random_delays SEED N MIN MAX: N pseudo-random delays in seconds, uniform
# in [MIN, MAX], one a line; the same SEED gives the same delays.
random_delays() {
	awk -v seed="$1" -v n="$2" -v lo="$3" -v hi="$4" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++) printf "%.1f\n", lo + rand() * (hi - lo)
	}'
}

# exits_within PID SECONDS: waits up to SECONDS (tenths allowed) for the
# child PID to exit; returns 1 if it still runs then.
exits_within() {
	_n=$(awk -v s="$2" 'BEGIN { printf "%d", s * 10 }')
	while kill -0 "$1" 2>/dev/null; do
		[ "$_n" -gt 0 ] || return 1
		_n=$((_n - 1))
		sleep 0.1
	done
}

# kafka_assigned LOG PID: the kedge PID, writing LOG, has partitions;
# fails the test if it exited instead.
kafka_assigned() {
	grep -qs 'kafka: assigned' "$1" && return 0
	kill -0 "$2" 2>/dev/null ||
		die "$(basename "$1" .log) exited: $(log_lines "$1" | grep -E '^(err|warning) ' | head -5)"
	return 1
}

# stopped_cleanly WHO PID LOG: the kedge PID, writing LOG and sent
# SIGTERM, exits 0 within 60 s; reaps it; fails the test, naming WHO,
# otherwise.
stopped_cleanly() {
	exits_within "$2" 60 || die "$1 did not stop within 60 s of SIGTERM"
	_sc_rc=0
	wait "$2" || _sc_rc=$?
	[ $_sc_rc -eq 0 ] ||
		die "$1 exited $_sc_rc on SIGTERM: $(log_lines "$3" | grep -E '^(err|warning) ' | head -5)"
}

# crashed_on_purpose POINT LOG: the kedge that wrote LOG, started with
# KEDGE_CRASH_AT=POINT, aborted at POINT, not on a failed assertion: every
# point, the store's too, says so first.
crashed_on_purpose() {
	case $1 in
	"") return 1 ;;
	*) grep -q 'KEDGE_CRASH_AT: crashing on purpose' "$2" ;;
	esac
}

# crash_round WHO PID POINT DELAY LOG: ends one round of a kill -9 test.
# The kedge PID, started with KEDGE_CRASH_AT=POINT (none when POINT is
# empty) and writing LOG, is killed -9 after DELAY seconds, a fault
# injected at a pseudo-random moment, not a wait; with a POINT it has
# three more checkpoint intervals to crash there by itself first.  Reaps
# PID and sets CRASH_HOW to "killed" or "crashed"; fails the test, naming
# WHO, if it ended any other way.
crash_round() {
	_cr_limit=$4
	[ -z "$3" ] || _cr_limit=$(awk -v d="$4" 'BEGIN { print d + 3 }')
	_cr_killed=0
	if ! exits_within "$2" "$_cr_limit"; then
		# It may still crash by itself first: its status tells.
		kill -9 "$2" 2>/dev/null || true
		_cr_killed=1
	fi
	_cr_rc=0
	wait "$2" 2>/dev/null || _cr_rc=$?
	if [ $_cr_killed -eq 1 ] && [ $_cr_rc -eq 137 ]; then
		CRASH_HOW=killed
	elif [ $_cr_rc -eq 134 ] && crashed_on_purpose "$3" "$5"; then
		CRASH_HOW=crashed
	else
		die "$1 (KEDGE_CRASH_AT=${3:-none}) ended with status" \
			"$_cr_rc: $(log_lines "$5" | grep -E '^(err|warning) ' | head -5) ... $(tail -2 "$5")"
	fi
}

# kill_rounds WHO MIN MAX DELAYS ROUNDS START AFTER [POINTS...]: the loop
# of the kill -9 tests.  Runs rounds ROUND = 0, 1, ...: MIN of them, then
# more, up to MAX, while the feeder FEED_PID (feed_start) still runs.
# Each round sets POINT (in even rounds the next of POINTS, cycled; else,
# and without POINTS, empty) and DELAY (line ROUND + 1 of the file
# DELAYS, from random_delays), then runs the command START, which starts
# the round's kedge in the background with KEDGE_CRASH_AT=$POINT (empty
# is none), sets KPID and ROUND_LOG (its log), and returns when the delay
# is to begin (in a consumer group, once round_assigned_or_gone).
# crash_round ends the round, naming WHO; KPID is emptied, the command
# AFTER runs (":" for nothing), and the line "ROUND POINT|- DELAY
# killed|crashed" is appended to the file ROUNDS (crash_points_reached
# reads it).  Afterwards ROUND is the number of rounds run.
kill_rounds() {
	_kr_who=$1
	_kr_min=$2
	_kr_max=$3
	_kr_delays=$4
	_kr_rounds=$5
	_kr_start=$6
	_kr_after=$7
	shift 7
	ROUND=0
	while [ $ROUND -lt "$_kr_min" ] || { [ $ROUND -lt "$_kr_max" ] &&
		kill -0 "${FEED_PID:-}" 2>/dev/null; }; do
		POINT=
		[ $# -eq 0 ] || [ $((ROUND % 2)) -eq 1 ] ||
			eval "POINT=\${$((ROUND / 2 % $# + 1))}"
		DELAY=$(sed -n "$((ROUND + 1))p" "$_kr_delays")
		[ -n "$DELAY" ] || die "$_kr_delays has no delay for round $ROUND"
		"$_kr_start"
		crash_round "$_kr_who in round $ROUND" "$KPID" "$POINT" "$DELAY" \
			"$ROUND_LOG"
		KPID=
		"$_kr_after"
		echo "$ROUND ${POINT:--} $DELAY $CRASH_HOW" >>"$_kr_rounds"
		ROUND=$((ROUND + 1))
	done
}

# round_assigned_or_gone: kill_rounds' kedge of this round has its
# partitions, or has exited (a crash point may come first).
round_assigned_or_gone() {
	grep -qs 'kafka: assigned' "$ROUND_LOG" || ! kill -0 "$KPID" 2>/dev/null
}

# group_round_start: kill_rounds' START for a consumer group: this round's
# kedge of $T/kedge.conf, crashing at $POINT, logging to $T/round$ROUND.log;
# returns once it has its partitions or exited.
group_round_start() {
	ROUND_LOG=$T/round$ROUND.log
	KEDGE_CRASH_AT=$POINT $KEDGE run -c "$T/kedge.conf" 2>"$ROUND_LOG" &
	KPID=$!
	wait_for "round $ROUND to get its partitions" 30 round_assigned_or_gone
}

# mock_kept_all DIR: the mock cluster of DIR (mock_start) dropped no record
# for its per-partition cap; else the test would prove less than it says.
mock_kept_all() {
	! grep -q 'kept only' "$1/mock.err" ||
		die "the mock cluster dropped records: $(grep 'kept only' "$1/mock.err")"
}

# crash_points_reached ROUNDS POINTS...: every point (a KEDGE_CRASH_AT
# value; its count does not matter) crashed a kedge at least once, as the
# lines "ROUND POINT DELAY killed|crashed" of the file ROUNDS tell; fails
# the test otherwise, for the test would prove less than it says.  Sets
# CRASH_TALLY to how often each point crashed and how many rounds were
# killed -9.
crash_points_reached() {
	_cp_rounds=$1
	shift
	for _cp in "$@"; do
		_cp=${_cp%:*}
		grep -q " $_cp\(:[0-9]\)\{0,1\} [0-9.]* crashed$" "$_cp_rounds" ||
			die "no round crashed at $_cp:" \
				"$(grep " $_cp" "$_cp_rounds" | tr '\n' ';')"
	done
	CRASH_TALLY="crashed at $(awk '$4 == "crashed" {
			sub(/:.*/, "", $2); n[$2]++ }
		END { for (p in n) { printf "%s%s %d", sep, p, n[p]; sep = ", " } }' \
		"$_cp_rounds"); $(grep -c ' killed$' "$_cp_rounds" || :) killed -9"
}

# check_exactly_once DIR TABLE WANT WANT_REJECTS SPOOL...: the invariant,
# checked from the outside.  The rows under DIR/TABLE are those of WANT
# (gen_nginx --out-expected), row by row: none lost, none twice; the
# rejects are WANT_REJECTS's (partition, offset, raw); `kedge verify DIR`
# passes; no SPOOL has a file left in open/ or ready/.  Writes its
# working files beside DIR.
check_exactly_once() {
	_ck=$1.check
	LC_ALL=C sort "$3" >"$_ck.want"
	landed_rows "$1" "$2" | LC_ALL=C sort >"$_ck.got"
	if ! cmp -s "$_ck.want" "$_ck.got"; then
		LC_ALL=C comm -23 "$_ck.want" "$_ck.got" | head -3 >&2
		LC_ALL=C comm -13 "$_ck.want" "$_ck.got" | head -3 >&2
		die "rows of $2: $(LC_ALL=C comm -23 "$_ck.want" "$_ck.got" |
			wc -l) lost, $(LC_ALL=C comm -13 "$_ck.want" "$_ck.got" |
			wc -l) extra (twice or never produced)"
	fi
	LC_ALL=C sort "$4" >"$_ck.want-rejects"
	landed_rows "$1" _rejects | cut -f2- | hive_cut 3 4 7 |
		LC_ALL=C sort >"$_ck.got-rejects"
	same_or_die "$_ck.want-rejects" "$_ck.got-rejects" \
		"rejects (partition, offset, raw) differ from the malformed records"
	_out=$($KEDGE verify "$1" 2>&1) || die "kedge verify $1: $_out"
	case $_out in
	"verify OK: "*) ;;
	*) die "kedge verify printed \"$_out\"" ;;
	esac
	shift 4
	for _spool; do
		_left=$(find "$_spool/open" "$_spool/ready" -type f 2>/dev/null |
			head -20)
		[ -z "$_left" ] || die "left in the spool $_spool: $_left"
	done
	CHECK_ROWS=$(wc -l <"$_ck.got")
	CHECK_REJECTS=$(wc -l <"$_ck.got-rejects")
	CHECK_VERIFY=$_out
}

# notify_start DIR: a datagram socket DIR/notify.sock as systemd's
# $NOTIFY_SOCKET would be, logging each line of each message, prefixed with
# the time it came, to DIR/notify.log; sets NOTIFY_PID.  notify_got LINE:
# LINE (a grep pattern, whole line) came; notify_count LINE: how often.
notify_start() {
	cat >"$1/notify-listen.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        msg = s.recv(4096).decode()
        for line in msg.split("\n"):
            out.write("%.3f %s\n" % (time.time(), line))
PY
	/usr/bin/python3 "$1/notify-listen.py" "$1/notify.sock" "$1/notify.log" &
	NOTIFY_PID=$!
	NOTIFY_LOG=$1/notify.log
	wait_for "the notify socket" 10 test -S "$1/notify.sock"
}

notify_stop() {
	if [ -n "${NOTIFY_PID:-}" ]; then
		kill "$NOTIFY_PID" 2>/dev/null
		wait "$NOTIFY_PID" 2>/dev/null || : # killed: 143
		NOTIFY_PID=
	fi
}

notify_got() {
	grep -q " $1\$" "$NOTIFY_LOG" 2>/dev/null
}

notify_count() {
	grep -c " $1\$" "$NOTIFY_LOG" 2>/dev/null || :
}

# signal_masks PID MIN: checks that process PID's main thread can take
# SIGHUP, SIGINT, SIGPIPE and SIGTERM (SigBlk bits 0, 1, 12 and 14 of
# /proc/PID/task/*/status clear) and that its other threads, at least MIN,
# block all four; prints what is wrong (name[tid](SigBlk)), or nothing.
signal_masks() {
	_bad=
	_n=0
	for _s in /proc/$1/task/*/status; do
		_tid=${_s%/status}
		_tid=${_tid##*/}
		_blk=$(awk '$1 == "SigBlk:" { print $2 }' "$_s" 2>/dev/null) || continue
		[ -n "$_blk" ] || continue   # the thread has just ended
		_name=$(cat "/proc/$1/task/$_tid/comm" 2>/dev/null || echo '?')
		_has=$(( 0x$_blk & 0x5003 ))
		if [ "$_tid" = "$1" ]; then
			[ "$_has" -eq 0 ] || _bad="$_bad main($_blk)"
		else
			_n=$((_n + 1))
			[ "$_has" -eq $((0x5003)) ] || _bad="$_bad $_name[$_tid]($_blk)"
		fi
	done
	[ "$_n" -ge "$2" ] || _bad="$_bad only $_n threads besides the main one"
	echo "$_bad"
}

# free_port: prints a random port that nothing uses on this host, TCP or
# UDP, IPv4 or IPv6, for a server a test starts on 127.0.0.1: from 10000
# up to the first port the kernel hands out as a connection's own
# (ip_local_port_range), so that a server stopped and started again on
# its port does not find it taken by a client's connection meanwhile, as
# a broker restarted on 41862 once did.
free_port() {
	_fp_n=0
	_fp_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
	[ "$_fp_low" -gt 11000 ] ||
		die "ip_local_port_range starts at $_fp_low: no room below it for test servers"
	while [ "$_fp_n" -lt 50 ]; do
		_fp_p=$(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % (_fp_low - 10000) + 10000))
		_fp_hex=$(printf '%04X' "$_fp_p")
		# Columns 2 and 3 are the local and remote addresses.
		awk -v p=":$_fp_hex" 'index(toupper($2), p) || index(toupper($3), p) \
			{ used = 1 } END { exit !used }' \
			/proc/net/tcp /proc/net/udp /proc/net/tcp6 /proc/net/udp6 \
			2>/dev/null || { echo "$_fp_p"; return 0; }
		_fp_n=$((_fp_n + 1))
	done
	die "no free port in 10000-$((_fp_low - 1)) after 50 tries"
}
