#!/bin/sh
# `make demo` installs only what the demo needs: scripts/install-deps.sh's
# build set (`--list build`), with everything its packages depend on and
# what every Debian system has (priority required, and Essential), must
#  - hold no JDK, Maven, debootstrap, valgrind, Python venv or pip,
#    cmocka, clang, packager, KDC or kcat (what the tests and the bench
#    need);
#  - give every command `make demo`'s build runs (make -n of the binary
#    and the fixtures into a directory of the test's) and every library it
#    links;
#  - give every command the demo runs: scripts/demo.sh (20,000 records, 10
#    s) runs with a PATH of those packages' programs alone, in a network
#    and mount namespace of its own (its mock cluster's fixed port and its
#    fixed /tmp/kedge-demo are the test's alone), and must end with
#    `kedge verify` passing.
# The packages' dependencies are read from this host's dpkg database, so
# every package of the set must be installed here (`make deps` does).
# tests/integration/demo_debian.sh runs `make demo` on a fresh Debian 12.
# Needs root (unshare, mount), iproute2's ip.
set -eu
. tests/lib.sh

[ "$(id -u)" -eq 0 ] || die "needs root (unshare -mn, mount)"
command -v ip >/dev/null || die "needs ip (iproute2)"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

scripts/install-deps.sh --list build >"$T/demo" ||
	die "scripts/install-deps.sh --list build failed"
[ -s "$T/demo" ] || die "scripts/install-deps.sh --list build printed nothing"
# Not the demo's, each what a test or the bench needs.
NOT_DEMO='^(openjdk-.*|default-jdk.*|default-jre.*|maven|debootstrap|valgrind.*|python3-venv|python3-pip|libcmocka.*|clang.*|libclang.*|rpm|rpmlint|lintian|krb5-kdc|krb5-admin-server|kcat|systemd-container)$'

# The closure over Pre-Depends and Depends, through this host's dpkg
# database: of each set of alternatives, the first one installed (a
# package, or one that provides the name).
dpkg-query -W -f='${db:Status-Status}\t${Package}\t${Priority}\t${Essential}\t${Provides}\t${Pre-Depends}, ${Depends}\n' \
	>"$T/db"
while read -r p; do
	awk -F '\t' -v p="$p" '$1 == "installed" && $2 == p { f = 1 } END { exit !f }' \
		"$T/db" || die "$p of the build set is not installed here: make deps"
done <"$T/demo"
awk -F '\t' '
function bare(s) {
	gsub(/\([^)]*\)|\[[^]]*\]|<[^>]*>/, "", s)
	gsub(/[ \t]/, "", s)
	sub(/:.*/, "", s)
	return s
}
FILENAME == ARGV[1] {
	if ($1 != "installed")
		next
	inst[$2] = 1
	deps[$2] = $6
	if ($3 == "required" || $4 == "yes")
		want[$2] = 1
	n = split($5, pv, ",")
	for (i = 1; i <= n; i++) {
		v = bare(pv[i])
		if (v != "" && !(v in prov))
			prov[v] = $2
	}
	next
}
{ want[$1] = 1 }
END {
	do {
		grew = 0
		for (p in want) {
			if (p in done)
				continue
			done[p] = 1
			n = split(deps[p], d, ",")
			for (i = 1; i <= n; i++) {
				m = split(d[i], alt, "|")
				for (j = 1; j <= m; j++) {
					a = bare(alt[j])
					if (a in inst) { q = a; break }
					if (a in prov) { q = prov[a]; break }
					q = ""
				}
				if (q != "" && !(q in want)) {
					want[q] = 1
					grew = 1
				}
			}
		}
	} while (grew)
	for (p in want)
		print p
}' "$T/db" "$T/demo" | sort >"$T/closure"

bad=$(grep -E "$NOT_DEMO" "$T/closure" | tr '\n' ' ') || :
[ -z "$bad" ] || die "the build set brings what the demo does not need: $bad"

# Their programs, and nothing else, in a directory for PATH: T/tmp/bin,
# as the demo's namespace has T/tmp for its /tmp.
mkdir -p "$T/tmp/bin"
B=$T/tmp/bin
# shellcheck disable=SC2046
dpkg -L $(cat "$T/closure") 2>/dev/null |
	grep -E '^/(usr/)?s?bin/[^/]+$' | sort -u | while read -r f; do
	[ -x "$f" ] && [ ! -d "$f" ] && [ ! -e "$B/${f##*/}" ] || continue
	ln -s "$f" "$B/${f##*/}"
done
# and the names update-alternatives gives them (cc, awk, ...)
find /usr/bin /usr/sbin -maxdepth 1 -lname '/etc/alternatives/*' |
	while read -r f; do
	printf '%s\t%s\n' "$f" "$(readlink -f "$f")"
done >"$T/alternatives"
# shellcheck disable=SC2046
dpkg -S $(cut -f2 "$T/alternatives") 2>/dev/null |
	sed 's/^\([^:]*\)[^ ]*: /\1\t/' >"$T/alternatives.owners"
awk -F '\t' 'FILENAME == ARGV[1] { c[$1] = 1; next }
	FILENAME == ARGV[2] { if ($1 in c) ok[$2] = 1; next }
	$2 in ok { print $1 }' "$T/closure" "$T/alternatives.owners" \
	"$T/alternatives" | while read -r f; do
	[ -e "$B/${f##*/}" ] || ln -s "$f" "$B/${f##*/}"
done

# The build: every command make runs for the binary and the fixtures, and
# every library they link.
fixtures=$(for f in tests/fixtures/*.c; do
	n=${f##*/}
	printf '%s ' "$T/b/fixtures/${n%.c}"
done)
# Not the make that may have started this test: none of its variables.
# shellcheck disable=SC2086
(unset MAKEFLAGS MFLAGS MAKELEVEL; PATH=$B make -n B="$T/b" BIN="$T/b/kedge" \
	"$T/b/kedge" $fixtures) >"$T/make.n" 2>"$T/make.err" ||
	die "make -n of the binary and the fixtures, with the build set's PATH: $(tail -3 "$T/make.err")"
[ ! -s "$T/make.err" ] ||
	die "make -n, with the build set's PATH, said: $(tail -3 "$T/make.err")"
awk '{ print $1 }' "$T/make.n" | sort -u | while read -r c; do
	[ -e "$B/$c" ] ||
		die "the build runs $c, which no package of the build set gives"
done
tr ' ' '\n' <"$T/make.n" | sed -n 's/^-l//p' | sort -u | while read -r l; do
	f=$(cc -print-file-name="lib$l.so")
	[ "$f" != "lib$l.so" ] || f=$(cc -print-file-name="lib$l.a")
	# the link the -dev package holds, by its path as dpkg has it (with
	# /usr or without: merged /usr)
	f=$(realpath -s "$f")
	p=$( { dpkg -S "$f" || dpkg -S "${f#/usr}"; } 2>/dev/null |
		sed 's/:.*//' | head -1)
	[ -n "$p" ] && grep -qx "$p" "$T/closure" ||
		die "the build links -l$l ($f, of ${p:-no package}), which the build set does not bring"
done

# The demo itself, with that PATH.  The tree is reached through
# /tmp/tree, as the checkout may itself be under the /tmp that is covered.
rc=0
mkdir -p "$T/tmp/tree"
unshare -mn --propagation private sh -c '
	ip link set lo up && mount --bind "$4" "$1/tree" &&
	mount --rbind "$1" /tmp && cd /tmp/tree &&
	PATH=/tmp/bin DEMO_RECORDS=20000 DEMO_SECONDS=10 KEDGE=$2 FIX=$3 \
		exec scripts/demo.sh' sh "$T/tmp" "$KEDGE" "$FIX" "$PWD" \
	>"$T/demo.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || die "scripts/demo.sh with the build set's PATH exited $rc: $(tail -5 "$T/demo.out")"
grep -q '^   verify OK: ' "$T/demo.out" ||
	die "the demo's kedge verify did not pass: $(grep -A2 'kedge verify' "$T/demo.out")"
echo "the build set: $(wc -l <"$T/demo") packages, $(wc -l <"$T/closure") with their dependencies; no JDK, Maven, debootstrap or valgrind; the build and the demo run on their programs alone"
