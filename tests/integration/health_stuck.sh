#!/bin/sh
# /health and /ready when the main loop is stuck, as a UDTF that hangs on
# a record holds it: tests/plugins/hold.c waits on the record "hold" for
# as long as a file exists.  With metrics.stall_timeout = 3, both probes
# answer 200 while the loop turns, 503 with "alive" failing ("stuck") once
# it has not turned for 3 s, and `kedge status` exits 1 naming "alive";
# once the file is gone the loop turns again and so do the answers.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -z "$KPID" ] || kill "$KPID" 2>/dev/null; rm -f "$T/hold"; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

command -v python3 >/dev/null || die "python3 is not installed"
mkdir "$T/include"
ln -s "$PWD/agent/udtf" "$T/include/kedge"
${CC:-cc} -std=c11 -shared -fPIC -Wall -Wextra -Werror -I"$T/include" \
	-o "$T/hold.so" tests/plugins/hold.c ||
	die "cannot build tests/plugins/hold.c"

echo first >"$T/first"
echo hold >"$T/held"
mock_start "$T" --topic s:1 --produce "s=$T/first"
PORT=$(free_port)
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "stuck"; };
tables = ( { name = "s"; topics = [ "s" ]; udtf = "plugin:$T/hold.so";
             udtf_config = { hold_file = "$T/hold"; }; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; };
checkpoint = { interval = 1; };
metrics = { listen = "127.0.0.1:$PORT"; stall_timeout = 3; };
CONF

# probe PATH CODE: GET PATH answers CODE; its body in $T/body.
probe() {
	[ "$(curl -s --max-time 3 -o "$T/body" -w '%{http_code}' \
		"http://127.0.0.1:$PORT$1")" = "$2" ]
}

# check NAME OK: the body's check NAME has "ok": OK (true or false).
check() {
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
c = b["checks"][sys.argv[2]]
sys.exit(0 if c["ok"] == (sys.argv[3] == "true") else 1)' "$T/body" "$1" "$2" ||
		die "check $1 is not $2: $(cat "$T/body")"
}

timeout 120 $KEDGE run -c "$T/kedge.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "kedge to be ready" 30 probe /ready 200
check alive true
probe /health 200 || die "/health: $(cat "$T/body")"

wait_for "a status" 10 test -s "$T/spool/status.json"

# the loop stuck on one record
touch "$T/hold"
mock_ctl "$T" produce s "$T/held"
wait_for "/health to say the loop is stuck" 30 probe /health 503
check alive false
grep -q '"detail":"the main loop has not turned for [0-9]* s, over metrics.stall_timeout (3 s): it is stuck"' \
	"$T/body" || die "/health: $(cat "$T/body")"
probe /ready 503 || die "/ready with the loop stuck: $(cat "$T/body")"
check alive false

# status_stuck: kedge status exits 1 and names "alive".
status_stuck() {
	rc=0
	$KEDGE status -c "$T/kedge.conf" >"$T/status" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] && grep -q '^not healthy: alive: the main loop has not turned for' "$T/status"
}
wait_for "kedge status to say the loop is stuck" 30 status_stuck

rm "$T/hold"
wait_for "/health once the loop turns again" 30 probe /health 200
wait_for "/ready once the loop turns again" 30 probe /ready 200
kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/kedge.log"
KPID=
echo "ok: /health, /ready and kedge status said the loop was stuck, and then that it was not"
