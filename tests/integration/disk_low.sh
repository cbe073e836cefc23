#!/bin/sh
# The spool's file system short of space: with less free than
# spool.min_free_bytes kedge pauses consumption from the start, while every
# record waits in the topic, says so (the spool, the free bytes, the floor,
# what to do) in its log and in `kedge status`, keeps running and reads
# nothing; once space returns it resumes by itself and lands every record
# exactly once.
#
# Two kedges read the same topic side by side, one in a consumer group
# (its partitions come later, from the group) and one assigning itself
# every partition at start (they are there before its loop first looks at
# the spool).  Each spool is a 16 MiB tmpfs in a private mount namespace,
# filled to 1 MiB free by a file the test removes later; the warehouses
# are on another file system, so publishing frees a spool but cannot free
# the filler's space.
set -eu
if [ -z "${KEDGE_IN_NS:-}" ]; then
	KEDGE_IN_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi
. tests/lib.sh

CASES="group static"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
# cleanup: a kedge still running is killed, and reaped before its spool
# is unmounted (set -e holds here too: what may fail says so).
cleanup() {
	for _c in $CASES; do
		if [ -s "$T/$_c/pid" ]; then
			kill -9 "$(cat "$T/$_c/pid")" 2>/dev/null || :
			wait "$(cat "$T/$_c/pid")" 2>/dev/null || :
		fi
		umount "$T/$_c/spool" 2>/dev/null || :
	done
	mock_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

N=20000
FLOOR=4194304   # spool.min_free_bytes: 4 MiB
START=$(date -u -d '2026-05-01 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 22 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic low:2 --produce "low=$T/records"

for c in $CASES; do
	mkdir -p "$T/$c/spool"
	mount -t tmpfs -o size=16m tmpfs "$T/$c/spool" || die "cannot mount a tmpfs"
	# leave 1 MiB free, under the floor
	dd if=/dev/zero of="$T/$c/spool/filler" bs=1k count=15360 2>/dev/null
	free=$(($(stat -f -c '%a * %S' "$T/$c/spool")))
	[ "$free" -lt "$FLOOR" ] || die "the filler left $free bytes free"
	group=
	[ "$c" = static ] || group="group_id = \"kedge-low\";"
	cat >"$T/$c/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; $group
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "low" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/$c/spool"; local_dir = "$T/$c/warehouse";
           timezone = "UTC"; };
spool = { min_free_bytes = $FLOOR; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
done

# status_says CASE PATTERN: CASE's status file has a line matching PATTERN.
status_says() {
	grep -q "$2" "$T/$1/spool/status" 2>/dev/null
}
# written CASE: when CASE's status file was last written, as it says.
written() {
	sed -n '1s/.* written \([^ ]*\).*/\1/p' "$T/$1/spool/status" \
		2>/dev/null || :
}
# next_status: waits for every kedge to write its status file again.
next_status() {
	for _c in $CASES; do
		written "$_c" >"$T/$_c/written"
	done
	for _c in $CASES; do
		wait_for "a status write ($_c)" 15 written_again "$_c"
	done
}
written_again() {
	[ "$(written "$1")" != "$(cat "$T/$1/written")" ]
}
consumed() {
	sed -n 's/^consumed \([0-9]*\) records.*/\1/p' "$T/$1/spool/status"
}
errors() {
	log_lines "$T/$1/run.log" | grep '^err ' | tail -3
}
alive() {
	kill -0 "$(cat "$T/$1/pid")" 2>/dev/null ||
		die "kedge ($1) exited while paused: $(errors "$1")"
}

for c in $CASES; do
	$KEDGE run -c "$T/$c/kedge.conf" 2>"$T/$c/run.log" &
	echo $! >"$T/$c/pid"
done
for c in $CASES; do
	wait_for "consumption to pause ($c)" 15 grep -q 'consumption paused' \
		"$T/$c/run.log"
	grep -q "spool: $T/$c/spool has [0-9]* bytes free, under spool.min_free_bytes ($FLOOR), .*: consumption paused until it has $FLOOR bytes free again; free space on that file system or lower spool.min_free_bytes" \
		"$T/$c/run.log" ||
		die "the pause message ($c): $(grep 'spool:' "$T/$c/run.log")"
done

# Every record waits in the topic, and the lag says so though nothing was
# fetched (the brokers' watermarks, asked on a thread of their own).  Two
# status writes, 5 s apart, say paused and count no record read.
for c in $CASES; do
	wait_for "the lag of every record ($c)" 60 status_says "$c" \
		"^consumer lag: $N records$"
done
for _ in 1 2; do
	next_status
	for c in $CASES; do
		alive "$c"
		status_says "$c" "^consumption paused: the spool's file system has [0-9]* bytes free, under spool.min_free_bytes ($FLOOR); free space on it" ||
			die "the status ($c) does not say paused: $(cat "$T/$c/spool/status")"
		[ "$(consumed "$c")" -eq 0 ] ||
			die "kedge ($c) read $(consumed "$c") of $N records with the spool short of space"
		status_says "$c" "^consumer lag: $N records$" ||
			die "the status ($c) lag: $(grep lag "$T/$c/spool/status")"
	done
done
for c in $CASES; do
	# paused: running, and not healthy (exit 1)
	rc=0
	out=$($KEDGE status -c "$T/$c/kedge.conf") || rc=$?
	[ "$rc" -eq 1 ] || die "kedge status ($c) exited $rc while paused: $out"
	case $out in
	"running (pid $(cat "$T/$c/pid"));"*"
not healthy: consuming: paused: the spool's file system has "*"
consumption paused: the spool's file system has "*) ;;
	*) die "kedge status ($c) does not say paused: $out" ;;
	esac
	[ "$(landed_count "$T/$c/warehouse")" -eq 0 ] ||
		die "rows landed while paused ($c)"
done

# Space returns: each kedge resumes by itself, reads everything and stops
# cleanly on SIGTERM.
for c in $CASES; do
	rm -f "$T/$c/spool/filler"
done
for c in $CASES; do
	wait_for "consumption to resume ($c)" 15 grep -q \
		"spool: $T/$c/spool has [0-9]* bytes free and holds [0-9]* bytes; consumption resumed" \
		"$T/$c/run.log"
	wait_for "every record read ($c)" 20 status_says "$c" "^consumed $N records"
	! status_says "$c" "^consumption paused" ||
		die "the status ($c) still says paused: $(cat "$T/$c/spool/status")"
done
for c in $CASES; do
	kill -TERM "$(cat "$T/$c/pid")"
done
for c in $CASES; do
	pid=$(cat "$T/$c/pid")
	exits_within "$pid" 30 || die "kedge ($c) did not stop within 30 s of SIGTERM"
	rc=0
	wait "$pid" || rc=$?
	: >"$T/$c/pid"
	[ "$rc" -eq 0 ] || die "kedge ($c) exited $rc: $(errors "$c")"
	[ -z "$(errors "$c")" ] || die "kedge ($c) logged errors: $(errors "$c")"
	check_exactly_once "$T/$c/warehouse" access "$T/expected" \
		"$T/expected-rejects" "$T/$c/spool"
done
echo "ok: group and static assignment paused with every record in the topic and $free bytes free, resumed; $CHECK_ROWS rows and $CHECK_REJECTS rejects exactly once in each"
