#!/bin/sh
# kedge bench consume: kedge's consumer alone, on a static assignment and
# in a group, reads a mock topic to its end and counts exactly the records
# and bytes in it; it prints its rate, CPU time, peak RSS and the
# librdkafka settings that bound its memory.  (No figure is asserted.)
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

$FIX/gen_nginx --records 30000 --partitions 4 --seed 2 --start 1796000000 \
	--hours 2 --tz UTC --malformed-permille 5 \
	--out-records "$T/records" --out-expected /dev/null --out-rejects /dev/null
mock_start "$T" --topic web:4 --produce "web=$T/records"
bytes=$(tr -d '\n' <"$T/records" | wc -c)
for group in "" 'group_id = "bench-consume";'; do
	cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; $group };
tables = ( { name = "web"; topics = [ "web" ]; udtf = "nginx"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
metrics = { enabled = false; };
CONF
	timeout 60 $KEDGE bench consume -c "$T/kedge.conf" >"$T/out" 2>"$T/err" ||
		die "kedge bench consume failed: $(cat "$T/err")"
	grep -Eq "^consumed 30000 records \($bytes bytes\), dropped unparsed, in [0-9.]+ s from the first to the last: [0-9]+ records/s$" "$T/out" ||
		die "bench consume${group:+ in a group} counted otherwise: $(cat "$T/out")"
	grep -Eq '^cpu user [0-9.]+ s sys [0-9.]+ s; peak RSS [1-9][0-9]* KiB$' "$T/out" ||
		die "no CPU or RSS line: $(cat "$T/out")"
	grep -q '^librdkafka: queued.max.messages.kbytes=[0-9]* ' "$T/out" ||
		die "no librdkafka settings: $(cat "$T/out")"
	[ ! -e "$T/spool/open" ] || [ -z "$(find "$T/spool/open" -type f)" ] ||
		die "bench consume wrote part files"
done
echo "ok bench_consume"
