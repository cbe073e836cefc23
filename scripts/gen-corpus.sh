#!/bin/sh
# The test corpus in tests/data/ (see tests/data/README.md) is what
# gen_corpus (tests/fixtures/gen_corpus.c) writes for the seed and count
# below.  This script builds nothing; `make build-test` builds the
# generator.
#   scripts/gen-corpus.sh           regenerate tests/data/
#   scripts/gen-corpus.sh --check   regenerate into a temporary directory
#                                   and compare: exits 1 naming each file
#                                   that differs, is missing or is extra
# GEN=PATH runs another generator binary (default build/fixtures/gen_corpus).
set -eu

SEED=20261129
RECORDS=2000
# Not generated, yet at home in tests/data/.
KEPT="README.md .gitattributes"

usage() {
	echo "usage: scripts/gen-corpus.sh [--check]" >&2
	exit 2
}

check=0
case $# in
0) ;;
1) [ "$1" = "--check" ] || usage; check=1 ;;
*) usage ;;
esac

# A GEN given is the caller's path; make it survive the cd below.
case ${GEN:-} in
"") GEN=$(cd "$(dirname "$0")/.." && pwd)/build/fixtures/gen_corpus ;;
/*) ;;
*) GEN=$PWD/$GEN ;;
esac
cd "$(dirname "$0")/.."
DATA=tests/data
[ -x "$GEN" ] || {
	echo "gen-corpus: no generator at $GEN; run make build-test, or set GEN" >&2
	exit 1
}

NEW=$(mktemp -d "${TMPDIR:-/tmp}/kedge-corpus.XXXXXX")
trap 'rm -rf "$NEW"' EXIT
"$GEN" --out "$NEW" --seed "$SEED" --records "$RECORDS"

if [ "$check" -eq 0 ]; then
	mkdir -p "$DATA"
	for f in "$NEW"/*; do
		cp "$f" "$DATA/$(basename "$f")"
	done
	exit 0
fi

differ=""
for f in "$NEW"/*; do
	name=$(basename "$f")
	if [ ! -f "$DATA/$name" ]; then
		differ="$differ
  missing: $DATA/$name"
	elif ! cmp -s "$f" "$DATA/$name"; then
		differ="$differ
  differs: $DATA/$name"
	fi
done
for f in "$DATA"/* "$DATA"/.[!.]*; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	case " $KEPT " in *" $name "*) continue ;; esac
	[ -e "$NEW/$name" ] || differ="$differ
  extra:   $f (not generated)"
done
if [ -n "$differ" ]; then
	echo "gen-corpus: $DATA is not what" \
		"$GEN --seed $SEED --records $RECORDS writes:$differ" >&2
	echo "gen-corpus: if the generator changed on purpose, run" \
		"scripts/gen-corpus.sh and commit $DATA" >&2
	exit 1
fi
