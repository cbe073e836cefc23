#!/bin/sh
# kedge verify over a target tree made by hand (gzip and zstd from their
# command-line tools, sidecars by printf), no daemon: the good tree passes
# with its counts; a duplicate from another host, a gap left by a lost
# reject, a byte changed in place (only the sidecar's crc32c, or the sha256
# of an earlier kedge's, tells) and a truncated .gz each exit 1 with the one
# line that names them; no DIR, or one that does not exist, exits 2.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=$T/warehouse
H22=access/dt=20261129/hr=22
H23=access/dt=20261129/hr=23
R23=_rejects/dt=20261129/hr=23
mkdir -p "$W/$H22" "$W/$H23" "$W/$R23"

# rows FIRST LAST: one Hive text row per offset.
rows() {
	seq "$1" "$2" |
		awk '{ printf "10.0.0.%d\001GET /item/%d\001200\n", $1 % 256, $1 }'
}

# sha256 FILE: the SHA-256 of FILE in lowercase hex.
sha256() {
	sha256sum "$1" | cut -d' ' -f1
}

# sidecar FILE TABLE HOST FIRST CODEC OFFSETS [REJECTED]: writes FILE's
# sidecar, with its rows, bytes and crc32c taken from FILE itself (and no
# event times: verify does not check them); with DIGEST=sha256 in the
# environment, its sha256 instead, as a kedge before the crc32c wrote it,
# with DIGEST=both, both.
sidecar() {
	_rejected=
	[ $# -lt 7 ] || _rejected=",\"rejected\":$7"
	case ${DIGEST:-crc32c} in
	crc32c) _digest="\"crc32c\":\"$(crc32c "$1")\"" ;;
	sha256) _digest="\"sha256\":\"$(sha256 "$1")\"" ;;
	both) _digest="\"crc32c\":\"$(crc32c "$1")\",\"sha256\":\"$(sha256 "$1")\"" ;;
	esac
	{
		printf '{"kedge":1,"table":"%s","topic":"nginx-access",' "$2"
		printf '"partition":3,"host":"%s","first_offset":%s,' "$3" "$4"
		printf '"rows":%s,"bytes":%s,%s,"format":"hive-text",' \
			"$(decompress "$1" | wc -l | tr -d ' ')" \
			"$(wc -c <"$1" | tr -d ' ')" "$_digest"
		printf '"codec":"%s","offsets":%s,"empty":[],"spill":[]%s}\n' \
			"$5" "$6" "$_rejected"
	} >"$(dirname "$1")/.$(basename "$1").json"
}

# expect_violation WANT: verify exits 1 and prints exactly WANT; verify
# --json says the same.
expect_violation() {
	rc=0
	out=$($KEDGE verify "$W" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || die "verify exits $rc, want 1: $out"
	[ "$out" = "$1" ] || die "verify printed \"$out\", want \"$1\""
	rc=0
	out=$(verify_json "$W") || rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "$1" ] ||
		die "verify --json: exit $rc, \"$out\", want 1, \"$1\""
}

expect_ok() {
	out=$($KEDGE verify "$W" 2>&1) || die "verify failed: $out"
	[ "$out" = "$1" ] || die "verify printed \"$out\", want \"$1\""
	out=$(verify_json "$W") || die "verify --json failed: $out"
	[ "$out" = "$1" ] || die "verify --json said \"$out\", want \"$1\""
}

# offsets 100..149 in two gzip members; 150..199 but 170 in two zstd
# frames; 170 rejected.
GZ=$H22/nginx-access+3+100+edge01.txt.gz
ZST=$H23/nginx-access+3+150+edge01.txt.zst
REJ=$R23/nginx-access+3+170+edge01.txt
{ rows 100 124 | gzip -c; rows 125 149 | gzip -c; } >"$W/$GZ"
sidecar "$W/$GZ" access edge01 100 gzip '[[100,149]]'
{ rows 150 169 | zstd -qc; rows 171 199 | zstd -qc; } >"$W/$ZST"
sidecar "$W/$ZST" access edge01 150 zstd '[[150,169],[171,199]]'
printf 'access\001nginx-access\0013\001170\001%s\001%s\001GET /\n' \
	'2026-11-29 23:10:00' 'line ends inside $request' >"$W/$REJ"
sidecar "$W/$REJ" _rejects edge01 170 none '[]' '{"access":[[170,170]]}'
# what a landed tree also holds, and verify must pass over (manifests:
# report.sh)
echo 'half a copy' >"$W/$H23/.nginx-access+3+200+edge01.txt.gz.tmp"

GOOD="verify OK: 3 files (3 checked by crc32c, 0 by sha256), 100 rows, 1 partitions in 1 tables, 0 manifests"
expect_ok "$GOOD"

# Another host landed 100..149 again.
DUP=$H22/nginx-access+3+100+edge02.txt.gz
cp "$W/$GZ" "$W/$DUP"
sidecar "$W/$DUP" access edge02 100 gzip '[[100,149]]'
expect_violation "verify: $DUP: offsets 100..149 already in $GZ (a duplicate)"
rm "$W/$DUP" "$W/$H22/.nginx-access+3+100+edge02.txt.gz.json"
expect_ok "$GOOD"

# The reject of 170 is lost.
mv "$W/$REJ" "$W/$R23/.nginx-access+3+170+edge01.txt.json" "$T/"
expect_violation "verify: access nginx-access[3]: offsets 170..170 are missing (a gap)"
mv "$T/nginx-access+3+170+edge01.txt" "$W/$R23/"
mv "$T/.nginx-access+3+170+edge01.txt.json" "$W/$R23/"
expect_ok "$GOOD"

# One byte of the reject changes in place: "GET /" becomes "GEX /", the
# length and the rows stay.  Its crc32c tells; so does the sha256 of a
# sidecar of a kedge before the crc32c, and with both, the crc32c first.
cp "$W/$REJ" "$T/rej"
sed 's|GET /|GEX /|' "$T/rej" >"$T/rej.poked"
cmp -s "$T/rej" "$T/rej.poked" && die "sed changed nothing"
cat "$T/rej.poked" >"$W/$REJ"
expect_violation "verify: crc32c of $REJ is $(crc32c "$T/rej.poked"), its sidecar says $(crc32c "$T/rej")"
cat "$T/rej" >"$W/$REJ"
expect_ok "$GOOD"
DIGEST=sha256 sidecar "$W/$REJ" _rejects edge01 170 none '[]' '{"access":[[170,170]]}'
expect_ok "verify OK: 3 files (2 checked by crc32c, 1 by sha256), 100 rows, 1 partitions in 1 tables, 0 manifests"
cat "$T/rej.poked" >"$W/$REJ"
expect_violation "verify: sha256 of $REJ is $(sha256 "$T/rej.poked"), its sidecar says $(sha256 "$T/rej")"
cat "$T/rej" >"$W/$REJ"
DIGEST=both sidecar "$W/$REJ" _rejects edge01 170 none '[]' '{"access":[[170,170]]}'
expect_ok "verify OK: 3 files (3 checked by crc32c, 1 by sha256), 100 rows, 1 partitions in 1 tables, 0 manifests"
cat "$T/rej.poked" >"$W/$REJ"
expect_violation "verify: crc32c of $REJ is $(crc32c "$T/rej.poked"), its sidecar says $(crc32c "$T/rej")"
cat "$T/rej" >"$W/$REJ"
sidecar "$W/$REJ" _rejects edge01 170 none '[]' '{"access":[[170,170]]}'
expect_ok "$GOOD"

# The .gz loses its last 10 bytes, inside its second member.
head -c "$(($(wc -c <"$W/$GZ") - 10))" "$W/$GZ" >"$T/cut"
cat "$T/cut" >"$W/$GZ"
! gzip -t "$W/$GZ" 2>/dev/null || die "gzip -t accepts the truncated file"
expect_violation "verify: $GZ: truncated gzip stream"

rc=0
$KEDGE verify >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || die "verify without DIR exits $rc, want 2"
rc=0
$KEDGE verify "$T/nonexistent" >/dev/null 2>"$T/said" || rc=$?
[ "$rc" -eq 2 ] || die "verify of a missing DIR exits $rc, want 2"
grep -q "$T/nonexistent" "$T/said" || die "no path in: $(cat "$T/said")"
echo "ok"
