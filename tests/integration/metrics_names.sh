#!/bin/sh
# The metrics as a reader other than kedge sees them.  kedge runs on a
# mock topic whose records span the last three hours, so that hours
# complete and output.on_complete runs while it is scraped; the scrape is
# then read by tests/real/metrics_check.py, which checks with Prometheus's
# own text parser (prometheus_client) the exposition format (a # TYPE for
# every family, a histogram's buckets, no quantile label on a gauge, no
# label whose values grow without bound), that docs/metrics.md lists
# every family with its type and says which appear only in some states,
# and that every PromQL expression of packaging/grafana/kedge.json,
# parsed by promql_parser, names only series kedge exports.  The
# watermark and the last complete hour are checked against the target:
# the latest hour with a _SUCCESS starts at the second, and the watermark
# is past its end.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -z "$KPID" ] || kill "$KPID" 2>/dev/null; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

NOW=$(date -u +%s)
HOUR0=$(( (NOW / 3600 - 3) * 3600 ))
$FIX/gen_nginx --records 3000 --partitions 2 --seed 31 --start "$HOUR0" \
	--hours 3 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:2 --produce "access=$T/records"
PORT=$(free_port)
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "names"; };
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; timezone = "UTC";
           roll = { inactive = 1; max_age = 2; };
           on_complete = [ "/bin/true", "{table}", "{dt}", "{hr}" ]; };
checkpoint = { interval = 1; };
completion = { allowed_lateness = 0; };
metrics = { listen = "127.0.0.1:$PORT"; };
CONF

# value SAMPLE: SAMPLE's value in $T/scrape, or nothing.
value() {
	awk -v s="$1" '$1 == s { print $2 }' "$T/scrape"
}

# completed: a scrape shows the hours completed and their commands run.
completed() {
	curl -fs --max-time 3 -o "$T/scrape" "http://127.0.0.1:$PORT/metrics" ||
		return 1
	[ -n "$(value 'kedge_watermark_timestamp_seconds{table="access"}')" ] &&
		[ -n "$(value 'kedge_last_complete_hour_timestamp_seconds{table="access"}')" ] &&
		[ "$(value 'kedge_on_complete_runs_total{table="access",result="ok"}')" -ge 3 ] &&
		[ "$(value 'kedge_on_complete_pending{table="access"}')" -eq 0 ]
}

timeout 120 $KEDGE run -c "$T/kedge.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "three hours completed and their commands run" 60 completed
tests/real/python.sh tests/real/metrics_check.py "$T/scrape" \
	docs/metrics.md packaging/grafana/kedge.json >"$T/check" ||
	die "$(cat "$T/check")"

# the latest hour with a _SUCCESS, as UNIX seconds at its start
last=$(find "$T/out/access" -name _SUCCESS | sed 's|.*/dt=\([0-9]*\)/hr=\([0-9]*\)/_SUCCESS$|\1 \2|' |
	sort | tail -1)
[ -n "$last" ] || die "no _SUCCESS under $T/out/access"
start=$(date -u -d "${last% *} ${last#* }:00" +%s)
got=$(value 'kedge_last_complete_hour_timestamp_seconds{table="access"}')
[ "$got" = "$start" ] ||
	die "last complete hour $got, the target's latest _SUCCESS hour starts at $start ($last)"
wm=$(value 'kedge_watermark_timestamp_seconds{table="access"}')
[ "$wm" -ge $((start + 3600)) ] || die "watermark $wm is before the end of $last"
kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/kedge.log"
KPID=
echo "ok: $(cat "$T/check"); last complete hour $last"
