#!/bin/sh
# /health, /ready and `kedge status` in each state of a daemon, each
# answer's JSON read by a JSON reader:
#   - never run: kedge status exits 3 (LSB: not running);
#   - brokers that do not answer: /health 200 (the loop turns; in every
#     state below too, but health_stuck.sh's), /ready 503
#     naming "started", "brokers" and "assigned"; kedge status exits 1
#     naming them; stopped, kedge status exits 3;
#   - consuming: /ready 200, every check passing; kedge status exits 0,
#     and --json says healthy;
#   - the target unwritable (its table's directory a file): /ready 503
#     naming "publishing" with the target's sentence, kedge status exits 1
#     naming it; writable again, both pass once more.
# (health_stuck.sh holds the main loop; lag_assigned.sh holds consumption.)
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -z "$KPID" ] || kill "$KPID" 2>/dev/null; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

command -v python3 >/dev/null || die "python3 is not installed"
seq 1 2000 >"$T/first"
seq 2001 2100 >"$T/second"
seq 2101 2200 >"$T/third"
mock_start "$T" --topic t:2 --produce "t=$T/first"
PORT=$(free_port)

# conf NAME BROKERS: writes $T/NAME.conf.
conf() {
	cat >"$T/$1.conf" <<CONF
kafka = { brokers = "$2"; group_id = "health"; };
tables = ( { name = "t"; topics = [ "t" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool-$1"; local_dir = "$T/out";
           roll = { inactive = 1; max_age = 2; }; };
checkpoint = { interval = 1; };
metrics = { listen = "127.0.0.1:$PORT"; };
CONF
}
conf down 127.0.0.1:1
conf up "$BOOTSTRAP"

# probe PATH CODE: GET PATH answers CODE; its body in $T/body.
probe() {
	[ "$(curl -s --max-time 3 -o "$T/body" -w '%{http_code}' \
		"http://127.0.0.1:$PORT$1")" = "$2" ]
}

# checks_are FILE WANT: the JSON in FILE has "ok" (or "healthy") WANT and
# exactly the failing checks named in WANT's list: "true", or "false
# NAME...".  checks FILE WANT: the same, or the test fails.
checks_are() {
	python3 - "$@" <<'PY' 2>/dev/null
import json, sys
doc = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
ok = doc["ok"] if "ok" in doc else doc["healthy"]
failing = sorted(n for n, c in doc["checks"].items() if not c["ok"])
assert all(isinstance(c["detail"], str) and c["detail"]
           for c in doc["checks"].values()), doc
sys.exit(0 if ok == (want[0] == "true") and failing == sorted(want[1:])
         else 1)
PY
}

checks() {
	checks_are "$@" || die "$1 is not as wanted ($2): $(cat "$1")"
}

# ready_says WANT: /ready's checks are WANT (checks_are).
ready_says() {
	curl -s --max-time 3 -o "$T/body" "http://127.0.0.1:$PORT/ready" &&
		checks_are "$T/body" "$1"
}

# status CONF RC: kedge status -c CONF exits RC; its output in $T/status.
status() {
	_rc=0
	$KEDGE status -c "$1" >"$T/status" 2>&1 || _rc=$?
	[ "$_rc" -eq "$2" ]
}

status "$T/up.conf" 3 || die "kedge status before any run: $(cat "$T/status")"

# --- brokers that do not answer ------------------------------------------
timeout 120 $KEDGE run -c "$T/down.conf" 2>"$T/down.log" &
KPID=$!
wait_for "/health" 20 probe /health 200
checks "$T/body" true
wait_for "/ready to say what is missing" 20 ready_says \
	"false started brokers assigned"
probe /ready 503 || die "/ready with no broker: $(cat "$T/body")"
grep -q '"assigned":{"ok":false,"detail":"no partition is assigned"}' "$T/body" ||
	die "/ready: $(cat "$T/body")"
wait_for "kedge status to exit 1" 20 status "$T/down.conf" 1
for c in started brokers assigned; do
	grep -q "^not healthy: $c: " "$T/status" || die "status names no $c: $(cat "$T/status")"
done
grep -q '^assigned: no partition; reading nothing$' "$T/status" ||
	die "status: $(cat "$T/status")"
$KEDGE status -c "$T/down.conf" --json >"$T/status.json" && die "--json exits 0"
checks "$T/status.json" "false started brokers assigned"
kill -TERM "$KPID"
stopped_cleanly "kedge without brokers" "$KPID" "$T/down.log"
KPID=
status "$T/down.conf" 3 || die "kedge status once stopped: $(cat "$T/status")"
grep -q '^not running; its last status:$' "$T/status" || die "status: $(cat "$T/status")"

# --- consuming -----------------------------------------------------------
timeout 120 $KEDGE run -c "$T/up.conf" 2>"$T/up.log" &
KPID=$!
wait_for "/ready" 30 probe /ready 200
checks "$T/body" true
probe /health 200 || die "/health while consuming: $(cat "$T/body")"
checks "$T/body" true
wait_for "kedge status to exit 0" 20 status "$T/up.conf" 0
grep -q '^healthy: every check passes$' "$T/status" || die "status: $(cat "$T/status")"
$KEDGE status -c "$T/up.conf" --json >"$T/status.json" ||
	die "kedge status --json: $(cat "$T/status.json")"
checks "$T/status.json" true
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["running"] is True and d["assigned"] == {"t": 2}, d
assert d["tables"][0]["name"] == "t", d' "$T/status.json" ||
	die "status --json: $(cat "$T/status.json")"

# --- the target unwritable -----------------------------------------------
wait_for "a part file to land" 30 sh -c "find '$T/out/t' -type f | grep -q ."
mv "$T/out/t" "$T/t.kept"
: >"$T/out/t"
mock_ctl "$T" produce t "$T/second"
wait_for "/ready to say publishing fails" 60 probe /ready 503
checks "$T/body" "false publishing"
grep -q '"publishing":{"ok":false,"detail":"failing: .*out/t' "$T/body" ||
	die "/ready: $(cat "$T/body")"
wait_for "kedge status to name publishing" 20 status "$T/up.conf" 1
probe /health 200 || die "/health while publishing fails: $(cat "$T/body")"
grep -q '^not healthy: publishing: failing: ' "$T/status" || die "status: $(cat "$T/status")"
rm "$T/out/t"
mv "$T/t.kept" "$T/out/t"
mock_ctl "$T" produce t "$T/third"
wait_for "/ready once the target is writable" 90 probe /ready 200
checks "$T/body" true
kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/up.log"
KPID=
[ "$(landed_count "$T/out")" -eq 2200 ] || die "landed $(landed_count "$T/out") rows, want 2200"
echo "ok: /health, /ready and kedge status (3, 1, 0) in each state, with the checks named"
