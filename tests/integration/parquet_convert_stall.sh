#!/bin/sh
# A Parquet file's conversion holds no record back: with the first
# conversion stalled for good (KEDGE_STALL_AT=convert-mid, on the Parquet
# table's converter thread) while the topic is still being produced to,
# kedge still reads every record, checkpoints and lands all of a hive-text
# table of the same topic, while no Parquet file lands (the converter takes
# them in order).  Killed -9 then, with that conversion and the files
# released after it in open/, the next run converts them: the text table
# holds every row once, and kedge verify passes (every record once in each
# table, each Parquet footer agreeing with its sidecar).
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null
      mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT KEDGE_STALL_AT

N=20000
FIRST=2000
START=$(date -u -d '2026-05-10 06:00:00' +%s)
# no malformed record: both tables would reject it
$FIX/gen_nginx --records $N --partitions 2 --seed 31 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic access:2 --produce "access=$T/first"

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access_pq"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; },
           { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "UTC"; host = "stall-host";
           roll = { max_bytes = 65536; max_age = 2; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/kedge.conf" >/dev/null

KEDGE_STALL_AT=convert-mid $KEDGE run -c "$T/kedge.conf" 2>"$T/stalled.log" &
KPID=$!
wait_for "a conversion to stall" 30 grep -q 'KEDGE_STALL_AT: stalling on purpose' \
	"$T/stalled.log"
feed_start "$T" access "$T/rest" 3000 0.2
feed_wait "$T"
mock_kept_all "$T"
text_landed() { [ "$(landed_count "$T/warehouse/access")" -eq $N ]; }
wait_for "the text table to land while a conversion stalls" 60 text_landed
kill -0 "$KPID" 2>/dev/null ||
	die "kedge exited: $(grep '^<[0-4]>' "$T/stalled.log" | head -3)"
pq=$(find "$T/warehouse/access_pq" -type f ! -name '.*' ! -name '_*' \
	2>/dev/null | wc -l)
[ "$pq" -eq 0 ] || die "$pq Parquet file(s) landed past the stalled one"
kill -9 "$KPID"
wait "$KPID" 2>/dev/null || :
KPID=
logs=$(find "$T/spool/open" -name '*.parquet.rows' | wc -l)
[ "$logs" -gt 1 ] || die "$logs log(s) waited for their conversion"

run_to_end "$T/kedge.conf" "$T/final.log" "the run after the stall"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
echo "ok: $N records read past a stalled conversion, $logs logs converted" \
	"after kill -9; $CHECK_VERIFY"
