#!/bin/sh
# kedge and Spark, the warehouse's engine, for real: PySpark (pinned in
# tests/real/requirements-spark.txt) in local mode, one session for the
# whole test (tests/real/spark_server.py), with its Hive metastore
# (embedded Derby) and its Thrift server on 127.0.0.1.
#
# - output.on_complete registers each complete hour of table access in
#   that metastore with beeline (ALTER TABLE ... ADD IF NOT EXISTS
#   PARTITION); Spark then sees exactly the complete hours, with kedge's
#   rows.
# - Spark reads kedge's own tables, hive-text and Parquet registered as
#   partitioned tables: the query of --print-sql spark over them gives
#   exactly kedge's rows and fingerprints (--offline-counts: all match).
# - An offline table written by Spark, partitioned by LOAD hour (a row of
#   an event hour in two load partitions), with rows left out of one hour
#   and a field changed in another: file mode over Spark's files and the
#   printed query run in Spark give the same report, line for line.
# - Odd values (NULLs, escapes, \001, UTF-8, int64 limits, -0.0, a
#   subnormal, NaN, infinities, microseconds), one row an hour so each
#   hour's fingerprint is one row's hash: kedge's table of them, read by
#   Spark, matches row by row; Spark's own hive-text copy of them gives the
#   same fingerprints in file mode as in Spark.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
SPID=
# Spark stops on "quit"; its JVM with it, in the session's process group.
spark_stop() {
	[ -n "$SPID" ] || return 0
	timeout 10 sh -c "echo quit >'$T/cmd'" || :
	exits_within "$SPID" 60 || kill -- -"$SPID" 2>/dev/null || :
	SPID=
}
trap 'spark_stop; mock_stop; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

PY=
for p in python3 build/py/bin/python3; do
	if "$p" -c 'import pyspark' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || die "PySpark is not installed: run scripts/install-py-deps.sh --spark"
command -v java >/dev/null || die "java (openjdk-17-jdk-headless) is not installed"
SPARK_HOME=$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
export SPARK_HOME
BEELINE=$SPARK_HOME/bin/beeline

# Spark, started once.
PORT=$(free_port)
mkfifo "$T/cmd"
mkdir -p "$T/spark"
# its JVM in kedge's output.timezone, as docs/reconcile.md says: Hive's
# text reader takes a TIMESTAMP as a local time of the JVM's zone
setsid "$PY" tests/real/spark_server.py "$T/spark" "$T/cmd" "$PORT" \
	Asia/Shanghai >"$T/spark.out" 2>"$T/spark.err" &
SPID=$!
spark_ready() { grep -q '^ready$' "$T/spark.out"; }
wait_for "Spark and its Thrift server (tail $T/spark.err)" 180 spark_ready

# sql NAME: runs $T/NAME.sql in Spark; its last rows in $T/NAME.tsv.
sql() {
	echo "sql $T/$1.sql $T/$1.tsv" >"$T/cmd"
	sql_done() { [ -e "$T/$1.tsv.done" ]; }
	wait_for "Spark to run $1.sql" 300 sql_done "$1"
	[ ! -e "$T/$1.tsv.err" ] || die "$1.sql: $(tail -3 "$T/$1.tsv.err")"
}

COLS="remote_addr STRING, remote_user STRING, time_local TIMESTAMP,
      request STRING, status BIGINT, body_bytes_sent BIGINT,
      http_referer STRING, http_user_agent STRING"
ODD="id BIGINT, s STRING, d DOUBLE, b BOOLEAN, t TIMESTAMP"
# The tables Spark writes as hive-text escape CR and LF as kedge does:
# Spark writes them raw otherwise, and reads them back as line breaks.
SPARK_TEXT="ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe'
  WITH SERDEPROPERTIES ('field.delim' = '\\001', 'escape.delim' = '\\\\',
    'serialization.escape.crlf' = 'true')"
W=$T/w
cat >"$T/tables.sql" <<SQL
CREATE EXTERNAL TABLE access ($COLS) PARTITIONED BY (dt STRING, hr STRING)
  ROW FORMAT DELIMITED FIELDS TERMINATED BY '\\001' ESCAPED BY '\\\\'
  STORED AS TEXTFILE LOCATION '$W/access';
CREATE EXTERNAL TABLE access_pq ($COLS) PARTITIONED BY (dt STRING, hr STRING)
  STORED AS PARQUET LOCATION '$W/access_pq';
SHOW TABLES;
SQL
sql tables

# The traffic, and odd values one an hour.
START=$(date -u -d '2026-05-10 01:20:00' +%s)
$FIX/gen_nginx --records 6000 --partitions 2 --seed 41 --start "$START" \
	--hours 3 --tz Asia/Shanghai --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/rejects"
cat >"$T/odd" <<'JSON'
{"id":1,"s":"a\\b","d":0.1,"b":true,"t":"2026-05-10T01:00:00.000001Z"}
{"id":-9223372036854775808,"s":"x\u0001y\nz\r","d":-0.0,"b":false,"t":"2026-05-10T02:30:00.5Z"}
{"id":9223372036854775807,"s":"","d":1e300,"b":true,"t":"2026-05-10T03:59:59.999999Z"}
{"id":0,"s":"\u00e9\u6f22\ud83d\ude00","d":5e-324,"b":false,"t":"2026-05-10T04:00:00Z"}
{"id":2,"s":null,"d":null,"b":null,"t":"2026-05-10T05:00:00.123Z"}
{"id":3,"s":"\\N","d":123456789.125,"b":true,"t":"2026-05-10T06:00:00Z"}
{"id":4,"s":"tab\there","d":-1.5e-7,"b":false,"t":"2026-05-10T07:00:00Z"}
{"id":5,"s":" spaces ","d":100,"b":true,"t":"2026-05-10T08:00:00Z"}
{"id":6,"s":"2.2250738585072014E-308","d":2.2250738585072014E-308,"b":true,"t":"2026-05-10T09:00:00Z"}
JSON
mock_start "$T" --topic web:2 --topic odd:1 --produce "web=$T/records" \
	--produce "odd=$T/odd"
# the odd values go to a table of their own, without the hook (gzip:
# PyPI's Spark has no native Hadoop, whose zstd text codec it would need)
cat >"$T/odd.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-spark-odd"; };
tables = ( { name = "odd"; topics = [ "odd" ]; udtf = "json";
             udtf_config = { fields = "id:int64,s,d:double,b:bool,t:timestamp"; };
             event_time = "t"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool-odd"; local_dir = "$W";
           timezone = "Asia/Shanghai"; host = "it-host"; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
timeout 120 $KEDGE run -c "$T/odd.conf" --exit-at-end 2>"$T/kedge-odd.log" ||
	die "kedge run (odd): $(tail -5 "$T/kedge-odd.log")"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-spark"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; },
           { name = "access_pq"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; format = "parquet"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$W";
           timezone = "Asia/Shanghai"; host = "it-host";
           on_complete = [ "$BEELINE", "-u", "jdbc:hive2://127.0.0.1:$PORT/default",
             "--silent=true", "-e",
             "ALTER TABLE {table} ADD IF NOT EXISTS PARTITION (dt='{dt}', hr='{hr}') LOCATION '{path}'" ];
           on_complete_timeout = 300; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF
timeout 600 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/kedge.log" ||
	die "kedge run: $(tail -5 "$T/kedge.log")"
grep -q 'on_complete.*failed\|<[0-3]>' "$T/kedge.log" &&
	die "kedge run: $(grep 'on_complete\|<[0-3]>' "$T/kedge.log" | head -5)"

# reconcile NAME TABLE ARGS...: into $T/NAME.out, its exit status in rc.
reconcile() {
	_n=$1
	_t=$2
	shift 2
	rc=0
	_c=$T/kedge.conf
	[ "$_t" != odd ] || _c=$T/odd.conf
	$KEDGE reconcile -c "$_c" --table "$_t" "$@" >"$T/$_n.out" \
		2>"$T/$_n.err" || rc=$?
}
hours() {
	awk -F'\t' '$1 != "table" && $1 !~ /^reconcile:/' "$T/$1.out"
}
RANGE="--from 2026051009 --to 2026051011"

# The metastore sees exactly the complete hours, with kedge's rows.
complete=$(cd "$W/access" && find . -name _SUCCESS | sed 's|^\./dt=\([0-9]*\)/hr=\([0-9]*\)/_SUCCESS|dt=\1/hr=\2|' | sort)
[ "$(echo "$complete" | wc -l)" -ge 3 ] || die "complete hours: $complete"
cat >"$T/parts.sql" <<SQL
SHOW PARTITIONS access;
SQL
sql parts
[ "$(sort "$T/parts.tsv")" = "$complete" ] ||
	die "the metastore has $(cat "$T/parts.tsv"), kedge completed $complete"
cat >"$T/count.sql" <<SQL
SELECT concat('dt=', dt, '/hr=', hr), count(*) FROM access GROUP BY dt, hr ORDER BY 1;
SQL
sql count
want=$(cut -f1 "$T/expected" | sort | uniq -c | awk '{ print $2 "\t" $1 }')
[ "$(cat "$T/count.tsv")" = "$want" ] ||
	die "Spark counts $(cat "$T/count.tsv"), the generator $want"

# spark_counts NAME ARGS...: the query of --print-sql for ARGS run in
# Spark, its result in $T/NAME.tsv.
spark_counts() {
	_n=$1
	shift
	_c=$T/kedge.conf
	[ "$2" != odd ] || _c=$T/odd.conf
	$KEDGE reconcile -c "$_c" "$@" --print-sql spark \
		>"$T/$_n.sql" 2>"$T/$_n.err" || die "--print-sql: $(cat "$T/$_n.err")"
	sql "$_n"
}

# Spark reads kedge's own tables: hive-text (registered by the hook) and
# Parquet, as kedge wrote them.
cat >"$T/pq.sql" <<SQL
CREATE EXTERNAL TABLE odd ($ODD) PARTITIONED BY (dt STRING, hr STRING)
  ROW FORMAT DELIMITED FIELDS TERMINATED BY '\\001' ESCAPED BY '\\\\'
  STORED AS TEXTFILE LOCATION '$W/odd';
MSCK REPAIR TABLE odd;
SHOW TABLES;
SQL
sql pq
for t in access access_pq; do
	spark_counts "own-$t" --table $t $RANGE --offline-table $t
	reconcile "own-$t" $t $RANGE --offline-counts "$T/own-$t.tsv"
	[ "$rc" -eq 0 ] && [ "$(hours "own-$t" | awk -F'\t' '$9 == "match"' | wc -l)" -eq 3 ] ||
		die "Spark over kedge's $t: exit $rc: $(cat "$T/own-$t.out" "$T/own-$t.err")"
done
# Row by row: the odd values, an hour each.
spark_counts own-odd --table odd --from 2026051009 --to 2026051017 --offline-table odd
reconcile own-odd odd --from 2026051009 --to 2026051017 --offline-counts "$T/own-odd.tsv"
[ "$rc" -eq 0 ] && [ "$(hours own-odd | awk -F'\t' '$9 == "match" && $4 == 1' | wc -l)" -eq 9 ] ||
	die "the odd values, row by row: exit $rc: $(cat "$T/own-odd.out" "$T/own-odd.err")"

# An offline table by load hour, written by Spark as hive-text: a row goes
# to the next load hour when its second is a multiple of 5; the 404s of
# 10:00 are left out, the 304s of 11:00 get another request.
cat >"$T/load.sql" <<SQL
CREATE TABLE offline_load ($COLS) PARTITIONED BY (dt STRING, hr STRING)
  $SPARK_TEXT
  STORED AS TEXTFILE LOCATION '$T/offline_load';
SET hive.exec.dynamic.partition.mode=nonstrict;
INSERT OVERWRITE TABLE offline_load PARTITION (dt, hr)
  SELECT remote_addr, remote_user, time_local, request, status, body_bytes_sent,
    CASE WHEN status = 304 AND date_format(time_local, 'HH') = '11'
      THEN 'http://planted.example/' ELSE http_referer END,
    http_user_agent,
    date_format(time_local + CASE WHEN second(time_local) % 5 = 0
      THEN INTERVAL 1 HOUR ELSE INTERVAL 0 HOUR END, 'yyyyMMdd'),
    date_format(time_local + CASE WHEN second(time_local) % 5 = 0
      THEN INTERVAL 1 HOUR ELSE INTERVAL 0 HOUR END, 'HH')
  FROM access
  WHERE NOT (status = 404 AND date_format(time_local, 'HH') = '10');
SELECT count(*) FROM offline_load;
SQL
sql load
reconcile load-files access $RANGE --offline "$T/offline_load" --offline-format hive-text
[ "$rc" -eq 1 ] || die "file mode over Spark's table: exit $rc: $(cat "$T/load-files.out" "$T/load-files.err")"
spark_counts load-sql --table access $RANGE --offline-table offline_load
reconcile load-counts access $RANGE --offline-counts "$T/load-sql.tsv"
[ "$rc" -eq 1 ] || die "--offline-counts: exit $rc: $(cat "$T/load-counts.out" "$T/load-counts.err")"
[ "$(hours load-files)" = "$(hours load-counts)" ] ||
	die "file mode and Spark disagree: $(cat "$T/load-files.out" "$T/load-counts.out")"
hours load-files | awk -F'\t' '$3 == "09" && $9 != "match" ||
	$3 == "10" && $9 != "extra" || $3 == "11" && $9 != "differ" { bad = 1 }
	END { exit bad }' || die "verdicts: $(cat "$T/load-files.out")"

# Spark's own hive-text copy of the odd values (its NaN and infinities
# too): the same fingerprints in file mode as in Spark.
cat >"$T/oddcopy.sql" <<SQL
CREATE TABLE odd_copy ($ODD) PARTITIONED BY (dt STRING, hr STRING)
  $SPARK_TEXT
  STORED AS TEXTFILE LOCATION '$T/odd_copy';
SET hive.exec.dynamic.partition.mode=nonstrict;
INSERT OVERWRITE TABLE odd_copy PARTITION (dt, hr)
  SELECT id, s, d, b, t, dt, hr FROM odd;
INSERT INTO TABLE odd_copy PARTITION (dt='20260510', hr='18') VALUES
  (7, 'nan', CAST('NaN' AS DOUBLE), true, TIMESTAMP'2026-05-10 18:00:00'),
  (8, 'inf', CAST('Infinity' AS DOUBLE), true, TIMESTAMP'2026-05-10 18:10:00'),
  (9, '-inf', CAST('-Infinity' AS DOUBLE), false, TIMESTAMP'2026-05-10 18:20:00');
SELECT count(*) FROM odd_copy;
SQL
sql oddcopy
reconcile odd-files odd --from 2026051009 --to 2026051018 --offline "$T/odd_copy" --offline-format hive-text
spark_counts odd-sql --table odd --from 2026051009 --to 2026051018 --offline-table odd_copy
reconcile odd-counts odd --from 2026051009 --to 2026051018 --offline-counts "$T/odd-sql.tsv"
[ "$(hours odd-files)" = "$(hours odd-counts)" ] &&
	[ "$(hours odd-files | awk -F'\t' '$9 == "match"' | wc -l)" -eq 9 ] ||
	die "Spark's copy of the odd values: $(cat "$T/odd-files.out" "$T/odd-files.err" "$T/odd-counts.out")"

spark_stop
echo "real_spark_reconcile OK: on_complete registered $(echo "$complete" | wc -l) hours in Spark's metastore; Spark over kedge's hive-text and Parquet, the load-hour table and 12 odd values agree with kedge"
