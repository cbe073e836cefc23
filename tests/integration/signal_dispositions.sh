#!/bin/sh
# kedge sets the signal dispositions it relies on, whatever it inherits: it
# is started through a wrapper (perl: it ignores SIGCHLD and SIGHUP and
# blocks SIGTERM, SIGINT and SIGHUP, which exec keeps, as /proc says of
# the wrapper just before its exec), with output.on_complete a command
# that exits 3:
#  - the command's failure is seen, never taken for a success (with
#    SIGCHLD ignored the kernel reaps it before waitpid() can tell): it is
#    tried again, and its hour stays pending in the record;
#  - kedge runs with SIGCHLD at its default and its main thread blocks
#    none of SIGTERM, SIGINT and SIGHUP (/proc/PID/status);
#  - SIGHUP reloads, SIGTERM stops it with exit 0.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      mock_stop; rm -rf "$T"' EXIT
command -v perl >/dev/null || die "perl is needed (Debian package perl-base)"

NOW=$(date -u +%s)
HOUR0=$(( (NOW / 3600 - 4) * 3600 ))
$FIX/gen_nginx --records 600 --partitions 2 --seed 41 --start "$HOUR0" \
	--hours 2 --tz UTC --malformed-permille 0 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"

cat >"$T/hook" <<'HOOK'
#!/bin/sh
echo "$KEDGE_DT $KEDGE_HR $KEDGE_REVISION" >>"$HOOK_CALLS"
echo "refusing on purpose" >&2
exit 3
HOOK
chmod +x "$T/hook"
export HOOK_CALLS="$T/calls"

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-signal-dispositions"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
           on_complete = [ "$T/hook" ]; roll = { inactive = 1; }; };
checkpoint = { interval = 1; };
completion = { allowed_lateness = 0; };
metrics = { enabled = false; };
CONF

export T_DIR="$T"
# The wrapper: what it sets, exec keeps; it writes its own /proc lines
# (the same process as kedge's after the exec) to $T/inherited.
perl -MPOSIX -e '
	$SIG{CHLD} = "IGNORE";
	$SIG{HUP} = "IGNORE";
	sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM, SIGINT, SIGHUP))
		or die "sigprocmask: $!";
	open(my $in, "<", "/proc/$$/status") or die "/proc/$$/status: $!";
	open(my $out, ">", "$ENV{T_DIR}/inherited") or die "inherited: $!";
	print $out grep { /^Sig(Ign|Blk):/ } <$in>;
	close($out);
	exec(@ARGV) or die "exec: $!";
' "$KEDGE" run -c "$T/k.conf" 2>"$T/run.log" &
KPID=$!
# sigmask NAME FIELD: the hexadecimal FIELD (SigIgn, SigBlk) of the
# status lines in NAME.
sigmask() {
	awk -v f="$2:" '$1 == f { print $2 }' "$1"
}
# has MASK SIGNAL: MASK (hexadecimal) holds signal number SIGNAL.
has() {
	[ $(( (0x$1 >> ($2 - 1)) & 1 )) -eq 1 ]
}
wait_for "the wrapper's /proc lines" 10 test -s "$T/inherited"
has "$(sigmask "$T/inherited" SigIgn)" 17 && has "$(sigmask "$T/inherited" SigIgn)" 1 &&
	has "$(sigmask "$T/inherited" SigBlk)" 15 ||
	die "the wrapper did not set what kedge is to inherit: $(cat "$T/inherited")"

# The command fails, and is tried again.
tried_twice() {
	[ "$(grep -c 'exit status 3; last stderr line "refusing on purpose"; try [0-9]* failed' "$T/run.log")" -ge 2 ] &&
		return 0
	kill -0 "$KPID" 2>/dev/null ||
		die "kedge exited: $(log_lines "$T/run.log" | grep '^err ' | head -3)"
	! grep -q 'on_complete: .* announced' "$T/run.log" ||
		die "a command that exits 3 counted as a success: $(grep 'on_complete: ' "$T/run.log" | head -3)"
	return 1
}
wait_for "the command to fail and be tried again" 60 tried_twice
grep -q '^pending ' "$T/spool/on_complete/access" ||
	die "no revision pending in the record: $(cat "$T/spool/on_complete/access")"
! grep -q '^done ' "$T/spool/on_complete/access" ||
	die "a revision recorded done: $(cat "$T/spool/on_complete/access")"

# What kedge runs with.
grep '^Sig' "/proc/$KPID/status" >"$T/now"
! has "$(sigmask "$T/now" SigIgn)" 17 ||
	die "kedge runs with SIGCHLD ignored: $(cat "$T/now")"
bad=$(signal_masks "$KPID" 1)
[ -z "$bad" ] || die "threads that take or block the wrong signals:$bad"

ends=$(grep -c 'reload: ' "$T/run.log" || :)
kill -HUP "$KPID"
wait_for "the reload" 20 sh -c "[ \$(grep -c 'reload: ' '$T/run.log') -gt $ends ]"
kill -TERM "$KPID"
stopped_cleanly kedge "$KPID" "$T/run.log"
KPID=
echo "ok: with SIGCHLD and SIGHUP ignored and SIGTERM blocked at its start," \
	"kedge retried a command that exits 3, reloaded and stopped cleanly"
