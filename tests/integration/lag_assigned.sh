#!/bin/sh
# Lag from the assignment on.  kedge reads 5,000 records of a 4-partition
# topic and commits them; 15,600 more are produced; kedge starts again
# with consumption held from the start (spool.min_free_bytes above what
# any disk has), so that it reads nothing and no fetch ever tells it a
# watermark.  /metrics must still show the 4 partitions assigned and a
# lag of 15,600 (3,900 each: the brokers' watermarks, asked on a thread
# of its own, minus the group's committed offsets), with 0 records
# consumed; kedge status the same, exiting 1 and naming "consuming", as
# /ready does.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -z "$KPID" ] || kill "$KPID" 2>/dev/null; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

seq 1 5000 >"$T/first"
seq 5001 20600 >"$T/second"
mock_start "$T" --topic t:4 --produce "t=$T/first"
PORT=$(free_port)
URL=http://127.0.0.1:$PORT/metrics

# conf NAME GROUP: writes $T/NAME.conf, with GROUP.
conf() {
	cat >"$T/$1.conf" <<CONF
# The mock cluster's group waits for the first run's member until its
# session times out.
kafka = { brokers = "$BOOTSTRAP"; group_id = "lag";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "t"; topics = [ "t" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; };
checkpoint = { interval = 1; };
metrics = { listen = "127.0.0.1:$PORT"; };
$2
CONF
}
conf read ""
conf held 'spool = { min_free_bytes = 1125899906842624L; };'

run_to_end "$T/read.conf" "$T/read.log" "the first run"
mock_ctl "$T" produce t "$T/second"

timeout 120 $KEDGE run -c "$T/held.conf" 2>"$T/held.log" &
KPID=$!

# lag_shown: a scrape shows 4 partitions assigned, each 3,900 behind.
lag_shown() {
	curl -fs --max-time 3 -o "$T/scrape" "$URL" || return 1
	grep -q '^kedge_assigned_partitions{topic="t"} 4$' "$T/scrape" &&
		[ "$(grep -c '^kedge_consumer_lag{topic="t",partition="[0-3]"} 3900$' \
		"$T/scrape")" -eq 4 ]
}
wait_for "the lag of 4 held partitions" 30 lag_shown
grep -q '^kedge_consumed_records_total 0$' "$T/scrape" ||
	die "consumed: $(grep '^kedge_consumed' "$T/scrape")"
grep -q '^kedge_consumption_paused{reason="spool_full"} 1$' "$T/scrape" ||
	die "not paused: $(grep '^kedge_consumption_paused' "$T/scrape")"

# status_shown: kedge status says the same, and exits 1: consumption is
# paused.
status_shown() {
	_rc=0
	$KEDGE status -c "$T/held.conf" >"$T/status" 2>&1 || _rc=$?
	[ "$_rc" -eq 1 ] &&
		grep -q '^consumer lag: 15600 records' "$T/status" &&
		grep -q '^assigned: 4 partitions (t: 4)$' "$T/status"
}
wait_for "kedge status to show the lag" 20 status_shown
grep -q '^consumed 0 records' "$T/status" || die "status: $(cat "$T/status")"
grep -q '^not healthy: consuming: paused: the spool.s file system has' \
	"$T/status" || die "status: $(cat "$T/status")"
$KEDGE status -c "$T/held.conf" --json >"$T/status.json" &&
	die "kedge status --json exits 0 while paused"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["assigned"] == {"t": 4} and d["lag"] == 15600, d
assert d["consumed"] == 0 and d["healthy"] is False, d
assert not d["checks"]["consuming"]["ok"] and d["checks"]["alive"]["ok"], d
' "$T/status.json" || die "status --json: $(cat "$T/status.json")"
curl -s -o "$T/ready" -w '%{http_code}\n' "${URL%/metrics}/ready" >"$T/code"
[ "$(cat "$T/code")" = 503 ] && grep -q '"consuming":{"ok":false' "$T/ready" ||
	die "/ready while paused: $(cat "$T/code" "$T/ready")"

kill -TERM "$KPID"
stopped_cleanly "the held kedge" "$KPID" "$T/held.log"
KPID=
echo "ok: 4 partitions assigned, 15600 records of lag shown with none read"
