#!/bin/sh
# parquet_mr.sh FILE.parquet: prints what parquet-mr (org.apache.parquet:
# parquet-hadoop from Maven Central, pinned in parquet-mr/pom.xml) reads in
# FILE, as JSON (parquet-mr/src/main/java/kedge/Check.java).
# parquet_mr.sh FILE.parquet OUT.json [FILE.parquet OUT.json ...] writes
# what it reads in each FILE to its OUT, in one JVM.  Builds the reader
# into build/parquet-mr the first time (and when its source changed),
# offline; fails saying so when Java or Maven is missing.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/build/parquet-mr"
command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 || {
	echo "FAIL: java and mvn are needed to run parquet-mr (scripts/install-deps.sh)" >&2
	exit 1
}
src="$root/tests/real/parquet-mr"
if [ ! -f "$out/parquet-mr-check-1.jar" ] ||
	[ -n "$(find "$src/pom.xml" "$src/src" -newer "$out/parquet-mr-check-1.jar" | head -1)" ]; then
	# offline: tests/real/fetch-deps (scripts/install-deps.sh) brought
	# what it needs into the local Maven repository
	mvn -o -q -B -f "$root/tests/real/parquet-mr/pom.xml" -DskipTests package \
		dependency:copy-dependencies -DoutputDirectory="$out/lib" >&2
fi
# stderr without slf4j's lines about its missing binding
errs=$(mktemp)
rc=0
java -cp "$out/parquet-mr-check-1.jar:$out/lib/*" kedge.Check "$@" \
	2>"$errs" || rc=$?
grep -v '^SLF4J' "$errs" >&2 || true
rm -f "$errs"
exit "$rc"
