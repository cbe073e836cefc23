#!/bin/sh
# The committed test corpus (tests/data/) is exactly what this build's
# gen_corpus writes for the committed seed: scripts/gen-corpus.sh --check
# passes; and the check can fail: on a copy of the corpus with one byte
# changed and one file gone, it exits 1 and names both files.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

GEN=$FIX/gen_corpus scripts/gen-corpus.sh --check >"$T/said" 2>&1 ||
	die "tests/data is not reproduced: $(cat "$T/said")"

# The script checks the tests/data/ beside it: give it a damaged copy.
mkdir -p "$T/repo/scripts" "$T/repo/tests"
cp scripts/gen-corpus.sh "$T/repo/scripts/"
cp -R tests/data "$T/repo/tests/"
printf '[' | dd of="$T/repo/tests/data/events.jsonl" bs=1 count=1 \
	conv=notrunc 2>/dev/null
rm "$T/repo/tests/data/orders.tsv.expect"
rc=0
GEN=$FIX/gen_corpus "$T/repo/scripts/gen-corpus.sh" --check >"$T/said" 2>&1 ||
	rc=$?
[ "$rc" -eq 1 ] || die "--check on a damaged corpus exits $rc, want 1: $(cat "$T/said")"
grep -q "differs: tests/data/events.jsonl" "$T/said" ||
	die "--check does not name the changed events.jsonl: $(cat "$T/said")"
grep -q "missing: tests/data/orders.tsv.expect" "$T/said" ||
	die "--check does not name the missing orders.tsv.expect: $(cat "$T/said")"
[ "$(grep -c '^  [a-z]*: ' "$T/said")" -eq 2 ] ||
	die "--check names files that are intact: $(cat "$T/said")"
echo "ok"
