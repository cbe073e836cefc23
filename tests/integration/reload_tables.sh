#!/bin/sh
# SIGHUP matches the tables of the file read again to the running ones by
# name, never by their place in the file:
#  - two tables, a (topic ta) and b (topic tb), swapped in the file, with
#    a's udtf_config changed (the same UDTF keys in another order): the
#    reload applies tables[a].udtf_config to a, and the records that come
#    after it land each in its own table;
#  - a file that also changes what cannot change while kedge runs (b's
#    topics, a table added) is refused whole: the log names each key by
#    its table's name, and nothing of the file is applied (its log.level
#    debug neither);
#  - SIGTERM ends it with exit 0, every record of ta under a/ and of tb
#    under b/, exactly once.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-05-01 00:00:00' +%s)
for t in a b; do
	seed=21
	[ "$t" = a ] || seed=22
	$FIX/gen_nginx --records 3000 --partitions 2 --seed $seed --start "$START" \
		--hours 1 --tz UTC --malformed-permille 10 \
		--out-records "$T/$t.records" --out-expected "$T/$t.expected" \
		--out-rejects "$T/$t.rejects"
	head -n 1000 "$T/$t.records" >"$T/$t.first"
	tail -n +1001 "$T/$t.records" >"$T/$t.rest"
done
cat "$T/a.rejects" "$T/b.rejects" >"$T/rejects"
mock_start "$T" --topic ta:2 --topic tb:2 --produce "ta=$T/a.first" \
	--produce "tb=$T/b.first"

COMBINED='$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\"'
# table NAME TOPICS [UDTF_CONFIG]
table() {
	_cfg=
	[ -z "${3:-}" ] || _cfg="udtf_config = { $3 };"
	printf '{ name = "%s"; topics = [ %s ]; udtf = "nginx"; event_time = "time_local"; %s }' \
		"$1" "$2" "$_cfg"
}
# conf LEVEL TABLE...
conf() {
	_level=$1
	shift
	printf 'kafka = { brokers = "%s"; group_id = "kedge-reload-tables"; };\n' "$BOOTSTRAP"
	printf 'tables = ( %s' "$1"
	shift
	for _t; do printf ',\n  %s' "$_t"; done
	printf ' );\n'
	cat <<CONF
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           roll = { max_age = 2; inactive = 2; }; };
checkpoint = { interval = 1; };
log = { level = "$_level"; };
metrics = { enabled = false; };
CONF
}
A=$(table a '"ta"' 'escape = "default";')
B=$(table b '"tb"')
conf info "$A" "$B" >"$T/k.conf"

# reload: SIGHUP, then waits for the line that ends the reload, and sets
# RELOAD to it ("LEVEL message", as log_lines writes it).
RELOAD_END='^[a-z]* reload: .*\(applied\|nothing to change\|stays\)'
reload_ends() {
	log_lines "$T/run.log" | grep "$RELOAD_END"
}
reload_ended() {
	[ "$(reload_ends | wc -l)" -gt "$_seen" ]
}
reload() {
	_seen=$(reload_ends | wc -l)
	kill -HUP "$KPID"
	wait_for "the reload to end" 30 reload_ended
	RELOAD=$(reload_ends | tail -1)
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
# read_at_least N: kedge has read N records, or fails the test if it exited.
read_at_least() {
	status_consumed_at_least "$T/spool" "$1" && return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
	return 1
}
wait_for "the first records read" 30 read_at_least 2000

# Swapped, and a's UDTF keys in another order: a change of a alone.
A2=$(table a '"ta"' "log_format = \"$COMBINED\"; escape = \"default\";")
conf info "$B" "$A2" >"$T/k.conf"
reload
[ "$RELOAD" = 'notice reload: applied tables[a].udtf_config' ] ||
	die "the swap and a's udtf_config: $(grep 'reload: ' "$T/run.log")"

mock_ctl "$T" produce ta "$T/a.rest"
mock_ctl "$T" produce tb "$T/b.rest"
wait_for "every record read" 60 read_at_least 6000

# What cannot change while kedge runs: refused whole.
C=$(table c '"tc"')
B2=$(table b '"tb", "ta"')
conf debug "$B2" "$A2" "$C" >"$T/k.conf"
reload
case $RELOAD in
"err reload: kafka.topics, tables[b].topics, tables[c] (added) changed, which kedge"*"the running configuration stays"*) ;;
*) die "a reload that needs a restart said: $RELOAD" ;;
esac
! log_lines "$T/run.log" | grep -q '^debug ' || die "a refused reload applied log.level debug"

kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
check_exactly_once "$T/warehouse" a "$T/a.expected" "$T/rejects" "$T/spool"
check_exactly_once "$T/warehouse" b "$T/b.expected" "$T/rejects" "$T/spool"
echo "ok: tables matched by name through a swap, a change that needs a" \
	"restart refused whole; $CHECK_ROWS rows in b, every row in its own table"
