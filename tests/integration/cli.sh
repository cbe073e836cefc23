#!/bin/sh
# The command line: --version, check-config on good and bad configs (each
# error names file, line and key), docs/config.md generated from the key
# table; each command's --help (its own usage, on stdout, exit 0), and
# each usage error: one line saying what is wrong and the command's
# synopsis, on stderr, exit 2.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

$KEDGE --version | grep -Eq '^kedge [0-9]+\.[0-9]+\.[0-9]+$' || die "--version"

out=$($KEDGE check-config -c examples/kedge.conf) || die "examples/kedge.conf: $out"
[ "$out" = "configuration OK" ] || die "check-config printed: $out"

# expect_error NAME PATTERN: check-config on $T/NAME.conf exits 1 and prints
# a line matching PATTERN.
expect_error() {
	rc=0
	$KEDGE check-config -c "$T/$1.conf" >"$T/said" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || die "$1: exit $rc, want 1: $(cat "$T/said")"
	grep -Eq "$2" "$T/said" || die "$1: got \"$(cat "$T/said")\", want /$2/"
}

base() {
	cat <<CONF
kafka = { brokers = "127.0.0.1:9092"; };
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; };
CONF
}

{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = ; } );\n'; } >"$T/syntax.conf"
expect_error syntax "^$T/syntax.conf:3: .*syntax error"

{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx";\n  colour = "red"; } );\n'; } >"$T/unknown.conf"
expect_error unknown "^$T/unknown.conf:4: tables\\[0\\]\\.colour: "

{ base; printf 'tables = ( { name = "a"; topics = [ "t" ];\n  udtf = "nginx";\n  udtf_config = { log_format = "$a$b"; }; } );\n'; } >"$T/format.conf"
expect_error format "^$T/format.conf:5: tables\\[0\\]\\.udtf_config.*\\\$a"

{ base; printf 'tables = ( { name = "a"; topics = [ "t" ];\n  udtf = "nginx"; event_time = "status"; } );\n'; } >"$T/evtime.conf"
expect_error evtime "^$T/evtime.conf:4: tables\\[0\\]\\.event_time: .*not a timestamp; use \"time_local\" or \"kafka_timestamp\""

{ base; printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx"; } );\ncheckpoint = { interval = 0; };\n'; } >"$T/range.conf"
expect_error range "^$T/range.conf:4: checkpoint\\.interval: "

printf 'tables = ( { name = "a"; topics = [ "t" ]; udtf = "nginx"; } );\n' >"$T/missing.conf"
expect_error missing "^$T/missing.conf:[0-9]+: kafka(\\.brokers)?: "

rc=0
$KEDGE check-config -c "$T/nonexistent.conf" >"$T/said" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "$T/nonexistent.conf" "$T/said" || die "unreadable config"

$KEDGE config-reference | cmp -s - docs/config.md ||
	die "docs/config.md is not what the key table prints; run make docs"
# Every command --help: its synopsis first, then what it does and its
# options, nothing of another command.  The commands are the global
# usage's, as package_deb.sh reads them.
$KEDGE --help >"$T/usage" || die "kedge --help failed"
$KEDGE help | cmp -s - "$T/usage" || die "kedge help is not kedge --help"
awk '{ sub(/^usage:/, "") } $1 == "kedge" { c = $2
	for (i = 3; i <= NF && $i ~ /^[a-z]+$/; i++) c = c " " $i; print c }' \
	"$T/usage" >"$T/commands"
[ "$(wc -l <"$T/commands")" -ge 10 ] || die "kedge --help lists: $(cat "$T/commands")"
while read -r cmd; do
	# shellcheck disable=SC2086
	$KEDGE $cmd --help >"$T/help" 2>"$T/help.err" || die "kedge $cmd --help failed"
	[ ! -s "$T/help.err" ] || die "kedge $cmd --help wrote to stderr: $(cat "$T/help.err")"
	head -1 "$T/help" | grep -q "^usage: kedge $cmd\( \|\$\)" ||
		die "kedge $cmd --help begins: $(head -1 "$T/help")"
	[ "$(grep -c '^ *kedge ' "$T/help")" -eq 0 ] &&
		[ "$(grep -c '^usage: ' "$T/help")" -eq 1 ] ||
		die "kedge $cmd --help shows other commands: $(cat "$T/help")"
	grep -q '^  -h, --help ' "$T/help" || die "kedge $cmd --help has no options"
	# shellcheck disable=SC2086
	$KEDGE help $cmd | cmp -s - "$T/help" || die "kedge help $cmd is not kedge $cmd --help"
done <"$T/commands"

# usage_error WANT ARGS...: kedge ARGS exits 2 and says WANT in one line,
# then a synopsis, on stderr alone.
usage_error() {
	_want=$1
	shift
	rc=0
	$KEDGE "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ] || die "kedge $*: exit $rc, want 2: $(cat "$T/err")"
	[ ! -s "$T/out" ] || die "kedge $*: printed on stdout: $(cat "$T/out")"
	[ "$(head -1 "$T/err")" = "$_want" ] ||
		die "kedge $*: said \"$(head -1 "$T/err")\", want \"$_want\""
	sed -n 2p "$T/err" | grep -q '^usage: kedge ' &&
		[ "$(wc -l <"$T/err")" -le 5 ] ||
		die "kedge $*: not one line and a synopsis: $(cat "$T/err")"
}

usage_error 'kedge: a command is required'
usage_error 'kedge: unknown command "frobnicate"' frobnicate
usage_error 'kedge run: unknown option --frob' run --frob
usage_error 'kedge run: unexpected argument "extra"' run extra
usage_error 'kedge check-config: -c needs a value' check-config -c
usage_error 'kedge check-config: --online takes no value' check-config --online=yes
usage_error 'kedge verify: a directory or URL is required' verify
usage_error 'kedge verify: unexpected argument "b"' verify a b
usage_error 'kedge verify: --user needs a value' verify a --user
usage_error 'kedge report: --from is required' report
usage_error 'kedge report: --to is required' report --from 2026112900
usage_error 'kedge report: --from 20261129: give the hour as YYYYMMDDHH' \
	report --from 20261129 --to 2026112900
usage_error 'kedge report: --from 2026112901 is after --to 2026112900' \
	report --from 2026112901 --to 2026112900
usage_error 'kedge checkpoint: which one?' checkpoint
usage_error 'kedge checkpoint: unknown command "frob"' checkpoint frob
usage_error 'kedge checkpoint show: unknown option -x' checkpoint show -x
usage_error 'kedge status: unexpected argument "extra"' status extra
usage_error 'kedge bench: which one?' bench
usage_error 'kedge bench udtf: --table is required' bench udtf
usage_error 'kedge bench udtf: --input is required' bench udtf --table t
usage_error 'kedge bench udtf: --seconds 0: give more than 0, at most 60' \
	bench udtf --table t --input f --seconds 0
usage_error 'kedge bench consume: unknown option --frob' bench consume --frob
usage_error 'kedge config-reference: unexpected argument "x"' config-reference x
usage_error 'kedge version: unexpected argument "x"' version x
usage_error 'kedge: unknown command "frob"' help frob
echo "ok: $(wc -l <"$T/commands") commands' --help, every usage error in one line"
