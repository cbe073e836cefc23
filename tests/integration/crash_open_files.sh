#!/bin/sh
# Files rolled for output.roll.max_open_files are rolled like any other.
# One partition's records alternate between three streams of event times
# (each its own 16 hours) under a bound of 2 open files: nearly every row
# rolls the file the next row but one needs again, which opens a new one.
# Crashes in the middle of the checkpoint (a writer sealed and the next
# not; sealed but not released; half published) must still land every
# record exactly once (rows and rejects, row by row; kedge verify; nothing
# left in the spool).
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

NOW=$(date -u +%s)
S=3
N=400
for s in 0 1 2; do
	$FIX/gen_nginx --records $N --partitions 1 --seed $((31 + s)) \
		--start $(( (NOW / 3600 - 60 + 20 * s) * 3600 )) --hours 16 \
		--tz UTC --malformed-permille 10 \
		--out-records "$T/records.$s" --out-expected "$T/expected.$s" \
		--out-rejects "$T/rejects.$s"
	# line i of stream s is record i * S + s of the partition
	awk -F '\t' -v S=$S -v s=$s 'BEGIN { OFS = "\t" }
		{ $2 = $2 * S + s; print }' "$T/rejects.$s" >>"$T/expected-rejects"
	cat "$T/expected.$s" >>"$T/expected"
done
paste -d '\n' "$T/records.0" "$T/records.1" "$T/records.2" >"$T/records"
[ "$(wc -l <"$T/records")" -eq $((S * N)) ] || die "paste lost lines"
mock_start "$T" --topic web:1 --produce "web=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( {
  name = "web"; topics = [ "web" ]; udtf = "nginx";
  event_time = "time_local"; codec = "gzip";
} );
output = {
  spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
  roll = { max_open_files = 2; };
};
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

# Each point is reached by its round: the first two decide nothing, the
# third decides what was sealed and leaves it in open/, which the fourth's
# recovery hands to the publisher.
for point in seal-mid:1 seal-mid:1 after-seal:1 publish-mid:1; do
	log=$T/$point.$$.log
	rc=0
	KEDGE_CRASH_AT=$point timeout 120 $KEDGE run -c "$T/kedge.conf" \
		--exit-at-end 2>"$log" || rc=$?
	[ "$rc" -eq 134 ] && crashed_on_purpose "$point" "$log" ||
		die "KEDGE_CRASH_AT=$point: status $rc:" \
			"$(grep '^<[0-3]>' "$log" | head -3)"
	mv "$log" "$T/round-$(ls "$T" | grep -c '^round-').log"
done
run_to_end "$T/kedge.conf" "$T/final.log" "the clean run"
check_exactly_once "$T/warehouse" web "$T/expected" "$T/expected-rejects" \
	"$T/spool"
files=$(find "$T/warehouse/web" -type f ! -name '.*' ! -name '_*' | wc -l)
hours=$(find "$T/warehouse/web" -mindepth 2 -maxdepth 2 -type d | wc -l)
[ "$hours" -ge 48 ] || die "rows landed in $hours hours, not 48"
# the bound did roll files: far more of them than hours
[ "$files" -ge $((S * N / 2)) ] || die "only $files files: nothing rolled"
echo "ok: 4 crashes; $CHECK_ROWS rows, $CHECK_REJECTS rejects in $files" \
	"files over $hours hours; $CHECK_VERIFY"
