#!/bin/sh
# Only the run loop's thread takes SIGTERM, SIGINT, SIGHUP and SIGPIPE:
# every other thread of a running kedge (the publisher, the metrics
# server's, the tables' packers, the Parquet table's converter,
# librdkafka's) has them blocked, as /proc/PID/task/*/status
# says (SigBlk), before and after a reload; the SIGHUP is handled (the
# reload is logged) and SIGTERM stops kedge cleanly.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-06-01 10:00:00' +%s)
$FIX/gen_nginx --records 500 --partitions 2 --seed 9 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"
PORT=$(free_port)

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-signals"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; },
           { name = "access_pq"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           roll = { max_age = 1; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = true; listen = "127.0.0.1:$PORT"; };
CONF

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "a file to land" 30 sh -c "[ \$(find '$T/warehouse' -type f ! -name '.*' ! -name '_*' 2>/dev/null | wc -l) -gt 0 ]"
curl -fs --max-time 3 -o /dev/null "http://127.0.0.1:$PORT/metrics" ||
	die "no metrics"
bad=$(signal_masks "$KPID" 3)
[ -z "$bad" ] || die "threads that can take the loop's signals:$bad"

kill -HUP "$KPID"
wait_for "the reload" 20 grep -q "reload: " "$T/run.log"
bad=$(signal_masks "$KPID" 3)
[ -z "$bad" ] || die "after the reload, threads that can take the loop's signals:$bad"

kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5)"
grep -q "stopping: rolling every file" "$T/run.log" ||
	die "SIGTERM was not handled by the loop: $(tail -3 "$T/run.log")"
echo "ok: every thread but the loop's blocks SIGTERM, SIGINT, SIGHUP and SIGPIPE"
