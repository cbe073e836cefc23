#!/bin/sh
# The .rpm, without installing it (Debian has no rpm database): `make rpm`
# builds it from packaging/rpm/kedge.spec; `rpm -qlp` lists the files the
# .deb installs (with the rpm's own paths), with their owners and modes;
# /etc/kedge/kedge.conf is its one configuration file, %config(noreplace);
# the payload's unit and kedge.conf are systemd/kedge.service and
# examples/kedge.conf; the scriptlets are valid sh, create the user of
# systemd/kedge.sysusers, the directories, and neither enable nor start
# kedge, but restart it after an upgrade.  The spec's %check (the unit
# tests, check-config of the packaged kedge.conf) runs in the build, and
# rpmlint finds nothing on the rpm or the spec outside
# packaging/rpm/kedge.rpmlintrc.  Needs rpm (rpmbuild) and rpmlint.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
(unset MAKEFLAGS MFLAGS MAKELEVEL; make rpm) >"$T/make.log" 2>&1 ||
	die "make rpm: $(tail -5 "$T/make.log")"
RPM=kedge-$VERSION-1.$(rpm --eval '%{_arch}').rpm
[ -f "$RPM" ] || die "make rpm made no $RPM"
grep -q '^Executing(%check)' "$T/make.log" || die "make rpm ran no %check"

# rpmlint: nothing, on the rpm and the spec, but packaging/rpm/kedge.rpmlintrc's.
command -v rpmlint >/dev/null ||
	die "needs rpmlint (scripts/install-deps.sh installs it)"
sed "1i %define kedge_version $VERSION" packaging/rpm/kedge.spec >"$T/kedge.spec"
rpmlint -r packaging/rpm/kedge.rpmlintrc "$RPM" "$T/kedge.spec" >"$T/rpmlint" 2>&1 &&
	grep -q ' 0 errors, 0 warnings, 0 badness' "$T/rpmlint" ||
	die "rpmlint on $RPM: $(grep -E ': [EW]: ' "$T/rpmlint")"

# --- files, owners, modes, flags -----------------------------------------

rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' \
	"$RPM" >"$T/files" || die "rpm -qp $RPM: cannot read it"
# The man pages are compressed or not, as the rpm configuration decides.
sed -i 's|\(/usr/share/man/man[0-9]/.*\)\.gz$|\1|' "$T/files"
for want in \
	'-rwxr-xr-x root:root /usr/bin/kedge' \
	'drwxr-x--- root:kedge /etc/kedge' \
	'-rw-r--r-- root:root /etc/kedge/kedge.conf' \
	'-rw-r--r-- root:root /usr/lib/systemd/system/kedge.service' \
	'-rw-r--r-- root:root /usr/lib/sysusers.d/kedge.conf' \
	'-rw-r--r-- root:root /usr/lib/tmpfiles.d/kedge.conf' \
	'-rw-r--r-- root:root /usr/include/kedge/udtf.h' \
	'-rw-r--r-- root:root /usr/share/man/man8/kedge.8' \
	'-rw-r--r-- root:root /usr/share/man/man5/kedge.conf.5' \
	'-rw-r--r-- root:root /usr/share/doc/kedge/running.md' \
	'-rw-r--r-- root:root /usr/share/doc/kedge/examples/udtf-plugin/syslog.c' \
	'drwxr-x--- kedge:kedge /var/lib/kedge' \
	'drwxr-x--- kedge:kedge /var/lib/kedge/spool' \
	'drwxr-x--- kedge:kedge /var/lib/kedge/warehouse' \
	'drwxr-x--- kedge:kedge /run/kedge'; do
	grep -qxF -- "$want" "$T/files" || die "$RPM lacks $want: $(cat "$T/files")"
done
rpm -qlp "$RPM" | grep -qx /usr/share/doc/kedge/examples/udtf-plugin/Makefile ||
	die "rpm -qlp $RPM lists no sample plugin Makefile"

[ "$(rpm -qcp "$RPM")" = /etc/kedge/kedge.conf ] ||
	die "the configuration files of $RPM are: $(rpm -qcp "$RPM")"
# %config is "c", (noreplace) "n"; /run/kedge is %ghost, "g".
flags=$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$RPM")
echo "$flags" | grep -qx 'cn /etc/kedge/kedge.conf' ||
	die "/etc/kedge/kedge.conf is not %config(noreplace): $flags"
echo "$flags" | grep -qx 'g /run/kedge' || die "/run/kedge is not %ghost: $flags"
rpm -qp --requires "$RPM" | grep -q '^librdkafka\.so\.1' ||
	die "$RPM does not require librdkafka: $(rpm -qp --requires "$RPM")"

# --- the payload -------------------------------------------------------------

mkdir "$T/payload"
rpm2archive - <"$RPM" | tar -xzf - -C "$T/payload" ||
	die "cannot unpack $RPM"
cmp -s systemd/kedge.service "$T/payload/usr/lib/systemd/system/kedge.service" ||
	die "the rpm's unit is not systemd/kedge.service"
cmp -s examples/kedge.conf "$T/payload/etc/kedge/kedge.conf" ||
	die "the rpm's kedge.conf is not examples/kedge.conf"
[ "$("$T/payload/usr/bin/kedge" --version)" = "kedge $VERSION" ] ||
	die "the rpm's kedge --version: $("$T/payload/usr/bin/kedge" --version)"
# a release build: the tests' crash points are not in it
! grep -q 'crashing on purpose' "$T/payload/usr/bin/kedge" ||
	die "the rpm's kedge holds the crash points of the tests"

# --- the scriptlets ----------------------------------------------------------

for s in PREIN POSTIN PREUN POSTUN; do
	rpm -qp --qf "%{$s}" "$RPM" >"$T/$s"
	[ -s "$T/$s" ] || die "$RPM has no $s scriptlet"
	sh -n "$T/$s" || die "the $s scriptlet is not valid sh"
done
rpm -qp --scripts "$RPM" | grep -q '^preinstall scriptlet' ||
	die "rpm -qp --scripts shows no preinstall scriptlet"
user_line=$(grep '^u kedge ' systemd/kedge.sysusers)
grep -qF "echo '$user_line' |" "$T/PREIN" ||
	die "%pre does not create the user of systemd/kedge.sysusers ($user_line)"
grep -q 'useradd -r -g kedge -d /var/lib/kedge' "$T/PREIN" ||
	die "%pre has no useradd for hosts without systemd-sysusers"
grep -q 'systemd-tmpfiles --create /usr/lib/tmpfiles.d/kedge.conf' "$T/POSTIN" ||
	die "%post does not create the directories"
! grep -Eq 'systemctl.*(enable|start|preset)' "$T/POSTIN" ||
	die "%post enables or starts kedge: $(cat "$T/POSTIN")"
grep -q 'disable --now kedge.service' "$T/PREUN" ||
	die "%preun does not stop and disable kedge on erase"
grep -q 'try-restart kedge.service' "$T/POSTUN" ||
	die "%postun does not restart kedge after an upgrade"
echo "package_rpm: OK"
