#!/bin/sh
# Every key SIGHUP applies, changed alone under load: one kedge, two
# tables (a reading ta, b reading tb), publishing through WebHDFS (the
# protocol fake, so that output.webhdfs.* has a client to change); for
# each key `kedge config-reference` says SIGHUP applies, in its order, 150
# more records go to each topic, the file changes that key alone, SIGHUP
# while kedge reads them, and the log says it applied exactly that key.  A key the binary declares
# reloadable but this test cannot change fails the test: a new one cannot
# be forgotten.  Then one file puts every key back at once.  Then SIGTERM,
# exit 0, and every record of ta under a/ and of tb under b/, exactly once
# (row by row; kedge verify).
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      webhdfs_stop || :; mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

N=4000
START=$(date -u -d '2026-09-14 06:00:00' +%s)
for t in a b; do
	seed=51
	[ "$t" = a ] || seed=52
	$FIX/gen_nginx --records $N --partitions 2 --seed $seed --start "$START" \
		--hours 2 --tz UTC --malformed-permille 10 \
		--out-records "$T/$t.records" --out-expected "$T/$t.expected" \
		--out-rejects "$T/$t.rejects"
	head -n 500 "$T/$t.records" >"$T/$t.first"
	tail -n +501 "$T/$t.records" | split -l 150 -d -a 3 - "$T/$t.chunk."
done
cat "$T/a.rejects" "$T/b.rejects" >"$T/rejects"
mock_start "$T" --topic ta:2 --topic tb:2 --produce "ta=$T/a.first" \
	--produce "tb=$T/b.first"
webhdfs_start "$T/h" --user-allowed kedge
BASE=/warehouse

# The keys SIGHUP applies, as the binary says.
$KEDGE config-reference | awk -F'|' '$5 ~ /^ *applied *$/ {
	gsub(/[` ]/, "", $2); print $2 }' >"$T/keys"
[ -s "$T/keys" ] || die "kedge config-reference names no key SIGHUP applies"

# The value of each key in the file: the first (first_values), then the
# one it changes to (change).
COMBINED='$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\"'
first_values() {
	v_udtf_config='escape = "default";'
	v_ca_file=
	v_connect_timeout=10
	v_timeout=300
	v_max_bytes=134217728
	v_max_age=2
	v_inactive=2
	v_max_open_files=64
	v_max_parked_files=1024
	v_on_complete='"true"'
	v_on_complete_timeout=300
	v_spool_max_bytes=10737418240L
	v_min_free_bytes=0
	v_interval=1
	v_enabled=true
	v_allowed_lateness=300
	v_idle_timeout=600
	v_rescan=600
	v_level=info
	v_format=text
}
first_values

# change KEY: sets the variable of KEY to another value, and SHOWN to how
# the log names the key; fails the test for a key it does not know.
change() {
	SHOWN=$1
	case $1 in
	'tables[].udtf_config')
		# the same keys in another order: a new chain, the same rows
		v_udtf_config="log_format = \"$COMBINED\"; escape = \"default\";"
		SHOWN='tables[a].udtf_config' ;;
	output.webhdfs.ca_file) v_ca_file="ca_file = \"$T/ca.pem\";"
		cp /etc/ssl/certs/ca-certificates.crt "$T/ca.pem" ;;
	output.webhdfs.connect_timeout) v_connect_timeout=5 ;;
	output.webhdfs.timeout) v_timeout=60 ;;
	output.roll.max_bytes) v_max_bytes=1048576 ;;
	output.roll.max_age) v_max_age=3 ;;
	output.roll.inactive) v_inactive=1 ;;
	output.roll.max_open_files) v_max_open_files=8 ;;
	output.roll.max_parked_files) v_max_parked_files=4 ;;
	output.on_complete) v_on_complete='"true", "{table}", "{dt}"' ;;
	output.on_complete_timeout) v_on_complete_timeout=60 ;;
	spool.max_bytes) v_spool_max_bytes=21474836480L ;;
	spool.min_free_bytes) v_min_free_bytes=1024 ;;
	checkpoint.interval) v_interval=2 ;;
	completion.enabled) v_enabled=false ;;
	completion.allowed_lateness) v_allowed_lateness=0 ;;
	completion.idle_timeout) v_idle_timeout=60 ;;
	completion.rescan) v_rescan=60 ;;
	log.level) v_level=notice ;;
	log.format) v_format=json ;;
	*) die "SIGHUP applies $1, which reload_keys.sh does not know how to change: add it" ;;
	esac
}

conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-reload-keys"; };
tables = ( { name = "a"; topics = [ "ta" ]; udtf = "nginx"; event_time = "time_local";
             udtf_config = { $v_udtf_config }; },
           { name = "b"; topics = [ "tb" ]; udtf = "nginx"; event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC";
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$BASE"; auth = "simple";
                       user = "kedge"; $v_ca_file
                       connect_timeout = $v_connect_timeout; timeout = $v_timeout; };
           roll = { max_bytes = $v_max_bytes; max_age = $v_max_age;
                    inactive = $v_inactive; max_open_files = $v_max_open_files;
                    max_parked_files = $v_max_parked_files; };
           on_complete = [ $v_on_complete ];
           on_complete_timeout = $v_on_complete_timeout; };
spool = { max_bytes = $v_spool_max_bytes; min_free_bytes = $v_min_free_bytes; };
checkpoint = { interval = $v_interval; };
completion = { enabled = $v_enabled; allowed_lateness = $v_allowed_lateness;
               idle_timeout = $v_idle_timeout; rescan = $v_rescan; };
log = { level = "$v_level"; format = "$v_format"; };
metrics = { enabled = false; };
CONF
}
conf >"$T/k.conf"

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
# read_at_least N: kedge has read N records; fails the test if it exited.
read_at_least() {
	status_consumed_at_least "$T/spool" "$1" && return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
	return 1
}
wait_for "the first records read" 30 read_at_least 1000

# feed: the next chunk of each topic, if any is left; the reloads come
# while kedge reads it.
next_chunk=0
feed() {
	_c=$(printf '%03d' $next_chunk)
	[ -e "$T/a.chunk.$_c" ] || return 1
	mock_ctl "$T" produce ta "$T/a.chunk.$_c"
	mock_ctl "$T" produce tb "$T/b.chunk.$_c"
	next_chunk=$((next_chunk + 1))
}

# said: kedge's log as "LEVEL message", its lines in text or, while
# log.format is json, in JSON, in the order written.
said() {
	jq -rR 'if startswith("{") then (fromjson? // empty |
	    "\(.level) \(.message)") else (capture("^[^ ]+ (?<l>err|warning|notice|info|debug) (?<m>.*)$") |
	    "\(.l) \(.m)") end' "$T/run.log"
}
# reload WHAT WANT: SIGHUP; the line that ends the reload must be WANT.
ends='^[a-z]* reload: .*\(applied\|nothing to change\|stays\)'
reload_ended() {
	[ "$(said | grep -c "$ends")" -gt "$seen" ]
}
reload() {
	seen=$(said | grep -c "$ends" || :)
	kill -HUP "$KPID"
	wait_for "the reload of $1" 60 reload_ended
	said=$(said | grep "$ends" | tail -1)
	[ "$said" = "$2" ] || die "$1: the reload said \"$said\""
}
all=
while read -r key; do
	change "$key"
	all="$all${all:+, }$SHOWN"
	conf >"$T/k.conf"
	feed || die "too few chunks of records for every key: split them smaller"
	reload "$key changed alone" "notice reload: applied $SHOWN"
done <"$T/keys"
# Every key back at once: the file as kedge started with it.
first_values
conf >"$T/k.conf"
feed || die "too few chunks of records for every key: split them smaller"
reload "every key back" "notice reload: applied $all"
while feed; do :; done
wait_for "every record read" 60 read_at_least $((2 * N))

kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/run.log"
KPID=
check_exactly_once "$WEBHDFS_ROOT$BASE" a "$T/a.expected" "$T/rejects" "$T/spool"
check_exactly_once "$WEBHDFS_ROOT$BASE" b "$T/b.expected" "$T/rejects" "$T/spool"
echo "ok: $(wc -l <"$T/keys") keys SIGHUP applies, each changed alone under load" \
	"and applied, then all back in one reload; every row in its own table, exactly once"
