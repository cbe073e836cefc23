#!/bin/sh
# Brokers that refuse every connection (a closed port):
#  - kedge run under journald (JOURNAL_STREAM naming its stderr) writes
#    each line as <N> and the message, no time of its own, and each failed
#    connection once: librdkafka's log and its error callback both report
#    it, and only the error callback's line is kept;
#  - check-config --online answers in one line that quotes librdkafka's
#    error, and writes none of librdkafka's lines to the terminal.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null; rm -rf "$T"' EXIT

cat >"$T/k.conf" <<CONF
kafka = { brokers = "127.0.0.1:1"; group_id = "kedge-down"; };
tables = ( { name = "web"; topics = [ "web" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
metrics = { enabled = false; };
CONF

: >"$T/run.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/run.log") \
	$KEDGE run -c "$T/k.conf" 2>>"$T/run.log" &
KPID=$!
wait_for "the outage said" 30 grep -q 'kafka: no broker answers' "$T/run.log"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(tail -3 "$T/run.log")"

! grep -v '^<[3-7]>[^<0-9]' "$T/run.log" >&2 ||
	die "lines without their journald priority, or with a time (above)"
grep 'Connect to ipv4#127.0.0.1:1 failed' "$T/run.log" >"$T/failed" ||
	die "no failed connection logged: $(cat "$T/run.log")"
! grep -v '^<4>kafka: 127.0.0.1:1/bootstrap: Connect to' "$T/failed" >&2 ||
	die "a failed connection logged other than as the error callback's warning (above)"
sed 's/.*Connect to/Connect to/' "$T/failed" | sort | uniq -d >"$T/twice"
[ ! -s "$T/twice" ] || die "a failed connection logged twice: $(cat "$T/twice")"

rc=0
$KEDGE check-config --online -c "$T/k.conf" >"$T/cc.out" 2>"$T/cc.err" || rc=$?
[ "$rc" -eq 1 ] || die "check-config --online exited $rc, want 1"
[ ! -s "$T/cc.out" ] || die "check-config --online printed: $(cat "$T/cc.out")"
[ "$(wc -l <"$T/cc.err")" -eq 1 ] ||
	die "check-config --online wrote more than its answer: $(cat "$T/cc.err")"
grep -q "^$T/k.conf: kafka: no metadata from 127.0.0.1:1 within [0-9]* s: .*; librdkafka's last error: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused.*; check kafka.brokers" \
	"$T/cc.err" || die "check-config --online said: $(cat "$T/cc.err")"
echo "ok: $(wc -l <"$T/failed") failed connections, each logged once; check-config --online answered in one line"
