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
# record costs, and the ratio to the regex, over the lines the regex
# matches.  Then, under callgrind (a count that does not move with the
# machine's load), instructions per record of each UDTF (every record
# timed, as kedge runs it) and of its regex: (Ir of 3 passes - Ir of 1
# pass) / 2 / records.
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

# ir TABLE INPUT PASSES ONLY ARGS...: instructions callgrind counts in a
# run of PASSES passes of ONLY (udtf or regex).
ir() {
	_t=$1
	_in=$2
	_p=$3
	_o=$4
	shift 4
	valgrind --tool=callgrind --callgrind-out-file="$B/cg.out" \
		$KEDGE bench udtf -c "$B/udtf.conf" --table "$_t" --input "$_in" \
		--passes "$_p" --only "$_o" "$@" >"$B/cg.log" 2>&1 ||
		{ echo "callgrind failed: $(tail -3 "$B/cg.log")" >&2; exit 1; }
	sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$B/cg.out"
}

# instr TABLE INPUT ARGS...: a line of instructions per record.
instr() {
	_t=$1
	_in=$2
	shift 2
	_n=$($KEDGE bench udtf -c "$B/udtf.conf" --table "$_t" --input "$_in" \
		--passes 1 "$@" | sed -n 's/.* over \([0-9]*\) records.*/\1/p')
	_u=$(( ($(ir "$_t" "$_in" 3 udtf "$@") - $(ir "$_t" "$_in" 1 udtf "$@")) / 2 / _n ))
	_r=$(( ($(ir "$_t" "$_in" 3 regex "$@") - $(ir "$_t" "$_in" 1 regex "$@")) / 2 / _n ))
	printf '%-8s %8d records %12d %12d %8.2f\n' "$_t" "$_n" "$_u" "$_r" \
		"$(echo "$_r / $_u" | bc -l)"
}

JSON_RE='"ts":"([^"]*)","host":"([^"]*)","level":"([^"]*)","user":\{"id":([0-9]+),"name":"((?:[^"\\]|\\.)*)"\},"latency_ms":([^,]*),"ok":(true|false),.*"msg":"((?:[^"\\]|\\.)*)"'
KV_RE='^ts=(\S*) level=(\S*) msg="((?:[^"\\]|\\.)*)" user_id=([0-9]*) latency=(\S*) ok=(\S*)'
CSV_RE='^([^,]*),([^,]*),("(?:[^"]|"")*"|[^,]*),([^,]*),([^,]*),(.*)$'
echo "kedge bench udtf: the corpus in tests/data, one core, best of 3 passes of ${SECONDS_EACH} s each"
bench nginx tests/data/nginx.log
bench json tests/data/events.jsonl --regex "$JSON_RE"
bench kv tests/data/app.logfmt --regex "$KV_RE"
bench csv tests/data/orders.csv --regex "$CSV_RE"
bench batches tests/data/batches.bin --delimiter '\0'

echo
command -v valgrind >/dev/null ||
	{ echo "FAIL: valgrind is missing (scripts/install-deps.sh)" >&2; exit 1; }
echo "instructions per record under callgrind (the UDTF with every record timed):"
printf '%-8s %16s %12s %12s %8s\n' table "" UDTF regex ratio
instr nginx tests/data/nginx.log
instr json tests/data/events.jsonl --regex "$JSON_RE"
instr kv tests/data/app.logfmt --regex "$KV_RE"
instr csv tests/data/orders.csv --regex "$CSV_RE"
