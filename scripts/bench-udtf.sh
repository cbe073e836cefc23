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
# matches; then the same for kedge's regex UDTF with the same pattern
# (named groups, typed as the UDTF types its columns), which goes through
# the same chain as the UDTF (the bare regex keeps nothing).  Then, under
# callgrind (a count that does not move with the machine's load),
# instructions per record of each UDTF (every record timed, as kedge runs
# it), of its bare regex and of the regex UDTF: (Ir of 3 passes - Ir of 1
# pass) / 2 / records.
set -eu
cd "$(dirname "$0")/.."
KEDGE=${KEDGE:-./kedge}
SECONDS_EACH=${BENCH_SECONDS:-0.5}
B=$(mktemp -d /tmp/kedge-bench-udtf.XXXXXX)
trap 'rm -rf "$B"' EXIT

# The same extractions as kedge's own regex UDTF, named groups typed as the
# UDTF types its columns: the regex run as kedge runs a UDTF, through the
# same chain (the rows kept for the batch, every record timed).
NGINX_NRE='^(?<remote_addr>[^ ]*) - (?<remote_user>[^ ]*) \[(?<time_local>[^\]]*)\] "(?<request>[^"]*)" (?<status>[^ ]*) (?<body_bytes_sent>[^ ]*) "(?<http_referer>[^"]*)" "(?<http_user_agent>[^"]*)"$'
JSON_NRE='"ts":"(?<ts>[^"]*)","host":"(?<host>[^"]*)","level":"(?<level>[^"]*)","user":\{"id":(?<user_id>[0-9]+),"name":"(?<user_name>(?:[^"\\]|\\.)*)"\},"latency_ms":(?<latency_ms>[^,]*),"ok":(?<ok>true|false),.*"msg":"(?<msg>(?:[^"\\]|\\.)*)"'
KV_NRE='^ts=(?<ts>\S*) level=(?<level>\S*) msg="(?<msg>(?:[^"\\]|\\.)*)" user_id=(?<user_id>[0-9]*) latency=(?<latency>\S*) ok=(?<ok>\S*)'
CSV_NRE='^(?<id>[^,]*),(?<ts>[^,]*),(?<customer>"(?:[^"]|"")*"|[^,]*),(?<amount>[^,]*),(?<country>[^,]*),(?<note>.*)$'
# unname S: the pattern S without its groups' names
unname() { printf '%s' "$1" | sed 's/(?<[a-z_]*>/(/g'; }
# cstr S: S as the text of a libconfig string
cstr() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

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
    event_time = "time_local"; },
  { name = "nginx_re"; topics = [ "n" ]; udtf = "regex"; event_time = "time_local";
    udtf_config = { pattern = "$(cstr "$NGINX_NRE")";
      types = "time_local:timestamp, status:int64, body_bytes_sent:int64"; }; },
  { name = "json_re"; topics = [ "j" ]; udtf = "regex"; event_time = "ts";
    udtf_config = { pattern = "$(cstr "$JSON_NRE")";
      types = "ts:timestamp, user_id:int64, latency_ms:double, ok:bool"; }; },
  { name = "kv_re"; topics = [ "k" ]; udtf = "regex"; event_time = "ts";
    udtf_config = { pattern = "$(cstr "$KV_NRE")";
      types = "ts:timestamp, user_id:int64, latency:double, ok:bool"; }; },
  { name = "csv_re"; topics = [ "c" ]; udtf = "regex";
    udtf_config = { pattern = "$(cstr "$CSV_NRE")";
      types = "id:int64, amount:double"; }; }
);
output = { spool_dir = "$B/spool"; local_dir = "$B/warehouse"; };
CONF

bench() {
	_table=$1
	_input=$2
	shift 2
	echo
	$KEDGE bench udtf -c "$B/udtf.conf" --table "$_table" --input "$_input" \
		--seconds "$SECONDS_EACH" "$@" | tee "$B/$_table.out"
}
# ns TABLE: the untimed ns/record of its bench above
ns() { sed -n 's/^  ns\/record *\([0-9.]*\).*/\1/p' "$B/$1.out"; }

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

# instr TABLE INPUT NAMED ARGS...: a line of instructions per record: the
# UDTF, the bare regex, and the regex UDTF of TABLE_re (pattern NAMED)
# through the same chain, on the lines the regex matches.
instr() {
	_t=$1
	_in=$2
	_re=$(unname "$3")
	shift 3
	_n=$($KEDGE bench udtf -c "$B/udtf.conf" --table "$_t" --input "$_in" \
		--passes 1 "$@" | sed -n 's/.* over \([0-9]*\) records.*/\1/p')
	_u=$(( ($(ir "$_t" "$_in" 3 udtf "$@") - $(ir "$_t" "$_in" 1 udtf "$@")) / 2 / _n ))
	_r=$(( ($(ir "$_t" "$_in" 3 regex "$@") - $(ir "$_t" "$_in" 1 regex "$@")) / 2 / _n ))
	_k=$(( ($(ir "${_t}_re" "$_in" 3 udtf --regex "$_re") -
		$(ir "${_t}_re" "$_in" 1 udtf --regex "$_re")) / 2 / _n ))
	printf '%-8s %8d records %10d %10d %6.2f %12d %6.2f\n' "$_t" "$_n" \
		"$_u" "$_r" "$(echo "$_r / $_u" | bc -l)" "$_k" \
		"$(echo "$_k / $_u" | bc -l)"
}

JSON_RE=$(unname "$JSON_NRE")
KV_RE=$(unname "$KV_NRE")
CSV_RE=$(unname "$CSV_NRE")
echo "kedge bench udtf: the corpus in tests/data, one core, best of 3 passes of ${SECONDS_EACH} s each"
bench nginx tests/data/nginx.log
bench json tests/data/events.jsonl --regex "$JSON_RE"
bench kv tests/data/app.logfmt --regex "$KV_RE"
bench csv tests/data/orders.csv --regex "$CSV_RE"
bench batches tests/data/batches.bin --delimiter '\0'
echo
echo "the same extractions by kedge's regex UDTF, through the same chain (the"
echo "rows kept, every record timed), on the lines the regex matches:"
bench nginx_re tests/data/nginx.log --regex "$(unname "$NGINX_NRE")"
bench json_re tests/data/events.jsonl --regex "$JSON_RE"
bench kv_re tests/data/app.logfmt --regex "$KV_RE"
bench csv_re tests/data/orders.csv --regex "$CSV_RE"
echo
echo "speed, UDTF against the regex UDTF (ns/record, one core, this run):"
for t in nginx json kv csv; do
	printf '%-8s %8.1f %8.1f   ratio %.2f\n' "$t" "$(ns "$t")" "$(ns "${t}_re")" \
		"$(echo "$(ns "${t}_re") / $(ns "$t")" | bc -l)"
done

echo
command -v valgrind >/dev/null ||
	{ echo "FAIL: valgrind is missing (scripts/install-deps.sh)" >&2; exit 1; }
echo "instructions per record under callgrind (the UDTF with every record timed;"
echo "the bare regex: match and type each group, nothing kept; the regex UDTF:"
echo "the same pattern as kedge runs a UDTF, through the same chain):"
printf '%-8s %16s %10s %10s %6s %12s %6s\n' table "" UDTF "bare regex" ratio \
	"regex UDTF" ratio
instr nginx tests/data/nginx.log "$NGINX_NRE"
instr json tests/data/events.jsonl "$JSON_NRE" --regex "$JSON_RE"
instr kv tests/data/app.logfmt "$KV_NRE" --regex "$KV_RE"
instr csv tests/data/orders.csv "$CSV_NRE" --regex "$CSV_RE"
