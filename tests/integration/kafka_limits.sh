#!/bin/sh
# A record batch larger than librdkafka may receive (receive.message.max.
# bytes) would stall its partition for good, librdkafka fetching it again
# and again: kedge stops instead, exit 1, with the reason and the key to
# raise.  With that key raised, the same topic is read to its end.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

# A few small records and one of 200 KB that zstd cannot shrink.
python3 - >"$T/records" <<'PY'
import base64, os
print("small 1")
print("small 2")
print(base64.b64encode(os.urandom(150000)).decode())
print("small 3")
PY
mock_start "$T" --topic big:1 --produce "big=$T/records"

# conf NAME RECEIVE: $T/NAME.conf with receive.message.max.bytes RECEIVE.
conf() {
	cat >"$T/$1.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP";
  rdkafka = { message_max_bytes = "65536"; fetch_max_bytes = "65536";
              max_partition_fetch_bytes = "65536";
              receive_message_max_bytes = "$2"; }; };
tables = ( { name = "raw"; topics = [ "big" ]; udtf = "raw"; } );
output = { spool_dir = "$T/$1-spool"; local_dir = "$T/$1-warehouse";
           timezone = "UTC"; roll = { max_age = 1; inactive = 1; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
}
conf small 70000
conf raised 1000000

rc=0
timeout 60 $KEDGE run -c "$T/small.conf" 2>"$T/small.log" || rc=$?
[ "$rc" -eq 1 ] || die "kedge exited $rc, want 1: $(tail -3 "$T/small.log")"
log_lines "$T/small.log" | grep -q "^err kafka: a broker's answer is larger than librdkafka may receive (.*Invalid response size [0-9]* (0\.\.70000).*): a record batch that large stalls its partition for good; raise kafka.rdkafka receive_message_max_bytes (librdkafka's receive.message.max.bytes) above the largest batch of the topics, with fetch_max_bytes and max_partition_fetch_bytes if they are set; stopping$" ||
	die "kedge said: $(log_lines "$T/small.log" | grep '^err ' | tail -3)"

timeout 60 $KEDGE run --exit-at-end -c "$T/raised.conf" 2>"$T/raised.log" ||
	die "with the key raised, kedge exited $?: $(tail -3 "$T/raised.log")"
[ "$(landed_count "$T/raised-warehouse")" -eq 4 ] ||
	die "landed $(landed_count "$T/raised-warehouse") rows, want 4"
echo "ok: a batch over receive.message.max.bytes stops kedge saying which key to raise"
