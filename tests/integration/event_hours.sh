#!/bin/sh
# A poison pill of event hours: records whose event times spread over 180
# hours (the default window is 8 days), in four partitions: 720 part
# files' worth, 1440 descriptors with their journals.  With the default
# configuration they land exactly once under the file limit systemd gives
# a service (ulimit -n 1024), because at most output.roll.max_open_files
# part files are open at once; records outside output.event_window go to
# _rejects with the reason.  Below what the bound needs, kedge refuses to
# start and says which limit and key.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

NOW=$(date -u +%s)
START=$(( (NOW / 3600 - 185) * 3600 ))
N=28800
P=4
$FIX/gen_nginx --records $N --partitions $P --seed 12 --start "$START" \
	--hours 180 --tz UTC --malformed-permille 5 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
[ "$(cut -f1 "$T/expected" | sort -u | wc -l)" -ge 180 ] ||
	die "gen_nginx gave fewer than 180 hours"
# Event times far out of the window, after the generator's records: line
# N + j is record N + j, at partition (N + j) % P, offset (N + j) / P.
j=0
for when in 01/Jan/1970:00:00:01 17/Mar/1999:12:00:00 01/Jan/2099:00:00:00 \
	31/Dec/9999:23:00:00; do
	line="10.9.9.$j - - [$when +0000] \"GET /far HTTP/1.1\" 200 1 \"-\" \"far\""
	echo "$line" >>"$T/records"
	printf '%d\t%d\t%s\n' $(( (N + j) % P )) $(( (N + j) / P )) "$line" \
		>>"$T/expected-rejects"
	j=$((j + 1))
done
mock_start "$T" --topic web:$P --produce "web=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "hours"; };
tables = ( {
  name = "web"; topics = [ "web" ]; udtf = "nginx";
  event_time = "time_local"; codec = "none";
} );
output = {
  spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
};
metrics = { enabled = false; };
CONF

# Below what the default bound needs: (1 table + _rejects) x 2 x 64 + 128.
if (ulimit -n 256 && exec timeout 60 $KEDGE run -c "$T/kedge.conf" \
	--exit-at-end) 2>"$T/low.log"; then
	die "kedge ran under ulimit -n 256 with max_open_files 64"
else
	rc=$?
fi
[ "$rc" -eq 78 ] || die "kedge exited $rc, not 78: $(tail -3 "$T/low.log")"
grep -q "RLIMIT_NOFILE is 256 .* need 384 descriptors: raise LimitNOFILE= .*output.roll.max_open_files" \
	"$T/low.log" || die "no clear message: $(tail -3 "$T/low.log")"
[ ! -d "$T/warehouse/web" ] || die "kedge landed rows before refusing"

(ulimit -n 1024 && exec timeout 300 $KEDGE run -c "$T/kedge.conf" \
	--exit-at-end) 2>"$T/kedge.log" ||
	die "kedge run failed under ulimit -n 1024:" \
		"$(log_lines "$T/kedge.log" | grep -m1 '^err ' || tail -5 "$T/kedge.log")"

check_exactly_once "$T/warehouse" web "$T/expected" "$T/expected-rejects" \
	"$T/spool"
hours=$(find "$T/warehouse/web" -mindepth 2 -maxdepth 2 -type d -name 'hr=*' |
	wc -l)
[ "$hours" -ge 180 ] || die "rows landed in $hours hours, not 180"
# The far records say why, and landed in no partition of theirs.
landed_rows "$T/warehouse" _rejects | cut -f2- | hive_cut 7 6 |
	grep 'GET /far' >"$T/far" || die "no far record in _rejects"
[ "$(grep -c 'in the past (output.event_window.past)$' "$T/far")" -eq 2 ] ||
	die "rejects of the past: $(cat "$T/far")"
[ "$(grep -c 'in the future (output.event_window.future)$' "$T/far")" -eq 2 ] ||
	die "rejects of the future: $(cat "$T/far")"
for d in dt=19700101 dt=19990317 dt=20990101 dt=99991231; do
	[ ! -d "$T/warehouse/web/$d" ] || die "a partition $d was made"
done
echo "ok: $CHECK_ROWS rows in $hours hours, $CHECK_REJECTS rejects," \
	"$(find "$T/warehouse/web" -type f ! -name '.*' ! -name '_*' | wc -l) files"
