#!/bin/sh
# The demo: an embedded Kafka (librdkafka's mock cluster) holding three
# hours of generated nginx traffic in 4 partitions, some lines malformed;
# kedge runs examples/demo.conf against it for about 20 s; then what
# landed is shown.  Run through `make demo`, or alone after `make kedge`
# and the fixtures are built.
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

D=/tmp/kedge-demo
RECORDS=${DEMO_RECORDS:-300000}
SECONDS_TO_RUN=${DEMO_SECONDS:-20}
rm -rf "$D"
mkdir -p "$D"
trap 'mock_stop' EXIT

start=$(( $(date +%s) / 3600 * 3600 - 3 * 3600 ))
echo "== generating $RECORDS nginx access-log lines over 3 hours (0.5 % malformed)"
$FIX/gen_nginx --records "$RECORDS" --partitions 4 --seed "$start" \
	--start "$start" --hours 3 --tz Asia/Shanghai --malformed-permille 5 \
	--out-records "$D/records.log" --out-expected "$D/expected.tsv" \
	--out-rejects "$D/expected-rejects.tsv"
sed -n '1p;2p;3p' "$D/records.log" | cut -c1-160 | sed 's/^/   /'

echo "== starting the embedded Kafka: topic nginx-access, 4 partitions, 127.0.0.1:19092"
mock_start "$D" --topic nginx-access:4 --produce "nginx-access=$D/records.log" \
	--bootstrap-port 19092

echo "== kedge check-config -c examples/demo.conf"
$KEDGE check-config -c examples/demo.conf
echo "== kedge run -c examples/demo.conf, for ${SECONDS_TO_RUN} s"
rc=0
timeout -s TERM "$SECONDS_TO_RUN" $KEDGE run -c examples/demo.conf \
	2>"$D/kedge.log" || rc=$?
# timeout exits 124 when it had to send SIGTERM: that is the plan here.
[ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || {
	cat "$D/kedge.log" >&2
	die "kedge exited with $rc"
}
mock_stop

W=$D/warehouse
echo
echo "== the partition tree under $W"
find "$W" -type d -name 'hr=*' | sort | while read -r d; do
	done_mark=
	[ -e "$d/_SUCCESS" ] && done_mark="  complete: _MANIFEST.json, _SUCCESS"
	printf '   %s/  %s file(s), %s bytes%s\n' "${d#"$W"/}" \
		"$(find "$d" -type f ! -name '.*' ! -name '_*' | wc -l)" \
		"$(find "$d" -type f ! -name '.*' ! -name '_*' -exec cat {} + | wc -c)" \
		"$done_mark"
done
echo
echo "== rows per hour (table access, dt/hr in Asia/Shanghai)"
landed_rows "$W" access | cut -f1 | sort | uniq -c |
	awk '{ printf "   %-24s %8d rows\n", $2, $1 }'
got=$(landed_rows "$W" access | wc -l)
want=$(wc -l <"$D/expected.tsv")
echo "   total $got rows landed; the generator made $want well-formed lines"
echo
echo "== rejects (malformed lines, with topic, partition, offset and reason)"
landed_rows "$W" _rejects | cut -f2- | awk -F '\001' '
	{ n++; if (n <= 5) printf "   %s[%s] offset %s: %s\n", $2, $3, $4, $6 }
	END { printf "   %d rejected in all\n", n }'
echo
echo "== what kedge measured (its log at shutdown)"
grep -E 'table access|consumed|checkpoints|published' "$D/kedge.log" |
	sed 's/^<[0-9]>/   /'
echo
hours=$(find "$W/access" -type d -name 'hr=*' | sed 's|.*/dt=\([0-9]*\)/hr=\([0-9]*\)$|\1\2|' | sort)
echo "== kedge report (per hour, from the manifests: what to reconcile)"
$KEDGE report -c examples/demo.conf --from "$(echo "$hours" | head -1)" \
	--to "$(echo "$hours" | tail -1)" | sed 's/^/   /'
echo
echo "== kedge verify $W (every record exactly once, every file whole)"
$KEDGE verify "$W" | sed 's/^/   /'
echo
echo "== kedge reconcile against the generator's lines as an offline dump"
echo "   (each line in the partition of the hour it reached the topic, as a"
echo "   batch job dumps them; kedge counts each row in its event hour)"
awk -v s="$start" -v n="$RECORDS" -v d="$D/offline" '
{
	key = int((s + int((NR - 1) * 3 * 3600 / n)) / 3600)
	if (!(key in dir)) {
		c = "TZ=Asia/Shanghai date -d @" key * 3600 " +dt=%Y%m%d/hr=%H"
		c | getline dir[key]; close(c)
		system("mkdir -p " d "/" dir[key])
	}
	print > (d "/" dir[key] "/part-00000.log")
}' "$D/records.log"
echo "   (to the current hour: kedge files the lines it rejects by the hour"
echo "   they arrived, which is now, and compares them over the range)"
rc=0
$KEDGE reconcile -c examples/demo.conf --table access \
	--from "$(echo "$hours" | head -1)" \
	--to "$(TZ=Asia/Shanghai date +%Y%m%d%H)" \
	--offline "$D/offline" --explain 3 >"$D/reconcile.tsv" || rc=$?
cut -c1-200 "$D/reconcile.tsv" | sed 's/^/   /'
# 1: an hour differs or is not complete yet (the current one); 2: an error
[ "$rc" -le 1 ] || die "kedge reconcile exited $rc"
echo
echo "Everything is under $D; kedge's log is $D/kedge.log."
