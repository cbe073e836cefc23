#!/bin/sh
# End to end: generated nginx traffic in a 4-partition topic of the mock
# cluster -> the real kedge binary in a consumer group -> gzip Hive text in
# hourly partitions (Asia/Shanghai, across local midnight) and the rejects
# table.  Every row lands exactly once in the right hour, every malformed
# record is in the rejects with its partition and offset, every file is
# whole, nothing is left in the spool.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

# 2026-11-29 22:30 in Shanghai; three hours of events cross local midnight.
START=$(date -u -d '2026-11-29 14:30:00' +%s)
$FIX/gen_nginx --records 30000 --partitions 4 --seed 11 --start "$START" \
	--hours 3 --tz Asia/Shanghai --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic nginx-access:4 --produce "nginx-access=$T/records"

cat >"$T/kedge.conf" <<CONF
kafka = {
  brokers  = "$BOOTSTRAP";
  group_id = "kedge-it";
  # A small prefetch queue, so that the fetcher parks on it again and
  # again and kedge's wake-ups are part of what is tested.
  rdkafka  = { session_timeout_ms = "6000"; queued_min_messages = "3000"; };
};
tables = ( {
  name   = "access";
  topics = [ "nginx-access" ];
  udtf   = "nginx";
  event_time = "time_local";
  format = "hive-text";
  codec  = "gzip";
} );
output = { $OLD_EVENTS
  spool_dir = "$T/spool";
  local_dir = "$T/warehouse";
  timezone  = "Asia/Shanghai";
  host      = "it-host";
  roll = { max_bytes = 65536; };
};
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

$KEDGE check-config -c "$T/kedge.conf"
run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"

# The rows, row by row, in the right hours.
landed_rows "$T/warehouse" access | sort >"$T/got"
sort "$T/expected" >"$T/want"
same_or_die "$T/want" "$T/got" "landed rows differ from the produced ones"
[ "$(wc -l <"$T/want")" -gt 28000 ] || die "too few expected rows"
grep -q '^dt=20261129/hr=23	' "$T/got" || die "no rows before midnight"
grep -q '^dt=20261130/hr=00	' "$T/got" || die "no rows after midnight"

# The rejects: partition, offset and raw bytes of each malformed record.
landed_rows "$T/warehouse" _rejects | cut -f2- | hive_cut 3 4 7 |
	sort >"$T/got-rejects"
sort "$T/expected-rejects" >"$T/want-rejects"
same_or_die "$T/want-rejects" "$T/got-rejects" "rejects differ from the malformed records"
[ -s "$T/want-rejects" ] || die "the generator made no malformed records"
landed_rows "$T/warehouse" _rejects | cut -f2- | hive_cut 1 2 6 | awk -F '\t' '
	$1 != "access" || $2 != "nginx-access" || $3 == "" { bad++ }
	END { exit bad > 0 }' || die "a rejects row lacks its table, topic or reason"

# Files: whole gzip, named <topic>+<partition>+<first offset>+<host>, and
# several of them (roll by size).
n=0
for f in $(find "$T/warehouse/access" -type f ! -name ".*" ! -name '_*'); do
	gzip -t "$f" || die "$f is not a whole gzip file"
	basename "$f" | grep -Eq '^nginx-access\+[0-3]\+[0-9]+\+it-host\.txt\.gz$' ||
		die "unexpected file name $f"
	n=$((n + 1))
done
[ "$n" -gt 8 ] || die "expected files rolled by size, found $n"
[ -z "$(find "$T/spool/open" "$T/spool/ready" -type f)" ] || die "files left in the spool"
grep -q 'table access: 30000 records' "$T/kedge.log" ||
	die "summary missing: $(grep table "$T/kedge.log")"
grep -Eq 'fetcher woken [1-9][0-9]* times' "$T/kedge.log" ||
	die "the fetcher never parked: $(grep consumed "$T/kedge.log")"
$KEDGE verify "$T/warehouse" || die "kedge verify failed"

# Every sidecar's event range lies in its file's hour (for the rejects, the
# hour of arrival), and is null only for a file of no row.
for s in $(find "$T/warehouse" -type f -name '.*.json'); do
	hour=$(dirname "$s" | sed -E \
		's|.*/dt=([0-9]{4})([0-9]{2})([0-9]{2})/hr=([0-9]{2})$|\1-\2-\3 \4:00|')
	lo=$(TZ=Asia/Shanghai date -d "$hour" +%s)000000
	jq -e --argjson lo "$lo" 'if .rows == 0 then
		.min_event_us == null and .max_event_us == null else
		$lo <= .min_event_us and .min_event_us <= .max_event_us and
		.max_event_us < $lo + 3600000000 end' "$s" >/dev/null ||
		die "$s: event range outside $hour: $(cat "$s")"
done

# A queue bounded by bytes (queued.max.messages.kbytes) rather than by
# records parks the fetcher too: kedge must see it and wake it, and read
# the same rows (a fetcher left parked would read at a trickle).
sed -e 's/group_id = "kedge-it"/group_id = "kedge-it-kbytes"/' \
	-e 's/queued_min_messages = "3000"/queued_max_messages_kbytes = "256"/' \
	-e "s|$T/spool|$T/spool2|; s|$T/warehouse|$T/warehouse2|" \
	"$T/kedge.conf" >"$T/kbytes.conf"
grep -q 'queued_max_messages_kbytes = "256"' "$T/kbytes.conf" ||
	die "the kbytes configuration was not written"
run_to_end "$T/kbytes.conf" "$T/kbytes.log" "kedge run (kbytes)"
grep -Eq 'fetcher woken [1-9][0-9]* times' "$T/kbytes.log" ||
	die "the fetcher parked on bytes was never woken: $(grep consumed "$T/kbytes.log")"
landed_rows "$T/warehouse2" access | sort >"$T/got2"
same_or_die "$T/want" "$T/got2" "landed rows (kbytes) differ from the produced ones"
echo "ok: $(wc -l <"$T/got") rows, $(wc -l <"$T/got-rejects") rejects, $n files"
