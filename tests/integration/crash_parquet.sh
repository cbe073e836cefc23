#!/bin/sh
# The kill -9 loop with Parquet: one topic read by a hive-text table and a
# Parquet table (snappy), small files so that logs are converted all the
# time and one open file a table, so that the two partitions' files are
# parked and opened again to append at every switch, kedge killed at
# random moments and at the crash points of the conversion (convert-mid: a
# Parquet file half written; convert-ready: the file in ready/, its log
# not yet removed) and of the checkpoint.  At the
# end the text table holds every row of the generator exactly once, kedge
# verify passes (it reads every Parquet footer), and the Parquet table
# holds exactly the text table's rows, hour by hour, as pyarrow reads them.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

PY=tests/real/python.sh
$PY -c 'pass' || die "pyarrow is missing (scripts/install-py-deps.sh)"

P=2
N=60000
FIRST=12000
ROUNDS=14
MAX_ROUNDS=20
SEED=${KEDGE_CRASH_SEED:-20261202}
POINTS="convert-mid:1 convert-ready:1 convert-mid:4 seal-mid:1 convert-ready:3
	convert-mid:2"

START=$(date -u -d '2026-05-10 06:00:00' +%s)
# no malformed record: both tables would reject it, and the rejects of
# one table are what crash_kill9.sh proves
$FIX/gen_nginx --records $N --partitions $P --seed 23 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic access:$P --produce "access=$T/first"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-crash-pq";
  rdkafka = { session_timeout_ms = "3500"; heartbeat_interval_ms = "1000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; },
           { name = "access_pq"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "UTC"; host = "crash-host";
           roll = { max_bytes = 32768; max_open_files = 1; };
           parquet = { row_group_bytes = 65536; page_bytes = 8192; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/kedge.conf" >/dev/null

feed_start "$T" access "$T/rest" 2000 2
random_delays "$SEED" $MAX_ROUNDS 0.2 2 >"$T/delays"

kill_rounds kedge $ROUNDS $MAX_ROUNDS "$T/delays" "$T/rounds" group_round_start : \
	$POINTS
feed_wait "$T"
mock_kept_all "$T"

run_to_end "$T/kedge.conf" "$T/final.log" "the clean run"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
crash_points_reached "$T/rounds" $POINTS
same=$($PY tests/real/same_rows.py "$T/warehouse" access access_pq) ||
	die "the Parquet table differs from the text table"
echo "ok: $ROUND rounds (seed $SEED): $CRASH_TALLY; $CHECK_ROWS rows;" \
	"Parquet: $same; $CHECK_VERIFY"
