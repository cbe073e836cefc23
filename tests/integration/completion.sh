#!/bin/sh
# Complete hours (docs/completion.md), on the real binary and a mock topic
# whose records span the last three hours and the current one:
#  - once kedge has read everything, every past hour gets _MANIFEST.json
#    and _SUCCESS, whose rows are the generator's for that hour; the
#    current hour, not over yet, gets neither; a table that also reads an
#    idle topic (no record ever) is not held back by it;
#  - rows that come later for a complete hour land in new files and bump
#    its manifest to revision 2, with them as late rows, and _SUCCESS is
#    written again;
#  - with an allowed lateness longer than the data's age, no hour is
#    complete;
#  - kedge verify checks every manifest, and catches one that disagrees.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

NOW=$(date -u +%s)
HOUR0=$(( (NOW / 3600 - 3) * 3600 ))
# hours: three past ones, the current one (which may end while the test
# runs, so nothing is asserted of it) and the next, not over for sure
N=4000
# (its records are in the future: event time is the data's, not the
# clock's)
$FIX/gen_nginx --records $N --partitions 2 --seed 17 --start "$HOUR0" \
	--hours 5 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
CUR=$(date -u -d "@$(( NOW / 3600 * 3600 ))" +%Y%m%d%H)
NEXT=$(date -u -d "@$(( NOW / 3600 * 3600 + 3600 ))" +%Y%m%d%H)
mock_start "$T" --topic access:2 --topic quiet:1 --produce "access=$T/records"

# conf NAME LATENESS: a table reading access and the idle topic quiet.
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-complete-$1";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "access", "quiet" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { spool_dir = "$T/spool-$1"; local_dir = "$T/$1"; timezone = "UTC"; };
checkpoint = { interval = 1; };
completion = { allowed_lateness = $2; };
metrics = { enabled = false; };
CONF
}

# hours DIR: "dt=../hr=.. rows" of every manifest under DIR/access.
manifest_rows() {
	find "$1/access" -name _MANIFEST.json | sort | while read -r m; do
		h=$(dirname "$m")
		printf '%s/%s %s\n' "$(basename "$(dirname "$h")")" \
			"$(basename "$h")" \
			"$(grep -o '"rows":[0-9]*' "$m" | head -1 | cut -d: -f2)"
	done
}

conf a 0 >"$T/a.conf"
run_to_end "$T/a.conf" "$T/a.log" "kedge"
grep -q 'complete: [0-9]* hour(s) got a new manifest' "$T/a.log" ||
	die "no manifest written: $(grep -i complete "$T/a.log" | head -3)"

# Every past hour: a manifest with the generator's rows, and _SUCCESS.
cut -f1 "$T/expected" | sort | uniq -c |
	awk '{ print $2, $1 }' >"$T/want-all"
grep -v "^dt=${CUR%??}/hr=${CUR#????????} \|^dt=${NEXT%??}/hr=${NEXT#????????} " \
	"$T/want-all" >"$T/want" || :
manifest_rows "$T/a" | grep -v "^dt=${CUR%??}/hr=${CUR#????????} " >"$T/got" || :
same_or_die "$T/want" "$T/got" "rows per complete hour differ from the generator's"
[ "$(wc -l <"$T/want")" -ge 3 ] || die "fewer than 3 past hours: $(cat "$T/want")"
for m in $(find "$T/a/access" -name _MANIFEST.json); do
	[ -e "$(dirname "$m")/_SUCCESS" ] || die "no _SUCCESS beside $m"
done
next_dir="$T/a/access/dt=${NEXT%??}/hr=${NEXT#????????}"
[ -n "$(find "$next_dir" -name '*.txt.gz' | head -1)" ] ||
	die "no files in the next hour $NEXT"
[ ! -e "$next_dir/_MANIFEST.json" ] && [ ! -e "$next_dir/_SUCCESS" ] ||
	die "the next hour $NEXT is declared complete"
[ -e "$T/a/_kedge/progress/access/quiet+0.json" ] ||
	die "no progress for the idle topic"
out=$($KEDGE verify "$T/a") || die "verify: $out"
case $out in *", $(find "$T/a" -name _MANIFEST.json | wc -l) manifests") ;;
*) die "verify counted other manifests: $out" ;; esac
$KEDGE report -c "$T/a.conf" --from "$(date -u -d "@$((HOUR0 - 3600))" +%Y%m%d%H)" \
	--to "$NEXT" >"$T/report" || die "report failed"
[ "$(awk -F'\t' '$11 == "yes"' "$T/report" | wc -l)" -eq \
	"$(find "$T/a" -name _MANIFEST.json | wc -l)" ] &&
	[ "$(awk -F'\t' '$11 == "no"' "$T/report" | cut -f2,3 | tail -1)" = "${NEXT%??}	${NEXT#????????}" ] ||
	die "report: $(cat "$T/report")"

# Late rows for the first complete hour: a second batch of records, all
# in that hour, read by a second run.
first=$(head -1 "$T/want" | cut -d' ' -f1)
fdir="$T/a/access/$first"
success_before=$(stat -c %Y.%y "$fdir/_SUCCESS")
LATE_START=$(date -u -d "$(echo "$first" | sed 's|dt=\(....\)\(..\)\(..\)/hr=\(..\)|\1-\2-\3 \4:00:00|')" +%s)
$FIX/gen_nginx --records 200 --partitions 2 --seed 99 --start "$LATE_START" \
	--hours 1 --tz UTC --malformed-permille 0 \
	--out-records "$T/late" --out-expected "$T/late-expected" \
	--out-rejects "$T/late-rejects"
# out-of-order records may fall in the hour before; count those in it
late_rows=$(grep -c "^$first	" "$T/late-expected")
[ "$late_rows" -gt 100 ] || die "the late batch has $late_rows rows in $first"
mock_ctl "$T" produce access "$T/late"
run_to_end "$T/a.conf" "$T/a2.log" "kedge"
grep -q '"revision":2,' "$fdir/_MANIFEST.json" ||
	die "no revision 2: $(head -c 300 "$fdir/_MANIFEST.json")"
grep -q "\"late_rows\":$late_rows," "$fdir/_MANIFEST.json" ||
	die "late_rows is not $late_rows: $(grep -o '"late_rows":[0-9]*' "$fdir/_MANIFEST.json")"
[ "$(stat -c %Y.%y "$fdir/_SUCCESS")" != "$success_before" ] ||
	die "_SUCCESS was not written again"
out=$($KEDGE verify "$T/a") || die "verify after late rows: $out"

# A manifest that disagrees with its hour is caught.
cp "$fdir/_MANIFEST.json" "$T/manifest.bak"
sed 's/"late_rows":[0-9]*/"late_rows":1/' "$T/manifest.bak" >"$fdir/_MANIFEST.json"
! out=$($KEDGE verify "$T/a") || die "verify passed a wrong manifest"
case $out in *"$first"*) ;; *) die "verify said: $out" ;; esac
cp "$T/manifest.bak" "$fdir/_MANIFEST.json"

# A lateness longer than the data's age: nothing is complete.
conf b 604800 >"$T/b.conf"
run_to_end "$T/b.conf" "$T/b.log" "kedge"
[ -z "$(find "$T/b" -name _MANIFEST.json -o -name _SUCCESS)" ] ||
	die "hours complete despite a lateness of 7 days"
[ "$(landed_count "$T/b")" -eq $((N + 200)) ] ||
	die "landed $(landed_count "$T/b") rows and rejects, want $((N + 200))"
echo "ok: $(wc -l <"$T/want") past hours complete with the generator's rows, the next one not;" \
	"$late_rows late rows made revision 2; none complete with a 7-day lateness"
