#!/bin/sh
# A release build (make KEDGE_RELEASE=1, as the packages build kedge) has
# no crash points: with KEDGE_CRASH_AT set it says once that they are not
# in this build, and runs on.  The test builds one into build-release/
# (RELEASE_B= another directory), checks that the crash message is not in
# the binary at all, then runs the same records with KEDGE_CRASH_AT=
# after-seal:1 through the test build (which must crash there, so the
# point is reached) and through the release build (which must land every
# record exactly once and exit 0).
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT KEDGE_STALL_AT

RB=${RELEASE_B:-build-release}
# Not the make that may have started this test: none of its variables.
(unset MAKEFLAGS MFLAGS MAKELEVEL
 make -s -j2 KEDGE_RELEASE=1 B="$RB" BIN="$RB/kedge" "$RB/kedge") >"$T/make.log" 2>&1 ||
	die "cannot build the release kedge: $(tail -5 "$T/make.log")"
grep -q 'crashing on purpose' "$KEDGE" ||
	die "$KEDGE is not a test build: it has no crash points"
! grep -q 'crashing on purpose' "$RB/kedge" ||
	die "$RB/kedge still holds the crash points"

P=2
N=2000
START=$(date -u -d '2026-07-04 08:00:00' +%s)
$FIX/gen_nginx --records $N --partitions $P --seed 5 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 5 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic access:$P --produce "access=$T/records"

# conf NAME: a group and spool and target of its own.
conf() {
	cat <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-$1"; };
tables = ( { name = "access"; topics = [ "access" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/$1/spool"; local_dir = "$T/$1/warehouse";
           timezone = "UTC"; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}
mkdir "$T/test" "$T/release"
conf test >"$T/test.conf"
conf release >"$T/release.conf"

rc=0
KEDGE_CRASH_AT=after-seal:1 timeout 60 $KEDGE run -c "$T/test.conf" \
	--exit-at-end 2>"$T/test.log" || rc=$?
[ "$rc" -eq 134 ] && crashed_on_purpose after-seal "$T/test.log" ||
	die "the test build did not crash at after-seal (status $rc): $(tail -3 "$T/test.log")"

KEDGE_CRASH_AT=after-seal:1 timeout 120 "$RB/kedge" run -c "$T/release.conf" \
	--exit-at-end 2>"$T/release.log" ||
	die "the release build failed: $(log_lines "$T/release.log" | grep -E '^(err|warning) ' | head -5)"
[ "$(log_lines "$T/release.log" | grep -c '^warning KEDGE_CRASH_AT is set, but crash points are not in this build')" -eq 1 ] ||
	die "the release build did not say once that it ignores KEDGE_CRASH_AT"
! grep -q 'crashing on purpose' "$T/release.log" || die "the release build crashed on purpose"
check_exactly_once "$T/release/warehouse" access "$T/expected" \
	"$T/expected-rejects" "$T/release/spool"
echo "ok: the release build ignored KEDGE_CRASH_AT=after-seal:1 and landed $CHECK_ROWS rows and $CHECK_REJECTS rejects once"
