#!/bin/sh
# One kedge per spool, metrics off (nothing else to collide on): a second
# `kedge run` on the spool of one that runs exits 78 at once, naming the
# PID that holds it, and writes nothing into it; after a kill -9 of the
# first, the kernel has let the lock go and the next run starts and lands
# the records.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
K1= K3=
trap '[ -n "$K1" ] && kill -9 "$K1" 2>/dev/null; [ -n "$K3" ] && kill -9 "$K3" 2>/dev/null; mock_stop; rm -rf "$T"' EXIT

printf '%s\n' '{"a":"x"}' '{"a":"y"}' >"$T/records"
mock_start "$T" --topic lock:1 --produce "lock=$T/records"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "j"; topics = [ "lock" ]; udtf = "json";
  udtf_config = { fields = "a"; }; codec = "none"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
checkpoint = { interval = 1; };
metrics = { enabled = false; };
CONF

$KEDGE run -c "$T/kedge.conf" 2>"$T/k1.log" &
K1=$!
wait_for "the first kedge to be assigned" 60 kafka_assigned "$T/k1.log" "$K1"
[ "$(cat "$T/spool/kedge.lock")" = "$K1" ] ||
	die "the lock file holds \"$(cat "$T/spool/kedge.lock")\", not $K1"

ls -R "$T/spool" >"$T/before"
rc=0
timeout 60 $KEDGE run -c "$T/kedge.conf" 2>"$T/k2.log" || rc=$?
[ "$rc" -eq 78 ] || die "the second kedge exited $rc, want 78: $(cat "$T/k2.log")"
grep -qF "another kedge (PID $K1) runs on the spool $T/spool" "$T/k2.log" ||
	die "the second kedge said: $(cat "$T/k2.log")"
! grep -q 'kafka: assigned' "$T/k2.log" ||
	die "the second kedge joined the consumer before it stopped"
[ "$(cat "$T/spool/kedge.lock")" = "$K1" ] ||
	die "the second kedge changed the lock file: $(cat "$T/spool/kedge.lock")"
kill -0 "$K1" 2>/dev/null || die "the first kedge died: $(tail -5 "$T/k1.log")"

kill -9 "$K1"
wait "$K1" 2>/dev/null || true
K1=
$KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/k3.log" &
K3=$!
exits_within "$K3" 120 || die "the kedge after kill -9 did not stop at the end"
rc=0
wait "$K3" || rc=$?
K3=
[ "$rc" -eq 0 ] || die "the kedge after kill -9 exited $rc: $(grep '^<[0-3]>' "$T/k3.log" | head -3)"
[ "$(landed_count "$T/warehouse")" -eq 2 ] ||
	die "after kill -9, $(landed_count "$T/warehouse") rows landed, want 2"
echo "ok: a second kedge on one spool exits 78 naming the first's PID; after kill -9 the next one runs"
