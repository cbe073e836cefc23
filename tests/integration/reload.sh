#!/bin/sh
# SIGHUP, as `systemctl reload kedge` sends it, with $NOTIFY_SOCKET set:
#  - with a roll policy of 15 minutes nothing lands while kedge runs; a
#    reload that shortens it to 2 s makes the files land, and one that
#    raises log.level to debug makes debug lines appear: applied without a
#    restart, between RELOADING=1 and READY=1;
#  - a file with a mistake changes nothing: kedge says why, keeps running
#    with the configuration it has, and keeps landing records;
#  - a file that changes a key that needs a restart (kafka.brokers) is
#    refused: the key is named in the log, nothing of the file applied;
#  - so is one whose new parts cannot be built (a publisher with
#    output.on_complete, whose directory a plain file holds): the running
#    publisher goes on;
#  - SIGTERM ends it with exit 0, every record exactly once.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :; notify_stop; mock_stop; rm -rf "$T"' EXIT
notify_start "$T"

START=$(date -u -d '2026-04-01 00:00:00' +%s)
$FIX/gen_nginx --records 6000 --partitions 2 --seed 8 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n 2000 "$T/records" >"$T/first"
tail -n +2001 "$T/records" >"$T/rest"
mock_start "$T" --topic web:2 --produce "web=$T/first"

# conf MAX_AGE LEVEL BROKERS [OUTPUT]: the file kedge reads, and reads
# again; OUTPUT: more keys of the output group.
conf() {
	cat <<CONF
kafka = { brokers = "$3"; group_id = "kedge-reload"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           roll = { max_age = $1; inactive = $1; }; ${4:-} };
checkpoint = { interval = 1; };
log = { level = "$2"; };
metrics = { enabled = false; };
CONF
}
conf 900 info "$BOOTSTRAP" >"$T/k.conf"

# reload: SIGHUP, then RELOADING=1 and READY=1 once more.
reload() {
	_ready=$(notify_count READY=1)
	kill -HUP "$KPID"
	wait_for "READY=1 after the reload" 20 \
		sh -c "[ \$(grep -c ' READY=1\$' '$NOTIFY_LOG') -gt $_ready ]"
	notify_got RELOADING=1 || die "no RELOADING=1"
}

NOTIFY_SOCKET=$T/notify.sock $KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
wait_for "READY=1" 30 notify_got READY=1
wait_for "the first records read" 30 grep -qs "^consumed 2000 records" "$T/spool/status"
# the files stay open for 15 minutes: nothing has landed
[ "$(landed_count "$T/warehouse")" -eq 0 ] || die "files landed before the reload"
! log_lines "$T/run.log" | grep -q '^debug ' || die "debug lines at level info"

conf 2 debug "$BOOTSTRAP" >"$T/k.conf"
reload
grep -q "reload: applied output.roll.max_age, output.roll.inactive, log.level$" "$T/run.log" ||
	die "reload said: $(grep 'reload' "$T/run.log")"
wait_for "files to land with the new roll policy" 30 \
	sh -c "[ \$(find '$T/warehouse/access' -name '.*.json' | wc -l) -gt 0 ]"
debug_logged() {
	log_lines "$T/run.log" | grep -q '^debug '
}
wait_for "debug lines" 10 debug_logged

# A mistake: nothing changes, kedge goes on.
cp "$T/k.conf" "$T/good.conf"
printf 'output = { roll = { max_age = "soon"; }; };\n' >>"$T/k.conf"
reload
log_lines "$T/run.log" | grep -q "^err reload: $T/k.conf:[0-9]*: .*; the running configuration stays" ||
	die "reload of a bad file said: $(grep 'reload' "$T/run.log" | tail -2)"
kill -0 "$KPID" || die "kedge stopped on a bad reload"

# A change that needs a restart: named, and nothing of the file applied.
conf 2 debug "127.0.0.1:1" >"$T/k.conf"
reload
log_lines "$T/run.log" | grep -q "^err reload: kafka.brokers changed, which kedge cannot apply while it runs: nothing of $T/k.conf is applied, the running configuration stays; restart kedge to apply it$" ||
	die "reload said: $(grep 'reload' "$T/run.log" | tail -2)"

# A file whose new publisher cannot start (output.on_complete, while
# <spool>/on_complete is a plain file): nothing of it applied, not its
# log level either; the publisher that ran goes on.
: >"$T/spool/on_complete"
conf 2 info "$BOOTSTRAP" 'on_complete = [ "true" ];' >"$T/k.conf"
reload
log_lines "$T/run.log" | grep -q "^err reload: the publisher cannot start with it: cannot create $T/spool/on_complete: .*; nothing of $T/k.conf is applied, the running configuration stays$" ||
	die "reload said: $(grep 'reload' "$T/run.log" | tail -2)"
refused_at=$(log_lines "$T/run.log" | wc -l)

# Still consuming from the brokers it had, with the roll policy it got.
feed_start "$T" web "$T/rest" 2000 0.5
feed_wait "$T"
wait_for "every record landed" 60 sh -c \
	"[ \$(find '$T/warehouse' -name '.*.json' -exec cat {} + | grep -o '\"rows\":[0-9]*' | awk -F: '{ n += \$2 } END { print n + 0 }') -eq 6000 ]"
log_lines "$T/run.log" | tail -n +"$refused_at" | grep -q '^debug ' ||
	die "no debug line after the refused reload: its log.level was applied"
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
check_exactly_once "$T/warehouse" access "$T/expected" "$T/expected-rejects" "$T/spool"
echo "ok: a reload applied the roll policy and the log level, refused a bad file," \
	"refused one that needs a restart; $CHECK_ROWS rows, $CHECK_REJECTS rejects"
