#!/bin/sh
# kedge reconcile over the real HDFS of tests/real/up: kedge lands
# generated nginx traffic (malformed lines among it) there over WebHDFS
# with SPNEGO from its keytab, and a raw dump of the same records by load
# hour is put beside it with curl, one partition gzipped.  reconcile reads
# kedge's side over WebHDFS (the manifests; the part files for --explain)
# and the dump over HttpFS, both with SPNEGO from the credential cache:
# the dump matches hour by hour with the generator's rows (exit 0); with
# one line taken out, that hour is `extra` by one and --explain names
# that record by its topic, partition and offset.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'real_hdfs_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

real_hdfs "$T"
DIR=$HDFS_BASE/reconcile-$(hdfs_rnd)
hdfs_me khreconcile "$T/k.keytab" "$DIR"

N=3000
START=$(date -u -d '2026-08-09 10:20:00' +%s)
$FIX/gen_nginx --records $N --partitions 2 --seed 73 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/rejects"
mock_start "$T" --topic web:2 --produce "web=$T/records"
cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-real-hdfs-reconcile"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; codec = "gzip"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "it-host";
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$DIR/kedge";
                       auth = "kerberos"; }; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
timeout 300 $KEDGE run -c "$T/k.conf" --exit-at-end 2>"$T/run.log" ||
	die "kedge run: $(grep '^<[0-3]>' "$T/run.log" | head -3) $(tail -3 "$T/run.log")"

# put FILE PATH: FILE into HDFS at PATH, through the NameNode and the
# DataNode it redirects to.
put() {
	curl -sS --fail --max-time 60 -L --negotiate -u : -X PUT -T "$1" \
		"$WEBHDFS_URL/webhdfs/v1$2?op=CREATE&overwrite=true" \
		>"$T/put.out" 2>&1 || die "CREATE $2: $(cat "$T/put.out")"
}
# The dump: record i in the load hour it reached the topic,
# START + i * 2 h / N.
awk -v s="$START" -v n=$N -v d="$T/dump" '{
	h = int((s + int((NR - 1) * 2 * 3600 / n)) / 3600) * 3600
	f = d "/" strftime("dt=%Y%m%d/hr=%H", h, 1)
	if (!(f in seen)) { seen[f] = 1; system("mkdir -p " f) }
	print > (f "/part-0.log")
}' "$T/records"
gzip "$T/dump/dt=20260809/hr=11/part-0.log"
for f in $(cd "$T/dump" && find . -type f | sort); do
	put "$T/dump/$f" "$DIR/offline/${f#./}"
done

RANGE="--from 2026080910 --to 2026080912"
# hours NAME: "hr kedge_rows offline_rows verdict" a line.
hours() {
	awk -F'\t' '$1 == "access" { print $3, $4, $5, $9 }' "$T/$1.out"
}
rc=0
$KEDGE reconcile -c "$T/k.conf" --table access $RANGE \
	--offline "$HTTPFS_URL$DIR/offline" >"$T/clean.out" 2>"$T/clean.err" || rc=$?
want=$(cut -f1 "$T/expected" | sort | uniq -c |
	awk '{ split($2, p, "/"); print substr(p[2], 4), $1, $1, "match" }')
[ "$rc" -eq 0 ] && [ "$(hours clean)" = "$want" ] ||
	die "the untouched dump: exit $rc, $(cat "$T/clean.out" "$T/clean.err"), want $want"

# One line of hour 10's load partition taken out: the first well-formed
# one whose row is of hour 10.
f=$T/dump/dt=20260809/hr=10/part-0.log
line=$(awk -F'\t' 'NR == FNR { bad[$3] = 1; next }
	!($0 in bad) && index($0, "09/Aug/2026:10:") { print FNR; exit }' \
	"$T/rejects" "$f")
[ -n "$line" ] || die "no line of hour 10 in $f"
sed "${line}d" "$f" >"$T/cut.log"
put "$T/cut.log" "$DIR/offline/dt=20260809/hr=10/part-0.log"
rc=0
$KEDGE reconcile -c "$T/k.conf" --table access $RANGE --explain 5 \
	--offline "$HTTPFS_URL$DIR/offline" >"$T/cut.out" 2>"$T/cut.err" || rc=$?
k10=$(hours clean | awk '$1 == 10 { print $2 }')
[ "$rc" -eq 1 ] && hours cut | grep -qx "10 $k10 $((k10 - 1)) extra" &&
	[ "$(hours cut | grep -c ' match$')" -eq 2 ] ||
	die "a line taken out: exit $rc, $(cat "$T/cut.out" "$T/cut.err")"
# record i of the topic is at partition i % 2, offset i / 2
i=$((line - 1))
grep -q "^explain	access	20260809	10	kedge	only	1/0	topic web partition $((i % 2)) offset $((i / 2)), row [0-9]* of $WEBHDFS_URL$DIR/kedge/access/dt=20260809/hr=10/" "$T/cut.out" &&
	[ "$(grep -c '^explain' "$T/cut.out")" -eq 1 ] ||
	die "--explain: $(grep '^explain' "$T/cut.out"), want record $i"

echo "real_hdfs_reconcile OK: 3 hours read from HDFS (WebHDFS and HttpFS, SPNEGO) match; a line taken out named by its offset"
