#!/bin/sh
# check-config refuses what run refuses, each mistake as one line
# "FILE:LINE: key: what is wrong and what to do", every one of a file at
# once, and run refuses the same with exit 78 (EX_CONFIG): a misspelt or
# refused librdkafka property and a conf librdkafka refuses whole; sizes,
# durations and integers past 32 bits; an nginx log_format pasted with
# nginx's quotes, or with a bracket, quote or variable wrong; a missing
# keytab; an event_time that is no timestamp; an @include, relative to the
# file that names it; a syntax error at its line; a topic too long for the
# file names kedge makes of it; an HDFS base directory with "..", a port
# past 65535.  --json gives the same as one JSON document.
set -eu
. tests/lib.sh

command -v jq >/dev/null || die "jq is needed to read check-config --json"
# from another directory, so that an @include cannot be found by chance
case $KEDGE in /*) ;; *) KEDGE=$PWD/$KEDGE ;; esac
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The first two lines of every config; the mistakes start at line 3.
base() {
	cat <<CONF
kafka = { brokers = "127.0.0.1:9092"; };
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; host = "edge01"; };
CONF
}
NGINX='tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx"; } );'

# expect NAME LINE...: check-config on $T/NAME.conf exits 1 and prints
# exactly these lines, each after "$T/NAME.conf:" unless it starts with a
# path of its own.
expect() {
	_name=$1
	shift
	: >"$T/want"
	for _l in "$@"; do
		case $_l in
		/*) printf '%s\n' "$_l" ;;
		*) printf '%s\n' "$T/$_name.conf:$_l" ;;
		esac >>"$T/want"
	done
	_rc=0
	(cd / && $KEDGE check-config -c "$T/$_name.conf") >"$T/stdout" \
	    2>"$T/said" ||
		_rc=$?
	[ "$_rc" -eq 1 ] || die "$_name: exit $_rc, want 1: $(cat "$T/said")"
	[ ! -s "$T/stdout" ] || die "$_name: printed on stdout: $(cat "$T/stdout")"
	cmp -s "$T/want" "$T/said" || die "$_name: got
$(cat "$T/said")
want
$(cat "$T/want")"
}

# Finding 1: librdkafka's properties, alone and as kedge builds the conf.
{ printf 'kafka = { brokers = "127.0.0.1:9092";\n  rdkafka = { sesion_timeout_ms = "6000"; }; };\n'
  base | sed 1d; echo "$NGINX"; } >"$T/rdkafka_name.conf"
expect rdkafka_name '2: kafka.rdkafka.sesion_timeout_ms: librdkafka has no property sesion.timeout.ms; did you mean "session_timeout_ms"?'
{ printf 'kafka = { brokers = "127.0.0.1:9092";\n  rdkafka = { fetch_wait_max_ms = "soon"; }; };\n'
  base | sed 1d; echo "$NGINX"; } >"$T/rdkafka_value.conf"
expect rdkafka_value '2: kafka.rdkafka.fetch_wait_max_ms: librdkafka refuses fetch.wait.max.ms = "soon": Invalid value for configuration property "fetch.wait.max.ms"'
{ printf 'kafka = { brokers = "127.0.0.1:9092";\n  rdkafka = { receive_message_max_bytes = 200000; }; };\n'
  base | sed 1d; echo "$NGINX"; } >"$T/rdkafka_whole.conf"
expect rdkafka_whole '2: kafka.rdkafka: librdkafka refuses the configuration kedge makes of this file: `receive.message.max.bytes` must be >= `fetch.max.bytes` + 512'
# what librdkafka only warns of, check-config warns of, and passes
{ printf 'kafka = { brokers = "127.0.0.1:9092";\n  rdkafka = { linger_ms = 5; }; };\n'
  base | sed 1d; echo "$NGINX"; } >"$T/rdkafka_warn.conf"
$KEDGE check-config -c "$T/rdkafka_warn.conf" >"$T/stdout" 2>"$T/said" ||
	die "rdkafka_warn: $(cat "$T/said")"
[ "$(cat "$T/stdout")" = "configuration OK" ] &&
    [ "$(cat "$T/said")" = "warning: $T/rdkafka_warn.conf:2: kafka.rdkafka: librdkafka: Configuration property queue.buffering.max.ms is a producer property and will be ignored by this consumer instance" ] ||
	die "rdkafka_warn: $(cat "$T/stdout" "$T/said")"
for name in rdkafka_name rdkafka_whole; do
	rc=0
	timeout 60 $KEDGE run -c "$T/$name.conf" >"$T/run.log" 2>&1 || rc=$?
	[ "$rc" -eq 78 ] || die "run with $name.conf exited $rc, want 78: $(cat "$T/run.log")"
	grep -qF "$T/$name.conf:2: kafka.rdkafka" "$T/run.log" ||
		die "run with $name.conf said: $(cat "$T/run.log")"
done

# Finding 2: sizes, durations and 64-bit integers are taken...
{ base; cat <<'CONF'
tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";
  event_time = "time_local"; max_bytes_per_record = "512MiB";
  udtf_config = { log_format = '$remote_addr - $remote_user [$time_local] "$request" '
                               '$status $body_bytes_sent "$http_referer" '
                               '"$http_user_agent" "${my_own}"'; }; } );
spool = { max_bytes = 10737418240; min_free_bytes = "10G"; };
checkpoint = { interval = "30s"; };
completion = { idle_timeout = "5m"; rescan = "1h30m"; };
CONF
} >"$T/units.conf"
out=$( (cd / && $KEDGE check-config -c "$T/units.conf") 2>&1) ||
	die "units.conf: $out"
[ "$out" = "configuration OK" ] || die "units.conf: check-config printed: $out"
# ... also without the quotes, as a person writes them
{ base; echo "$NGINX"; echo 'spool = { max_bytes = 10G; min_free_bytes = 512MiB; };'
  echo 'checkpoint = { interval = 30s; };'
  echo 'completion = { idle_timeout = 5m; rescan = 1h30m; };'; } >"$T/unquoted.conf"
out=$($KEDGE check-config -c "$T/unquoted.conf" 2>&1) ||
	die "unquoted.conf: $out"
[ "$out" = "configuration OK" ] || die "unquoted.conf: check-config printed: $out"
# ... and a value written wrong says how to write it
{ base; echo "$NGINX"; echo 'spool = { max_bytes = 1.5G; };'; } >"$T/fraction.conf"
expect fraction '4: syntax error: 1.5G: a size or duration has a whole number before its unit, as 10G, 512MiB, 30s or 1h30m'
{ base; echo "$NGINX"; echo 'spool = { max_bytes = "10 GB"; };'; echo 'checkpoint = { interval = "2h"; };'; } >"$T/units_bad.conf"
expect units_bad '4: spool.max_bytes: "10 GB" is not a size: write bytes, or a number with K, M, G, T or P after it (or KiB, MiB, GiB, TiB, PiB: powers of 1024 all), such as "512MiB"' \
	'5: checkpoint.interval: "2h" (7200) is out of range 1..3600 (1s..1h)'
# log_format against nginx's grammar
log_format() {
	{ base; echo 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";'
	  printf '  udtf_config = { log_format = %s; }; } );\n' "$2"; } >"$T/$1.conf"
}
log_format bracket "'\$remote_addr [\$time_local \"\$request\" \$status'"
expect bracket '4: tables[0].udtf_config.log_format: UDTF nginx: the "[" at offset 13 ("[$time_local "$request" ") is never closed by "]"'
log_format quote "'\$remote_addr [\$time_local] \"\$request \$status'"
expect quote '4: tables[0].udtf_config.log_format: UDTF nginx: the '"'"'"'"'"' at offset 27 (""$request $status") is never closed by another'
log_format variable "'\$remote_addr [\$time_local] \"\$requst\" \$status'"
expect variable '4: tables[0].udtf_config.log_format: UDTF nginx: $requst is not an nginx variable; did you mean $request? (one of your own, from map or set, is written ${requst})'

# Finding 7: the keytab, event_time, @include and syntax errors at their
# lines.
{ base; echo "$NGINX"; echo 'kerberos = { principal = "kedge/edge01@EXAMPLE.COM";'
  echo "  keytab = \"$T/missing.keytab\"; };"; } >"$T/keytab.conf"
expect keytab "5: kerberos.keytab: keytab $T/missing.keytab: No such file or directory; export the key of kedge/edge01@EXAMPLE.COM into it (kadmin: ktadd -k $T/missing.keytab kedge/edge01@EXAMPLE.COM), or fix kerberos.keytab"
{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";\n  event_time = "status"; } );\n'; } >"$T/event_time.conf"
expect event_time '4: tables[0].event_time: column "status" of UDTF nginx is not a timestamp; use "time_local" or "kafka_timestamp"'
mkdir -p "$T/conf.d"
{ base; echo '@include "conf.d/tables.conf"'; } >"$T/include.conf"
printf '# tables\n%s\n@include "more.conf"\n' "$NGINX" >"$T/conf.d/tables.conf"
printf 'checkpoint = {\n  interval = 0; };\n' >"$T/conf.d/more.conf"
expect include "$T/conf.d/more.conf:2: checkpoint.interval: 0 is out of range 1..3600 (1s..1h)"
{ base; echo '@include "conf.d/none.conf"'; } >"$T/include_missing.conf"
expect include_missing "3: @include: cannot read $T/conf.d/none.conf: No such file or directory"
{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";\n  udtf_config = { log_format = "$remote_addr \\"$request\\" $status; }; } );\nlog = { level = "info"; };\n# the end\n'; } >"$T/string.conf"
expect string '4: syntax error: this string runs on past its line, and then line 5: this string is never closed: is a quote missing here (a " inside a string is written \")?'
{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";\n  codec = "gzip";\n);\nlog = { level = "info"; };\n'; } >"$T/bracket_syntax.conf"
expect bracket_syntax '5: syntax error: this ) does not close the { of line 3'
{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx"; }\n\nlog = { level = "info"; };\n'; } >"$T/unclosed.conf"
expect unclosed '3: syntax error: this ( is never closed by )'

# Issue 35, finding 10: names that become file names, and HDFS's address.
long=$(printf '%0240d' 0 | tr 0 t)
{ base; echo "tables = ( { name = \"a\"; topics = [ \"$long\" ]; udtf = \"nginx\"; } );"; } >"$T/topic.conf"
expect topic '3: tables[0].topics[0]: the table'"'"'s files for this topic would have names of up to 294 bytes (".<topic>+<partition>+<offset>+<host>.txt.gz.journal"), over the 255 a file name may have: no output.host leaves room: kedge can land topics of up to 206 bytes'
mid=$(printf '%0200d' 0 | tr 0 t)
{ base | sed 's/host = "edge01"/host = "edge01.example.com"/'; echo "tables = ( { name = \"a\"; topics = [ \"$mid\" ]; udtf = \"nginx\"; } );"; } >"$T/host.conf"
expect host '3: tables[0].topics[0]: the table'"'"'s files for this topic would have names of up to 266 bytes (".<topic>+<partition>+<offset>+<host>.txt.gz.journal"), over the 255 a file name may have: shorten output.host ("edge01.example.com") to 7 bytes or fewer'
{ echo 'kafka = { brokers = "127.0.0.1:9092"; };'
  echo "output = { spool_dir = \"$T/spool\"; target = \"webhdfs\";"
  echo '  webhdfs = { url = "https://namenode:98710"; base_dir = "/warehouse/../ods"; auth = "simple"; }; };'
  echo "$NGINX"; } >"$T/hdfs.conf"
expect hdfs '3: output.webhdfs.url: "https://namenode:98710": the port must be a number 1..65535' \
	'3: output.webhdfs.base_dir: "/warehouse/../ods" holds a ".." component: name the directory without one, such as "/warehouse/ods"'

# Every error at once, of the file's keys and of what they name.
{ printf 'kafka = { brokers = "127.0.0.1:9092";\n  rdkafka = { sesion_timeout_ms = "6000"; }; };\n'
  echo "output = { spool_dir = \"$T/spool\"; local_dir = \"$T/out\"; host = \"edge01\"; };"
  echo 'spool = { max_bytes = "lots"; };'
  echo 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx"; event_time = "status"; },'
  echo "  { name = \"b\"; topics = [ \"$long\" ]; udtf = \"raw\"; },"
  echo '  { name = "c"; topics = [ "c" ]; udtf = "nginx";'
  echo "    udtf_config = { log_format = '\$remote_addr [\$time_local'; }; } );"
  echo 'kerberos = { principal = "kedge/edge01@EXAMPLE.COM";'
  echo "  keytab = \"$T/missing.keytab\"; };"; } >"$T/all.conf"
expect all '2: kafka.rdkafka.sesion_timeout_ms: librdkafka has no property sesion.timeout.ms; did you mean "session_timeout_ms"?' \
	'4: spool.max_bytes: "lots" is not a size: write bytes, or a number with K, M, G, T or P after it (or KiB, MiB, GiB, TiB, PiB: powers of 1024 all), such as "512MiB"' \
	'6: tables[1].topics[0]: the table'"'"'s files for this topic would have names of up to 294 bytes (".<topic>+<partition>+<offset>+<host>.txt.gz.journal"), over the 255 a file name may have: no output.host leaves room: kedge can land topics of up to 206 bytes' \
	'5: tables[0].event_time: column "status" of UDTF nginx is not a timestamp; use "time_local" or "kafka_timestamp"' \
	'8: tables[2].udtf_config.log_format: UDTF nginx: the "[" at offset 13 ("[$time_local") is never closed by "]"' \
	"10: kerberos.keytab: keytab $T/missing.keytab: No such file or directory; export the key of kedge/edge01@EXAMPLE.COM into it (kadmin: ktadd -k $T/missing.keytab kedge/edge01@EXAMPLE.COM), or fix kerberos.keytab"
rc=0
$KEDGE check-config --json -c "$T/all.conf" >"$T/all.json" 2>"$T/said" || rc=$?
[ "$rc" -eq 1 ] || die "check-config --json exited $rc, want 1: $(cat "$T/said")"
[ "$(jq -r '.ok' "$T/all.json")" = false ] || die "--json: not ok false"
jq -r '.errors[] | "\(.file):\(.line): \(.key): \(.message)"' "$T/all.json" >"$T/json.lines" ||
	die "--json is not JSON: $(cat "$T/all.json")"
cmp -s "$T/json.lines" "$T/want" || die "--json says
$(cat "$T/json.lines")
want
$(cat "$T/want")"
$KEDGE check-config --json -c examples/kedge.conf >"$T/ok.json" ||
	die "examples/kedge.conf: $(cat "$T/ok.json")"
[ "$(jq -c '[.ok, (.errors | length)]' "$T/ok.json")" = '[true,0]' ] ||
	die "examples/kedge.conf in JSON: $(cat "$T/ok.json")"
echo "ok: check-config names every mistake of every class, each at its line, all at once"
