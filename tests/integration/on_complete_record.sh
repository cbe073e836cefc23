#!/bin/sh
# An output.on_complete record that cannot be read (a directory where the
# file <spool>/on_complete/<table> should be) stops nothing: kedge says
# which record and why, leaves it out, announces the complete hours with
# the command all the same, and ends with exit 0; each record it cannot
# write is said too.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

$FIX/gen_nginx --records 300 --partitions 1 --seed 61 \
	--start "$(date -u -d '2026-10-01 08:00:00' +%s)" --hours 2 --tz UTC \
	--malformed-permille 0 --out-records "$T/records" \
	--out-expected "$T/expected" --out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:1 --produce "web=$T/records"
mkdir -p "$T/spool/on_complete/access"
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "UTC"; on_complete = [ "true" ]; };
metrics = { enabled = false; };
CONF
run_to_end "$T/k.conf" "$T/run.log" "a run with an unreadable record"
R=$T/spool/on_complete/access
log_lines "$T/run.log" | grep -q "^warning on_complete: cannot read $R: Is a directory; left out: " ||
	die "the unreadable record was not named: $(grep 'on_complete' "$T/run.log" | head -3)"
log_lines "$T/run.log" | grep -q "^warning on_complete: cannot write $R: Is a directory; " ||
	die "the record that cannot be written was not named"
[ "$(log_lines "$T/run.log" | grep -c '^info on_complete: access dt=20261001 hr=0[89] revision 1 .* announced$')" -eq 2 ] ||
	die "the two hours were not announced: $(grep 'on_complete' "$T/run.log")"
check_exactly_once "$T/warehouse" access "$T/expected" "$T/expected-rejects" "$T/spool"
echo "ok: a record that is a directory was named and left out; both hours announced"
