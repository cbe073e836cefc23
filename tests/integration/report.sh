#!/bin/sh
# Manifests, `kedge report` and `kedge verify`, over part files that the
# real kedge landed from a mock topic; the manifests are written here from
# the sidecars' numbers (and each file's event times from its rows), as the
# completion code would write them.
#
# Hours 14..16 (UTC) land; 14 gets a manifest.  report --from 14 --to 15
# prints 14 complete with the manifest's numbers and 15 not complete with
# its files and rows, counted from the generator's rows; verify passes with
# 1 manifest.  Late records of hour 14 land: verify counts the new files
# as waiting for a revision until revision 2 lists them as late.  Then
# verify fails on a manifest whose rows differ, on a listed file that is
# missing, on a _SUCCESS without manifest; report fails on a malformed manifest, naming
# it, and on a table it does not know.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT
W=$T/warehouse
TAB=$(printf '\t')

# Hours 14, 15 and a little of 16; the records up to 120 s early stay in 14.
START=$(date -u -d '2026-11-29 14:03:00' +%s)
$FIX/gen_nginx --records 3000 --partitions 2 --seed 21 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers = "$BOOTSTRAP"; group_id = "kedge-report";
  rdkafka = { session_timeout_ms = "6000"; };
};
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$W"; timezone = "UTC";
           host = "it-host"; roll = { max_bytes = 16384; }; };
checkpoint = { interval = 1; };
# the manifests are this test's own
completion = { enabled = false; };
metrics = { enabled = false; };
CONF

run_kedge() {
	timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end \
		2>"$T/kedge.log" || die "kedge run failed: $(tail -5 "$T/kedge.log")"
}

# parts DIR: the part files in hour directory DIR, in byte order.
parts() {
	find "$1" -maxdepth 1 -type f ! -name '.*' ! -name '_*' \
		-printf '%f\n' | LC_ALL=C sort
}

# event_us TIME: "YYYY-MM-DD HH:MM:SS" (UTC) in microseconds.
event_us() {
	echo "$(date -u -d "$1 UTC" +%s)000000"
}

# file_line DIR NAME REVISION: the partition, the first offset, the name,
# the sidecar, the least and the greatest event time and the revision of
# part file NAME, tab-separated.
file_line() {
	_sc=$(cat "$1/.$2.json")
	_times=$(decompress "$1/$2" | hive_cut 3 | LC_ALL=C sort)
	_min=null
	_max=null
	if [ -n "$_times" ]; then
		_min=$(event_us "$(echo "$_times" | head -1)")
		_max=$(event_us "$(echo "$_times" | tail -1)")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$(echo "$_sc" | sed 's/.*"partition":\([0-9]*\).*/\1/')" \
		"$(echo "$_sc" | sed 's/.*"first_offset":\([0-9]*\).*/\1/')" \
		"$2" "$_sc" "$_min" "$_max" "$3"
}

# rejects_in DT HR: the records of access rejected in that hour's rejects.
rejects_in() {
	cat "$W/_rejects/dt=$1/hr=$2"/.*.json 2>/dev/null |
		sed -n 's/.*"rejected":{[^}]*"access":\[\(\[[][0-9,]*\]\)\].*/\1/p' |
		grep -o '[0-9]*,[0-9]*' |
		awk -F, '{ n += $2 - $1 + 1 } END { print n + 0 }'
}

# write_manifest DT HR REVISION [EARLIER]: writes the manifest of
# access/dt=DT/hr=HR and then its _SUCCESS: every part file there as its
# sidecar says, in REVISION unless EARLIER (a file of names) lists it as
# one of revision 1.
write_manifest() {
	_dir=$W/access/dt=$1/hr=$2
	parts "$_dir" | while read -r _name; do
		_rev=$3
		[ $# -lt 4 ] || ! grep -qxF "$_name" "$4" || _rev=1
		file_line "$_dir" "$_name" "$_rev"
	done | sort -t "$TAB" -k1,1n -k2,2n | awk -F '\t' \
		-v dt="$1" -v hr="$2" -v rev="$3" -v rejects="$(rejects_in "$1" "$2")" '
	function num(s, k) {
		match(s, "\"" k "\":[0-9]+")
		return substr(s, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	}
	function str(s, k) {
		if (!match(s, "\"" k "\":\"[^\"]*\""))
			return ""
		return substr(s, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
	}
	function ranges(s, k) {
		match(s, "\"" k "\":\\[[][0-9,]*\\]")
		return substr(s, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
	}
	{
		rows = num($4, "rows"); topic = str($4, "topic")
		offs = ranges($4, "offsets")
		files = files (NR > 1 ? "," : "") sprintf("{\"name\":\"%s\"," \
		    "\"bytes\":%s,\"rows\":%s,\"crc32c\":\"%s\",\"topic\":\"%s\"," \
		    "\"partition\":%s,\"offsets\":[%s],\"min_event_us\":%s," \
		    "\"max_event_us\":%s,\"revision\":%s}", $3, num($4, "bytes"),
		    rows, str($4, "crc32c"), topic, $1, offs, $5, $6, $7)
		total += rows; bytes += num($4, "bytes")
		if ($7 > 1)
			late += rows
		if ($5 != "null" && (min == "" || $5 + 0 < min + 0))
			min = $5
		if ($6 != "null" && (max == "" || $6 + 0 > max + 0))
			max = $6
		k = topic SUBSEP $1
		if (!(k in prows)) {
			order[++np] = k; ptopic[k] = topic; ppart[k] = $1
		}
		prows[k] += rows
		if (offs != "")
			pofs[k] = pofs[k] (pofs[k] != "" ? "," : "") offs
	}
	END {
		printf "{\"kedge\":1,\"table\":\"access\",\"dt\":\"%s\"," \
		    "\"hr\":\"%s\",\"revision\":%s,\"host\":\"it-host\"," \
		    "\"written\":\"2026-11-29T17:00:00Z\"," \
		    "\"watermark_us\":1795968000000000,\"rows\":%d,\"bytes\":%d," \
		    "\"rejects\":%d,\"late_rows\":%d,\"min_event_us\":%s," \
		    "\"max_event_us\":%s,\"files\":[%s],\"partitions\":[", dt, hr,
		    rev, total, bytes, rejects, late, (min == "" ? "null" : min),
		    (max == "" ? "null" : max), files
		for (i = 1; i <= np; i++)
			printf "%s{\"topic\":\"%s\",\"partition\":%s," \
			    "\"offsets\":[%s],\"rows\":%d}", (i > 1 ? "," : ""),
			    ptopic[order[i]], ppart[order[i]], pofs[order[i]],
			    prows[order[i]]
		printf "]}\n"
	}' >"$_dir/_MANIFEST.json"
	: >"$_dir/_SUCCESS"
}

# rows_of HOUR FILE...: the rows the generator expects in dt=../hr=.. HOUR.
rows_of() {
	_h=$1
	shift
	cat "$@" | grep -ac "^$_h$TAB" || true
}

# iso_range HOUR FILE...: "<least><TAB><greatest>" event time of those
# rows, as report prints them.
iso_range() {
	_h=$1
	shift
	cat "$@" | grep -a "^$_h$TAB" | cut -f2- | hive_cut 3 | LC_ALL=C sort |
		awk 'NR == 1 { a = $0 } { b = $0 }
		END { sub(" ", "T", a); sub(" ", "T", b); print a "Z\t" b "Z" }'
}

expect_verify_ok() {
	out=$($KEDGE verify "$W" 2>&1) || die "verify failed: $out"
	case $out in
	"verify OK: "*", $1 manifests") ;;
	*) die "verify printed \"$out\", want $1 manifests" ;;
	esac
	json=$(verify_json "$W") || die "verify --json failed: $json"
	[ "$json" = "$out" ] || die "verify --json said \"$json\", verify \"$out\""
}

# expect_violation WANT: verify exits 1 and prints exactly WANT; verify
# --json says the same.
expect_violation() {
	rc=0
	out=$($KEDGE verify "$W" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || die "verify exits $rc, want 1: $out"
	[ "$out" = "$1" ] || die "verify printed \"$out\", want \"$1\""
	rc=0
	out=$(verify_json "$W") || rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "$1" ] ||
		die "verify --json: exit $rc, \"$out\", want 1, \"$1\""
}

# report ARGS...: kedge report's TSV and exit status, after checking that
# report --json exits the same and holds the same lines (read with
# python3's json), or nothing when it fails.
report() {
	_rc=0
	$KEDGE report -c "$T/kedge.conf" "$@" >"$T/report.tsv" || _rc=$?
	_jrc=0
	$KEDGE report -c "$T/kedge.conf" --json "$@" >"$T/report.json" \
		2>/dev/null || _jrc=$?
	[ "$_jrc" -eq "$_rc" ] || die "report --json $* exits $_jrc, report $_rc"
	if [ "$_rc" -ne 0 ]; then
		[ ! -s "$T/report.json" ] ||
			die "report --json $* failed, and printed: $(head -3 "$T/report.json")"
		cat "$T/report.tsv"
		return "$_rc"
	fi
	python3 - "$T/report.json" "$@" >"$T/report.json.tsv" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
args = sys.argv[2:]
assert d["from"] == args[args.index("--from") + 1], d["from"]
assert d["to"] == args[args.index("--to") + 1], d["to"]
keys = ["table", "dt", "hr", "revision", "rows", "rejects", "late_rows",
        "files", "min_event", "max_event", "complete"]
print("\t".join(keys))
for h in d["hours"]:
    assert sorted(h) == sorted(keys), h
    cell = lambda v: "-" if v is None else ("yes" if v else "no") \
        if isinstance(v, bool) else str(v)
    print("\t".join(cell(h[k]) for k in keys))
PY
		die "report --json $*: $(cat "$T/report.json")"
	same_or_die "$T/report.tsv" "$T/report.json.tsv" "report --json $*"
	cat "$T/report.tsv"
}

H14=20261129/hr=14
D14=$W/access/dt=$H14
D15=$W/access/dt=20261129/hr=15
M14=access/dt=$H14/_MANIFEST.json

run_kedge
[ -n "$(parts "$W/access/dt=20261129/hr=16")" ] || die "nothing landed in hour 16"
write_manifest 20261129 14 1
parts "$D14" >"$T/rev1"
[ "$(wc -l <"$T/rev1")" -gt 1 ] || die "want several files in hour 14"
expect_verify_ok 1

# 14 complete, 15 open, 16 out of range.
{
	printf 'table\tdt\thr\trevision\trows\trejects\tlate_rows\tfiles\t'
	printf 'min_event\tmax_event\tcomplete\n'
	printf 'access\t20261129\t14\t1\t%s\t%s\t0\t%s\t%s\tyes\n' \
		"$(rows_of "dt=$H14" "$T/expected")" "$(rejects_in 20261129 14)" \
		"$(wc -l <"$T/rev1")" "$(iso_range "dt=$H14" "$T/expected")"
	printf 'access\t20261129\t15\t-\t%s\t-\t-\t%s\t-\t-\tno\n' \
		"$(rows_of dt=20261129/hr=15 "$T/expected")" \
		"$(parts "$D15" | wc -l)"
} >"$T/want"
report --from 2026112914 --to 2026112915 >"$T/got" || die "report failed"
same_or_die "$T/want" "$T/got" "report of hours 14..15"
report --table access --from 2026112915 --to 2026112915 >"$T/got" ||
	die "report failed"
sed -n '1p;3p' "$T/want" >"$T/want15"
same_or_die "$T/want15" "$T/got" "report of hour 15 alone"

# Late records of hour 14: the first half of an hour's worth from 14:03,
# none malformed, so that the last file of each partition is in hour 14.
$FIX/gen_nginx --records 400 --partitions 2 --seed 22 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 0 \
	--out-records "$T/all2" --out-expected "$T/all-expected2" \
	--out-rejects "$T/expected-rejects2"
[ ! -s "$T/expected-rejects2" ] || die "malformed records in the late batch"
head -n 200 "$T/all2" >"$T/records2"
head -n 200 "$T/all-expected2" >"$T/expected2"
mock_ctl "$T" produce web "$T/records2"
run_kedge
late=$(parts "$D14" | LC_ALL=C comm -13 "$T/rev1" - | head -1)
[ -n "$late" ] || die "no late file in hour 14"
# the late file waits for revision 2: verify counts it, and passes
out=$($KEDGE verify "$W" 2>&1) || die "verify with a late file: $out"
case $out in
"verify OK: "*", 1 manifests ("[1-9]*" files landed after their hour's manifest, for its next revision)") ;;
*) die "verify with a late file printed \"$out\"" ;;
esac
write_manifest 20261129 14 2 "$T/rev1"
expect_verify_ok 1
late_rows=$(rows_of "dt=$H14" "$T/expected2")
[ "$late_rows" -gt 0 ] || die "the late batch has no row in hour 14"
printf 'access\t20261129\t14\t2\t%s\t%s\t%s\t%s\t%s\tyes\n' \
	"$(rows_of "dt=$H14" "$T/expected" "$T/expected2")" \
	"$(rejects_in 20261129 14)" "$late_rows" "$(parts "$D14" | wc -l)" \
	"$(iso_range "dt=$H14" "$T/expected" "$T/expected2")" >"$T/want14"
report --from 2026112914 --to 2026112914 | sed 1d >"$T/got" ||
	die "report failed"
same_or_die "$T/want14" "$T/got" "report of hour 14, revision 2"

# A manifest whose rows differ.
cp "$D14/_MANIFEST.json" "$T/good-manifest"
rows=$(sed -n 's/.*"watermark_us":[0-9]*,"rows":\([0-9]*\),.*/\1/p' \
	"$T/good-manifest")
sed "s/\"watermark_us\":\([0-9]*\),\"rows\":$rows,/\"watermark_us\":\1,\"rows\":$((rows + 1)),/" \
	"$T/good-manifest" >"$D14/_MANIFEST.json"
expect_violation "verify: $M14: says $((rows + 1)) rows, its files hold $rows"
cp "$T/good-manifest" "$D14/_MANIFEST.json"
expect_verify_ok 1

# A listed file that is missing: the last one of partition 0.
gone=$(parts "$D14" | grep '^web+0+' | sort -t + -k3,3n | tail -1)
mv "$D14/$gone" "$D14/.$gone.json" "$T/"
expect_violation "verify: $M14: lists $gone, which is not there"
mv "$T/$gone" "$T/.$gone.json" "$D14/"
expect_verify_ok 1

# _SUCCESS without a manifest.
: >"$D15/_SUCCESS"
expect_violation "verify: access/dt=20261129/hr=15: _SUCCESS without _MANIFEST.json"
rm "$D15/_SUCCESS"
expect_verify_ok 1

# A manifest that does not parse: report names it and exits 1.
sed 's/"kedge":1/"kedge":1,"colour":"red"/' "$T/good-manifest" \
	>"$D14/_MANIFEST.json"
rc=0
report --from 2026112914 --to 2026112915 >"$T/got" 2>"$T/said" || rc=$?
[ "$rc" -eq 1 ] || die "report of a malformed manifest exits $rc, want 1"
grep -qF "$D14/_MANIFEST.json: malformed manifest: unknown key \"colour\"" \
	"$T/said" || die "report said: $(cat "$T/said")"
expect_violation "verify: $M14: malformed manifest: unknown key \"colour\""
cp "$T/good-manifest" "$D14/_MANIFEST.json"

# What report refuses.
rc=0
report --table nope --from 2026112914 --to 2026112915 >/dev/null \
	2>"$T/said" || rc=$?
[ "$rc" -eq 1 ] && grep -q 'has no table nope' "$T/said" ||
	die "report --table nope: exit $rc, $(cat "$T/said")"
for args in "--from 2026112914" "--from 2026112924 --to 2026112924" \
	"--from 2026112915 --to 2026112914" "--from 20261129 --to 2026112914"; do
	rc=0
	# shellcheck disable=SC2086
	report $args >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 2 ] || die "report $args exits $rc, want 2"
done
expect_verify_ok 1
echo "ok: $(cat "$T/want14")"
