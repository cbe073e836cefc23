#!/bin/sh
# The .deb, as a user installs it.  `make deb` builds it; lintian finds
# nothing outside packaging/deb/lintian-overrides; `dpkg -i` puts every file
# where docs/running.md says, with its owner and mode, makes the system user
# kedge, /var/lib/kedge and /run/kedge; the installed kedge.conf passes
# `kedge check-config` as kedge; the man pages name every command and key;
# `systemd-analyze verify` is silent on the installed unit and `security`
# rates it at most 1.5.  Under PR_SET_MDWE (what MemoryDenyWriteExecute=yes
# sets) the installed kedge loads the sample plugin, built from the
# installed header and source, and runs a regex table on PCRE2's
# interpreter after one note.  Installing again keeps a changed kedge.conf;
# `dpkg -r` keeps /etc/kedge and /var/lib/kedge, `dpkg --purge` removes
# them.  The package is purged at the end, and the user removed if it was
# not there before.  Needs root, dpkg-dev, lintian and systemd's tools.
set -eu
. tests/lib.sh

case $(dpkg-query -W -f '${db:Status-Status}' kedge 2>/dev/null || true) in
"" | not-installed) ;;
*) die "the package kedge is on this machine: this test installs and" \
	"purges its own, so purge it first (dpkg --purge kedge)" ;;
esac
user_before=$(getent passwd kedge || true)

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
cleanup() {
	dpkg --purge kedge >/dev/null 2>&1 || true
	if [ -z "$user_before" ] && getent passwd kedge >/dev/null; then
		userdel kedge
		getent group kedge >/dev/null && groupdel kedge || true
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

# Not the make that may have started this test: none of its variables.
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
(unset MAKEFLAGS MFLAGS MAKELEVEL; make deb) >"$T/make.log" 2>&1 ||
	die "make deb: $(tail -5 "$T/make.log")"
DEB=kedge_${VERSION}_$(dpkg --print-architecture).deb
[ -f "$DEB" ] || die "make deb made no $DEB"

# lintian: nothing at all, once the justified overrides are applied.
lintian --info --pedantic "$DEB" 2>&1 | grep -v 'running with root privileges' \
	>"$T/lintian" || true
[ ! -s "$T/lintian" ] || die "lintian on $DEB: $(cat "$T/lintian")"

dpkg -i "$DEB" >"$T/dpkg.log" 2>&1 || die "dpkg -i $DEB: $(cat "$T/dpkg.log")"

# --- files, owners, modes, the user -------------------------------------

stat -c '%a %U:%G %n' /usr/bin/kedge /etc/kedge /etc/kedge/kedge.conf \
	/lib/systemd/system/kedge.service /usr/lib/sysusers.d/kedge.conf \
	/usr/lib/tmpfiles.d/kedge.conf /usr/include/kedge/udtf.h \
	/usr/share/man/man8/kedge.8.gz /usr/share/man/man5/kedge.conf.5.gz \
	/usr/share/doc/kedge/running.md /usr/share/doc/kedge/copyright \
	/usr/share/doc/kedge/examples/udtf-plugin/syslog.c \
	/var/lib/kedge /var/lib/kedge/spool /var/lib/kedge/warehouse \
	/run/kedge >"$T/modes" 2>&1 || die "installed files: $(cat "$T/modes")"
cat >"$T/want" <<'EOF'
755 root:root /usr/bin/kedge
750 root:kedge /etc/kedge
644 root:root /etc/kedge/kedge.conf
644 root:root /lib/systemd/system/kedge.service
644 root:root /usr/lib/sysusers.d/kedge.conf
644 root:root /usr/lib/tmpfiles.d/kedge.conf
644 root:root /usr/include/kedge/udtf.h
644 root:root /usr/share/man/man8/kedge.8.gz
644 root:root /usr/share/man/man5/kedge.conf.5.gz
644 root:root /usr/share/doc/kedge/running.md
644 root:root /usr/share/doc/kedge/copyright
644 root:root /usr/share/doc/kedge/examples/udtf-plugin/syslog.c
750 kedge:kedge /var/lib/kedge
750 kedge:kedge /var/lib/kedge/spool
750 kedge:kedge /var/lib/kedge/warehouse
750 kedge:kedge /run/kedge
EOF
same_or_die "$T/want" "$T/modes" "installed files: owners or modes"
cmp -s systemd/kedge.service /lib/systemd/system/kedge.service ||
	die "the installed unit is not systemd/kedge.service"
cmp -s examples/kedge.conf /etc/kedge/kedge.conf ||
	die "the installed kedge.conf is not examples/kedge.conf"
[ "$(dpkg-query -W -f '${Conffiles}' kedge | awk '{ print $1 }')" = \
	/etc/kedge/kedge.conf ] || die "kedge.conf is not the one conffile"

IFS=: read -r _ _ uid _ _ home shell <<EOF
$(getent passwd kedge)
EOF
[ "$uid" -lt 1000 ] && [ "$home" = /var/lib/kedge ] &&
	[ "$shell" = /usr/sbin/nologin ] ||
	die "user kedge: $(getent passwd kedge)"
[ "$(id -gn kedge)" = kedge ] || die "kedge's group is $(id -gn kedge)"

[ "$(/usr/bin/kedge --version)" = "kedge $VERSION" ] ||
	die "installed kedge --version: $(/usr/bin/kedge --version)"
# a release build: the tests' crash points are not in it
! grep -q 'crashing on purpose' /usr/bin/kedge ||
	die "the packaged kedge holds the crash points of the tests"
out=$(runuser -u kedge -- /usr/bin/kedge check-config \
	-c /etc/kedge/kedge.conf 2>&1) && [ "$out" = "configuration OK" ] ||
	die "check-config of the installed kedge.conf, as kedge: $out"

# --- the man pages: every command of the usage, every key ----------------

# In the C locale man writes plain ASCII, and nothing is hyphenated at 200
# columns.
LC_ALL=C MANWIDTH=200 man 8 kedge >"$T/kedge.8.txt" 2>"$T/man.err" &&
	LC_ALL=C MANWIDTH=200 man 5 kedge.conf >"$T/kedge.conf.5.txt" \
		2>>"$T/man.err" ||
	die "man kedge, man kedge.conf: $(cat "$T/man.err")"
# The usage's commands: the words after "kedge" up to the first argument.
/usr/bin/kedge --help | awk '{ sub(/^usage:/, "") }
	$1 == "kedge" { c = $2; for (i = 3; i <= NF && $i ~ /^[a-z]+$/; i++)
		c = c " " $i; print c }' >"$T/commands"
[ "$(wc -l <"$T/commands")" -ge 8 ] || die "no commands in kedge --help"
while read -r cmd; do
	grep -q -- "^ *kedge $cmd\( \|\$\)" "$T/kedge.8.txt" ||
		die "kedge(8) has no synopsis of kedge $cmd"
done <"$T/commands"
/usr/bin/kedge config-reference | sed -n 's/^| `\([^`]*\)` |.*/\1/p' |
	while read -r key; do
		grep -qF "$key (" "$T/kedge.conf.5.txt" ||
			die "kedge.conf(5) does not describe $key"
	done

# --- the unit --------------------------------------------------------------

systemd-analyze verify /lib/systemd/system/kedge.service >"$T/verify" 2>&1 ||
	die "systemd-analyze verify: $(cat "$T/verify")"
[ ! -s "$T/verify" ] || die "systemd-analyze verify: $(cat "$T/verify")"
exposure=$(systemd-analyze security --offline=yes \
	/lib/systemd/system/kedge.service 2>&1 |
	sed -n 's/.*Overall exposure level for kedge.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || die "systemd-analyze security printed no exposure"
awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' ||
	die "the unit's exposure is $exposure, more than 1.5"
echo "kedge.service: exposure $exposure"

# --- MemoryDenyWriteExecute: plugins load, regex falls back once ----------

make -C /usr/share/doc/kedge/examples/udtf-plugin O="$T/plugin" \
	>"$T/plugin.log" 2>&1 ||
	die "the installed sample plugin does not build: $(tail -5 "$T/plugin.log")"
cat >"$T/mdwe.conf" <<EOF
kafka = { brokers = "127.0.0.1:9"; };
tables = (
  { name = "sys"; topics = [ "syslog" ];
    udtf = "plugin:$T/plugin/libsyslog5424.so"; event_time = "timestamp"; },
  { name = "re"; topics = [ "lines" ]; udtf = "regex";
    udtf_config = { pattern = "^(?<word>[a-z]+) (?<n>[0-9]+)\$";
                    types = "n:int64"; }; }
);
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse"; };
EOF
printf 'abc 1\ndef 2\nnot a match\n' >"$T/lines"
printf '<34>1 2026-11-29T10:00:00Z h app 12 ID1 - hello\n' >"$T/syslog"
out=$(/usr/bin/kedge check-config -c "$T/mdwe.conf" 2>&1) &&
	[ "$out" = "configuration OK" ] ||
	die "check-config without MDWE: $out"
set +e
"$FIX/mdwe" /usr/bin/kedge check-config -c "$T/mdwe.conf" >"$T/mdwe.out" \
	2>"$T/mdwe.err"
rc=$?
set -e
[ "$rc" -ne 77 ] ||
	die "this kernel cannot set PR_SET_MDWE (Linux 6.3 or later can):" \
		"$(cat "$T/mdwe.err")"
[ "$rc" -eq 0 ] && [ "$(cat "$T/mdwe.out")" = "configuration OK" ] ||
	die "check-config under MDWE: $(cat "$T/mdwe.out" "$T/mdwe.err")"
[ "$(grep -c 'JIT' "$T/mdwe.err")" -eq 1 ] &&
	grep -q "^warning: $T/mdwe.conf:6: tables\[1\]\.udtf_config: UDTF regex: PCRE2 JIT unavailable (.*MemoryDenyWriteExecute=yes.*using the interpreter" "$T/mdwe.err" ||
	die "under MDWE, not the one note of the regex: $(cat "$T/mdwe.err")"
out=$("$FIX/mdwe" /usr/bin/kedge bench udtf -c "$T/mdwe.conf" \
	--table re --input "$T/lines" --seconds 0.05 2>&1) &&
	echo "$out" | grep -q 'rows out *2 from 3 records; 1 rejects' ||
	die "the regex under MDWE: $out"
out=$("$FIX/mdwe" /usr/bin/kedge bench udtf -c "$T/mdwe.conf" \
	--table sys --input "$T/syslog" --seconds 0.05 2>&1) &&
	echo "$out" | grep -q 'rows out *1 from 1 records; 0 rejects' ||
	die "the plugin under MDWE: $out"

# --- upgrade, remove, purge ----------------------------------------------

echo '# changed here' >>/etc/kedge/kedge.conf
dpkg -i "$DEB" >"$T/dpkg.log" 2>&1 ||
	die "dpkg -i again: $(cat "$T/dpkg.log")"
tail -1 /etc/kedge/kedge.conf | grep -qx '# changed here' ||
	die "installing again lost the change to kedge.conf"
touch /var/lib/kedge/warehouse/landed

dpkg -r kedge >"$T/dpkg.log" 2>&1 || die "dpkg -r: $(cat "$T/dpkg.log")"
[ ! -e /usr/bin/kedge ] && [ ! -e /lib/systemd/system/kedge.service ] ||
	die "dpkg -r left the binary or the unit"
[ -f /etc/kedge/kedge.conf ] && [ -f /var/lib/kedge/warehouse/landed ] ||
	die "dpkg -r did not keep /etc/kedge/kedge.conf and /var/lib/kedge"

dpkg --purge kedge >"$T/dpkg.log" 2>&1 ||
	die "dpkg --purge: $(cat "$T/dpkg.log")"
for p in /etc/kedge /var/lib/kedge /run/kedge \
	/etc/systemd/system/kedge.service \
	/var/lib/systemd/deb-systemd-helper-enabled/kedge.service.dsh-also \
	/var/lib/systemd/deb-systemd-helper-masked/kedge.service; do
	[ ! -e "$p" ] && [ ! -L "$p" ] || die "dpkg --purge left $p"
done
! dpkg-statoverride --list /etc/kedge >/dev/null ||
	die "dpkg --purge left the statoverride of /etc/kedge"
echo "package_deb: OK"
