#!/bin/sh
# kedge parse --table NAME [FILE]: the table's chain over sample lines, one
# result a line: each row as the table lands it, with its hour in
# output.timezone, or why the record would be rejected.  nginx lines with
# a log_format pasted in nginx's quotes (a value with a tab and a
# backslash shown escaped, "-" as \N), a malformed line, a line out of the
# event window; a json table (its rows as the jsonl it lands); a chain
# (split, then nginx: two rows from one record); --json, read with jq; a
# table that is not there.
set -eu
. tests/lib.sh

command -v jq >/dev/null || die "jq is needed to read kedge parse --json"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "127.0.0.1:9092"; };
output = { spool_dir = "$T/spool"; local_dir = "$T/out";
  timezone = "Asia/Shanghai"; $OLD_EVENTS };
tables = ( {
  name = "access"; topics = [ "web" ]; udtf = "nginx"; event_time = "time_local";
  udtf_config = { log_format = '\$remote_addr - \$remote_user [\$time_local] "\$request" '
                               '\$status \$body_bytes_sent'; };
}, {
  name = "events"; topics = [ "ev" ]; udtf = "json"; format = "jsonl";
  event_time = "ts"; udtf_config = { fields = "ts:timestamp,host,user.id:int64"; };
}, {
  name = "batches"; topics = [ "b" ]; udtf = [ "split", "nginx" ];
  event_time = "time_local";
  udtf_config = ( { separator = "|"; },
                  { log_format = "\$remote_addr [\$time_local] \$status"; } );
} );
CONF
$KEDGE check-config -c "$T/kedge.conf" >/dev/null 2>"$T/said" ||
	die "check-config: $(cat "$T/said")"

# nginx: rows in Asia/Shanghai's hours, NULL as \N, escapes shown
printf '%s\n' \
	'10.0.0.1 - - [29/Nov/2026:06:00:00 +0000] "GET / HTTP/1.1" 200 512' \
	'not a log line' \
	'10.0.0.2 - bob [29/Nov/2026:23:59:59 +0800] "GET /x HTTP/1.1" 404 0' >"$T/nginx.log"
printf '10.0.0.3\t\\x - - [30/Nov/2026:16:00:00 +0000] "POST / HTTP/1.1" 201 7\n' >>"$T/nginx.log"
$KEDGE parse -c "$T/kedge.conf" --table access "$T/nginx.log" >"$T/got" 2>"$T/said" ||
	die "parse: $(cat "$T/said")"
printf '%s\n' \
	'# line	hour	remote_addr	remote_user	time_local	request	status	body_bytes_sent' \
	'1	dt=20261129/hr=14	10.0.0.1	\N	2026-11-29 14:00:00	GET / HTTP/1.1	200	512' \
	'2	rejected	expected " - " after $remote_addr' \
	'3	dt=20261129/hr=23	10.0.0.2	bob	2026-11-29 23:59:59	GET /x HTTP/1.1	404	0' \
	'4	dt=20261201/hr=00	10.0.0.3\t\\x	\N	2026-12-01 00:00:00	POST / HTTP/1.1	201	7' >"$T/want"
cmp -s "$T/got" "$T/want" || die "parse of nginx lines:
$(cat "$T/got")
want
$(cat "$T/want")"

# the same from stdin, as JSON
$KEDGE parse -c "$T/kedge.conf" --table access --json <"$T/nginx.log" >"$T/got.json" ||
	die "parse --json failed"
[ "$(jq -c '[.line, .rows[0].dt, .rows[0].hr, .rows[0].row.status, .rows[0].row.remote_user, .rejected]' "$T/got.json" | tr '\n' ' ')" = \
    '[1,"20261129","14",200,null,null] [2,null,null,null,null,"expected \" - \" after $remote_addr"] [3,"20261129","23",404,"bob",null] [4,"20261201","00",201,null,null] ' ] ||
	die "parse --json: $(cat "$T/got.json")"
[ "$(jq -r 'select(.line == 4) | .rows[0].row.remote_addr' "$T/got.json")" = "$(printf '10.0.0.3\t\\x')" ] ||
	die "parse --json: a tab and a backslash did not come back: $(sed -n 4p "$T/got.json")"

# json: the row as the jsonl line it lands as
echo '{"ts":"2026-11-29T06:00:00.5Z","host":"web-1","user":{"id":7},"x":1}' |
	$KEDGE parse -c "$T/kedge.conf" --table events >"$T/got" || die "parse events failed"
printf '%s\n' '# line	hour	row' \
	'1	dt=20261129/hr=14	{"ts":"2026-11-29T14:00:00.500+08:00","host":"web-1","user_id":7}' >"$T/want"
cmp -s "$T/got" "$T/want" || die "parse of a json record: $(cat "$T/got")"

# a chain: one record, two rows, each in its own hour
echo '10.0.0.1 [29/Nov/2026:06:00:00 +0000] 200|10.0.0.2 [29/Nov/2026:07:30:00 +0000] 500' |
	$KEDGE parse -c "$T/kedge.conf" --table batches >"$T/got" || die "parse batches failed"
printf '%s\n' '# line	hour	remote_addr	time_local	status' \
	'1	dt=20261129/hr=14	10.0.0.1	2026-11-29 14:00:00	200' \
	'1	dt=20261129/hr=15	10.0.0.2	2026-11-29 15:30:00	500' >"$T/want"
cmp -s "$T/got" "$T/want" || die "parse of a chain: $(cat "$T/got")"

# the event window applies as it does to the daemon
cat >"$T/window.conf" <<CONF
kafka = { brokers = "127.0.0.1:9092"; };
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; };
tables = ( { name = "recent"; topics = [ "r" ]; udtf = "nginx";
  event_time = "time_local";
  udtf_config = { log_format = "\$remote_addr [\$time_local] \$status"; }; } );
CONF
echo '10.0.0.9 [01/Jan/2001:00:00:00 +0000] 200' >"$T/old.log"
$KEDGE parse -c "$T/window.conf" --table recent "$T/old.log" >"$T/got" 2>"$T/said" ||
	die "parse with the default window: $(cat "$T/said")"
grep -q '^1	rejected	event time time_local 2001-01-01T00:00:00Z is more than 691200 s in the past (output.event_window.past)$' "$T/got" ||
	die "an old line: $(cat "$T/got")"

rc=0
$KEDGE parse -c "$T/kedge.conf" --table nosuch </dev/null 2>"$T/said" || rc=$?
[ "$rc" -eq 1 ] && grep -q "has no table \"nosuch\"" "$T/said" ||
	die "parse of a table that is not there: exit $rc: $(cat "$T/said")"
echo "ok: kedge parse prints each record's rows as the table lands them, with their hour, or its reject reason"
