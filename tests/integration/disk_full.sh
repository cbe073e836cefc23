#!/bin/sh
# The spool's file system full: kedge stops with a clear error and commits
# nothing it could not write; once there is space again, the next start
# (what the service's Restart= does) lands every record exactly once.  The
# spool is an 8 MiB tmpfs in a private mount namespace, nearly filled by a
# file the test removes later.
set -eu
if [ -z "${KEDGE_IN_NS:-}" ]; then
	KEDGE_IN_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; umount "$T/spool" 2>/dev/null; rm -rf "$T"' EXIT

START=$(date -u -d '2026-05-01 00:00:00' +%s)
$FIX/gen_nginx --records 20000 --partitions 2 --seed 21 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic full:2 --produce "full=$T/records"

mkdir "$T/spool"
mount -t tmpfs -o size=8m tmpfs "$T/spool" || die "cannot mount a tmpfs"
# leave about 64 KiB free
dd if=/dev/zero of="$T/spool/filler" bs=1k count=8128 2>/dev/null || true

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-full";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "full" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC"; };
# no free-space floor: this test is about the disk filling up anyway
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

rc=0
timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/run1.log" || rc=$?
[ "$rc" -eq 1 ] || die "with the spool full kedge exited $rc, want 1: $(tail -3 "$T/run1.log")"
grep -q 'No space left on device' "$T/run1.log" ||
	die "no clear error: $(log_lines "$T/run1.log" | grep '^err ' | head -3)"

rm -f "$T/spool/filler"
run_to_end "$T/kedge.conf" "$T/run2.log" "after space returned kedge"
landed_rows "$T/warehouse" access | sort >"$T/got"
sort "$T/expected" >"$T/want"
same_or_die "$T/want" "$T/got" "rows lost or doubled across the full disk"
$KEDGE verify "$T/warehouse" || die "kedge verify failed"
echo "ok: stopped on a full spool ($(log_lines "$T/run1.log" | grep -c '^err ') error lines), then $(wc -l <"$T/got") rows exactly once"
