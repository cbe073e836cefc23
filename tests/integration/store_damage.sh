#!/bin/sh
# A damaged or lost checkpoint store.  Each case: kedge reads the topic and
# crashes right after sealing its last checkpoint (sealed, not decided);
# then the store is damaged - the newest record truncated, a byte of it
# flipped, or the whole state directory gone - and kedge starts again.  It
# must say what it found, decide from what is left (the other slot, the
# group's committed metadata and the files' journals), and land every
# record exactly once.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

START=$(date -u -d '2026-08-01 00:00:00' +%s)
$FIX/gen_nginx --records 30000 --partitions 3 --seed 31 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
sort "$T/expected" >"$T/want"
mock_start "$T" --topic store:3 --produce "store=$T/records"

# scenario NAME DAMAGE WANT_LOG: one case in its own group, spool and target.
scenario() {
	d=$T/$1
	mkdir -p "$d"
	cat >"$d/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-store-$1";
          rdkafka = { session_timeout_ms = "6000"; }; };
tables = ( { name = "access"; topics = [ "store" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "$d/spool"; local_dir = "$d/warehouse"; timezone = "UTC";
           roll = { max_bytes = 65536; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
	rc=0
	KEDGE_CRASH_AT=after-seal timeout 120 $KEDGE run -c "$d/kedge.conf" \
		--exit-at-end 2>"$d/run1.log" || rc=$?
	[ "$rc" -eq 134 ] || die "$1: the crash run exited $rc: $(tail -2 "$d/run1.log")"
	newest=$(ls -t "$d/spool/checkpoint"/checkpoint.* | head -1)
	[ -s "$newest" ] || die "$1: no store record was written"
	case $2 in
	truncate) truncate -s $(( $(stat -c %s "$newest") / 2 )) "$newest" ;;
	flip) printf 'X' | dd of="$newest" bs=1 seek=30 conv=notrunc 2>/dev/null ;;
	remove) rm -rf "$d/spool/checkpoint" ;;
	esac
	timeout 120 $KEDGE run -c "$d/kedge.conf" --exit-at-end 2>"$d/run2.log" ||
		die "$1: the run after the damage failed: $(tail -3 "$d/run2.log")"
	grep -Eq "$3" "$d/run2.log" ||
		die "$1: kedge did not say what it found: $(grep checkpoint "$d/run2.log" | head -3)"
	landed_rows "$d/warehouse" access | sort >"$d/got"
	same_or_die "$T/want" "$d/got" "$1: rows lost or doubled"
	$KEDGE verify "$d/warehouse" >/dev/null || die "$1: kedge verify failed"
	[ -z "$(find "$d/spool/open" "$d/spool/ready" -type f)" ] ||
		die "$1: files left in the spool"
	echo "$1: ok ($(grep -c 'cut back\|decided up to' "$d/run2.log") recovery lines)"
}

scenario truncated truncate 'checkpoint: .*/checkpoint\.[ab]: .*(torn|damaged)'
scenario flipped flip 'checkpoint: .*/checkpoint\.[ab]: .*(CRC|magic|version|damaged)'
scenario removed remove 'no usable record'
echo "ok"
