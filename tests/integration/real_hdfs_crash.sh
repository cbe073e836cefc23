#!/bin/sh
# kedge killed -9 over and over while it uploads to the real HDFS
# (tests/real/up DIR hdfs: the NameNode and DataNodes of a MiniDFSCluster,
# Kerberos, WebHDFS), then run clean: every record lands exactly once.
#
# A topic of the mock cluster, fed while kedge runs, with many small part files to publish
# (16 KiB rolls, no compression), kedge publishing over WebHDFS with SPNEGO
# from its keytab.  At least 12 rounds: kedge starts, is killed -9 after a
# pseudo-random delay, and the test asks the NameNode which files under
# the test's directory are still open for writing (hdfs-admin openfiles):
# an upload cut off leaves its temporary file open, under the lease of the
# DataNode's client, until HDFS recovers the lease.  kedge writes the file
# again at once; where HDFS refuses the temporary name for that lease,
# kedge says so and writes under another one.  Then a clean run to the end
# of the topic and a wait for the open files to close.  Before it, a last
# round in safe mode leaves files in the spool, and the test holds their
# temporary names in HDFS open for writing as another client (hdfs-admin
# hold): the NameNode grants kedge's CREATE with overwrite=true all the
# same, deleting the old file and its lease.  The tree is read
# back with curl --negotiate (not kedge), and checked row by row;
# `kedge verify` passes on that copy; no temporary file is left (kedge
# removes what crashes left behind); nothing is open for writing.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/real/hdfs-lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
trap '[ -n "$KPID" ] && kill -9 "$KPID" 2>/dev/null || :
      [ -n "${FEED_PID:-}" ] && kill "$FEED_PID" 2>/dev/null || :
      real_hdfs_stop; mock_stop; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT
began=$(date +%s)

real_hdfs "$T"
DIR=$HDFS_BASE/crash-$(hdfs_rnd)
hdfs_me khcrash "$T/k.keytab" "$DIR"

N=24000
START=$(date -u -d '2026-05-04 06:00:00' +%s)
$FIX/gen_nginx --records $N --partitions 3 --seed 41 --start "$START" \
	--hours 3 --tz UTC --malformed-permille 20 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
mock_start "$T" --topic events:3

cat >"$T/k.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "access"; topics = [ "events" ]; udtf = "nginx";
             event_time = "time_local"; codec = "none"; } );
output = { $OLD_EVENTS spool_dir = "$T/spool"; timezone = "UTC"; host = "crash-host";
           roll = { max_bytes = 16384; };
           target = "webhdfs";
           webhdfs = { url = "$WEBHDFS_URL"; base_dir = "$DIR";
                       auth = "kerberos"; timeout = 30; }; };
spool = { min_free_bytes = 0; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
kerberos = { principal = "$ME"; keytab = "$T/k.keytab"; };
CONF
$KEDGE check-config -c "$T/k.conf" >/dev/null

# The topic grows through the rounds, so that each has files to publish.
FEED_PID=
head -n $((N - 1500)) "$T/records" >"$T/fed"
tail -n 1500 "$T/records" >"$T/last"
feed_start "$T" events "$T/fed" 300 0.3
ROUNDS=12
random_delays 43 $ROUNDS 1 4 >"$T/delays"
cut=0
# start_round: this round's kedge.
start_round() {
	ROUND_LOG=$T/run-$ROUND.log
	$KEDGE run -c "$T/k.conf" 2>>"$ROUND_LOG" &
	KPID=$!
}
# upload_cut: counts the round if a file under $DIR is still open.
upload_cut() {
	open=$(hdfs_admin openfiles "$DIR")
	[ -z "$open" ] || cut=$((cut + 1))
	echo "$ROUND open: $open" >>"$T/open"
}
kill_rounds kedge $ROUNDS $ROUNDS "$T/delays" "$T/rounds" start_round \
	upload_cut
feed_wait "$T"
[ "$(grep -c ' killed$' "$T/rounds")" -ge 10 ] ||
	die "fewer than 10 rounds killed -9: $(cat "$T/rounds" "$T/open")"

# Leases: one more round in safe mode, so that files wait in the spool;
# then their temporary names in HDFS held open for writing by another
# client, as the DataNode of a cut upload holds them, where their
# directory is there already.  kedge must write them all the same.
hdfs_admin safemode enter >/dev/null
mock_ctl "$T" produce events "$T/last" >/dev/null
$KEDGE run -c "$T/k.conf" 2>"$T/run-safe.log" &
KPID=$!
waiting() {
	[ -n "$(find "$T/spool/ready" -type f ! -name '.*' | head -1)" ]
}
wait_for "files waiting in the spool in safe mode" 60 waiting
kill -9 "$KPID"
wait "$KPID" 2>/dev/null || :
KPID=
hdfs_admin safemode leave >/dev/null
held=0
for f in $(cd "$T/spool/ready" && find . -type f ! -name '.*' | sed 's|^\./||'); do
	d=$(dirname "$f")
	[ "$(hdfs_admin exists "$DIR/$d")" = yes ] || continue
	hdfs_admin hold "$DIR/$d/.$(basename "$f").tmp" >/dev/null
	hdfs_admin chmod 666 "$DIR/$d/.$(basename "$f").tmp" >/dev/null
	held=$((held + 1))
done
[ "$held" -ge 1 ] || die "no temporary name to hold: $(cd "$T/spool/ready" && find . -type f)"
[ -n "$(hdfs_admin openfiles "$DIR")" ] || die "the held files are not open"

timeout 300 $KEDGE run -c "$T/k.conf" --exit-at-end 2>"$T/clean.log" ||
	die "the clean run failed: $(log_lines "$T/clean.log" | grep '^err ' | head -5) ... $(tail -3 "$T/clean.log")"
cat "$T"/run-*.log "$T/clean.log" >"$T/all.log"
lease=$(grep -c 'lease of' "$T/all.log" || :)

# HDFS closes what the killed uploads left open once it recovers their
# leases; nothing of kedge's may stay open.
openfiles_none() {
	[ -z "$(hdfs_admin openfiles "$DIR")" ]
}
wait_for "no file open for writing under $DIR" 120 openfiles_none
hdfs_mirror "$WEBHDFS_URL" "$DIR" "$T/copy"
left=$(find "$T/copy" -name '.*.tmp' | head -3)
[ -z "$left" ] || die "temporary files left in HDFS: $left (cut uploads: $cut)"
check_exactly_once "$T/copy" access "$T/expected" "$T/expected-rejects" \
	"$T/spool"
secs=$(($(date +%s) - began))
echo "ok: $ROUNDS rounds killed -9, $cut with an upload cut off (a file" \
	"still open), $held temporary names held under another client's lease" \
	"and written over; $lease lease lines in kedge's logs; $CHECK_ROWS rows," \
	"$CHECK_REJECTS rejects; $CHECK_VERIFY; ${HDFS_UP_SECS:-shared} s up," \
	"${secs} s"
