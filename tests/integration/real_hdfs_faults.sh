#!/bin/sh
# The real HDFS (tests/real/up DIR hdfs) in trouble while kedge publishes
# to it over WebHDFS with SPNEGO and the topic keeps growing, one fault
# after the other, each made by the cluster's administrator
# (tests/real/hdfs-admin):
#   - safe mode entered: long enough for the spool to pass spool.max_bytes,
#     so that consumption pauses; then left;
#   - a space quota on the test's directory that no file fits in; cleared;
#   - the directory and all in it made unwritable (chmod -R 555); made
#     writable again;
#   - one DataNode stopped: the NameNode may still send an upload to it
#     until it counts it dead; started again;
#   - the NameNode restarted (it is away, then in safe mode until the
#     DataNodes report their blocks, and knows no DataNode to send an
#     upload to until they register).
# Each refusal is one line in kedge's log, naming what HDFS said (no Java
# stack trace) and what to do, and the same sentence is in `kedge status`
# ("publishing failing: ...") while it lasts; the spool holds the files
# meanwhile, and the status says nothing is failing once HDFS takes them
# again.  The DataNode and the NameNode faults pass by themselves between
# two passes of the publisher, so their sentence is checked as the status
# has it then or keeps it afterwards ("last publish error at T (N s
# ago): ...").  At the end every record has landed exactly once (read back with
# curl --negotiate, row by row, `kedge verify`), no temporary file is
# left and nothing is open for writing.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
FEED_PID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null || :
      [ -n "${REAL_DIR:-}" ] && { tests/real/hdfs-admin "$REAL_DIR" safemode leave
        tests/real/hdfs-admin "$REAL_DIR" datanode start 1; } >/dev/null 2>&1 || :
      real_hdfs_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

real_hdfs "$T"
DIR=$HDFS_BASE/faults-$(hdfs_rnd)
hdfs_me khfault "$T/k.keytab" "$DIR"

N=40000
FIRST=1000
CHUNK=200
START=$(date -u -d '2026-03-03 03:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 53 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $FIRST "$T/records" >"$T/first"
tail -n +$((FIRST + 1)) "$T/records" >"$T/rest"
mock_start "$T" --topic web:3 --produce "web=$T/first"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-real-hdfs-faults"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "faults-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$DIR";
                       auth = "kerberos"; connect_timeout = 2;
                       timeout = 20; }; };
spool = { max_bytes = 1048576; min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
$KEDGE check-config -c "$T/k.conf" >/dev/null

alive() {
	kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | tail -3)"
}
warnings() {
	log_lines "$T/run.log" | grep -c '^warning publish: ' || :
}
# new_warning_like SINCE PATTERN: a publish warning after the first SINCE
# ones matches PATTERN (ERE).
new_warning_like() {
	tail -n +$(($1 + 1)) "$T/warn.log" 2>/dev/null | grep -Eq "$2"
}
snap_warnings() {
	log_lines "$T/run.log" | grep '^warning publish: ' >"$T/warn.log" || :
}
warned_like() {
	snap_warnings
	new_warning_like "$1" "$2"
}
status_failing_like() {
	grep -Eq "^publishing failing: .*$1" "$T/spool/status" 2>/dev/null
}
status_not_failing() {
	! grep -q '^publishing failing: ' "$T/spool/status" 2>/dev/null
}
published_files() {
	sed -n 's/^published \([0-9]*\) files.*/\1/p' "$T/spool/status" 2>/dev/null
}
published_more() {
	[ "$(published_files)" -ge "$1" ] 2>/dev/null
}
paused() {
	grep -q '^consumption paused: the spool is full' "$T/spool/status" 2>/dev/null
}
# no_trace SINCE: no publish warning after the first SINCE shows a Java
# stack trace or escape debris from HDFS's JSON.
no_trace() {
	snap_warnings
	! tail -n +$(($1 + 1)) "$T/warn.log" | grep -E '\.java:[0-9]|ntat |\\n' >&2 ||
		die "a publish warning with a stack trace (above)"
}

# status_says_last NAME SINCE PATTERN: a fault that passes by itself
# (kedge retries, and a later pass publishes everything): the status has
# the latest failure's sentence, while it fails ("publishing failing:
# ...") or kept afterwards ("last publish error at T (N s ago): ..."); it
# matches PATTERN and is word for word one of the log's warnings after the
# first SINCE (the sentences name the file, so an older failure's does not
# pass).
LAST='^\(publishing failing\|last publish error at [0-9TZ:-]* ([0-9]* s ago)\): '
last_error_new() {
	said=$(sed -n "s/$LAST//p" "$T/spool/status" 2>/dev/null)
	printf '%s\n' "$said" | grep -Eq "$2" || return 1
	snap_warnings
	tail -n +$(($1 + 1)) "$T/warn.log" | grep -Fqx "warning publish: $said"
}
status_says_last() {
	wait_for "$1: the status to say the failure that the log has" 30 \
		last_error_new "$2" "$3"
	# exits 1 while publishing fails, 0 once it does not
	out=$($KEDGE status -c "$T/k.conf") || [ $? -eq 1 ]
	printf '%s\n' "$out" | sed -n "s/$LAST//p" | grep -Eq "$3" ||
		die "$1: kedge status does not say the failure: $out"
	echo "$1: $said" >>"$T/sentences"
}

# fault NAME INJECT LIFT PATTERN: the administrator runs INJECT; kedge
# warns with PATTERN, the status says so, the spool holds files; LIFT;
# HDFS takes everything again.
fault() {
	_f_name=$1
	_f_w=$(warnings)
	# shellcheck disable=SC2086
	hdfs_admin $2 >/dev/null
	wait_for "$_f_name: kedge's warning" 60 warned_like "$_f_w" "$4"
	wait_for "$_f_name: the status to say so" 30 status_failing_like "$4"
	rc=0
	out=$($KEDGE status -c "$T/k.conf") || rc=$?
	[ "$rc" -eq 1 ] || die "$_f_name: kedge status exited $rc: $out"
	printf '%s\n' "$out" | grep -q '^not healthy: publishing: failing: ' ||
		die "$_f_name: kedge status names no failing publishing: $out"
	printf '%s\n' "$out" | grep -Eq "^publishing failing: .*$4" ||
		die "$_f_name: kedge status does not say \"$4\": $out"
	printf '%s\n' "$out" | grep -Eq '^spool: [0-9]* bytes, [1-9][0-9]* files to publish' ||
		die "$_f_name: the spool holds nothing: $out"
	echo "$_f_name: $(printf '%s\n' "$out" | sed -n 's/^publishing failing: //p')" >>"$T/sentences"
	alive
	[ -z "$3" ] || { [ "$3" = pause ] && return 0; }
	# shellcheck disable=SC2086
	[ -z "$3" ] || hdfs_admin $3 >/dev/null
	wait_for "$_f_name: HDFS to take the files again" 90 status_not_failing
	no_trace "$_f_w"
	alive
}

$KEDGE run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
feed_start "$T" web "$T/rest" $CHUNK 0.5
wait_for "the first files in HDFS" 60 published_more 3

# Safe mode, until the spool is full and consumption pauses.
fault "safe mode" "safemode enter" pause \
	'HDFS answered 403 SafeModeException: .*safe mode.*kedge retries until the NameNode leaves safe mode'
wait_for "consumption to pause" 90 paused
hdfs_admin safemode leave >/dev/null
wait_for "safe mode: HDFS to take the files again" 90 status_not_failing
no_trace 0

fault "space quota" "quota $DIR 1000" "quota $DIR clear" \
	"HDFS answered 403 DSQuotaExceededException: The DiskSpace quota of $DIR is exceeded.*raise the quota"
fault "unwritable" "chmod -R 555 $DIR" "chmod -R 755 $DIR" \
	"HDFS answered 403 AccessControlException: Permission denied: user=khfault, access=WRITE.*give its user write access"

# One DataNode stopped: uploads go on; the NameNode may send some to it
# until it counts it dead, and kedge names the DataNode then.
w=$(warnings)
p=$(published_files)
hdfs_admin datanode stop 1 >/dev/null
wait_for "files published with a DataNode down" 90 published_more $((p + 20))
snap_warnings
tail -n +$((w + 1)) "$T/warn.log" >"$T/dn.warn"
! grep -Ev 'no answer from the DataNode 127\.0\.0\.1:[0-9]+ that the NameNode sent kedge to: .*; kedge retries$' \
	"$T/dn.warn" >&2 || die "a DataNode stopped: other warnings (above)"
dn_warned=$(wc -l <"$T/dn.warn")
[ "$dn_warned" -ge 1 ] ||
	die "a DataNode stopped: no upload was sent to it (no warning in $((p + 20)) files)"
status_says_last "datanode" "$w" 'no answer from the DataNode 127\.0\.0\.1:[0-9]+ that the NameNode sent kedge to: '
hdfs_admin datanode start 1 >/dev/null
alive

# The NameNode restarted: away for 5 s (files are ready to publish every
# second meanwhile), then in safe mode for a moment.
w=$(warnings)
hdfs_admin namenode restart 5 >/dev/null
p=$(published_files)
wait_for "files published after the NameNode's restart" 120 published_more $((p + 5))
snap_warnings
tail -n +$((w + 1)) "$T/warn.log" >"$T/nn.warn"
# What the NameNode says while it stops and starts varies (no answer; an
# EOFException from its own RPC; safe mode; no DataNode registered yet):
# each is one line that names the request and what HDFS said.
! grep -Ev "^warning publish: [A-Z]+ $DIR/[^ ]*: (no answer from |HDFS answered [0-9]+ [A-Za-z]+: )" \
	"$T/nn.warn" >&2 || die "the NameNode restarted: other warnings (above)"
! grep -E 'HDFS answered [0-9]+ (EOF|Connect|Retriable)Exception: ' "$T/nn.warn" |
	grep -v '; kedge retries: the NameNode is starting or stopping$' >&2 ||
	die "the NameNode restarted: a warning that does not say what to do (above)"
! grep -v '; kedge retries' "$T/nn.warn" >&2 ||
	die "the NameNode restarted: a warning that does not say kedge retries (above)"
nn_warned=$(wc -l <"$T/nn.warn")
[ "$nn_warned" -ge 1 ] || die "the NameNode restarted: kedge warned of nothing"
status_says_last "namenode" "$w" "[A-Z]+ $DIR/[^ ]*: (no answer from |HDFS answered [0-9]+ [A-Za-z]+: )"
no_trace "$w"
alive

feed_wait "$T"
consumed_all() {
	grep -q "^consumed $N records" "$T/spool/status" 2>/dev/null
}
wait_for "every record read" 120 consumed_all
wait_for "nothing failing at the end" 90 status_not_failing
kill -TERM "$KPID"
exits_within "$KPID" 60 || die "kedge did not stop within 60 s of SIGTERM"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc: $(log_lines "$T/run.log" | grep '^err ' | head -5)"

openfiles_none() {
	[ -z "$(hdfs_admin openfiles "$DIR")" ]
}
wait_for "no file open for writing under $DIR" 120 openfiles_none
hdfs_kinit "$ME" "$T/k.keytab"
hdfs_mirror "$WEBHDFS_URL" "$DIR" "$T/copy"
left=$(find "$T/copy" -name '.*.tmp' | head -3)
[ -z "$left" ] || die "temporary files left in HDFS: $left"
check_exactly_once "$T/copy" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"
cat "$T/sentences"
secs=$(($(date +%s) - began))
echo "ok: safe mode (consumption paused), space quota, unwritable base," \
	"a DataNode stopped ($dn_warned warnings), the NameNode restarted" \
	"($nn_warned warnings); $CHECK_ROWS rows, $CHECK_REJECTS rejects;" \
	"$CHECK_VERIFY; ${HDFS_UP_SECS:-shared} s up, ${secs} s"
