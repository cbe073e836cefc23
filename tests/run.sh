#!/bin/sh
# Usage: tests/run.sh [--fuzz] [--tsan] [--quick] [--only REGEX] [BUILD...]
# Runs every unit test (BUILD/tests/test_*) and every integration test
# (tests/integration/*.sh, with BUILD's kedge and fixtures) for each build
# directory named (default: build).  The tests mostly wait (on processes,
# timeouts, tickets), so the parts of the run go at once: the first
# build's tests in the foreground, in the order of their names; each
# other build's from the start as well, in the background, in the reverse
# order; a test runs under a lock of its name, never in two builds at
# once.  With --fuzz, every libFuzzer target in build-fuzz/ for
# FUZZ_SMOKE seconds (default 15) as a bounded smoke, two at a time in the
# background once the first build's tests are done, each target counting
# as one test; with --tsan, the ThreadSanitizer pass (TSAN_TESTS below) in
# the background from the start.  What ran in the background is shown
# and counted at the end, which is one line "N passed, N failed",
# counting each cmocka test case and each integration script.  --only
# REGEX runs only the tests whose file name (test_NAME, NAME.sh) REGEX
# (grep -E) matches; --quick leaves out the long ones named below, the
# slow ones (slow(): over 20 s each), every test with a kill loop
# (kill_rounds) and every test against the real services (`make check`).
# The long fault tests (crash_*, broker_faults, webhdfs_faults,
# webhdfs_crash, webhdfs_slow_stop, webhdfs_silent_rebalance) run for the
# first build only, to keep the whole run
# short, and so do the package tests (package_*), which build and install
# their own kedge, and demo_debian, which runs `make demo` on a fresh
# Debian; so do the long tests against the real Kafka broker
# (real_kafka_restart, real_kafka_group, real_kafka_reauth), and
# real_flink_peer, whose subject is the bench's Flink job (bench/peers/
# flink), not the build.  One real broker (tests/real/up) is started
# before the tests when any real_kafka_*, real_hdfs_* or real_flink_* test
# is to run, and serves all of them, of every build, through REAL_ENV
# (those that kill or reconfigure the broker start their own; each test
# makes topics of its own); it is stopped at the end.  It runs HDFS
# as well (tests/real/up ... hdfs) for the real_hdfs_* tests, which run
# for the first build only, as the real_spark_* tests (one Spark session
# each, of their own) do.  The long tests that mostly wait run in the
# background from the start, in five lanes (BG_LANES),
# each lane's tests one after the other, and are counted at the end:
# real_kafka_reauth (on ticket lifetimes); real_kafka_restart (on a broker
# kept down for a minute) then real_kafka_group (on the group's
# rebalances), each with a broker of its own; real_hdfs_publish (on
# 2-minute tickets) then real_hdfs_faults (on safe mode, quotas, a
# DataNode and the NameNode away), each with an HDFS of its own; the kill
# loops crash_kill9, crash_two_hosts and crash_parquet (on the mock
# group's session timeouts), each with a mock cluster of its own; and
# package_deb then package_systemd (on a container's boot and apt), which
# share the repository's build-deb/, then demo_debian (on apt, in a
# container of the same cached root).  Tests named in
# tests/quarantine (each with the open bug it waits for) are listed, not
# run.  Exits 1 when anything failed.
# Run from the repository root after the builds (`make test` does both).
set -u
cd "$(dirname "$0")/.."

fuzz=0
tsan=0
quick=0
only=
while [ $# -gt 0 ]; do
	case $1 in
	--fuzz) fuzz=1 ;;
	--tsan) tsan=1 ;;
	--quick) quick=1 ;;
	--only) only=${2:?tests/run.sh: --only needs a regular expression}; shift ;;
	-*) echo "usage: tests/run.sh [--fuzz] [--tsan] [--quick] [--only REGEX] [BUILD...]" >&2
		exit 2 ;;
	*) break ;;
	esac
	shift
done

# picked NAME: the test of file name NAME is to run (--only).
picked() {
	[ -z "$only" ] || printf '%s\n' "$1" | grep -Eq -- "$only"
}

# long NAME: the test is one of the long ones, run for the first build
# only, and not at all with --quick.
long() {
	case $1 in
	crash_*|broker_faults*|package_*|demo_debian*|webhdfs_faults*|\
	webhdfs_crash*|webhdfs_slow_stop*|webhdfs_silent_*|real_hdfs_*|\
	real_flink_*|real_spark_*) return 0 ;;
	esac
	return 1
}
# slow NAME: a test that takes over 20 s by itself (many kedge runs in a
# row, a hook left to time out, tickets left to expire, three readers
# started): left out with --quick, run by every build otherwise.
slow() {
	case $1 in
	on_complete.sh|parquet_output.sh|store_damage.sh|sasl_*|krb_login.sh|\
	krb_pause.sh) return 0 ;;
	esac
	return 1
}
passed=0
failed=0
failures=""
log=$(mktemp)
fuzzlog=$(mktemp)
tsanlog=$(mktemp)
real=
trap 'rm -f "$log" "$log".* "$fuzzlog" "$tsanlog"; rm -rf "${bg:-}" "${tsandir:-}" "${locks:-}"; [ -z "$real" ] || { tests/real/down "$real" >/dev/null 2>&1; rm -rf "$real"; }' EXIT

# real_up: starts the real broker of the run once.  If it does not come
# up, the tests start their own and fail with the reason.
real_up() {
	[ -z "$real" ] || return 0
	real=$(mktemp -d /tmp/kedge-real.XXXXXX)
	if tests/real/up "$real" kafka hdfs >"$real/up.log" 2>&1; then
		REAL_ENV=$real
		export REAL_ENV
		echo "##### real Kafka broker: $real/env"
	else
		echo "##### tests/real/up failed: $(tail -1 "$real/up.log")"
	fi
}

# The background tests, started with the first build's kedge: a lane's
# tests (joined by commas) run one after the other, the lanes at once.
BG_LANES="real_kafka_reauth real_kafka_restart,real_kafka_group"
BG_LANES="$BG_LANES real_hdfs_publish,real_hdfs_faults"
BG_LANES="$BG_LANES crash_kill9,crash_two_hosts,crash_parquet"
BG_LANES="$BG_LANES package_deb,package_systemd,demo_debian"
BG_ALL=$(echo "$BG_LANES" | tr , ' ')
BACKGROUND=
if [ "$quick" -eq 0 ]; then
	for _n in $BG_ALL; do
		! picked "$_n.sh" || BACKGROUND="$BACKGROUND $_n"
	done
fi
bg=$(mktemp -d /tmp/kedge-bg.XXXXXX)
bg_start() {
	for _lane in $BG_LANES; do
		(for _n in $(echo "$_lane" | tr , ' '); do
			case " $BACKGROUND " in *" $_n "*) ;; *) continue ;; esac
			_t0=$(date +%s)
			KEDGE=$1 FIX=$2/fixtures sh "tests/integration/$_n.sh" \
				>"$bg/$_n.log" 2>&1
			echo $? >"$bg/$_n.rc"
			echo $(($(date +%s) - _t0)) >"$bg/$_n.s"
		done) &
	done
	for _n in $BACKGROUND; do
		echo "=== started tests/integration/$_n.sh ($2) in the background"
	done
}
bg_collect() {
	for _n in $BACKGROUND; do
		echo "=== tests/integration/$_n.sh (${1:-build}, in the background)"
		cat "$bg/$_n.log"
		if [ "$(cat "$bg/$_n.rc" 2>/dev/null)" = 0 ]; then
			echo "=== PASS tests/integration/$_n.sh (${1:-build}, $(cat "$bg/$_n.s") s)"
			passed=$((passed + 1))
		else
			echo "=== FAIL tests/integration/$_n.sh (${1:-build}, $(cat "$bg/$_n.s" 2>/dev/null) s)"
			failed=$((failed + 1))
			failures="$failures tests/integration/$_n.sh(${1:-build})"
		fi
	done
	rm -rf "$bg"
}

# The fuzz smoke, started once the first build's tests are done, and
# counted at the end.
fuzz_start() {
	echo "##### fuzz smoke, ${FUZZ_SMOKE:-15} s a target, in the background"
	targets=$(find build-fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x \
		-printf '%f\n' | sort)
	[ -n "$targets" ] || { echo "no fuzz target in build-fuzz/"; exit 1; }
	# shellcheck disable=SC2086
	fuzz/run.sh -t "${FUZZ_SMOKE:-15}" -j 2 $targets >"$fuzzlog" 2>&1 &
}
# tally TITLE LOG: shows LOG, a background part's output, under TITLE and
# counts its last "N passed, N failed" line (none: one failure); its
# "failed:" line names its failures (none: TITLE does).
tally() {
	echo "##### $1"
	cat "$2"
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$2" | tail -1)
	f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$2" | tail -1)
	[ -n "$p" ] || { p=0; f=1; }
	passed=$((passed + p))
	failed=$((failed + f))
	names=$(sed -n 's/^failed://p' "$2" | tail -1)
	[ "$f" -eq 0 ] || failures="$failures${names:- ($1)}"
}

# The ThreadSanitizer pass (--tsan): every unit test of build-tsan/
# (make build-unit with TSAN), then these integration tests of the
# threaded parts with build-tsan/kedge and the first build's fixtures:
# the packer (nginx_to_hive), the publisher, replaced by reloads and
# stopped mid-pass (reload, reload_keys, webhdfs_publish,
# webhdfs_slow_stop), the output.on_complete runner (signal_dispositions),
# the Kerberos renewal thread (krb_silent_kdc) and the metrics server
# (metrics).  One after the other, in the background; a test fails on
# its own terms or when the sanitizer reported anything (its reports are
# shown).  tests/tsan.supp says what is suppressed, and why.
TSAN_TESTS="nginx_to_hive reload reload_keys webhdfs_publish webhdfs_slow_stop"
TSAN_TESTS="$TSAN_TESTS signal_dispositions krb_silent_kdc metrics"
tsan_start() {
	echo "##### ThreadSanitizer pass (build-tsan) in the background"
	tsandir=$(mktemp -d /tmp/kedge-tsan.XXXXXX)
	(
		p=0 f=0 failed_names=
		# tsan_one NAME COMMAND...: runs COMMAND with its reports
		# in $tsandir/NAME; 0 when it passed and nothing was reported
		tsan_one() {
			_n=$1
			shift
			mkdir -p "$tsandir/$_n"
			TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp exitcode=0 log_path=$tsandir/$_n/report" \
				"$@" >"$tsandir/$_n.out" 2>&1
			_rc=$?
			cat "$tsandir/$_n.out"
			if ls "$tsandir/$_n"/report* >/dev/null 2>&1; then
				cat "$tsandir/$_n"/report*
				return 1
			fi
			return $_rc
		}
		for t in build-tsan/tests/test_*; do
			[ -x "$t" ] && picked "$(basename "$t")" || continue
			if tsan_one "$(basename "$t")" "$t"; then
				p=$((p + 1))
			else
				f=$((f + 1))
				failed_names="$failed_names $t"
			fi
		done
		for n in $TSAN_TESTS; do
			picked "$n.sh" || continue
			t0=$(date +%s)
			echo "=== tests/integration/$n.sh (build-tsan)"
			if tsan_one "$n" env KEDGE=build-tsan/kedge \
				FIX="$1/fixtures" sh "tests/integration/$n.sh"; then
				echo "=== PASS tests/integration/$n.sh (build-tsan, $(($(date +%s) - t0)) s)"
				p=$((p + 1))
			else
				echo "=== FAIL tests/integration/$n.sh (build-tsan, $(($(date +%s) - t0)) s)"
				f=$((f + 1))
				failed_names="$failed_names tests/integration/$n.sh(build-tsan)"
			fi
		done
		[ -z "$failed_names" ] || echo "failed:$failed_names"
		echo "$p passed, $f failed"
	) >"$tsanlog" 2>&1 &
}
# kedge_of BUILD: the kedge binary of BUILD (./kedge for the default build).
kedge_of() {
	if [ -x "$1/kedge" ]; then echo "$1/kedge"; else echo ./kedge; fi
}

# run_build BUILD: BUILD's unit tests, then its integration tests (those
# of the first build, or every one but the long ones, the background ones
# and, with --quick, the slow ones), in the order of their names, or with
# REVERSE=1 in the reverse order.  A test runs under a lock of its name
# ($locks/NAME), so that it never runs in two builds at once.
run_build() {
	build=$1
	kedge=$(kedge_of "$build")
	echo "##### $build (kedge: $kedge)"
	t0=$(date +%s)
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] && picked "$(basename "$t")" || continue
		"$t" >"$log.$build" 2>&1
		rc=$?
		cat "$log.$build"
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log.$build" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log.$build" | tail -1)
		passed=$((passed + ${p:-0}))
		if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
			f=1 # crashed before cmocka could count
		fi
		if [ -n "$f" ] && [ "$f" -gt 0 ]; then
			failed=$((failed + f))
			failures="$failures $t"
		fi
	done
	echo "##### $build: unit tests in $(($(date +%s) - t0)) s"
	tests=$(ls tests/integration/*.sh)
	[ "${REVERSE:-0}" -eq 0 ] || tests=$(echo "$tests" | sort -r)
	for t in $tests; do
		n=$(basename "$t")
		picked "$n" || continue
		if grep -qx "$n" tests/quarantine; then
			echo "=== QUARANTINED $t: see tests/quarantine"
			continue
		fi
		case " $BG_ALL " in
		*" ${n%.sh} "*) continue ;; # bg_start ran it
		esac
		if long "$n"; then
			[ "$build" = "$first" ] && [ "$quick" -eq 0 ] || continue
		fi
		case $n in
		real_*|*_real.sh) [ "$quick" -eq 0 ] || continue ;;
		esac
		[ "$quick" -eq 0 ] || ! slow "$n" || continue
		# --quick: no kill loop (tests/lib.sh's kill_rounds) either
		[ "$quick" -eq 0 ] || ! grep -qw kill_rounds "$t" || continue
		echo "=== $t ($build)"
		t0=$(date +%s)
		if KEDGE=$kedge FIX=$build/fixtures flock "$locks/$n" sh "$t"; then
			echo "=== PASS $t ($build, $(($(date +%s) - t0)) s)"
			passed=$((passed + 1))
		else
			echo "=== FAIL $t ($build, $(($(date +%s) - t0)) s)"
			failed=$((failed + 1))
			failures="$failures $t($build)"
		fi
	done
}

# The builds after the first run in the background from its start, each
# in the reverse order of the tests (the same test seldom waits for its
# lock), and are counted at the end.
first=${1:-build}
[ $# -gt 0 ] || set -- build
shift
others="$*"
locks=$(mktemp -d /tmp/kedge-locks.XXXXXX)
# The real broker serves the real_kafka_* tests of every build: started
# before them.
if [ "$quick" -eq 0 ]; then
	for t in tests/integration/real_kafka_*.sh tests/integration/real_hdfs_*.sh \
		tests/integration/real_flink_*.sh; do
		n=$(basename "$t" .sh)
		case " $BG_ALL " in *" $n "*) continue ;; esac
		! picked "$n.sh" || { real_up; break; }
	done
fi
bg_start "$(kedge_of "$first")" "$first"
[ "$tsan" -eq 0 ] || tsan_start "$first"
for b in $others; do
	echo "##### $b in the background"
	(passed=0 failed=0 failures=
	 REVERSE=1 run_build "$b"
	 [ -z "$failures" ] || echo "failed:$failures"
	 echo "$passed passed, $failed failed") >"$log.$b.all" 2>&1 &
done
run_build "$first"
# the fuzz smoke, once the first build's tests are done
[ "$fuzz" -eq 0 ] || fuzz_start

wait
bg_collect "$first"
for b in $others; do
	tally "$b (in the background)" "$log.$b.all"
done
[ "$tsan" -eq 0 ] || tally "ThreadSanitizer pass (build-tsan)" "$tsanlog"
[ "$fuzz" -eq 0 ] || tally "fuzz smoke, ${FUZZ_SMOKE:-15} s a target" "$fuzzlog"

if [ $((passed + failed)) -eq 0 ]; then
	echo "no test ran${only:+: none matches --only $only}"
	exit 1
fi
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
