#!/bin/sh
# What kedge reads of a tree that others may write into refuses anything
# but a regular file, follows no symbolic link and never blocks.  In a
# local target that kedge filled, a part file p.txt gets as its sidecar
# .p.txt.json first a FIFO (no writer: opening it for reading waits for
# one), then a symbolic link to a file outside the tree; both in a
# complete hour and in one not complete yet.  Each time `kedge verify`
# and `kedge report` name the sidecar and refuse it, and the daemon's
# completer, given late rows for the complete hour, names it and goes on
# (the run ends); none of them waits, and none shows the linked file's
# content.  Bounded with exits_within: a reader that blocks is the failure
# under test.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || :
      mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

NOW=$(date -u +%s)
HOUR0=$(( (NOW / 3600 - 3) * 3600 ))
$FIX/gen_nginx --records 2000 --partitions 2 --seed 29 --start "$HOUR0" \
	--hours 5 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:2 --produce "access=$T/records"
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-tree-readers";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; timezone = "UTC"; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
run_to_end "$T/k.conf" "$T/run.log" "the first run"

# a complete hour (the first with a manifest), and one with files but no
# manifest (the last: its records are in the future)
done_dir=$(dirname "$(find "$T/out/access" -name _MANIFEST.json | sort | head -1)")
open_dir=$(find "$T/out/access" -name 'hr=*' -type d | sort | tail -1)
[ -d "$done_dir" ] && [ ! -e "$open_dir/_MANIFEST.json" ] &&
	[ -n "$(find "$open_dir" -name '*.txt.gz' | head -1)" ] ||
	die "no complete hour, or no hour open with files: $(find "$T/out" -type d)"
DT=${done_dir#"$T/out/access/dt="}
DT=${DT%%/*}
HR=${done_dir##*/hr=}
# a file whose content no reader may show
echo "secret-$$-token" >"$T/secret"

# within SECONDS WHAT CMD...: runs CMD in the background, its stdout and
# stderr in $T/out.txt; fails the test unless it exits within SECONDS.
# Its exit status in rc.
within() {
	_s=$1
	_what=$2
	shift 2
	"$@" >"$T/out.txt" 2>&1 &
	PID=$!
	exits_within "$PID" "$_s" || die "$_what still runs after $_s s: it waits on .p.txt.json"
	rc=0
	wait "$PID" || rc=$?
	PID=
	! grep -q "secret-$$-token" "$T/out.txt" ||
		die "$_what showed the linked file's content: $(cat "$T/out.txt")"
}

# round KIND WHY: .p.txt.json is KIND (fifo or link) in both hours; verify,
# report and the completer refuse it, saying WHY.
n=0
round() {
	for d in "$done_dir" "$open_dir"; do
		rm -f "$d/.p.txt.json"
		printf 'a row\n' >"$d/p.txt"
		case $1 in
		fifo) mkfifo "$d/.p.txt.json" ;;
		link) ln -s "$T/secret" "$d/.p.txt.json" ;;
		esac
	done
	within 60 "kedge verify" $KEDGE verify "$T/out"
	[ "$rc" -eq 1 ] && grep -q "^verify: access/dt=$DT/hr=$HR/.p.txt.json: not a sidecar: $2" "$T/out.txt" ||
		die "$1: verify exited $rc: $(cat "$T/out.txt")"

	within 60 "kedge report" $KEDGE report -c "$T/k.conf" --from "${DT}00" \
		--to "$(date -u -d '+2 days' +%Y%m%d)23"
	[ "$rc" -eq 1 ] && grep -q "^kedge report: read $open_dir/.p.txt.json: $2" "$T/out.txt" ||
		die "$1: report exited $rc: $(cat "$T/out.txt")"

	# late rows for the complete hour: the completer lists it again
	n=$((n + 1))
	$FIX/gen_nginx --records 100 --partitions 2 --seed $((40 + n)) \
		--start "$(date -u -d "${DT} ${HR}:00:00" +%s)" --hours 1 --tz UTC \
		--malformed-permille 0 --out-records "$T/late" \
		--out-expected "$T/late-expected" --out-rejects "$T/late-rejects"
	mock_ctl "$T" produce access "$T/late"
	within 120 "kedge run" $KEDGE run -c "$T/k.conf" --exit-at-end
	cp "$T/out.txt" "$T/run-$1.log"
	[ "$rc" -eq 0 ] || die "$1: kedge run exited $rc: $(log_lines "$T/out.txt" | grep '^err ' | head -3)"
	log_lines "$T/out.txt" | grep -q "^warning complete: read $done_dir/.p.txt.json: $2" ||
		die "$1: the completer did not refuse it: $(grep 'complete' "$T/out.txt" | head -3)"
}

round fifo 'not a regular file (a FIFO, socket or device), which kedge does not read'
round link 'a symbolic link is on its path, and kedge follows none there'

echo "ok: a FIFO and a link as a sidecar, in a complete hour and an open one: verify, report and the completer refuse each, naming it, and never wait"
