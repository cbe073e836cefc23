#!/bin/sh
# output.on_complete (docs/completion.md), on the real binary and a mock
# topic whose records span hours of the past, with a command
# (on_complete.d/record.sh) that records its calls:
#  (a) each complete hour is announced once, with its placeholders in the
#      arguments and the same in KEDGE_*, and the manifest's row count; a
#      run with nothing new announces nothing;
#  (b) late rows that make an hour's revision 2 give one more call, with
#      revision 2;
#  (c) a command that fails twice, then succeeds, is tried three times,
#      its exit status and last stderr line logged, and recorded once;
#  (d) a command that hangs is killed at output.on_complete_timeout, its
#      process group with it, and tried again;
#  (m) the metrics count the runs by result, scraped while kedge runs;
#  (s) an hour whose _SUCCESS a crash kept from being written gets it on
#      the next start, without a second call;
#  (e) kill -9 at pseudo-random moments, late rows between the rounds,
#      then a clean run: every revision of every hour is announced at
#      least once, and none that kedge had recorded as done before a
#      restart is announced after it.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
HOOK=$(pwd)/tests/integration/on_complete.d/record.sh
export HOOK_DIR="$T/hook"
mkdir -p "$HOOK_DIR"
echo ok >"$HOOK_DIR/mode"

NOW=$(date -u +%s)
HOUR0=$(( (NOW / 3600 - 5) * 3600 ))
$FIX/gen_nginx --records 3000 --partitions 2 --seed 23 --start "$HOUR0" \
	--hours 3 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
$FIX/gen_nginx --records 3000 --partitions 2 --seed 29 --start "$HOUR0" \
	--hours 3 --tz UTC --malformed-permille 0 \
	--out-records "$T/records-e" --out-expected "$T/expected-e" \
	--out-rejects "$T/expected-rejects-e"
mock_start "$T" --topic access:2 --topic burst:2 --produce "access=$T/records" \
	--produce "burst=$T/records-e"

# conf NAME TOPIC TIMEOUT GROUP [METRICS]: table access reading TOPIC into
# $T/NAME.
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; $4
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "$2" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool-$1"; local_dir = "$T/$1"; timezone = "UTC";
           on_complete = [ "$HOOK", "{table}", "dt={dt}/hr={hr}",
                           "{revision}", "{rows}", "{path}", "{unknown",
                           "{}" ];
           on_complete_timeout = $3; roll = { inactive = 1; }; };
checkpoint = { interval = 1; };
completion = { allowed_lateness = 0; };
metrics = { ${5:-enabled = false;} };
CONF
}

# run NAME RUN: one kedge run of $T/NAME.conf to the end, as run RUN.
run() {
	RUN=$2 timeout 120 $KEDGE run -c "$T/$1.conf" --exit-at-end \
		2>"$T/$1.$2.log" ||
		die "kedge failed: $(log_lines "$T/$1.$2.log" | grep '^err ' | head -3)"
}

# manifests DIR: the call each manifest under DIR/access should give,
# "access dt=D/hr=H REVISION ROWS PATH {unknown {}", one a line, sorted.
manifests() {
	find "$1/access" -name _MANIFEST.json | sort | while read -r m; do
		h=$(dirname "$m")
		dt=$(basename "$(dirname "$h")")
		hr=$(basename "$h")
		rev=$(grep -o '"revision":[0-9]*' "$m" | head -1 | cut -d: -f2)
		rows=$(grep -o '"rows":[0-9]*' "$m" | head -1 | cut -d: -f2)
		[ -e "$h/_SUCCESS" ] || die "no _SUCCESS beside $m"
		echo "access $dt/$hr $rev $rows $h {unknown {}"
	done
}

# calls RUN: the arguments of each call of run RUN, sorted; every call's
# KEDGE_* variables must say what its arguments say.
calls() {
	grep "^start $1 | " "$HOOK_DIR/calls" | while IFS='|' read -r _ args env; do
		set -- $args
		dt=${2%%/*}
		e="$1 ${dt#dt=} ${2##*hr=} $3 $4 $5"
		[ "$e" = "$(echo $env)" ] || die "arguments $args, variables $env"
		echo $args
	done | sort
}

# --- (a) every complete hour once, with the manifest's rows
conf a access 30 'group_id = "kedge-oc-a";' >"$T/a.conf"
run a a1
grep -q 'complete: [0-9]* hour(s) got a new manifest' "$T/a.a1.log" ||
	die "no manifest written"
manifests "$T/a" >"$T/want"
[ "$(wc -l <"$T/want")" -ge 3 ] || die "fewer than 3 complete hours: $(cat "$T/want")"
grep -q ' 1 ' "$T/want" || die "no revision 1: $(cat "$T/want")"
calls a1 >"$T/got"
same_or_die "$T/want" "$T/got" "the calls of the first run are not one per complete hour"
[ "$(grep -c '^ok a1 ' "$HOOK_DIR/calls")" -eq "$(wc -l <"$T/want")" ] ||
	die "not every call of the first run succeeded"
run a a2
[ -z "$(calls a2)" ] || die "a run with nothing new announced: $(calls a2)"

# late rows for hour N of $T/want, as records of topic access
late() {
	first=$(sed -n "${1}p" "$T/want" | cut -d' ' -f2)
	start=$(date -u -d "$(echo "$first" | sed 's|dt=\(....\)\(..\)\(..\)/hr=\(..\)|\1-\2-\3 \4:00:00|')" +%s)
	$FIX/gen_nginx --records 200 --partitions 2 --seed "$2" --start "$start" \
		--hours 1 --tz UTC --malformed-permille 0 \
		--out-records "$T/late.$2" --out-expected "$T/late-expected.$2" \
		--out-rejects "$T/late-rejects.$2"
	mock_ctl "$T" produce access "$T/late.$2"
}

# check_new RUN TRIES: the calls of run RUN are one for each revision
# that is new since $T/before, each tried TRIES times and succeeding once
# (late rows also land in the hour before the one they are for: records
# come a little out of order).
check_new() {
	manifests "$T/a" >"$T/after"
	comm -13 "$T/before" "$T/after" >"$T/new"
	grep -q " $first [2-9] " "$T/new" ||
		die "run $1: no new revision of $first: $(cat "$T/new")"
	calls "$1" >"$T/got-$1"
	uniq "$T/got-$1" >"$T/got1-$1"
	same_or_die "$T/new" "$T/got1-$1" "run $1: other calls than one per new revision"
	[ "$(uniq -c "$T/got-$1" | awk '{ print $1 }' | sort -u)" = "$2" ] ||
		die "run $1: not $2 tries of each: $(uniq -c "$T/got-$1")"
	[ "$(grep -c "^ok $1 " "$HOOK_DIR/calls")" -eq "$(wc -l <"$T/new")" ] ||
		die "run $1: not one success per new revision"
	mv "$T/after" "$T/before"
}
cp "$T/want" "$T/before"

# --- (b) late rows: revision 2 of that hour, one call
late 1 101
run a b
check_new b 1

# --- (c) fails twice, then succeeds: three tries, recorded once
echo fail2 >"$HOOK_DIR/mode"
late 2 102
run a c
check_new c 3
hour=$(echo "$first" | sed 's|/| |')
grep -q "on_complete: access $hour revision 2: exit status 3; last stderr line \"boom 0\"; try 1 failed, the next in 1 s" "$T/a.c.log" ||
	die "the failure is not logged: $(grep on_complete "$T/a.c.log" | head -3)"
grep -q "on_complete: access $hour revision 2: exit status 3; last stderr line \"boom 1\"; try 2 failed, the next in 2 s" "$T/a.c.log" ||
	die "the second failure is not logged with its backoff"
grep -q "^done $(echo "${hour#dt=}" | sed 's|hr=||') 2 " "$T/spool-a/on_complete/access" ||
	die "not recorded: $(cat "$T/spool-a/on_complete/access")"
run a c2
[ -z "$(calls c2)" ] || die "a revision that succeeded was announced again"

# --- (d) a hanging command: killed at the timeout, then tried again
echo hang >"$HOOK_DIR/mode"
conf a access 2 'group_id = "kedge-oc-a";' >"$T/a.conf"
late 3 103
run a d
check_new d 2
grep -q "on_complete: access $(echo "$first" | sed 's|/| |') revision 2: timed out after 2 s, its process group killed" "$T/a.d.log" ||
	die "the timeout is not logged: $(grep on_complete "$T/a.d.log" | head -3)"
! pgrep -x -f "sleep 987" >/dev/null || die "the hung command's child survived"

# --- (m) the metrics, scraped while kedge runs: each new revision tried
# three times (two failures), none left pending
echo fail2 >"$HOOK_DIR/mode"
PORT=$(free_port)
conf a access 30 'group_id = "kedge-oc-a";' \
	"enabled = true; listen = \"127.0.0.1:$PORT\";" >"$T/a.conf"
late 1 104
RUN=m $KEDGE run -c "$T/a.conf" 2>"$T/a.m.log" &
KPID=$!
value() {
	awk -v s="$1" '$1 == s { print $2 }' "$T/scrape"
}
announced() {
	curl -fs --max-time 3 -o "$T/scrape" "http://127.0.0.1:$PORT/metrics" &&
		[ "$(value 'kedge_on_complete_runs_total{table="access",result="ok"}')" -ge 1 ] &&
		[ "$(value 'kedge_on_complete_pending{table="access"}')" = 0 ]
}
wait_for "the metrics of the announcements" 60 announced
ok=$(value 'kedge_on_complete_runs_total{table="access",result="ok"}')
[ "$(value 'kedge_on_complete_runs_total{table="access",result="failed"}')" -eq $((2 * ok)) ] &&
	[ "$(value 'kedge_on_complete_runs_total{table="access",result="timeout"}')" -eq 0 ] ||
	die "metrics: $(grep kedge_on_complete "$T/scrape")"
kill "$KPID"
wait "$KPID" || die "kedge did not stop cleanly: $(tail -3 "$T/a.m.log")"
KPID=
manifests "$T/a" >"$T/before"
conf a access 2 'group_id = "kedge-oc-a";' >"$T/a.conf"

# --- (s) a crash between the manifest and _SUCCESS: written at the next
# start, and no second call
echo ok >"$HOOK_DIR/mode"
sdir=$(sed -n 1p "$T/want" | cut -d' ' -f5)
rm "$sdir/_SUCCESS"
run a s
[ -e "$sdir/_SUCCESS" ] || die "_SUCCESS is not written again"
[ -z "$(calls s)" ] || die "the hour was announced again: $(calls s)"
out=$($KEDGE verify "$T/a") || die "verify: $out"

# --- (e) kill -9 at pseudo-random moments, late rows between the rounds
echo slow >"$HOOK_DIR/mode"
conf e burst 30 '' >"$T/e.conf"
REC="$T/spool-e/on_complete/access"
random_delays "${KEDGE_CRASH_SEED:-20261201}" 5 1 6 >"$T/delays-e"
# start_e: late rows for one of the hours (not in the first round), then
# this round's kedge; its round i counts from 1.
start_e() {
	i=$((ROUND + 1))
	if [ $i -gt 1 ]; then
		h=$(( (i % 3) + 1 ))
		first=$(sed -n "${h}p" "$T/want" | cut -d' ' -f2)
		start=$(date -u -d "$(echo "$first" | sed 's|dt=\(....\)\(..\)\(..\)/hr=\(..\)|\1-\2-\3 \4:00:00|')" +%s)
		$FIX/gen_nginx --records 100 --partitions 2 --seed $((200 + i)) \
			--start "$start" --hours 1 --tz UTC --malformed-permille 0 \
			--out-records "$T/burst.$i" --out-expected "$T/burst-e.$i" \
			--out-rejects "$T/burst-r.$i"
		mock_ctl "$T" produce burst "$T/burst.$i"
	fi
	ROUND_LOG=$T/e.e$i.log
	RUN=e$i $KEDGE run -c "$T/e.conf" 2>"$ROUND_LOG" &
	KPID=$!
}
# done_e: what this round's kedge recorded as done.
done_e() {
	grep '^done ' "$REC" 2>/dev/null >"$T/done.$i" || :
	echo "round $i: killed after $DELAY s; $(wc -l <"$T/done.$i") hour(s) done"
}
kill_rounds kedge 5 5 "$T/delays-e" "$T/rounds-e" start_e done_e
run e efinal
# what a round had recorded as done is never announced after it
for k in $(seq 1 $i); do
	while read -r _ dt hr rev _; do
		for later in $(seq $((k + 1)) $i) final; do
			! grep -q "^start e$later | access dt=$dt/hr=$hr $rev " \
				"$HOOK_DIR/calls" ||
				die "dt=$dt/hr=$hr revision $rev, done after round $k, was announced again in run e$later"
		done
	done <"$T/done.$k"
done
# every revision of every hour was announced, and succeeded, at least once
manifests "$T/e" | while read -r _ hour rev rows _; do
	for r in $(seq 1 "$rev"); do
		grep -q "^ok e[0-9a-z]* $(echo "${hour#dt=}" | sed 's|/hr=| |') $r\$" "$HOOK_DIR/calls" ||
			die "$hour revision $r was never announced"
	done
	[ -n "$(grep "^start e[0-9a-z]* | access $hour $rev $rows " "$HOOK_DIR/calls")" ] ||
		die "$hour revision $rev was not announced with its $rows rows"
done
revs=$(manifests "$T/e" | awk '{ n += $3 } END { print n }')
[ "$(grep -c '^pending' "$REC" || :)" -eq 0 ] || die "left pending: $(grep ^pending "$REC")"
out=$($KEDGE verify "$T/e") || die "verify: $out"
echo "ok: $(wc -l <"$T/want") hours announced once each; revision 2 announced;" \
	"3 tries of a failing command, 2 of a hanging one; after $i kill -9" \
	"rounds, $revs revision(s) announced, none recorded done announced again"
