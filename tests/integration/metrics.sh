#!/bin/sh
# The metrics endpoint, scraped with curl while kedge runs on a mock topic:
# the counters move as records arrive, and once everything is read and
# published they agree with what landed (rows, rejects, files), every
# partition's lag is 0, and the landed data is exactly once.  Idle
# connections held open do not delay a scrape, and neither a request that
# is not HTTP nor a huge header stops the server.  A second
# kedge on the same metrics.listen stops at start naming the key and the
# fix; with metrics.enabled = false nothing listens.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
HPID=
trap '[ -z "$HPID" ] || kill "$HPID" 2>/dev/null || :; [ -z "$KPID" ] || kill "$KPID" 2>/dev/null || :; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

$FIX/gen_nginx --records 8000 --partitions 4 --seed 23 --hours 2 \
	--start $(($(date +%s) - 7200)) --tz UTC \
	--malformed-permille 20 --out-records "$T/records" \
	--out-expected "$T/expected" --out-rejects "$T/expected-rejects"
head -n 5000 "$T/records" >"$T/first"
tail -n +5001 "$T/records" >"$T/second"
mock_start "$T" --topic nginx-access:4 --produce "nginx-access=$T/first"

PORT=$(free_port)
URL=http://127.0.0.1:$PORT/metrics

# conf NAME SPOOL ENABLED: writes $T/NAME.conf.
conf() {
	cat >"$T/$1.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( {
  name   = "access";
  topics = [ "nginx-access" ];
  udtf   = "nginx";
  event_time = "time_local";
  codec  = "none";
} );
output = {
  spool_dir = "$T/$2";
  local_dir = "$T/warehouse";
  host      = "it-host";
  roll = { inactive = 1; max_age = 2; };
};
checkpoint = { interval = 1; };
# No hour completes while the test looks: only part files land.
completion = { allowed_lateness = 604800; };
metrics = { enabled = $3; listen = "127.0.0.1:$PORT"; };
CONF
}
conf one spool true
conf two spool2 true
conf off spool false

# scrape: the endpoint's text into $T/scrape; fails on anything but 200.
scrape() {
	curl -fs --max-time 3 -o "$T/scrape" "$URL"
}

# value SAMPLE: the value of SAMPLE (name{labels} as printed) in $T/scrape,
# or nothing.
value() {
	awk -v s="$1" '$1 == s { print $2 }' "$T/scrape"
}

# read_all N: every partition's lag is 0 and records_total is N.
read_all() {
	scrape || return 1
	[ "$(value 'kedge_records_total{table="access"}')" = "$1" ] || return 1
	[ "$(grep -c '^kedge_consumer_lag{' "$T/scrape")" -eq 4 ] || return 1
	! grep '^kedge_consumer_lag{' "$T/scrape" | grep -qv ' 0$'
}

# all_landed: the rows and rejects counted are all in the target.
all_landed() {
	scrape || return 1
	_rows=$(value 'kedge_rows_total{table="access"}')
	_rejects=$(value 'kedge_rejects_total{table="access"}')
	[ "$(landed_count "$T/warehouse")" -eq $((_rows + _rejects)) ]
}

# files_agree: the part files published, as counted, are those landed;
# sets files.  (A scrape shows the loop's figures of up to a second ago.)
files_agree() {
	scrape || return 1
	files=$(value kedge_published_files_total)
	[ "$files" -gt 0 ] && [ "$files" -eq "$(find "$T/warehouse/access" \
		"$T/warehouse/_rejects" -type f ! -name '.*' ! -name '_*' |
		wc -l)" ]
}

timeout 60 $KEDGE run -c "$T/one.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "kedge to serve metrics" 20 scrape
grep -q '^# TYPE kedge_records_total counter$' "$T/scrape" ||
	die "no records counter: $(head -20 "$T/scrape")"
grep -q '^kedge_build_info{version="[0-9.]*"} 1$' "$T/scrape" ||
	die "no build info: $(grep build_info "$T/scrape")"
wait_for "the first 5000 records to be read" 20 read_all 5000
# 4 partitions over 2 hours: files open, within max_open_files, none
# parked (crash_open_files.sh parks them)
open_files=$(value 'kedge_part_files_open{table="access"}')
[ -n "$open_files" ] && [ "$open_files" -le 64 ] &&
	[ "$(value 'kedge_part_files_parked{table="access"}')" = 0 ] &&
	[ "$(value 'kedge_part_files_reopened_total{table="access"}')" = 0 ] ||
	die "part file figures: $(grep '^kedge_part_files' "$T/scrape")"

# Five connections that never send a byte, held while we scrape: each
# scrape must answer within curl's 3 s (one served after the other, with
# a time limit per connection, they took 10 s).
python3 - "$PORT" >"$T/held" <<'PY' &
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        for _ in range(5)]
print("held", flush=True)
time.sleep(120)
PY
HPID=$!
wait_for "5 idle connections" 10 grep -q held "$T/held"
for i in 1 2 3; do
	scrape || die "scrape $i with 5 idle connections held failed"
done
# Not HTTP, and a 64 KiB header: answered or dropped, never fatal.
python3 - "$PORT" >"$T/hostile" <<'PY' || die "hostile requests: $(cat "$T/hostile")"
import socket, sys
port = int(sys.argv[1])
for req in (b"hello\r\n\r\n", b"\x00\xff\r\n\r\n",
            b"GET /metrics HTTP/1.1\r\nX-Big: " + b"x" * 65536 + b"\r\n\r\n"):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        s.sendall(req)
        answer = s.recv(64)
    except ConnectionResetError:
        answer = b""
    print(repr(answer[:20]))
    assert b" 200 " not in answer, answer
PY
grep -q "431" "$T/hostile" || die "the huge header was not refused: $(cat "$T/hostile")"
scrape || die "no scrape after the hostile requests"
kill "$HPID"
wait "$HPID" 2>/dev/null || :
HPID=
first_rows=$(value 'kedge_rows_total{table="access"}')
first_consumed=$(value kedge_consumed_records_total)
[ "$first_consumed" -eq 5000 ] || die "consumed $first_consumed, want 5000"

# A second kedge on the same port stops at start, before reading.
rc=0
timeout 20 $KEDGE run -c "$T/two.conf" 2>"$T/two.log" || rc=$?
[ "$rc" -eq 1 ] || die "a second kedge on port $PORT: exit $rc, want 1"
grep -q "$T/two.conf: metrics.listen: cannot listen on 127.0.0.1:$PORT: Address already in use.*set metrics.listen to a free ADDRESS:PORT, or metrics.enabled = false" \
	"$T/two.log" || die "second kedge said: $(cat "$T/two.log")"
grep -q running "$T/two.log" && die "the second kedge ran: $(cat "$T/two.log")"

# More records: the counters move.
mock_ctl "$T" produce nginx-access "$T/second"
wait_for "all 8000 records to be read" 20 read_all 8000
rows=$(value 'kedge_rows_total{table="access"}')
rejects=$(value 'kedge_rejects_total{table="access"}')
[ "$rows" -gt "$first_rows" ] || die "rows did not move: $first_rows, $rows"
[ "$(value kedge_consumed_records_total)" -eq 8000 ] ||
	die "consumed: $(value kedge_consumed_records_total)"
wait_for "every row counted to land" 20 all_landed
wait_for "the published files counted to be those landed" 10 files_agree
[ "$(value kedge_spool_ready_files)" -eq 0 ] ||
	die "ready files: $(value kedge_spool_ready_files)"
[ "$(value kedge_publish_errors_total)" -eq 0 ] || die "publish errors"
[ "$(value 'kedge_consumption_paused{reason="spool_full"}')" = 0 ] ||
	die "paused: $(grep paused "$T/scrape")"
# The checkpoint histogram counts decided checkpoints, and the UDTF's
# every record.
[ "$(value kedge_checkpoint_duration_seconds_count)" -gt 0 ] ||
	die "no checkpoint counted"
[ "$(value 'kedge_checkpoint_duration_seconds_bucket{le="+Inf"}')" = \
	"$(value kedge_checkpoint_duration_seconds_count)" ] ||
	die "checkpoint histogram: +Inf bucket is not the count"
[ "$(value 'kedge_udtf_duration_seconds_count{table="access"}')" -eq 8000 ] ||
	die "UDTF histogram: $(grep udtf_duration_seconds_count "$T/scrape")"
# The longest UDTF time is there, and no series names a record (an
# offset label made a series per slow record, without bound).
max=$(value 'kedge_udtf_duration_max_seconds{table="access"}')
awk -v max="$max" 'BEGIN { exit !(max + 0 > 0) }' || die "UDTF max: $max"
grep -q 'offset=' "$T/scrape" && die "a label names offsets: $(grep 'offset=' "$T/scrape" | head -3)"
[ "$(value 'kedge_assigned_partitions{topic="nginx-access"}')" = 4 ] ||
	die "assigned: $(grep '^kedge_assigned' "$T/scrape")"
wait_for "a status file" 10 test -s "$T/spool/status"
out=$($KEDGE status -c "$T/one.conf" 2>&1) || die "kedge status: $out"
case $out in
*"metrics: $URL"*) ;;
*) die "kedge status does not name $URL: $out" ;;
esac

kill -TERM "$KPID"
exits_within "$KPID" 30 || die "kedge did not stop"
wait "$KPID" || die "kedge exited $?: $(tail -5 "$T/kedge.log")"
KPID=

# The counters agree with what landed, row by row.
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
[ "$rows" -eq "$CHECK_ROWS" ] || die "rows_total $rows, landed $CHECK_ROWS"
[ "$rejects" -eq "$CHECK_REJECTS" ] ||
	die "rejects_total $rejects, landed $CHECK_REJECTS"
[ "$rejects" -gt 0 ] || die "no rejects"

# metrics.enabled = false: kedge runs and nothing listens.
timeout 60 $KEDGE run -c "$T/off.conf" 2>"$T/off.log" &
KPID=$!
wait_for "kedge without metrics to run" 20 grep -q 'running:' "$T/off.log"
# No socket of kedge's listens, on any port: the port above may be
# another process's by now.
kp=$(pgrep -P "$KPID" -x kedge) || die "no kedge under timeout $KPID"
listens=$(ss -Hltnp | grep "pid=$kp," || true)
[ -z "$listens" ] || die "kedge listens with metrics disabled: $listens"
kill -TERM "$KPID"
exits_within "$KPID" 30 || die "kedge did not stop"
wait "$KPID" || die "kedge exited $?: $(tail -5 "$T/off.log")"
KPID=
echo "ok: $rows rows, $rejects rejects, $files files agree with the metrics"
