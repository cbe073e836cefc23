#!/bin/sh
# Usage: fuzz/run.sh [-t SECONDS] [-j JOBS] TARGET...
#        fuzz/run.sh -r TARGET FILE...
#
# Runs each libFuzzer target build-fuzz/TARGET (built by `make fuzz-build`)
# for SECONDS seconds (default 60), JOBS at a time (default 2), and ends
# with one line per target, "failed: TARGET..." when any failed, and
# "N passed, N failed".  Exits 1 when any
# target found a crash, a leak, a timeout (-timeout=5) or ran out of memory.
#
# Each target works on build-fuzz/corpus/TARGET, where the seeds of
# fuzz/corpus/TARGET are copied first: the committed seeds never change, and
# what a run finds is kept for the next.  A reproducer goes to
# build-fuzz/crashes/TARGET/ (crash-*, leak-*, timeout-*, oom-*), the output
# to build-fuzz/logs/TARGET.log.  fuzz/dict/TARGET.dict is used when there;
# fuzz/lsan.supp names the leaks of other libraries to ignore.
# -r runs the target once on each FILE, a reproducer, with the same
# sanitizer settings, and prints what it finds with its stack.
# Run from anywhere; paths are from the repository root.
set -u
cd "$(dirname "$0")/.."

FB=build-fuzz
LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS UBSAN_OPTIONS

# Runs one target; writes its result line to $FB/logs/TARGET.result.
run_one() {
	secs=$1
	t=$2
	corpus=$FB/corpus/$t
	crashes=$FB/crashes/$t
	log=$FB/logs/$t.log
	result=$FB/logs/$t.result
	asan=${ASAN_OPTIONS:-}
	set --
	[ -f "fuzz/dict/$t.dict" ] && set -- "-dict=fuzz/dict/$t.dict"
	# libconfig leaks on every syntax error (fuzz/lsan.supp), so libFuzzer
	# runs a leak check after most inputs, and each check reads ASan's
	# quarantine: 8 MB instead of 256 makes the target 15 times faster.
	[ "$t" = fuzz_config ] && asan="quarantine_size_mb=8${asan:+:$asan}"

	mkdir -p "$corpus" "$crashes" "$FB/logs"
	if [ ! -x "$FB/$t" ]; then
		echo "FAIL $t: $FB/$t is not built (make fuzz-build)" |
		    tee "$result"
		return 1
	fi
	if [ -d "fuzz/corpus/$t" ]; then
		cp fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null
	fi
	echo "=== $t: ${secs}s, log $log"
	ASAN_OPTIONS=$asan "$FB/$t" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" \
	    "$@" "$corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		echo "PASS $t: ${runs:-?} runs, corpus $(ls "$corpus" | wc -l)" |
		    tee "$result"
		return 0
	fi
	what=$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|fuzzkit: .*\|runtime error: .*' "$log")
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	echo "FAIL $t (exit $rc): ${what:-see the log}; reproducer ${unit:-none}; log $log" |
	    tee "$result"
	return 1
}

if [ "${1:-}" = "--one" ]; then
	run_one "$2" "$3"
	exit
fi
if [ "${1:-}" = "-r" ] && [ $# -ge 3 ]; then
	t=$2
	shift 2
	exec "$FB/$t" -timeout=5 -rss_limit_mb=2048 "$@"
fi

secs=60
jobs=2
while getopts t:j: opt; do
	case $opt in
	t) secs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: $0 [-t SECONDS] [-j JOBS] TARGET..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-t SECONDS] [-j JOBS] TARGET..." >&2; exit 2; }

mkdir -p "$FB/logs"
for t in "$@"; do
	rm -f "$FB/logs/$t.result"
done
start=$(date +%s)
printf '%s\n' "$@" | xargs -P "$jobs" -n 1 sh "$0" --one "$secs"

passed=0
failed=0
names=
echo "##### fuzz: $# targets, ${secs}s each, $jobs at a time, $(($(date +%s) - start))s"
for t in "$@"; do
	if [ -f "$FB/logs/$t.result" ]; then
		line=$(cat "$FB/logs/$t.result")
	else
		line="FAIL $t: no result (see $FB/logs/$t.log)"
	fi
	echo "$line"
	case $line in
	PASS*) passed=$((passed + 1)) ;;
	*) failed=$((failed + 1)); names="$names $t" ;;
	esac
done
[ -z "$names" ] || echo "failed:$names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
