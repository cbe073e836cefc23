#!/bin/sh
# The WebHDFS/HttpFS fake (tests/fixtures/webhdfs.py, driven through
# tests/webhdfs.sh) itself, on real parts: a real KDC (tests/krb.sh), real
# SPNEGO from the curl command-line tool, the fake's real GSSAPI acceptor.
# Webhdfs mode with Kerberos: 401 Negotiate, the two-step CREATE/OPEN/
# APPEND through the datanode port with a delegation token, the file
# operations and their RemoteExceptions, the hadoop.auth cookie, a second
# principal refused by --user-allowed, a bad token, malformed requests,
# every fault command, the log, 127.0.0.1 only, exit 0 on SIGTERM.  Then
# simple authentication in webhdfs mode (dr.who) and httpfs mode (data=true,
# user.name required).
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/webhdfs.sh

command -v curl >/dev/null || die "the curl command-line tool is not installed"
curl -V | grep -q 'SPNEGO' || die "this curl has no SPNEGO: $(curl -V | head -1)"
"$WEBHDFS_PYTHON" -c 'import gssapi' 2>/dev/null ||
	die "$WEBHDFS_PYTHON cannot import gssapi (Debian's python3-gssapi)"

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'webhdfs_stop || :; krb_stop; rm -rf "$T"' EXIT
start=$(date +%s%N)

# http NAME CURL-ARGS...: one request with curl (bounded); sets CODE (the
# HTTP status, 000 if none) and RC (curl's exit status); the body is in
# $T/NAME.body, the headers in $T/NAME.hdr, curl's complaint in $T/NAME.err.
http() {
	_n=$1
	shift
	RC=0
	CODE=$(curl -sS --max-time 10 -o "$T/$_n.body" -D "$T/$_n.hdr" \
		-w '%{http_code}' "$@" 2>"$T/$_n.err") || RC=$?
}

# khttp NAME CURL-ARGS...: http with SPNEGO, from the ccache KRB5CCNAME.
khttp() {
	_k=$1
	shift
	http "$_k" --negotiate -u : "$@"
}

# expect NAME STATUS: the last http NAME answered STATUS.
expect() {
	[ "$CODE" = "$2" ] ||
		die "$1: HTTP $CODE (curl $RC: $(cat "$T/$1.err")), want $2: $(cat "$T/$1.body")"
}

# header NAME FIELD: the value of header FIELD of the answer to NAME.
header() {
	tr -d '\r' <"$T/$1.hdr" | sed -n "s/^$2: //Ip" | tail -1
}

# json NAME PATH: the JSON value at PATH (keys and indexes, dot-separated)
# in the body of the answer to NAME.
json() {
	"$WEBHDFS_PYTHON" -c '
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (bool, dict, list)) else v)
' "$T/$1.body" "$2" || die "$1: no $2 in $(cat "$T/$1.body")"
}

# remote NAME STATUS EXCEPTION: the answer to NAME is STATUS with a
# RemoteException EXCEPTION that has a javaClassName and a message.
remote() {
	expect "$1" "$2"
	[ "$(json "$1" RemoteException.exception)" = "$3" ] ||
		die "$1: want $3, got $(cat "$T/$1.body")"
	json "$1" RemoteException.javaClassName | grep -q "\.$3\$" ||
		die "$1: javaClassName of $3: $(cat "$T/$1.body")"
	[ -n "$(json "$1" RemoteException.message)" ] || die "$1: no message"
}

# unanswered NAME: the request NAME failed without a final answer (curl
# may have seen "100 Continue").
unanswered() {
	[ "$RC" -ne 0 ] && { [ "$CODE" = 000 ] || [ "$CODE" = 100 ]; } ||
		die "$1: want no answer, got curl $RC, HTTP $CODE: $(cat "$T/$1.body")"
}

# logged LINE: the fake's log has LINE.
logged() {
	grep -qxF "$1" "$WEBHDFS_LOG" ||
		die "not in the log: \"$1\"; log: $(tail -5 "$WEBHDFS_LOG")"
}

############ webhdfs mode, Kerberos
krb_start "$T"
kinit -kt "$KRB_DIR/kedge.keytab" kedge/localhost || die "kinit kedge"
ME=kedge/localhost@KEDGE.TEST
webhdfs_start "$T/k" --keytab "$KRB_DIR/http.keytab" --user-allowed kedge
NN=$WEBHDFS_URL/webhdfs/v1
case $WEBHDFS_URL in http://localhost:[0-9]*) ;; *) die "url=$WEBHDFS_URL" ;; esac
case $WEBHDFS_DATANODE in http://localhost:[0-9]*) ;; *) die "datanode=$WEBHDFS_DATANODE" ;; esac
[ "$WEBHDFS_URL" != "$WEBHDFS_DATANODE" ] || die "one port for both roles"

# Every listening socket of the fake is on 127.0.0.1.
socks=$(ls -l "/proc/$WEBHDFS_PID/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
for proto in tcp tcp6; do
	for inode in $socks; do
		awk -v i="$inode" -v p="$proto" '$10 == i && $4 == "0A" { print p, $2 }' \
			"/proc/net/$proto"
	done
done >"$T/listen"
[ "$(wc -l <"$T/listen")" -eq 2 ] &&
	[ "$(grep -c '^tcp 0100007F:' "$T/listen")" -eq 2 ] ||
	die "listening sockets: $(cat "$T/listen")"

# No credentials: 401 asking for Negotiate.
http unauth "$NN/?op=GETFILESTATUS"
remote unauth 401 SecurityException
header unauth WWW-Authenticate | grep -qx 'Negotiate' ||
	die "401 without WWW-Authenticate: Negotiate: $(cat "$T/unauth.hdr")"
# A token that is no token: 403, as hadoop-auth answers.
http badtok -H 'Authorization: Negotiate YWJjZGVm' "$NN/?op=GETFILESTATUS"
remote badtok 403 AuthenticationException

# SPNEGO, and the cookie it sets works alone afterwards.
khttp mkdirs -c "$T/jar" -X PUT "$NN/warehouse/t?op=MKDIRS&permission=750"
expect mkdirs 200
[ "$(json mkdirs boolean)" = true ] || die "MKDIRS: $(cat "$T/mkdirs.body")"
[ -d "$WEBHDFS_ROOT/warehouse/t" ] || die "MKDIRS made no directory"
header mkdirs Set-Cookie | grep -q '^hadoop.auth="u=kedge&p=kedge/localhost@KEDGE.TEST&t=kerberos&e=[0-9]*&s=' ||
	die "no hadoop.auth cookie: $(cat "$T/mkdirs.hdr")"
http cookie -b "$T/jar" "$NN/warehouse/t?op=GETFILESTATUS"
expect cookie 200
[ "$(json cookie FileStatus.type)" = DIRECTORY ] &&
	[ "$(json cookie FileStatus.permission)" = 750 ] &&
	[ "$(json cookie FileStatus.owner)" = kedge ] ||
	die "GETFILESTATUS of a directory: $(cat "$T/cookie.body")"
logged "GET GETFILESTATUS /warehouse/t -> 200 $ME"

# The two-step CREATE: 307 to the datanode port with a delegation token,
# then the bytes there without SPNEGO.
head -c 3000 /dev/urandom >"$T/data"
printf 'tail\n' >"$T/more"
khttp create1 -X PUT "$NN/warehouse/t/.part-0.tmp?op=CREATE&overwrite=false"
expect create1 307
loc=$(header create1 Location)
case $loc in
"$WEBHDFS_DATANODE/webhdfs/v1/warehouse/t/.part-0.tmp?"*delegation=*) ;;
*) die "CREATE redirected to \"$loc\"" ;;
esac
[ ! -e "$WEBHDFS_ROOT/warehouse/t/.part-0.tmp" ] || die "step 1 created the file"
http nodeleg -X PUT -T "$T/data" "$(echo "$loc" | sed 's/delegation=[^&]*&//')"
remote nodeleg 401 SecurityException
http forged -X PUT -T "$T/data" "$(echo "$loc" | sed 's/delegation=/delegation=AAAA/')"
remote forged 401 SecurityException
http create2 -X PUT -H 'Content-Type: application/octet-stream' -T "$T/data" "$loc"
expect create2 201
[ "$(header create2 Location)" = "webhdfs://localhost:${WEBHDFS_URL##*:}/warehouse/t/.part-0.tmp" ] ||
	die "201 Location: $(header create2 Location)"
cmp -s "$T/data" "$WEBHDFS_ROOT/warehouse/t/.part-0.tmp" || die "stored bytes differ"
logged "PUT CREATE /warehouse/t/.part-0.tmp -> 307 $ME"
logged "PUT CREATE /warehouse/t/.part-0.tmp -> 201 $ME datanode"
khttp stat "$NN/warehouse/t/.part-0.tmp?op=GETFILESTATUS"
expect stat 200
[ "$(json stat FileStatus.length)" = 3000 ] && [ "$(json stat FileStatus.type)" = FILE ] &&
	[ "$(json stat FileStatus.pathSuffix)" = "" ] &&
	[ "$(json stat FileStatus.permission)" = 644 ] ||
	die "GETFILESTATUS: $(cat "$T/stat.body")"
json stat FileStatus.modificationTime | grep -qx '[0-9]\{13\}' || die "modificationTime"

# overwrite=false on an existing file: FileAlreadyExistsException, at the
# datanode step as in Hadoop.
khttp again1 -X PUT "$NN/warehouse/t/.part-0.tmp?op=CREATE&overwrite=false"
expect again1 307
http again2 -X PUT -T "$T/more" "$(header again1 Location)"
remote again2 403 FileAlreadyExistsException
cmp -s "$T/data" "$WEBHDFS_ROOT/warehouse/t/.part-0.tmp" || die "overwritten"

# APPEND, two steps.
khttp app1 -X POST "$NN/warehouse/t/.part-0.tmp?op=APPEND"
expect app1 307
http app2 -X POST -T "$T/more" "$(header app1 Location)"
expect app2 200
cat "$T/data" "$T/more" >"$T/whole"
cmp -s "$T/whole" "$WEBHDFS_ROOT/warehouse/t/.part-0.tmp" || die "APPEND"

# RENAME: true, then false (source gone), false (destination exists).
khttp ren -X PUT "$NN/warehouse/t/.part-0.tmp?op=RENAME&destination=/warehouse/t/part-0"
expect ren 200
[ "$(json ren boolean)" = true ] || die "RENAME: $(cat "$T/ren.body")"
khttp ren2 -X PUT "$NN/warehouse/t/.part-0.tmp?op=RENAME&destination=/warehouse/t/part-0"
expect ren2 200
[ "$(json ren2 boolean)" = false ] || die "RENAME of a missing source: $(cat "$T/ren2.body")"
khttp mk2 -X PUT "$NN/warehouse/u?op=MKDIRS"
khttp c1 -X PUT "$NN/warehouse/u/x?op=CREATE"
http c2 -X PUT -T "$T/more" "$(header c1 Location)"
expect c2 201
khttp ren3 -X PUT "$NN/warehouse/u/x?op=RENAME&destination=/warehouse/t/part-0"
[ "$(json ren3 boolean)" = false ] || die "RENAME onto a file: $(cat "$T/ren3.body")"

# LISTSTATUS and OPEN (two steps; offset and length).
khttp ls "$NN/warehouse/t?op=LISTSTATUS"
expect ls 200
[ "$(json ls FileStatuses.FileStatus.0.pathSuffix)" = part-0 ] &&
	[ "$(json ls FileStatuses.FileStatus.0.length)" = 3005 ] &&
	[ "$(json ls FileStatuses.FileStatus | grep -o pathSuffix | wc -l)" -eq 1 ] ||
	die "LISTSTATUS: $(cat "$T/ls.body")"
khttp open1 "$NN/warehouse/t/part-0?op=OPEN"
expect open1 307
case $(header open1 Location) in
"$WEBHDFS_DATANODE/"*delegation=*) ;;
*) die "OPEN redirected to $(header open1 Location)" ;;
esac
http open2 "$(header open1 Location)"
expect open2 200
cmp -s "$T/whole" "$T/open2.body" || die "OPEN returned other bytes"
khttp part1 "$NN/warehouse/t/part-0?op=OPEN&offset=3000&length=4"
http part2 "$(header part1 Location)"
[ "$(cat "$T/part2.body")" = tail ] || die "OPEN offset/length: $(cat "$T/part2.body")"

# Errors: missing file, bad op, bad parameter, path, method; --user-allowed.
khttp missing "$NN/no/such?op=GETFILESTATUS"
remote missing 404 FileNotFoundException
[ "$(json missing RemoteException.message)" = "File does not exist: /no/such" ] ||
	die "404 message: $(cat "$T/missing.body")"
[ "$(json missing RemoteException.javaClassName)" = java.io.FileNotFoundException ] ||
	die "404 javaClassName"
khttp open404 "$NN/no/such?op=open"
remote open404 404 FileNotFoundException
khttp badop "$NN/x?op=FROB"
remote badop 400 IllegalArgumentException
khttp wrongm -X POST "$NN/x?op=MKDIRS"
remote wrongm 400 IllegalArgumentException
khttp badparam -X DELETE "$NN/warehouse/u?op=DELETE&recursive=maybe"
remote badparam 400 IllegalArgumentException
khttp badpath "$NN/a/../b?op=GETFILESTATUS" --path-as-is
remote badpath 400 InvalidPathException
khttp unsup -X PUT "$NN/warehouse?op=SETPERMISSION&permission=700"
remote unsup 400 UnsupportedOperationException
kafka_cc=FILE:$T/kafka.ccache
kedge_cc=$KRB5CCNAME
KRB5CCNAME=$kafka_cc
kinit -kt "$KRB_DIR/kafka.keytab" kafka/localhost || die "kinit kafka"
khttp denied -X PUT "$NN/warehouse/kafka?op=MKDIRS"
KRB5CCNAME=$kedge_cc
remote denied 403 AccessControlException
json denied RemoteException.message | grep -q '^Permission denied: user=kafka,' ||
	die "AccessControlException: $(cat "$T/denied.body")"
[ ! -e "$WEBHDFS_ROOT/warehouse/kafka" ] || die "a refused MKDIRS made a directory"
logged "PUT MKDIRS /warehouse/kafka -> 403 kafka/localhost@KEDGE.TEST"

# Malformed requests get 400 RemoteException and the fake lives on.
http garbage --request-target 'no-slash' "$WEBHDFS_URL/"
remote garbage 400 IllegalArgumentException
http badlen -X PUT -H 'Content-Length: -5' "$NN/x?op=MKDIRS"
remote badlen 400 IllegalArgumentException
http badchunk -X PUT -H 'Transfer-Encoding: gzip' "$NN/x?op=MKDIRS"
remote badchunk 400 IllegalArgumentException
khttp badq "$NN/?op=GETFILESTATUS&x=%ff"
remote badq 400 IllegalArgumentException

# DELETE: non-empty without recursive, true, then false.
khttp del0 -X DELETE "$NN/warehouse/u?op=DELETE"
remote del0 403 PathIsNotEmptyDirectoryException
khttp del1 -X DELETE "$NN/warehouse/u?op=DELETE&recursive=true"
expect del1 200
[ "$(json del1 boolean)" = true ] && [ ! -e "$WEBHDFS_ROOT/warehouse/u" ] ||
	die "DELETE: $(cat "$T/del1.body")"
khttp del2 -X DELETE "$NN/warehouse/u?op=DELETE&recursive=true"
[ "$(json del2 boolean)" = false ] || die "DELETE of a missing path: $(cat "$T/del2.body")"

############ faults
K=$T/k
# down: connections refused; up: the same port serves again.
webhdfs_ctl "$K" down
khttp down "$NN/?op=GETFILESTATUS"
[ "$RC" -eq 7 ] || die "down: curl exit $RC (want 7, refused), HTTP $CODE"
http downdn "$WEBHDFS_DATANODE/webhdfs/v1/x?op=OPEN"
[ "$RC" -eq 7 ] || die "down: the datanode port answered ($RC)"
webhdfs_ctl "$K" up
khttp up "$NN/?op=GETFILESTATUS"
expect up 200

# fail 1 503: one 503 RetriableException, then served; with an op, only
# that op's requests fail.
webhdfs_ctl "$K" fail 1 503
khttp f1 "$NN/warehouse/t/part-0?op=GETFILESTATUS"
remote f1 503 RetriableException
khttp f2 "$NN/warehouse/t/part-0?op=GETFILESTATUS"
expect f2 200
webhdfs_ctl "$K" fail 1 500 RENAME
khttp f3 "$NN/warehouse/t/part-0?op=GETFILESTATUS"
expect f3 200
khttp f4 -X PUT "$NN/warehouse/t/part-0?op=RENAME&destination=/warehouse/t/part-1"
remote f4 500 RuntimeException
[ -e "$WEBHDFS_ROOT/warehouse/t/part-0" ] || die "a failed RENAME renamed"
khttp f5 -X PUT "$NN/warehouse/t/part-0?op=RENAME&destination=/warehouse/t/part-1"
[ "$(json f5 boolean)" = true ] || die "RENAME after the fault: $(cat "$T/f5.body")"

# drop-upload: the upload fails and nothing is visible, not even in the
# fake's temporary directory; with "partial", part of it is left.
head -c 65536 /dev/urandom >"$T/big"
khttp d1 -X PUT "$NN/warehouse/t/.part-2.tmp?op=CREATE"
webhdfs_ctl "$K" drop-upload 1
http d2 -X PUT -T "$T/big" "$(header d1 Location)"
unanswered d2
khttp d3 "$NN/warehouse/t/.part-2.tmp?op=GETFILESTATUS"
remote d3 404 FileNotFoundException
[ -z "$(find "$WEBHDFS_ROOT" "$T"/k/.webhdfs-tmp-* -name '*part-2*' -o -name '.upload-*')" ] ||
	die "drop-upload left: $(find "$WEBHDFS_ROOT" "$T"/k/.webhdfs-tmp-*)"
logged "PUT CREATE /warehouse/t/.part-2.tmp -> drop $ME datanode"
khttp d4 -X PUT "$NN/warehouse/t/.part-3.tmp?op=CREATE"
webhdfs_ctl "$K" drop-upload 1 partial
http d5 -X PUT -T "$T/big" "$(header d4 Location)"
unanswered d5
khttp d6 "$NN/warehouse/t/.part-3.tmp?op=GETFILESTATUS"
expect d6 200
plen=$(json d6 FileStatus.length)
[ "$plen" -gt 0 ] && [ "$plen" -lt 65536 ] || die "partial upload of $plen bytes"
head -c "$plen" "$T/big" | cmp -s - "$WEBHDFS_ROOT/warehouse/t/.part-3.tmp" ||
	die "the partial file is not the body's start"
# The next upload is served again.
khttp d7 -X PUT "$NN/warehouse/t/.part-2.tmp?op=CREATE"
http d8 -X PUT -T "$T/big" "$(header d7 Location)"
expect d8 201

# lose-rename-response: curl gets no answer, but the rename happened.
webhdfs_ctl "$K" lose-rename-response 1
khttp lr -X PUT "$NN/warehouse/t/.part-2.tmp?op=RENAME&destination=/warehouse/t/part-2"
unanswered lr
khttp lr2 "$NN/warehouse/t/part-2?op=GETFILESTATUS"
expect lr2 200
[ "$(json lr2 FileStatus.length)" = 65536 ] || die "renamed file: $(cat "$T/lr2.body")"
khttp lr3 "$NN/warehouse/t/.part-2.tmp?op=GETFILESTATUS"
remote lr3 404 FileNotFoundException
logged "PUT RENAME /warehouse/t/.part-2.tmp -> drop $ME"
khttp lr4 -X PUT "$NN/warehouse/t/.part-2.tmp?op=RENAME&destination=/warehouse/t/part-2"
[ "$(json lr4 boolean)" = false ] || die "the retried RENAME: $(cat "$T/lr4.body")"

# slow: answers wait.
webhdfs_ctl "$K" slow 400
t0=$(date +%s%N)
khttp s1 "$NN/?op=GETFILESTATUS"
expect s1 200
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -ge 400 ] || die "slow 400: answered in $ms ms"
webhdfs_ctl "$K" slow 0
webhdfs_ctl "$K" clear
timeout 10 sh -c 'printf "frobnicate 1\n" >"$1"' sh "$K/webhdfs.ctl" ||
	die "cannot write to the control FIFO"
wait_for "an error for a bad command" 10 \
	grep -q '^error frobnicate 1: ' "$K/webhdfs.out"

# Nothing written outside the store but the log; a clean exit on SIGTERM
# that removes the temporary directory.
webhdfs_stop || die "stopping the Kerberos WebHDFS fake"
[ -z "$(ls -d "$T"/k/.webhdfs-tmp-* 2>/dev/null)" ] || die "temporary directory left"

############ webhdfs mode, simple authentication
webhdfs_start "$T/s" --user-allowed kedge
NN=$WEBHDFS_URL/webhdfs/v1
http anon -X PUT "$NN/d?op=MKDIRS"
remote anon 403 AccessControlException
json anon RemoteException.message | grep -q '^Permission denied: user=dr.who,' ||
	die "anonymous: $(cat "$T/anon.body")"
http simple1 -X PUT "$NN/d/f?op=CREATE&user.name=kedge"
expect simple1 307
case $(header simple1 Location) in
"$WEBHDFS_DATANODE/"*user.name=kedge*) ;;
*) die "simple CREATE redirected to $(header simple1 Location)" ;;
esac
http simple2 -X PUT -T "$T/more" "$(header simple1 Location)"
expect simple2 201
cmp -s "$T/more" "$WEBHDFS_ROOT/d/f" || die "simple CREATE"
logged "PUT CREATE /d/f -> 201 kedge datanode"
webhdfs_stop || die "stopping the simple WebHDFS fake"

############ httpfs mode
webhdfs_start "$T/h" --mode httpfs
NN=$WEBHDFS_URL/webhdfs/v1
[ -z "$WEBHDFS_DATANODE" ] || die "httpfs mode has a datanode: $WEBHDFS_DATANODE"
http hnouser "$NN/?op=GETFILESTATUS"
remote hnouser 401 SecurityException
header hnouser WWW-Authenticate | grep -qx PseudoAuth || die "no PseudoAuth challenge"
http hc0 -X PUT "$NN/in/f?op=CREATE&user.name=alice"
expect hc0 307
[ "$(header hc0 Location)" = "$NN/in/f?op=CREATE&user.name=alice&data=true" ] ||
	die "HttpFS redirect: $(header hc0 Location)"
http hc1 -X PUT -T "$T/data" "$NN/in/f?op=CREATE&user.name=alice&data=true"
remote hc1 400 IllegalArgumentException
http hc2 -X PUT -H 'Content-Type: application/octet-stream' -T "$T/data" \
	"$NN/in/f?op=CREATE&user.name=alice&data=true"
expect hc2 201
[ "$(header hc2 Location)" = "$NN/in/f" ] && [ "$(json hc2 Location)" = "$NN/in/f" ] ||
	die "HttpFS 201: $(header hc2 Location) $(cat "$T/hc2.body")"
cmp -s "$T/data" "$WEBHDFS_ROOT/in/f" || die "HttpFS CREATE stored other bytes"
http hc3 -X PUT -H 'Content-Type: application/octet-stream' -T "$T/data" \
	"$NN/in/f?op=CREATE&user.name=alice&data=true&overwrite=false"
remote hc3 500 FileAlreadyExistsException
http ha -X POST -H 'Content-Type: application/octet-stream' -T "$T/more" \
	"$NN/in/f?op=APPEND&user.name=alice&data=true"
expect ha 200
http ho "$NN/in/f?op=OPEN&user.name=alice"
expect ho 200
cmp -s "$T/whole" "$T/ho.body" || die "HttpFS OPEN returned other bytes"
http hs "$NN/in/f?op=GETFILESTATUS&user.name=bob"
[ "$(json hs FileStatus.owner)" = alice ] && [ "$(json hs FileStatus.length)" = 3005 ] ||
	die "HttpFS GETFILESTATUS: $(cat "$T/hs.body")"
http hr -X PUT "$NN/in/f?op=RENAME&destination=/in/g&user.name=alice"
[ "$(json hr boolean)" = true ] || die "HttpFS RENAME: $(cat "$T/hr.body")"
http hl "$NN/in?op=LISTSTATUS&user.name=alice"
[ "$(json hl FileStatuses.FileStatus.0.pathSuffix)" = g ] || die "HttpFS LISTSTATUS"
logged "PUT CREATE /in/f -> 201 alice"
logged "GET OPEN /in/f -> 200 alice"
webhdfs_stop || die "stopping the HttpFS fake"

ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 20000 ] || die "the test took $ms ms"
echo "ok (webhdfs fake: Kerberos, simple and httpfs modes and every fault in $ms ms)"
