#!/bin/sh
# The UDTF benchmark (never a test): `kedge bench udtf` over the corpus in
# tests/data, one core, each UDTF against one PCRE2-JIT regex that extracts
# the same fields from the same lines, measured in the same run:
#   nginx   combined lines       regex derived from the log_format
#   json    ~300-byte events, 8 fields extracted
#   kv      logfmt lines, 6 fields
#   csv     6-column orders
#   split → nginx on NUL-separated batches (no regex can split and parse)
# Prints records/s, ns/record, percentiles, rows, rejects, what timing every
# record costs, and the ratio to the regex.
set -eu
cd "$(dirname "$0")/.."
KEDGE=${KEDGE:-./kedge}
SECONDS_EACH=${BENCH_SECONDS:-0.5}
B=$(mktemp -d /tmp/kedge-bench-udtf.XXXXXX)
trap 'rm -rf "$B"' EXIT

cat >"$B/udtf.conf" <<CONF
kafka = { brokers = "127.0.0.1:9"; };
tables = (
  { name = "nginx"; topics = [ "n" ]; udtf = "nginx"; event_time = "time_local"; },
  { name = "json"; topics = [ "j" ]; udtf = "json"; event_time = "ts";
    udtf_config = { fields = "ts:timestamp, host, level, user.id:int64, user.name, latency_ms:double, ok:bool, msg"; }; },
  { name = "kv"; topics = [ "k" ]; udtf = "kv"; event_time = "ts";
    udtf_config = { fields = "ts:timestamp, level, msg, user_id:int64, latency:double, ok:bool"; }; },
  { name = "csv"; topics = [ "c" ]; udtf = "csv";
    udtf_config = { columns = "id:int64, ts, customer, amount:double, country, note"; }; },
  { name = "batches"; topics = [ "b" ]; udtf = [ "split", "nginx" ];
    event_time = "time_local"; }
);
output = { spool_dir = "$B/spool"; local_dir = "$B/warehouse"; };
CONF

bench() {
	_table=$1
	_input=$2
	shift 2
	echo
	$KEDGE bench udtf -c "$B/udtf.conf" --table "$_table" --input "$_input" \
		--seconds "$SECONDS_EACH" "$@"
}

echo "kedge bench udtf: the corpus in tests/data, one core, best of 3 passes of ${SECONDS_EACH} s each"
bench nginx tests/data/nginx.log
bench json tests/data/events.jsonl --regex \
	'"ts":"([^"]*)","host":"([^"]*)","level":"([^"]*)","user":\{"id":([0-9]+),"name":"((?:[^"\\]|\\.)*)"\},"latency_ms":([^,]*),"ok":(true|false),.*"msg":"((?:[^"\\]|\\.)*)"'
bench kv tests/data/app.logfmt --regex \
	'^ts=(\S*) level=(\S*) msg="((?:[^"\\]|\\.)*)" user_id=([0-9]*) latency=(\S*) ok=(\S*)'
bench csv tests/data/orders.csv --regex \
	'^([^,]*),([^,]*),("(?:[^"]|"")*"|[^,]*),([^,]*),([^,]*),(.*)$'
bench batches tests/data/batches.bin --delimiter '\0'
