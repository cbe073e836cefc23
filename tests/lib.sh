# Shell helpers for the integration tests, the demo and the benchmark.
# Source it; it expects the current directory to be the repository root.

KEDGE=${KEDGE:-./kedge}
FIX=${FIX:-build/fixtures}

# die MESSAGE: fail the test with a message.
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# mock_start DIR ARGS...: starts the mock cluster with ARGS, waits until it
# is ready (bounded), and sets MOCK_PID and BOOTSTRAP.
mock_start() {
	_dir=$1
	shift
	rm -f "$_dir/mock.ready"
	"$FIX/mockkafka" --ready-file "$_dir/mock.ready" "$@" \
		>"$_dir/mock.out" 2>"$_dir/mock.err" &
	MOCK_PID=$!
	_i=0
	while [ ! -s "$_dir/mock.ready" ]; do
		kill -0 "$MOCK_PID" 2>/dev/null ||
			die "mock cluster exited: $(cat "$_dir/mock.err")"
		_i=$((_i + 1))
		[ "$_i" -lt 1200 ] || die "mock cluster not ready after 120 s"
		sleep 0.1
	done
	BOOTSTRAP=$(sed -n 's/^bootstrap=//p' "$_dir/mock.ready")
	[ -n "$BOOTSTRAP" ] || die "mock cluster printed no bootstrap address"
}

mock_stop() {
	if [ -n "${MOCK_PID:-}" ]; then
		kill "$MOCK_PID" 2>/dev/null
		wait "$MOCK_PID" 2>/dev/null
		MOCK_PID=
	fi
}

# decompress FILE: writes the file's bytes, whatever its codec, to stdout.
decompress() {
	case "$1" in
	*.gz) gzip -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*) cat "$1" ;;
	esac
}

# landed_rows DIR TABLE: every row under DIR/TABLE as "dt=../hr=..<TAB>row".
landed_rows() {
	find "$1/$2" -type f ! -name '.*' | sort | while read -r f; do
		_hour=$(dirname "$f" | sed 's|.*/\(dt=[0-9]*/hr=[0-9]*\)$|\1|')
		decompress "$f" | sed "s|^|$_hour	|"
	done
}

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every 0.1 s until
# it succeeds; fails the test after SECONDS.
wait_for() {
	_what=$1
	_limit=$(($2 * 10))
	shift 2
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ "$_i" -lt "$_limit" ] || die "timed out waiting for $_what"
		sleep 0.1
	done
}

# hive_cut N...: from Hive text rows (\001 between fields, backslash
# escapes) on stdin, prints fields N... (1-based, still escaped) separated
# by tabs.  A field separator after a backslash belongs to the field.
hive_cut() {
	perl -ne '
		BEGIN { @idx = map { $_ - 1 } @ARGV; @ARGV = () }
		chomp;
		my @f = ("");
		while (/\G(\\.|\x01|[^\\\x01]+)/gs) {
			if ($1 eq "\x01") { push @f, "" } else { $f[-1] .= $1 }
		}
		print join("\t", map { $_ // "" } @f[@idx]), "\n";
	' "$@"
}

# same_or_die WANT GOT WHAT: fails the test, showing the first
# differences, unless files WANT and GOT are equal.
same_or_die() {
	cmp -s "$1" "$2" && return 0
	diff -a "$1" "$2" | head -10 >&2
	die "$3"
}
