#!/bin/sh
# Broker faults under one running kedge, with a 3-broker mock cluster:
# (a) each broker in turn (so every partition leader, and the group
# coordinator whichever broker it is) goes down while a fresh chunk of
# records is being read, stays down longer than the session timeout, and
# comes back; (b) OffsetCommit requests fail, first 5 x REQUEST_TIMED_OUT,
# then 3 x NOT_COORDINATOR.  kedge must keep running through all of it,
# land every record once it can (rows and rejects, row by row; kedge
# verify) and stop cleanly on SIGTERM with nothing left in the spool.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

P=4
BROKERS=3
CHUNK=10000       # records produced before each fault
OUTAGE=5          # seconds a broker stays down: past the session timeout
N=$((CHUNK * (1 + BROKERS + 2)))

START=$(date -u -d '2026-10-25 00:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 29 --start "$START" \
	--hours 3 --tz Europe/London --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
split -l $CHUNK -d -a 2 "$T/records" "$T/chunk."
mock_start "$T" --brokers $BROKERS --topic access:$P \
	--produce "access=$T/chunk.00"

# Files roll after a second without rows, so that everything read lands
# without a stop; reconnects back off at most 1 s, so that a broker that
# is back is used again soon.
cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-faults";
  rdkafka = { session_timeout_ms = "3500"; heartbeat_interval_ms = "1000";
              reconnect_backoff_max_ms = "1000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "Europe/London"; host = "faults-host";
           roll = { max_bytes = 16384; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

# landed COUNT: at least COUNT records have landed (as rows or rejects);
# fails the test if kedge exited.
landed() {
	[ "$(landed_count "$T/warehouse")" -ge "$1" ] && return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/kedge.log" | grep '^err ' | head -5)"
	return 1
}

# produce_chunk: produces the next chunk; produced counts the records.
chunk=0
produced=$CHUNK
produce_chunk() {
	chunk=$((chunk + 1))
	mock_ctl "$T" produce access "$T/chunk.0$chunk"
	produced=$((produced + CHUNK))
}

$KEDGE run -c "$T/kedge.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "the first chunk to land" 60 landed $produced

# (a) Each broker down in turn, with records to read.
b=1
while [ $b -le $BROKERS ]; do
	produce_chunk
	mock_ctl "$T" broker-down $b
	sleep $OUTAGE # the fault's length, not a wait for a condition
	mock_ctl "$T" broker-up $b
	wait_for "every record to land after broker $b came back" 90 \
		landed $produced
	b=$((b + 1))
done

# (b) Failing offset commits.  Injected errors fail the next commits in
# order, so once the chunk produced after them has landed (which takes a
# commit that succeeded) every one of them was met.
since=$(wc -l <"$T/kedge.log")
for fault in "5 REQUEST_TIMED_OUT" "3 NOT_COORDINATOR"; do
	mock_ctl "$T" commit-errors $fault
	produce_chunk
	wait_for "every record to land despite commit errors ($fault)" 90 \
		landed $produced
done
failed_commits=$(tail -n +"$((since + 1))" "$T/kedge.log" |
	grep -c 'offset commit failed' || true)

kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop within 60 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ $rc -eq 0 ] || die "kedge exited $rc on SIGTERM: $(tail -3 "$T/kedge.log")"
[ $produced -eq $N ] || die "produced $produced records, generated $N"
check_exactly_once "$T/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/spool"
echo "ok: $BROKERS brokers down ${OUTAGE}s each, 8 failed commits injected" \
	"($failed_commits reached kedge); $CHECK_ROWS rows, $CHECK_REJECTS" \
	"rejects; $CHECK_VERIFY"
