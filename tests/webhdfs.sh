# Shell helpers for tests that need WebHDFS or HttpFS: they start, drive
# and stop the protocol fake tests/fixtures/webhdfs.py (its top comment
# tells what it does and which faults it injects).  Source it after
# tests/lib.sh (it uses die and wait_for), from the repository root; for
# --keytab, after tests/krb.sh's krb_start, whose KRB5_CONFIG and
# KRB5RCACHEDIR the fake inherits.
#
#   webhdfs_start DIR [ARGS...]   start the fake, wait until it serves
#   webhdfs_ctl DIR COMMAND...    send a control command, wait for "ok"
#   webhdfs_stop                  SIGTERM it, wait; 1 unless it exited 0
#
# webhdfs_start sets:
#   WEBHDFS_PID        the fake's pid
#   WEBHDFS_URL        http://localhost:NNPORT (the namenode, or HttpFS;
#                      https:// with --tls-cert)
#   WEBHDFS_DATANODE   http://localhost:DNPORT (webhdfs mode; else empty)
#   WEBHDFS_ROOT       the directory holding the namespace (DIR/hdfs
#                      unless ARGS give --root)
#   WEBHDFS_LOG        DIR/webhdfs.log, one line per request (see the fake)
# and keeps in DIR: webhdfs.ready, webhdfs.ctl (the control FIFO),
# webhdfs.out (the control replies) and webhdfs.err.

WEBHDFS_PYTHON=${WEBHDFS_PYTHON:-/usr/bin/python3}
WEBHDFS_FAKE=${WEBHDFS_FAKE:-tests/fixtures/webhdfs.py}
WEBHDFS_PID=

# webhdfs_start DIR [ARGS...]: starts the fake with its store in DIR/hdfs
# and ARGS (--mode, --keytab, --user-allowed, or another --root), waits
# (bounded) until it has written its ready file, and sets the variables
# above.  Fails the test if it does not come up.
# shellcheck disable=SC2034 # the variables are for the tests
webhdfs_start() {
	[ $# -ge 1 ] || die "usage: webhdfs_start DIR [ARGS...]"
	[ -z "${WEBHDFS_PID:-}" ] || die "webhdfs_start: a fake already runs; webhdfs_stop it"
	_wh_dir=$1
	shift
	mkdir -p "$_wh_dir"
	rm -f "$_wh_dir/webhdfs.ready"
	: >"$_wh_dir/webhdfs.out"
	"$WEBHDFS_PYTHON" "$WEBHDFS_FAKE" --root "$_wh_dir/hdfs" \
		--ready-file "$_wh_dir/webhdfs.ready" \
		--control "$_wh_dir/webhdfs.ctl" --log "$_wh_dir/webhdfs.log" \
		"$@" >"$_wh_dir/webhdfs.out" 2>"$_wh_dir/webhdfs.err" &
	WEBHDFS_PID=$!
	_wh_i=0
	while [ ! -s "$_wh_dir/webhdfs.ready" ]; do
		if ! kill -0 "$WEBHDFS_PID" 2>/dev/null; then
			wait "$WEBHDFS_PID" 2>/dev/null || :
			WEBHDFS_PID=
			die "the WebHDFS fake exited: $(tail -5 "$_wh_dir/webhdfs.err")"
		fi
		_wh_i=$((_wh_i + 1))
		[ "$_wh_i" -lt 300 ] || die "the WebHDFS fake is not ready after 30 s"
		sleep 0.1
	done
	WEBHDFS_URL=$(sed -n 's/^url=//p' "$_wh_dir/webhdfs.ready")
	WEBHDFS_DATANODE=$(sed -n 's/^datanode=//p' "$_wh_dir/webhdfs.ready")
	WEBHDFS_ROOT=$(sed -n 's/^root=//p' "$_wh_dir/webhdfs.ready")
	WEBHDFS_LOG=$_wh_dir/webhdfs.log
	[ -n "$WEBHDFS_URL" ] || die "the WebHDFS fake wrote no url"
}

# webhdfs_stop: sends SIGTERM to the fake if it runs and waits (bounded,
# then SIGKILL).  Returns 1, saying why on stderr, unless it exited 0 (so
# a test may write "webhdfs_stop || die ..."); never fails the test
# itself, so that it can run in an EXIT trap before other cleanups.  Safe
# to call twice.
webhdfs_stop() {
	[ -n "${WEBHDFS_PID:-}" ] || return 0
	_wh_pid=$WEBHDFS_PID
	WEBHDFS_PID=
	kill "$_wh_pid" 2>/dev/null || :
	_wh_i=0
	while kill -0 "$_wh_pid" 2>/dev/null; do
		_wh_i=$((_wh_i + 1))
		if [ "$_wh_i" -ge 100 ]; then
			kill -9 "$_wh_pid" 2>/dev/null || :
			wait "$_wh_pid" 2>/dev/null || :
			echo "the WebHDFS fake did not stop within 10 s of SIGTERM" >&2
			return 1
		fi
		sleep 0.1
	done
	_wh_rc=0
	wait "$_wh_pid" 2>/dev/null || _wh_rc=$?
	[ "$_wh_rc" -eq 0 ] || {
		echo "the WebHDFS fake exited $_wh_rc after SIGTERM" >&2
		return 1
	}
}

# webhdfs_ctl DIR COMMAND...: COMMAND (down, up, fail N CODE [OP],
# drop-upload N [partial], slow MS, lose-rename-response N, hostile-list
# KIND, oversize-open BYTES, clear) to the
# fake that webhdfs_start started in DIR, through fixture_ctl (tests/lib.sh).
webhdfs_ctl() {
	_whc_dir=$1
	shift
	fixture_ctl "WebHDFS fake" "$_whc_dir" webhdfs "$WEBHDFS_PID" "$@"
}
