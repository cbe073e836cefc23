#!/bin/sh
# SIGTERM in the middle of a run: kedge rolls its files, commits and exits 0
# with nothing left in the spool; a second run in the same group resumes at
# the committed offsets, so the two runs together land every row exactly
# once.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null; mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-07-04 08:00:00' +%s)
$FIX/gen_nginx --records 80000 --partitions 4 --seed 3 --start "$START" \
	--hours 4 --tz Europe/Berlin --malformed-permille 5 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:4 --produce "access=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-sigterm";
  rdkafka = { session_timeout_ms = "6000"; fetch_message_max_bytes = "16384"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "Europe/Berlin"; roll = { max_bytes = 32768; }; };
checkpoint = { interval = 1; };
CONF

$KEDGE run -c "$T/kedge.conf" 2>"$T/run1.log" &
KPID=$!
has_files() { [ -n "$(find "$T/warehouse/access" -type f 2>/dev/null | head -1)" ]; }
wait_for "the first published file" 60 has_files
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc on SIGTERM: $(tail -3 "$T/run1.log")"
[ -z "$(find "$T/spool" -type f)" ] || die "SIGTERM left files in the spool"
landed_rows "$T/warehouse" access | sort >"$T/got1"
[ -z "$(uniq -d "$T/got1")" ] || die "duplicate rows after the first run"
first=$(wc -l <"$T/got1")

timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/run2.log" ||
	die "second run failed: $(tail -3 "$T/run2.log")"
landed_rows "$T/warehouse" access | sort >"$T/got"
sort "$T/expected" >"$T/want"
cmp -s "$T/got" "$T/want" || {
	diff "$T/want" "$T/got" | head -5 >&2
	die "the two runs did not land every row exactly once"
}
echo "ok: first run landed $first of $(wc -l <"$T/want") rows, the second the rest"
