#!/bin/sh
# Files parked and rolled for output.roll.max_open_files land like any
# other.  One partition's records alternate between three streams of event
# times (each its own 16 hours) under a bound of 1 open file, twice:
# with max_parked_files 0 nearly every row rolls the file the next row but
# one needs again, which opens a new one; with 2 parked files every row
# closes the file it wrote and opens the next one again to append, and no
# file rolls for the bound.  Crashes in the middle of the checkpoint (a
# writer sealed and the next not; sealed but not released; half published)
# must still land every record exactly once (rows and rejects, row by row;
# kedge verify; nothing left in the spool).
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

# crash_rounds PARKED: the crashes and the clean run with
# max_parked_files PARKED, in a spool and warehouse of their own.
crash_rounds() {
	D=$T/parked-$1
	mkdir -p "$D"
	cat >"$D/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( {
  name = "web"; topics = [ "web" ]; udtf = "nginx";
  event_time = "time_local"; codec = "gzip";
} );
output = {
  spool_dir = "$D/spool"; local_dir = "$D/warehouse"; timezone = "UTC";
  roll = { max_open_files = 1; max_parked_files = $1; };
};
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
	# Each point is reached by its round: the first two decide nothing,
	# the third decides what was sealed and leaves it in open/, which the
	# fourth's recovery hands to the publisher.
	for point in seal-mid:1 seal-mid:1 after-seal:1 publish-mid:1; do
		log=$D/$point.$$.log
		rc=0
		KEDGE_CRASH_AT=$point timeout 120 $KEDGE run -c "$D/kedge.conf" \
			--exit-at-end 2>"$log" || rc=$?
		[ "$rc" -eq 134 ] && crashed_on_purpose "$point" "$log" ||
			die "max_parked_files $1, KEDGE_CRASH_AT=$point: status" \
				"$rc: $(log_lines "$log" | grep '^err ' | head -3)"
		mv "$log" "$D/round-$(ls "$D" | grep -c '^round-').log"
	done
	run_to_end "$D/kedge.conf" "$D/final.log" "the clean run"
	check_exactly_once "$D/warehouse" web "$T/expected" \
		"$T/expected-rejects" "$D/spool"
	files=$(find "$D/warehouse/web" -type f ! -name '.*' ! -name '_*' |
		wc -l)
	hours=$(find "$D/warehouse/web" -mindepth 2 -maxdepth 2 -type d |
		wc -l)
	[ "$hours" -ge 48 ] || die "rows landed in $hours hours, not 48"
}

crash_rounds 0
# the bound did roll files: far more of them than hours
[ "$files" -ge $((S * N / 2)) ] || die "only $files files: nothing rolled"
echo "ok: max_parked_files 0, 4 crashes; $CHECK_ROWS rows, $CHECK_REJECTS" \
	"rejects in $files files over $hours hours; $CHECK_VERIFY"
crash_rounds 2
# parked files were opened again: a file an hour for each of the five
# runs at most, where rolling made one a row
[ "$files" -le $((5 * hours)) ] ||
	die "$files files over $hours hours: parked files rolled"
echo "ok: max_parked_files 2, 4 crashes; $CHECK_ROWS rows, $CHECK_REJECTS" \
	"rejects in $files files over $hours hours; $CHECK_VERIFY"
