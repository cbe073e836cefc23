#!/bin/sh
# kedge(8) as docs/man/kedge.8.in writes it names every command of `kedge
# help` in its SYNOPSIS with every option the usage gives it, and
# describes each command in COMMANDS; so a command or an option added to
# agent/main.c's table without the man page fails here, in make check
# (tests/integration/package_deb.sh reads the installed page too, but
# only in make test).  Needs man (man-db).
set -eu
. tests/lib.sh

command -v man >/dev/null || die "needs man (man-db)"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

sed 's/@VERSION@/test/' docs/man/kedge.8.in >"$T/kedge.8"
# In the C locale man writes plain ASCII; at 300 columns nothing is
# hyphenated and a synopsis is one line.
LC_ALL=C MANWIDTH=300 man -l "$T/kedge.8" >"$T/page" 2>"$T/man.err" ||
	die "man -l kedge.8: $(cat "$T/man.err")"
[ ! -s "$T/man.err" ] || die "man -l kedge.8 warns: $(cat "$T/man.err")"

# synopses FILE: one line per synopsis in FILE's text ("kedge" first, the
# lines that carry it on joined), as "COMMAND<TAB>--option --option...",
# COMMAND being the words after kedge up to the first argument.
synopses() {
	awk '
	function flush() {
		if (line == "")
			return
		n = split(line, w, " ")
		cmd = ""
		for (i = 2; i <= n && w[i] ~ /^[a-z][a-z-]*$/; i++)
			cmd = cmd (cmd == "" ? "" : " ") w[i]
		opts = ""
		s = line
		while (match(s, /--[a-z][a-z-]*/)) {
			opts = opts " " substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
		}
		if (cmd != "")
			print cmd "\t" opts
		line = ""
	}
	{ sub(/^usage:/, "      ") }
	/^ +kedge / { flush(); line = $0; next }
	/^ +[^ ]/ && line != "" && !/^ {10,}[a-z]/ { line = line " " $0; next }
	{ flush() }
	END { flush() }' "$1"
}

$KEDGE help >"$T/usage" 2>&1 || die "kedge help: $(cat "$T/usage")"
sed -n '/^usage:/,/^$/p' "$T/usage" | synopses /dev/stdin >"$T/want"
sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$T/page" | synopses /dev/stdin >"$T/have"
[ "$(wc -l <"$T/want")" -ge 10 ] ||
	die "kedge help gave $(wc -l <"$T/want") synopses: $(cat "$T/usage")"

while IFS='	' read -r cmd opts; do
	have=$(awk -F '\t' -v c="$cmd" '$1 == c { print $2; f = 1 }
		END { exit !f }' "$T/have") ||
		die "kedge(8) has no synopsis of kedge $cmd"
	for o in $opts; do
		case " $have " in
		*" $o "*) ;;
		*) die "kedge(8)'s synopsis of kedge $cmd has no $o" ;;
		esac
	done
	# each command but the bare "kedge COMMAND --help" has its paragraph
	grep -q "^       $cmd\( \|,\|\$\)" "$T/page" ||
		die "kedge(8) describes no kedge $cmd in COMMANDS"
done <"$T/want"
echo "kedge(8) has the $(wc -l <"$T/want") synopses of kedge help, each option, each command described"
