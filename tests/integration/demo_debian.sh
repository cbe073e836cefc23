#!/bin/sh
# `make demo` on a fresh Debian 12, as the README tells a newcomer: in a
# minimal root (tests/debroot.sh: debootstrap minbase, cached) run with
# systemd-nspawn on an overlay of its own, with this tree copied in (what
# git tracks, changed or not, and new files it does not ignore), `apt-get
# install make`, then `make demo`.  It must end with the demo's `kedge
# verify` passing, and must have installed no JDK, Maven, debootstrap,
# valgrind, Python venv, cmocka, clang, packager or KDC, nor reached Maven
# Central or PyPI (no local Maven repository, no build/py).  The container
# shares the host's network: apt reaches the host's Debian mirror, and the
# demo's mock cluster listens on the host's 127.0.0.1:19092, so two demos
# at once would collide.  About 80 s on two cores once the root is made,
# most of it apt and the build.  Needs root, debootstrap, systemd-container, util-linux's
# unshare and flock, git, and Debian's archive.
set -eu
. tests/lib.sh
. tests/debroot.sh

debroot_need unshare flock git

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
[ -z "${KEEP:-}" ] || echo "keeping $T"
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
debroot_make "$T"

# The tree goes into the overlay's upper layer, which the container sees
# as /root/kedge; the container writes its answers to /out.
mkdir -p "$T/upper/root/kedge" "$T/upper/etc/apt" "$T/out"
chmod 0700 "$T/upper/root"
git ls-files -z -co --exclude-standard | tar --null -T - -cf - |
	tar -C "$T/upper/root/kedge" -xf -
debroot_sources "$T/upper/etc/apt/sources.list"
cat >"$T/upper/root/demo.sh" <<'EOF'
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends make >/dev/null
cd /root/kedge
rc=0
make demo >/out/demo.log 2>&1 || rc=$?
echo "$rc" >/out/rc
dpkg-query -W -f='${Package}\n' >/out/installed
ls -d /root/.m2 /root/kedge/build/py 2>/dev/null >/out/fetched || :
EOF

# The shared .deb cache: one apt at a time.
exec 8>"$DEBROOT_APT.lock"
flock -w 1200 8 || die "$DEBROOT_APT.lock: still locked after 20 minutes"
timeout 1800 sh -c '. tests/lib.sh; . tests/debroot.sh; debroot_nspawn "$@"' \
	sh "$T" --quiet --as-pid2 --machine="kedge-demo-$$" \
	--bind="$T/out:/out" sh /root/demo.sh >"$T/nspawn.log" 2>&1 ||
	die "systemd-nspawn: $(tail -5 "$T/nspawn.log")"
exec 8>&-

[ -f "$T/out/rc" ] || die "the container did not run make demo: $(tail -5 "$T/nspawn.log")"
[ "$(cat "$T/out/rc")" = 0 ] ||
	die "make demo exited $(cat "$T/out/rc"): $(tail -15 "$T/out/demo.log")"
grep -q '^   verify OK: ' "$T/out/demo.log" ||
	die "make demo's kedge verify did not pass: $(grep -A2 'kedge verify' "$T/out/demo.log")"
extra=$(grep -E '^(openjdk-|default-jdk|default-jre|maven|debootstrap|valgrind|python3-venv|python3-pip|libcmocka|clang|rpm|lintian|krb5-kdc|kcat)' \
	"$T/out/installed" | tr '\n' ' ') || :
[ -z "$extra" ] || die "make demo installed what the demo does not need: $extra"
[ ! -s "$T/out/fetched" ] ||
	die "make demo fetched from Maven Central or PyPI: $(cat "$T/out/fetched")"
echo "make demo on a fresh Debian 12: $(wc -l <"$T/out/installed") packages, no JDK, Maven, debootstrap or valgrind; verify OK"
