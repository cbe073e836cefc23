# A minimal Debian 12 root for the tests that install kedge as a user of a
# fresh system would: `debootstrap --variant=minbase` with systemd, made
# once and cached in $KEDGE_TEST_CACHE (default /var/cache/kedge-tests),
# with a cache of the .debs apt fetches into it beside it.  A test never
# changes the cached root: it runs on an overlay of its own.  Source it
# after tests/lib.sh (it uses die).
#
#   debroot_need TOOL...   fails the test unless it runs as root and every
#                          TOOL is installed (with debootstrap and
#                          systemd-nspawn, which every user needs)
#   debroot_make LOGDIR    makes the root once (under a lock, so that runs
#                          at the same time wait for it), about 50 s and
#                          Debian's archive; debootstrap's log in LOGDIR
#   debroot_sources FILE   writes an apt sources.list for the root to FILE
#   debroot_nspawn DIR ARGS...
#                          systemd-nspawn ARGS... on an overlay of the root
#                          whose upper layer is DIR/upper (what the test
#                          puts there, the container sees); exec's: run it
#                          in a subshell, or with & to keep its PID
#
# It sets:
#
#   DEBROOT          the cached root, $KEDGE_TEST_CACHE/bookworm-systemd
#   DEBROOT_APT      the cache of .debs, to bind on /var/cache/apt/archives
#                    (one apt at a time: flock "$DEBROOT_APT.lock")
#   DEBROOT_SUITE    bookworm
#   DEBROOT_MIRROR, DEBROOT_SECURITY
#                    the archive and its security updates, where this
#                    host's apt takes them from (deb.debian.org if not said)

DEBROOT_SUITE=bookworm
DEBROOT=${KEDGE_TEST_CACHE:-/var/cache/kedge-tests}/bookworm-systemd
DEBROOT_APT=${KEDGE_TEST_CACHE:-/var/cache/kedge-tests}/bookworm-apt

# debroot_uri SUITE DEFAULT: the first URI this host's apt takes SUITE from
# (one-line or deb822 sources), DEFAULT if none.
debroot_uri() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v s="$1" '
		/^deb / { sub(/ \[[^]]*\]/, ""); if ($3 == s) { print $2; exit } }
		/^[ \t]*$/ { uri = ""; suites = "" }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { suites = " " $0 " " }
		uri != "" && index(suites, " " s " ") { print uri; exit }' |
		grep . || echo "$2"
}
DEBROOT_MIRROR=$(debroot_uri $DEBROOT_SUITE http://deb.debian.org/debian)
DEBROOT_SECURITY=$(debroot_uri $DEBROOT_SUITE-security \
	http://deb.debian.org/debian-security)

debroot_need() {
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, systemd-nspawn)"
	for _tool in debootstrap systemd-nspawn "$@"; do
		command -v "$_tool" >/dev/null ||
			die "needs $_tool (scripts/install-deps.sh installs it)"
	done
}

debroot_make() {
	mkdir -p "$(dirname "$DEBROOT")" "$DEBROOT_APT"
	exec 9>"$DEBROOT.lock"
	flock -w 1200 9 || die "$DEBROOT.lock: still locked after 20 minutes"
	if [ ! -f "$DEBROOT/.kedge-complete" ]; then
		echo "making $DEBROOT with debootstrap from $DEBROOT_MIRROR (once)"
		rm -rf "$DEBROOT.new" "$DEBROOT"
		timeout 1200 debootstrap --variant=minbase \
			--include=systemd,systemd-sysv "$DEBROOT_SUITE" \
			"$DEBROOT.new" "$DEBROOT_MIRROR" >"$1/debootstrap.log" 2>&1 ||
			die "debootstrap: $(tail -5 "$1/debootstrap.log")"
		touch "$DEBROOT.new/.kedge-complete"
		mv "$DEBROOT.new" "$DEBROOT"
	fi
	flock -u 9
	exec 9>&-
}

debroot_sources() {
	cat >"$1" <<EOF
deb $DEBROOT_MIRROR $DEBROOT_SUITE main
deb $DEBROOT_MIRROR $DEBROOT_SUITE-updates main
deb $DEBROOT_SECURITY $DEBROOT_SUITE-security main
EOF
}

# On a private mount namespace: the overlay (the cached root stays as it
# is) and the tmpfs nspawn keeps its propagation directory in (it will not
# clean one on a disk) go away with the container.
debroot_nspawn() {
	mkdir -p "$1/upper" "$1/work" "$1/root" /run/systemd/nspawn
	_dr=$1
	shift
	exec unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=0755 tmpfs /run/systemd/nspawn &&
		mount -t overlay overlay \
			-o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/root" &&
		root=$2/root apt=$3 && shift 3 &&
		exec systemd-nspawn --register=no --keep-unit --directory="$root" \
			--bind="$apt:/var/cache/apt/archives" "$@"' \
		sh "$DEBROOT" "$_dr" "$DEBROOT_APT" "$@"
}
