#!/bin/sh
# What kedge run writes on stderr, one line per event:
#  - outside journald (and with a JOURNAL_STREAM inherited from elsewhere,
#    not naming stderr) each line is the time (RFC 3339, milliseconds, the
#    offset), a level and the message, and no <N> prefix;
#  - a table's slowest records are one line at the stop, the slowest with
#    how many were kept, the same record `kedge status` lists first;
#  - SIGHUP to log.format = "json" and log.level = "debug": from then on
#    one JSON object a line (read back with python3's json), the slow
#    records at debug level each with its table, topic, partition and
#    offset as fields, the summary and the table's counts with the same
#    facts as their messages;
#  - under journald (JOURNAL_STREAM naming stderr) the <N> priority and
#    the message alone (broker_down.sh: a closed port).
set -eu
. tests/lib.sh

command -v python3 >/dev/null || die "python3 is needed to read the JSON lines"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null; mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-05-01 00:00:00' +%s)
$FIX/gen_nginx --records 3000 --partitions 2 --seed 12 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"

# conf LEVEL FORMAT: static assignment, so each run reads every record.
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "web"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "UTC"; };
log = { level = "$1"; format = "$2"; };
metrics = { enabled = false; };
CONF
}
conf info text >"$T/k.conf"

# A JOURNAL_STREAM that names another file than stderr is not journald.
: >"$T/elsewhere"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/elsewhere") \
	$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "every record read" 60 status_consumed_at_least "$T/spool" 3000

[ -s "$T/run.log" ] || die "kedge logged nothing"
! grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}[+-][0-9][0-9]:[0-9][0-9] \(err\|warning\|notice\|info\|debug\) [^ ]' \
	"$T/run.log" >&2 || die "lines without the time and the level (above)"
! grep -q '<[0-7]>' "$T/run.log" || die "a <N> prefix outside journald"

conf debug json >"$T/k.conf"
kill -HUP "$KPID"
wait_for "the reload" 20 grep -q '"message":"reload: applied log.level, log.format"' \
	"$T/run.log"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(tail -3 "$T/run.log")"

rc=0
$KEDGE status -c "$T/k.conf" >"$T/status" || rc=$?
[ "$rc" -eq 3 ] || die "kedge status of a stopped daemon exited $rc, not 3"
slowest=$(sed -n 's/^table web: slow record \(.*\)/\1/p' "$T/status" | head -1)
[ -n "$slowest" ] || die "status lists no slow record: $(cat "$T/status")"

# Every line after the reload is one JSON object; the slow records and
# their summary carry their facts as fields.
sed -n '/"message":"reload: applied/,$p' "$T/run.log" >"$T/json.log"
python3 - "$T/json.log" "$slowest" <<'PY' || die "the JSON lines (above)"
import json, re, sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
time_re = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$")
levels = {"err", "warning", "notice", "info", "debug"}
objs = []
for line in lines:
    o = json.loads(line)
    assert isinstance(o, dict), line
    assert time_re.match(o["time"]) and o["level"] in levels, line
    assert isinstance(o["message"], str), line
    objs.append(o)
slow = [o for o in objs if o["message"].startswith("table web: slow record ")]
summary = [o for o in objs if o["message"].startswith("table web: slowest record ")]
assert len(slow) == 10, "%d slow record lines, want 10" % len(slow)
assert len(summary) == 1, "%d summaries, want 1" % len(summary)
for o in slow + summary:
    words = "%s [%d] offset %d: %d ns" % (o["topic"], o["partition"],
                                          o["offset"], o["ns"])
    assert o["table"] == "web" and words in o["message"], o
assert all(o["level"] == "debug" for o in slow), slow
s = summary[0]
assert s["level"] == "info" and s["slow_records"] == 10, s
assert s["ns"] == max(o["ns"] for o in slow), s
assert s["message"].startswith("table web: slowest record " + sys.argv[2] +
                               " ("), (s["message"], sys.argv[2])
t = [o for o in objs if o["message"].startswith("table web: 3000 records, ")]
assert len(t) == 1 and t[0]["level"] == "notice", t
assert t[0]["table"] == "web" and t[0]["records"] == 3000, t[0]
assert ("%d rows, %d rejects," % (t[0]["rows"], t[0]["rejects"])) in t[0]["message"], t[0]
PY
[ "$(grep -c 'slow record' "$T/run.log")" -eq 11 ] ||
	die "slow record lines besides the JSON ones: $(grep 'slow record' "$T/run.log" | head -3)"
echo "ok: text lines with time and level, then $(wc -l <"$T/json.log") JSON lines after a reload; one slow-record summary"
