#!/bin/sh
# Commit metadata is whatever a client of the consumer group committed:
# kedge must take it for a commit of someone else unless it is exactly
# "kedge:<host>:<id>" with a host as output.host allows and an id in
# range, and the bytes must never reach a path or a raw log line.
#
# Before kedge starts, every partition of the topic is committed at offset
# 0 with hostile metadata (a host climbing out of the target into the
# spool's checkpoint slot, one with a '/', "..", one with a newline and a
# journald priority prefix, a 300-byte host, an id past 64 bits).  A first
# run crashes on purpose right after its first seal, so that a second run
# finds the partitions in its store and meets the same metadata twice (at
# recovery and at assignment); it runs to the end.  Each run must say each
# partition's metadata escaped, once; no directory may appear outside the
# spool and the target, nor a takeover marker inside it; and every record
# must land exactly once.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

P=6
N=6000
START=$(date -u -d '2026-07-04 08:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 12 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 5 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:$P --produce "access=$T/records"

printf 'kedge:../../../spool/checkpoint/checkpoint.a:5' >"$T/md0"
printf 'kedge:a/b:7' >"$T/md1"
printf 'kedge:..:3' >"$T/md2"
printf 'kedge:edge\n<0>forged line:9' >"$T/md3"
printf 'kedge:%0300d:1' 0 | tr 0 h >"$T/md4"
printf 'kedge:edge01:99999999999999999999999' >"$T/md5"
[ "$(wc -c <"$T/md4")" -eq 308 ] || die "md4 is not a 300-byte host"
timeout 30 $FIX/commitmd "$BOOTSTRAP" kedge-foreign access \
	0:0:"$T/md0" 1:0:"$T/md1" 2:0:"$T/md2" 3:0:"$T/md3" 4:0:"$T/md4" \
	5:0:"$T/md5" >"$T/commitmd.out" 2>&1 ||
	die "cannot commit the hostile metadata: $(cat "$T/commitmd.out")"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-foreign";
  rdkafka = { session_timeout_ms = "6000"; };
};
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse";
           timezone = "UTC"; host = "edge01";
           roll = { max_bytes = 32768; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

# foreign_said LOG: LOG says each partition's metadata once, escaped, and
# no line of it is one the metadata forged.
foreign_said() {
	p=0
	while [ $p -lt $P ]; do
		n=$(log_lines "$1" | grep -c "^warning checkpoint: access \[$p\] was committed with metadata that is not kedge's" || true)
		[ "$n" -eq 1 ] || die "$(basename "$1"): partition $p's foreign metadata said $n times, not once"
		p=$((p + 1))
	done
	grep -qF '"kedge:edge\n<0>forged line:9" (27 bytes)' "$1" ||
		die "$(basename "$1"): the metadata with a newline is not shown escaped"
	grep -qF '"kedge:../../../spool/checkpoint/checkpoint.a:5" (46 bytes)' "$1" ||
		die "$(basename "$1"): the climbing metadata is not shown"
	grep -q '"kedge:h*\.\.\." (308 bytes)' "$1" ||
		die "$(basename "$1"): the 300-byte host is not shown cut"
	! grep -q '^<0>\|^forged' "$1" || die "$(basename "$1"): a forged line: $(grep '^<0>\|^forged' "$1")"
	! grep -q 'took access .* over' "$1" || die "$(basename "$1"): took a partition over from a foreign host"
}

# nothing_outside: every directory under $T is the spool's or the target's,
# and the target holds no takeover marker (no kedge host committed).
nothing_outside() {
	_out=$(find "$T" -mindepth 1 -type d ! -path "$T/spool" ! -path "$T/spool/*" \
		! -path "$T/warehouse" ! -path "$T/warehouse/*")
	[ -z "$_out" ] || die "$1: directories outside the spool and target: $_out"
	[ ! -e "$T/spool/checkpoint/checkpoint.a" ] || [ -f "$T/spool/checkpoint/checkpoint.a" ] ||
		die "$1: the store's slot checkpoint.a is not a file"
	[ -z "$(find "$T/warehouse/_kedge" -path '*takeover*' 2>/dev/null)" ] ||
		die "$1: takeover markers: $(find "$T/warehouse/_kedge" -path '*takeover*')"
	[ -z "$(find "$T/spool" -name 'access+*' -type d)" ] ||
		die "$1: a marker's directory in the spool"
}

# The first run dies right after its first seal: its record names every
# partition, none decided.
rc=0
KEDGE_CRASH_AT=after-seal:1 timeout 60 $KEDGE run -c "$T/kedge.conf" \
	2>"$T/run1.log" || rc=$?
[ "$rc" -eq 134 ] && grep -q 'KEDGE_CRASH_AT: crashing on purpose' "$T/run1.log" ||
	die "the first run ended with $rc, not at its first seal: $(log_lines "$T/run1.log" | grep -E '^(err|warning) ' | head -5)"
foreign_said "$T/run1.log"
nothing_outside "the first run"

timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/run2.log" ||
	die "the second run failed: $(log_lines "$T/run2.log" | grep -E '^(err|warning) ' | head -5)"
grep -q "checkpoint: access \[0\] committed at 0 (metadata not kedge's): decided up to checkpoint 0" "$T/run2.log" ||
	die "recovery did not meet the foreign metadata: $(grep 'committed at' "$T/run2.log" | head -3)"
foreign_said "$T/run2.log"
nothing_outside "the second run"
check_exactly_once "$T/warehouse" access "$T/expected" "$T/expected-rejects" "$T/spool"
echo "ok: $CHECK_ROWS rows and $CHECK_REJECTS rejects landed once; the metadata of $P partitions said once a run, escaped"
