#!/bin/sh
# SIGTERM: kedge rolls its files, commits and exits 0 with nothing left in
# the spool; a second run in the same group resumes at the committed
# offsets, so records produced in between land once and nothing lands
# twice.
#
# The first half of the records is in the topic when kedge starts; once all
# of its rows have landed kedge gets SIGTERM; then the second half is
# produced (with kcat, each line to the partition gen_nginx placed it in)
# and a second run reads to the end.  Then the spool is wiped: a third run
# warns, for every partition, that the group's commit is a checkpoint of
# its own it no longer holds, and lands nothing twice.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :; mock_stop; rm -rf "$T"' EXIT

P=4
N=40000
START=$(date -u -d '2026-07-04 08:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 3 --start "$START" \
	--hours 4 --tz Europe/Berlin --malformed-permille 5 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n $((N / 2)) "$T/records" >"$T/first"
mock_start "$T" --topic access:$P --produce "access=$T/first"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-sigterm";
  rdkafka = { session_timeout_ms = "6000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "Europe/Berlin";
           roll = { max_bytes = 32768; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

# Well-formed records among the first N/2 lines: their rows are expected.
first_rows=$(( N / 2 - $(awk -F '\t' -v p=$P -v n=$((N / 2)) \
	'$2 * p + $1 < n' "$T/expected-rejects" | wc -l) ))
landed() { landed_rows "$T/warehouse" access 2>/dev/null | wc -l; }
first_landed() { [ "$(landed)" -ge "$first_rows" ]; }

# Before any run there is no store to show, and looking makes none.
$KEDGE checkpoint show -c "$T/kedge.conf" >"$T/show" || die "checkpoint show failed on a new spool"
grep -qx 'no store: kedge has not checkpointed with this output.spool_dir' "$T/show" ||
	die "checkpoint show on a new spool: $(cat "$T/show")"
[ ! -e "$T/spool" ] || die "checkpoint show created $T/spool"

$KEDGE run -c "$T/kedge.conf" 2>"$T/run1.log" &
KPID=$!
wait_for "the first half to land" 60 first_landed
kill -TERM "$KPID"
rc=0
wait "$KPID" || rc=$?
KPID=
[ "$rc" -eq 0 ] || die "kedge exited $rc on SIGTERM: $(tail -3 "$T/run1.log")"
grep -q 'stopping: rolling every file' "$T/run1.log" || die "no clean stop logged"
[ -z "$(find "$T/spool/open" "$T/spool/ready" -type f)" ] || die "SIGTERM left files in the spool"
[ "$(landed)" -eq "$first_rows" ] || die "first run: $(landed) rows, want $first_rows"
# The store holds the last checkpoint: its id and every partition's offset.
$KEDGE checkpoint show -c "$T/kedge.conf" >"$T/show"
grep -q '^record [0-9]*:$' "$T/show" || die "checkpoint show: $(cat "$T/show")"
[ "$(grep -c '^part access [0-3] [0-9]*$' "$T/show")" -eq $P ] ||
	die "checkpoint show lacks partitions: $(cat "$T/show")"

# The second half, line i to partition i % P as gen_nginx expects.
p=0
while [ $p -lt $P ]; do
	awk -v p=$p -v P=$P -v h=$((N / 2)) 'NR > h && (NR - 1) % P == p' "$T/records" |
		kcat -P -b "$BOOTSTRAP" -t access -p $p -z zstd ||
		die "kcat could not produce to partition $p"
	p=$((p + 1))
done

run_to_end "$T/kedge.conf" "$T/run2.log" "second run"
! grep -q 'which .* does not hold' "$T/run2.log" ||
	die "a restart on its own spool warned of a lost one: $(grep 'does not hold' "$T/run2.log")"
landed_rows "$T/warehouse" access | sort >"$T/got"
sort "$T/expected" >"$T/want"
same_or_die "$T/want" "$T/got" "the two runs did not land every row exactly once"
$KEDGE verify "$T/warehouse" || die "kedge verify failed"

# The spool wiped: kedge says the group's commits are its own checkpoints
# it no longer holds, for every partition, and starts from them.
rm -rf "$T/spool"
run_to_end "$T/kedge.conf" "$T/run3.log" "the run on a wiped spool"
grep -q "checkpoint: no usable record in $T/spool/checkpoint; starting from the group's committed offsets" \
	"$T/run3.log" || die "no word of the missing store: $(head -3 "$T/run3.log")"
[ "$(log_lines "$T/run3.log" | grep -c "^warning checkpoint: the group's last commit of access \[[0-3]\] is this host's checkpoint [0-9]*, which $T/spool does not hold: if the spool was lost")" -eq $P ] ||
	die "not one warning a partition: $(grep -c 'does not hold' "$T/run3.log")"
landed_rows "$T/warehouse" access | sort >"$T/got"
same_or_die "$T/want" "$T/got" "the run on a wiped spool changed the landed rows"
echo "ok: $first_rows rows before SIGTERM, $(wc -l <"$T/want") after the restart"
