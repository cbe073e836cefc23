#!/bin/sh
# The command line: --version, check-config on good and bad configs (each
# error names file, line and key), and docs/config.md generated from the
# key table.
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
rc=0
$KEDGE frobnicate >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || die "an unknown subcommand exits $rc, want 2"
echo "ok"
