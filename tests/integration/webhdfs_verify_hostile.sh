#!/bin/sh
# kedge verify of a URL against a server that lists what no HDFS lists
# (the fake's hostile-list fault, tests/fixtures/webhdfs.py): a name
# "../x" or "a/b", a directory "..", a name with a newline, a tree that
# never ends, and a 60 MiB listing of 20 million empty objects (which
# jansson, reading it whole, made 5 GB of); and against one that sends a
# file longer than it listed it (oversize-open).  Each time verify
# refuses with one sentence naming the cause and exits 2, and its TMPDIR
# holds nothing afterwards: no file was made outside its temporary copy,
# and the copy itself is gone.  The 60 MiB listing costs verify less than
# 200 MB of memory (its peak RSS, /usr/bin/time).  Without the faults the
# same URL verifies, and the file in it that a user named "pathSuffix"
# wrote is copied under its own name, not under its owner's.
set -eu
. tests/lib.sh
. tests/webhdfs.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'webhdfs_stop || :; rm -rf "$T"' EXIT
unset KEDGE_CRASH_AT

webhdfs_start "$T/wh"
mkdir -p "$WEBHDFS_ROOT/warehouse" "$T/tmp"
URL=$WEBHDFS_URL/warehouse
command -v curl >/dev/null || die "curl is needed (scripts/install-deps.sh)"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (scripts/install-deps.sh)"
printf 'x\n' >"$T/x"
# CREATE's two steps (307, then the datanode), as user.name pathSuffix:
# the listing then holds "owner":"pathSuffix" before "pathSuffix":"x.txt"
curl -sSf -L -X PUT -T "$T/x" -o /dev/null \
	"$WEBHDFS_URL/webhdfs/v1/warehouse/x.txt?op=CREATE&user.name=pathSuffix" ||
	die "cannot CREATE x.txt through the fake"
curl -sSf "$WEBHDFS_URL/webhdfs/v1/warehouse?op=LISTSTATUS" |
	grep -q '"owner":"pathSuffix","pathSuffix":"x.txt"' ||
	die "the fake does not list x.txt as owned by pathSuffix"

# Under AddressSanitizer, what kedge frees waits in ASan's quarantine (256
# MB by default), which is no memory kedge holds: a small one, so that the
# peak RSS measures kedge.  (No effect on a build without ASan.)
ASAN_OPTIONS="quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS

# verify_with KIND: kedge verify of URL while LISTSTATUS answers KIND;
# its exit status in rc, its stderr in $T/err.
verify_with() {
	webhdfs_ctl "$T/wh" hostile-list "$1"
	rc=0
	# bounded: a copy that never ends is the failure under test
	TMPDIR=$T/tmp timeout 120 /usr/bin/time -f %M -o "$T/rss" \
		$KEDGE verify "$URL" --user kedge >"$T/out" 2>"$T/err" || rc=$?
}

# refused KIND SENTENCE: verify exits 2 saying SENTENCE, and nothing is
# left under its TMPDIR.
refused() {
	verify_with "$1"
	left=$(cd "$T/tmp" && find . -mindepth 1 | head -5)
	[ -z "$left" ] ||
		die "hostile-list $1: verify left or wrote outside its copy: $left"
	[ "$rc" -eq 2 ] ||
		die "hostile-list $1: verify exited $rc, not 2: $(cat "$T/out" "$T/err")"
	grep -qF -- "$2" "$T/err" ||
		die "hostile-list $1: verify said \"$(cat "$T/err")\", not \"$2\""
	[ "$(wc -l <"$T/err")" -eq 1 ] ||
		die "hostile-list $1: more than one line on stderr: $(cat "$T/err")"
}

verify_with off
[ "$rc" -eq 0 ] || die "verify of the plain tree exited $rc: $(cat "$T/out" "$T/err")"
grep -q '^GET OPEN /warehouse/x.txt -> 307 kedge$' "$WEBHDFS_LOG" ||
	die "verify did not fetch x.txt: $(grep ' OPEN ' "$WEBHDFS_LOG" | head -3)"

refused dotdot 'lists the name "../x", which no entry of a directory has'
refused slash 'lists the name "a/b", which no entry of a directory has'
refused dots 'lists the name "..", which no entry of a directory has'
refused control 'HDFS listed the name "a\nb", which holds a control byte'
refused deep 'deeper than 32 directories under'
grep -q '/warehouse/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d: deeper' "$T/err" ||
	die "the depth refusal does not name the 33rd level: $(cat "$T/err")"
refused huge 'LISTSTATUS /warehouse: a FileStatus in the answer lacks a string type'
rss=$(tail -1 "$T/rss")
[ "$rss" -lt 204800 ] || die "verify took $rss KiB to refuse a 60 MiB listing"

# x.txt is listed with its 2 bytes, and sent with a megabyte more
webhdfs_ctl "$T/wh" oversize-open 1000000
refused off 'OPEN /warehouse/x.txt: the server sent more than the 2 bytes HDFS listed for it'
webhdfs_ctl "$T/wh" oversize-open 0

webhdfs_stop || die "the WebHDFS fake did not stop cleanly"
echo "ok: verify of a URL copies a file owned by pathSuffix under its name; refuses ../x, a/b, .., a control byte, a tree past 32 levels, a 60 MiB listing (in $rss KiB) and a file longer than listed, writing nothing outside its copy"
