#!/bin/sh
# The faults of webhdfs_faults.sh that the real NameNode cannot be made to
# produce on demand, against the real NameNode all the same: kedge
# publishes over WebHDFS with SPNEGO from its keytab to the real HDFS of
# tests/real/up, through tests/real/hdfs-proxy (which forwards every
# request to the NameNode, answers unchanged, and injects the faults), while
# the topic is fed, and the proxy, one fault after the other:
#   - loses the answers of three RENAMEs of part files that the NameNode
#     performed (closes the connection without a byte): kedge must find
#     the file in place and go on, without a second copy and without
#     counting an error;
#   - answers the next six requests, whichever they are, 503 with a
#     RetriableException (what a gateway in front, or the protocol fake,
#     answers);
#   - answers the next four GETFILESTATUS 403 with the same
#     RetriableException: how Hadoop's NameNode itself answers one.
# kedge retries each, warns once a try and counts it.  Then every record
# has landed exactly once (read back from the NameNode with curl
# --negotiate, row by row; `kedge verify` of the copy and of the URL), no
# temporary file is left, the spool is empty, and the proxy's log shows
# that every armed fault was hit.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
PROXY_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || :
      real_hdfs_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

real_hdfs "$T"
began=$(date +%s)
DIR=$HDFS_BASE/proxy-$(hdfs_rnd)
hdfs_me khproxy "$T/k.keytab" "$DIR"

tests/real/hdfs-proxy --upstream "$WEBHDFS_URL" --ready-file "$T/proxy.ready" \
	--log "$T/proxy.log" 2>"$T/proxy.err" &
PROXY_PID=$!
proxy_ready() {
	kill -0 "$PROXY_PID" 2>/dev/null ||
		die "tests/real/hdfs-proxy exited: $(tail -3 "$T/proxy.err")"
	[ -s "$T/proxy.ready" ]
}
wait_for "the proxy to serve" 20 proxy_ready
PROXY_URL=$(sed -n 's/^url=//p' "$T/proxy.ready")
# proxy COMMAND: arms a fault; armed once it answers.
proxy() {
	curl -sS --fail-with-body --max-time 10 --data-binary "$1" \
		"$PROXY_URL/proxy-control" >"$T/proxy.ctl" 2>&1 ||
		die "proxy $1: $(cat "$T/proxy.ctl")"
}
# SPNEGO through the proxy: the ticket is for HTTP/localhost, the
# NameNode's.
hdfs_curl "$PROXY_URL" GET "$DIR" op=GETFILESTATUS >"$T/stat.json" ||
	die "GETFILESTATUS $DIR through the proxy failed"
[ "$(jq -r .FileStatus.owner "$T/stat.json")" = khproxy ] ||
	die "GETFILESTATUS $DIR through the proxy: $(cat "$T/stat.json")"

N=12000
FIRST=1000
CHUNK=250
START=$(date -u -d '2026-08-08 08:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 67 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 15 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic web:3 --produce "web=$T/first"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-real-hdfs-proxy"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "proxy-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$PROXY_URL"; base_dir = "$DIR";
                       auth = "kerberos"; connect_timeout = 2;
                       timeout = 20; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
$KEDGE check-config -c "$T/k.conf" >/dev/null

# logged PATTERN: how many lines of the proxy's log match PATTERN (ERE).
logged() {
	grep -Ec "$1" "$T/proxy.log" || :
}
at_least() {
	[ "$(logged "$2")" -ge "$1" ]
}
alive() {
	kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | tail -3)"
	kill -0 "$PROXY_PID" 2>/dev/null || die "the proxy exited: $(tail -3 "$T/proxy.err")"
}
# lost_found: each RENAME whose answer was lost was followed by a
# GETFILESTATUS of its destination that found it, and by no CREATE of its
# source again (a second copy); prints what is missing.
lost_found() {
	awk '
	$2 == "RENAME" && $6 == "lost" { lost[$3] = $8; next }
	$2 == "CREATE" && ($3 in lost) { again[$3] = 1 }
	$2 == "GETFILESTATUS" && $5 == 200 {
		for (t in lost) if (lost[t] == $3) found[t] = 1 }
	END { for (t in lost) {
		if (!(t in found)) { print "not found after its lost RENAME: " lost[t]; bad = 1 }
		if (t in again) { print "written again after its lost RENAME: " t; bad = 1 } }
		exit bad }' "$T/proxy.log"
}
lost_all_found() {
	lost_found >/dev/null
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
feed_start "$T" web "$T/rest" $CHUNK 0.5
wait_for "the first file in HDFS" 60 at_least 1 "^PUT RENAME $DIR/access/.* -> 200 relayed true "
alive

# RENAMEs of part files and sidecars (not of a manifest, _SUCCESS or
# progress file, which kedge writes over at the next checkpoint whatever
# the answer) performed, their answers lost.
proxy "lose-rename 3 ^$DIR/access/dt=[^/]*/hr=[^/]*/\.[^_][^/]*\.tmp\$"
wait_for "three lost RENAME answers" 60 at_least 3 '^PUT RENAME .* -> 200 lost true '
wait_for "kedge to find each renamed file" 30 lost_all_found
alive
# 503 to the next six requests, whichever they are.
proxy "retriable 6 503"
wait_for "six 503 answers" 60 at_least 6 ' -> 503 injected '
alive
# 403 RetriableException, as the NameNode answers it, to the next four
# GETFILESTATUS (the first request of each try of a file).
proxy "retriable 4 403 GETFILESTATUS"
wait_for "four 403 answers" 60 at_least 4 '^GET GETFILESTATUS .* -> 403 injected '
alive

feed_wait "$T"
consumed_all() {
	grep -q "^consumed $N records" "$T/spool/status" 2>/dev/null
}
wait_for "every record read" 60 consumed_all
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop within 60 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5) ... $(tail -3 "$T/run.log")"
grep -q '(at exit)' "$T/spool/status" || die "no status at exit: $(head -1 "$T/spool/status")"

# Each fault armed was hit as many times as armed, and no more.
[ "$(logged ' -> 200 lost true ')" -eq 3 ] ||
	die "$(logged ' -> 200 lost true ') lost RENAME answers, want 3"
[ "$(logged ' -> 503 injected ')" -eq 6 ] ||
	die "$(logged ' -> 503 injected ') injected 503s, want 6"
[ "$(logged '^GET GETFILESTATUS .* -> 403 injected ')" -eq 4 ] ||
	die "$(logged ' -> 403 injected ') injected 403s, want 4"
[ "$(logged ' -> [0-9]+ injected ')" -eq 10 ] ||
	die "injected answers: $(grep injected "$T/proxy.log")"
! grep ' unreachable ' "$T/proxy.log" >&2 || die "the NameNode unreachable (above)"
lost_found >&2 || die "lost RENAME answers (above)"

# The tree as the NameNode has it, read with curl past the proxy.
hdfs_kinit "$ME" "$T/k.keytab"
hdfs_mirror "$WEBHDFS_URL" "$DIR" "$T/copy"
left=$(find "$T/copy" -name '.*.tmp' | head -3)
[ -z "$left" ] || die "temporary files left in HDFS: $left"
check_exactly_once "$T/copy" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"
out=$($KEDGE verify "$WEBHDFS_URL$DIR" 2>&1) || die "kedge verify $WEBHDFS_URL$DIR: $out"
[ "$out" = "$CHECK_VERIFY" ] ||
	die "verify of the URL said \"$out\", of the copy \"$CHECK_VERIFY\""

# The errors are counted, each failed try of a file once, as logged: a
# GETFILESTATUS answered 403 fails its try alone; of the 503s, those that
# fell on the completer's requests are its warnings, not publish errors;
# a lost RENAME answer is no error.
errors=$(sed -n 's/.*; \([0-9]*\) publish errors$/\1/p' "$T/spool/status")
warned=$(log_lines "$T/run.log" | grep -Ec '^(err|warning) publish: ' || :)
[ "$errors" -ge 4 ] && [ "$errors" -eq "$warned" ] ||
	die "publish errors: $errors in the status, $warned logged"
r403=$(log_lines "$T/run.log" | grep -c '^warning publish: GETFILESTATUS .*: HDFS answered 403 RetriableException: NameNode still not started; kedge retries: the NameNode is starting or stopping$' || :)
[ "$r403" -eq 4 ] || die "$r403 403s logged, want 4: $(grep publish: "$T/run.log" | head -5)"
log_lines "$T/run.log" | grep -Eq '^warning (publish|complete): [A-Z]+ .*: HDFS answered 503 RetriableException: NameNode still not started' ||
	die "no 503 logged: $(grep -E 'publish:|complete:' "$T/run.log" | head -3)"
! grep -E 'RENAME .*: (no answer from|HDFS answered false)' "$T/run.log" >&2 ||
	die "a lost RENAME answer was reported as an error (above)"
log_lines "$T/run.log" | grep -E '^warning (publish|complete): ' >"$T/warnings" || :
[ "$(grep -Ec 'HDFS answered (403|503) RetriableException' "$T/warnings")" \
	-eq "$(wc -l <"$T/warnings")" ] ||
	die "warnings other than the injected ones: $(grep -v RetriableException "$T/warnings" | head -3)"

secs=$(($(date +%s) - began))
echo "ok: through the proxy to the real NameNode: 3 lost RENAME answers" \
	"(each file found in place), 6 503s and 4 403s (RetriableException);" \
	"$errors publish errors; $(wc -l <"$T/proxy.log") requests;" \
	"$CHECK_ROWS rows, $CHECK_REJECTS rejects; $CHECK_VERIFY;" \
	"${HDFS_UP_SECS:-shared} s up, ${secs} s"
