#!/bin/sh
# A UDTF chain end to end: records that each carry a batch of nginx lines
# (joined by \x1e) -> udtf = [ "split", "nginx" ] -> one row per line, in
# the right hour; a batch with one bad line goes whole to the rejects with
# a reason that names the line; the same topic also feeds a second table
# (raw), one row per record; kedge status shows the chain's cost.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

START=$(date -u -d '2026-05-10 08:00:00' +%s)
# One partition, so that line i sits at offset i of the generator's
# placement and its rejects file names line numbers.
$FIX/gen_nginx --records 6000 --partitions 1 --seed 17 --start "$START" \
	--hours 2 --tz UTC --malformed-permille 5 \
	--out-records "$T/lines" --out-expected "$T/expected" \
	--out-rejects "$T/bad-lines"
[ -s "$T/bad-lines" ] || die "the generator made no malformed line"

# Batches of 1 to 7 lines; batch b holds lines first[b] .. first[b]+n-1.
awk 'BEGIN { ORS = "" }
	{ if (left == 0) { if (NR > 1) print "\n"; left = 1 + (NR * 2654435761) % 7 }
	  else print "\036";
	  print; left-- }
	END { print "\n" }' "$T/lines" >"$T/batches"
awk 'BEGIN { b = -1 }
	{ if (left == 0) { b++; left = 1 + (NR * 2654435761) % 7 }
	  print NR - 1 "\t" b; left-- }' "$T/lines" >"$T/line-batch"
records=$(wc -l <"$T/batches")

# The batches with a bad line, and the rows of the good lines of the
# others.  An empty bad line is no event for split: it spoils no batch.
awk -F '\t' '
	FILENAME == ARGV[1] { badl[$2] = 1; if ($3 != "") spoils[$2] = 1; next }
	FILENAME == ARGV[2] {
		if ($1 in spoils) badb[$2] = 1
		if (!($1 in badl)) batch[++g] = $2
		next
	}
	{ if (!(batch[++r] in badb)) print }
	END { for (b in badb) print b >"/dev/stderr" }' "$T/bad-lines" \
	"$T/line-batch" "$T/expected" 2>"$T/bad-batches" | sort >"$T/want"
[ -s "$T/bad-batches" ] || die "no batch holds a bad line"
# Batches of empty lines only give no row at all.
empty=$(awk -F '\t' 'FILENAME == ARGV[1] { if ($3 == "") blank[$2] = 1; next }
	{ seen[$2] = 1; if (!($1 in blank)) full[$2] = 1 }
	END { for (b in seen) n += !(b in full); print n + 0 }' \
	"$T/bad-lines" "$T/line-batch")

mock_start "$T" --topic batches:2 --produce "batches=$T/batches"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = (
  { name = "access"; topics = [ "batches" ]; udtf = [ "split", "nginx" ];
    udtf_config = ( { separator = "\x1e"; }, { } );
    event_time = "time_local"; codec = "none"; },
  { name = "batch_raw"; topics = [ "batches" ]; udtf = "raw"; codec = "none"; }
);
output = { $OLD_EVENTS spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC"; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/kedge.conf" >/dev/null || die "check-config failed"
run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"

landed_rows "$T/warehouse" access | sort >"$T/got"
same_or_die "$T/want" "$T/got" "the chain's rows differ from the good lines of the good batches"

# One rejects row per batch with a bad line, the reason naming its line.
landed_rows "$T/warehouse" _rejects | cut -f2- | hive_cut 1 6 >"$T/rejects"
n=$(wc -l <"$T/bad-batches")
[ "$(grep -c '^access	nginx, on row [1-7] of split: ' "$T/rejects")" -eq "$n" ] ||
	die "expected $n rejects of access naming the line: $(head -3 "$T/rejects")"
[ "$(wc -l <"$T/rejects")" -eq "$n" ] || die "unexpected rejects: $(head -3 "$T/rejects")"

# The second table on the same topic: every record once, whole.
[ "$(landed_rows "$T/warehouse" batch_raw | wc -l)" -eq "$records" ] ||
	die "batch_raw does not hold one row per record"
$KEDGE verify "$T/warehouse" >/dev/null || die "kedge verify failed"

rc=0
$KEDGE status -c "$T/kedge.conf" >"$T/status" || rc=$?
[ "$rc" -eq 3 ] || die "kedge status of a stopped kedge exited $rc, not 3"
grep -q "^table access: UDTF split,nginx: $records records, $(wc -l <"$T/want") rows, $n rejects, $empty gave no row$" \
	"$T/status" || die "status: $(cat "$T/status")"
echo "ok: $records batches, $(wc -l <"$T/want") rows, $n rejected batches"
