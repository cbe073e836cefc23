#!/bin/sh
# Usage: packaging/deb/build.sh VERSION  (what "make deb" runs)
# Builds kedge_VERSION_ARCH.deb in the repository root with dpkg-deb alone:
# kedge compiled in build-deb/ with Debian's hardening flags, installed by
# "make install install-service" into a staging tree with Debian's paths,
# stripped, man pages compressed, copyright and changelog added; Depends
# from dpkg-shlibdeps; the maintainer scripts and conffiles of this folder.
set -eu
cd "$(dirname "$0")/../.."
here=packaging/deb

version=${1:?usage: $0 VERSION}
changelog_version=$(sed -n '1s/^kedge (\([^)]*\)).*/\1/p' "$here/changelog")
[ "$changelog_version" = "$version" ] || {
	echo "$here/changelog starts with $changelog_version, not $version:" \
		"add an entry for $version" >&2
	exit 1
}
arch=$(dpkg --print-architecture)
deb=kedge_${version}_${arch}.deb
# dpkg-shlibdeps wants a debian/control, and a DEBIAN/ above the binary.
pkg=build-deb/pkg
root=$pkg/debian/kedge

# The project's CPPFLAGS carry its own defines, so Debian's go with CFLAGS.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)

rm -rf "$pkg" "$deb"
make -j"$(nproc)" KEDGE_RELEASE=1 B=build-deb BIN=build-deb/kedge CFLAGS="$cflags" \
	LDFLAGS="$ldflags" DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc \
	UNITDIR=/lib/systemd/system SYSUSERSDIR=/usr/lib/sysusers.d \
	TMPFILESDIR=/usr/lib/tmpfiles.d install install-service

strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$root/usr/bin/kedge"
gzip -9n "$root/usr/share/man/man8/kedge.8" "$root/usr/share/man/man5/kedge.conf.5"
# A native package's changelog is changelog.gz.
install -m 0644 "$here/copyright" "$root/usr/share/doc/kedge/copyright"
gzip -9nc "$here/changelog" >"$root/usr/share/doc/kedge/changelog.gz"
install -D -m 0644 "$here/lintian-overrides" \
	"$root/usr/share/lintian/overrides/kedge"

mkdir -p "$root/DEBIAN"
printf 'Source: kedge\n\nPackage: kedge\nArchitecture: any\n' \
	>"$pkg/debian/control"
shlibs=$(cd "$pkg" && dpkg-shlibdeps -O debian/kedge/usr/bin/kedge |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "dpkg-shlibdeps found no library" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@SHLIBS@/$shlibs/" "$here/control" >"$root/DEBIAN/control"
install -m 0644 "$here/conffiles" "$root/DEBIAN/conffiles"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
# dpkg keeps the conffiles' sums itself.
(cd "$root" && find . \( -path ./DEBIAN -o -path ./etc \) -prune -o -type f \
	-printf '%P\0' |
	sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
