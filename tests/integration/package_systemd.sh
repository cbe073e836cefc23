#!/bin/sh
# The .deb under a real systemd: a minimal Debian 12 (debootstrap minbase
# with systemd, made once and cached in $KEDGE_TEST_CACHE, default
# /var/cache/kedge-tests) booted with `systemd-nspawn --boot` on an overlay
# of its own, so every run starts from the same clean root.  The host has
# no systemd: the container is driven through its PID 1's namespaces
# (nsenter), and shares the host's network, so it reaches Debian's archive
# and the KDC and mock cluster this test runs on 127.0.0.1.  Inside, as an
# operator would:
#  1. `apt-get install ./kedge_*.deb` pulls its dependencies from the
#     archive; the shipped kedge.conf passes check-config; nothing starts;
#  2. a kedge.conf naming the mock cluster and a Kerberos principal, its
#     keytab handed in by a LoadCredential= drop-in from /root, which the
#     daemon cannot read;
#  3. `systemctl enable --now kedge` returns, and the unit is active, only
#     once kedge has sent READY=1 (it waits while the brokers are down);
#     `systemctl status` shows kedge's STATUS= line;
#  4. `systemctl reload` applies a shorter roll policy; a file with a
#     mistake changes nothing and says so in the journal; the main process
#     sent SIGSTOP is killed by the watchdog and started again; `systemctl
#     stop` exits 0 after the last checkpoint; every record landed once in
#     /var/lib/kedge (`kedge verify` inside); `journalctl -u kedge -p err`
#     holds the errors and nothing else;
#  5. `systemd-analyze security kedge` rates the loaded unit at most 1.5,
#     and the running daemon's /proc shows the settings it scored;
#  6. a configuration kedge cannot load fails once (exit 78, no restart);
#     one it loads but cannot run under the sandbox (a spool outside
#     /var/lib/kedge) is restarted until the unit's start limit, and the
#     journal says why;
#  7. `apt-get remove` keeps /etc/kedge and /var/lib/kedge; `apt-get purge`
#     removes them.
# The container is powered off at the end; no process of it is left.
# Needs root, debootstrap, systemd-container, util-linux's unshare,
# nsenter and flock, and Debian's archive.
set -eu
. tests/lib.sh
. tests/krb.sh
. tests/debroot.sh

debroot_need nsenter unshare flock

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
[ -z "${KEEP:-}" ] || echo "keeping $T"
NSPAWN_PID=
CPID=
FEED_PID=
MACHINE=kedge-test-$$

# container_stop: powers the container off (nspawn turns SIGTERM into a
# clean shutdown of its PID 1), SIGKILL after 60 s; always succeeds.
container_stop() {
	[ -n "$NSPAWN_PID" ] || return 0
	kill -TERM "$NSPAWN_PID" 2>/dev/null || :
	if ! exits_within "$NSPAWN_PID" 60; then
		echo "the container did not power off in 60 s: killed" >&2
		[ -z "$CPID" ] || kill -KILL "$CPID" 2>/dev/null || :
		kill -KILL "$NSPAWN_PID" 2>/dev/null || :
	fi
	NSPAWN_RC=0
	wait "$NSPAWN_PID" 2>/dev/null || NSPAWN_RC=$?
	NSPAWN_PID=
}
cleanup() {
	_rc=$?
	[ -z "$FEED_PID" ] || kill "$FEED_PID" 2>/dev/null || :
	if [ "$_rc" -ne 0 ] && [ -n "$NSPAWN_PID" ] && [ -n "$CPID" ]; then
		journal >"$T/journal" 2>&1 || :
		echo "the unit's journal, last lines:" >&2
		grep -v '^kafka: ' "$T/journal" | tail -15 >&2
	fi
	container_stop
	krb_stop
	mock_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

# --- the package, the root ----------------------------------------------

VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
(unset MAKEFLAGS MFLAGS MAKELEVEL; make deb) >"$T/make.log" 2>&1 ||
	die "make deb: $(tail -5 "$T/make.log")"
DEB=kedge_${VERSION}_$(dpkg --print-architecture).deb
[ -f "$DEB" ] || die "make deb made no $DEB"

debroot_make "$T"

# --- boot ------------------------------------------------------------------

debroot_nspawn "$T" --boot --console=passive --machine="$MACHINE" \
	>"$T/nspawn.log" 2>&1 &
NSPAWN_PID=$!

container_init() {
	kill -0 "$NSPAWN_PID" 2>/dev/null ||
		die "systemd-nspawn exited: $(cat "$T/nspawn.log")"
	CPID=$(pgrep -P "$NSPAWN_PID" -x systemd) &&
		[ -S "/proc/$CPID/root/run/systemd/private" ]
}
wait_for "the container's systemd" 60 container_init
CPIDNS=$(readlink "/proc/$CPID/ns/pid")
C=/proc/$CPID/root

# cx [-t SECONDS] COMMAND...: COMMAND inside the container, as root, with a
# clean environment; at most SECONDS (default 120).
cx() {
	_t=120
	if [ "$1" = -t ]; then
		_t=$2
		shift 2
	fi
	timeout "$_t" nsenter -t "$CPID" -a env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C SYSTEMD_PAGER= \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# prop PROPERTY: the unit's property, as systemd has it.
prop() {
	cx systemctl show -P "$1" kedge.service
}

state=$(cx -t 120 systemctl is-system-running --wait) || :
case $state in
running) ;;
*) die "the container's systemd is $state: $(cx systemctl --failed --no-legend)" ;;
esac

# --- 1. install --------------------------------------------------------------

debroot_sources "$C/etc/apt/sources.list"
cp "$DEB" "$C/root/"
cx -t 300 apt-get update >"$T/apt.log" 2>&1 ||
	die "apt-get update inside: $(tail -5 "$T/apt.log")"
# The shared archive cache: one apt at a time.
flock -w 600 "$DEBROOT_APT.lock" \
	timeout 600 nsenter -t "$CPID" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	LC_ALL=C DEBIAN_FRONTEND=noninteractive \
	apt-get install -y "/root/$DEB" >"$T/apt.log" 2>&1 ||
	die "apt-get install ./$DEB: $(tail -5 "$T/apt.log")"
[ "$(cx kedge --version)" = "kedge $VERSION" ] ||
	die "kedge --version inside: $(cx kedge --version 2>&1)"
out=$(cx runuser -u kedge -- kedge check-config -c /etc/kedge/kedge.conf 2>&1) &&
	[ "$out" = "configuration OK" ] ||
	die "check-config of the shipped kedge.conf, as kedge: $out"
[ "$(prop UnitFileState)" = disabled ] ||
	die "installing enabled kedge: $(prop UnitFileState)"
[ "$(prop ActiveState)" = inactive ] && [ "$(prop InactiveExitTimestampMonotonic)" = 0 ] ||
	die "installing started kedge: $(cx systemctl status --no-pager kedge)"

# --- 2. a Kafka, a KDC, the configuration ----------------------------------

START=$(date -u -d '2026-05-01 00:00:00' +%s)
$FIX/gen_nginx --records 6000 --partitions 2 --seed 15 --start "$START" \
	--hours 1 --tz UTC --malformed-permille 10 \
	--out-records "$T/records" --out-expected "$T/expected" \
	--out-rejects "$T/expected-rejects"
head -n 2000 "$T/records" >"$T/first"
tail -n +2001 "$T/records" >"$T/rest"
mock_start "$T" --topic web:2 --produce "web=$T/first"
krb_start "$T"
P=kedge/localhost@$KRB_REALM

# The realm's krb5.conf without this host's paths; the keytab in root's
# home, where the daemon (ProtectHome=yes) cannot look.
grep -v '_name = ' "$KRB5_CONFIG" >"$C/etc/kedge/krb5.conf"
install -d -m 0700 "$C/root/secrets"
install -m 0600 "$KRB_DIR/kedge.keytab" "$C/root/secrets/kedge.keytab"
mkdir -p "$C/etc/systemd/system/kedge.service.d"
cat >"$C/etc/systemd/system/kedge.service.d/site.conf" <<EOF
[Service]
Environment=KRB5_CONFIG=/etc/kedge/krb5.conf
LoadCredential=
LoadCredential=kedge.keytab:/root/secrets/kedge.keytab
EOF

# conf MAX_AGE [EXTRA]: the operator's kedge.conf.
conf() {
	cat <<EOF
kafka = { brokers = "$BOOTSTRAP"; group_id = "kedge-systemd"; };
tables = ( { name = "access"; topics = [ "web" ]; udtf = "nginx";
             event_time = "time_local"; } );
output = { $OLD_EVENTS spool_dir = "/var/lib/kedge/spool";
           local_dir = "/var/lib/kedge/warehouse"; timezone = "UTC";
           roll = { max_age = $1; inactive = $1; }; };
checkpoint = { interval = 1; };
kerberos = { principal = "$P"; keytab = "kedge.keytab"; };
metrics = { enabled = false; };
${2:-}
EOF
}
conf 900 >"$C/etc/kedge/kedge.conf"
cx systemctl daemon-reload
cx runuser -u kedge -- cat /root/secrets/kedge.keytab >/dev/null 2>&1 &&
	die "kedge can read the keytab in /root/secrets"

# --- 3. enable --now: active once READY=1 ------------------------------

mock_ctl "$T" broker-down -1
cx -t 300 systemctl enable --now kedge >"$T/enable.log" 2>&1 &
ENABLE_PID=$!
journal() {
	cx journalctl -q --no-pager -u kedge.service -o cat "$@"
}
not_ready_said() {
	journal | grep -q 'not ready yet: the brokers'
}
wait_for "kedge to say it is not ready" 60 not_ready_said
[ "$(prop ActiveState)" = activating ] ||
	die "kedge is $(prop ActiveState) before READY=1, not activating"
kill -0 "$ENABLE_PID" 2>/dev/null ||
	die "systemctl enable --now returned before READY=1: $(cat "$T/enable.log")"
mock_ctl "$T" broker-up -1
rc=0
wait "$ENABLE_PID" || rc=$?
[ "$rc" -eq 0 ] || die "systemctl enable --now kedge exited $rc: $(cat "$T/enable.log")"
[ "$(prop ActiveState)" = active ] || die "kedge is $(prop ActiveState) after the start"
journal | grep -q "^ready: the brokers and /var/lib/kedge/warehouse answered" ||
	die "no ready line: $(journal | tail -5)"
journal | grep -q "^kerberos: .*$P" ||
	die "no Kerberos login in the journal: $(journal | grep -i kerberos)"
status_shown() {
	cx systemctl status --no-pager kedge | grep -q '^ *Status: "[0-9]* records/s; lag'
}
wait_for "STATUS= in systemctl status" 30 status_shown
consumed_first() {
	grep -qs '^consumed 2000 records' "$C/var/lib/kedge/spool/status"
}
wait_for "the first 2000 records read" 60 consumed_first
[ "$(landed_count "$C/var/lib/kedge/warehouse")" -eq 0 ] ||
	die "files landed with a 15-minute roll policy"

# --- 4. reload, watchdog, stop, the journal ---------------------------------

pid=$(prop MainPID)
conf 2 >"$C/etc/kedge/kedge.conf"
cx systemctl reload kedge >"$T/reload.log" 2>&1 ||
	die "systemctl reload kedge: $(cat "$T/reload.log"; journal | tail -3)"
applied() {
	journal | grep -q '^reload: applied output.roll.max_age, output.roll.inactive$'
}
wait_for "the reload to be applied" 30 applied
landed_some() {
	[ "$(landed_count "$C/var/lib/kedge/warehouse")" -gt 0 ]
}
wait_for "files to land with the new roll policy" 30 landed_some

cp "$C/etc/kedge/kedge.conf" "$T/good.conf"
printf 'output = { roll = { max_age = "soon"; }; };\n' >>"$C/etc/kedge/kedge.conf"
cx systemctl reload kedge >"$T/reload.log" 2>&1 ||
	die "systemctl reload kedge (a bad file): $(cat "$T/reload.log")"
refused() {
	journal | grep -q '^reload: /etc/kedge/kedge.conf:[0-9]*: .*; the running configuration stays$'
}
wait_for "the journal to say the file was refused" 30 refused
[ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$pid" ] ||
	die "a bad reload stopped or restarted kedge"
cp "$T/good.conf" "$C/etc/kedge/kedge.conf"

# The watchdog: SIGSTOP, then WatchdogSec= without a ping.
cx systemctl kill -s SIGSTOP --kill-who=main kedge
restarted() {
	[ "$(prop NRestarts)" -ge 1 ] && [ "$(prop ActiveState)" = active ] &&
		[ "$(prop MainPID)" != "$pid" ]
}
wait_for "the watchdog to restart kedge" 120 restarted
journal | grep -q 'Watchdog timeout' ||
	die "restarted, but not by the watchdog: $(journal | tail -5)"

feed_start "$T" web "$T/rest" 1000 0.2
feed_wait "$T"
landed_all() {
	[ "$(landed_count "$C/var/lib/kedge/warehouse")" -ge 6000 ]
}
wait_for "every record landed" 120 landed_all
cx -t 120 systemctl stop kedge >"$T/stop.log" 2>&1 ||
	die "systemctl stop kedge: $(cat "$T/stop.log")"
[ "$(prop Result)" = success ] && [ "$(prop ExecMainStatus)" = 0 ] ||
	die "the stop: result $(prop Result), status $(prop ExecMainStatus)"
journal | grep -q '^stopping: rolling every file and committing' ||
	die "no final checkpoint in the journal: $(journal | tail -3)"

# Every record exactly once, as kedge verify inside sees it.
W=$C/var/lib/kedge/warehouse
LC_ALL=C sort "$T/expected" >"$T/want"
landed_rows "$W" access | LC_ALL=C sort >"$T/got"
same_or_die "$T/want" "$T/got" "the rows in /var/lib/kedge are not every record once"
LC_ALL=C sort "$T/expected-rejects" >"$T/want-rejects"
landed_rows "$W" _rejects | cut -f2- | hive_cut 3 4 7 | LC_ALL=C sort >"$T/got-rejects"
same_or_die "$T/want-rejects" "$T/got-rejects" "the rejects are not the malformed records"
out=$(cx runuser -u kedge -- kedge verify /var/lib/kedge/warehouse 2>&1) ||
	die "kedge verify inside: $out"
case $out in
"verify OK: "*) ;;
*) die "kedge verify printed \"$out\"" ;;
esac
left=$(find "$C/var/lib/kedge/spool/open" "$C/var/lib/kedge/spool/ready" \
	-type f 2>/dev/null | head -5)
[ -z "$left" ] || die "left in the spool: $left"

# The errors, and only them, at -p err: those of the reload and of the
# watchdog (a broker's refused connection is a warning).
journal -p err >"$T/err"
grep -q 'the running configuration stays$' "$T/err" &&
	grep -q 'Watchdog timeout' "$T/err" ||
	die "journalctl -p err misses an error: $(cat "$T/err")"
grep -v -e '^reload: /etc/kedge/kedge.conf:[0-9]*: .*; the running configuration stays$' \
	-e '^kedge.service: Watchdog timeout (limit 30s)!$' \
	"$T/err" >"$T/err-other" || :
[ ! -s "$T/err-other" ] || die "journalctl -p err shows more: $(cat "$T/err-other")"
journal -p err | grep -q '^ready:' && die "an info line at -p err"
journal | grep -q '^<[0-7]>' && die "the journal kept a <N> prefix"

# --- 5. systemd-analyze security, and what the daemon runs under --------

cx systemctl start kedge
pid=$(prop MainPID)
cx systemd-analyze security --no-pager kedge >"$T/security" 2>&1 ||
	die "systemd-analyze security kedge: $(cat "$T/security")"
exposure=$(sed -n 's/.*Overall exposure level for kedge.service: \([0-9.]*\).*/\1/p' \
	"$T/security")
[ -n "$exposure" ] || die "systemd-analyze security printed no exposure"
awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' ||
	die "the loaded unit's exposure is $exposure, more than 1.5"

# Each setting that scored, in the kernel's view of the running daemon.
cx cat "/proc/$pid/status" >"$T/pstatus"
cx cat "/proc/$pid/mountinfo" >"$T/mountinfo"
cx cat "/proc/$pid/uid_map" >"$T/uid_map"
kuid=$(cx id -u kedge)
kgid=$(cx id -g kedge)
# field NAME: the value of NAME: in the daemon's /proc/PID/status.
field() {
	sed -n "/^$1:/{ s/^$1:[[:space:]]*//; s/[[:space:]]*\$//; p; }" "$T/pstatus"
}
# mnt PATH: "OPTIONS FSTYPE SUPEROPTIONS" of the mount PATH is on (the
# last of the longest mount points above it).
mnt() {
	awk -v p="$1" '{ q = $5 == "/" ? "/" : $5 "/" }
		$5 == p || substr(p "/", 1, length(q)) == q {
			if (length($5) < best) next
			best = length($5)
			for (i = 7; $i != "-"; i++);
			m = $6 " " $(i + 1) " " $(i + 3) }
		END { if (m == "") exit 1; print m }' "$T/mountinfo"
}
# mounted PATH: something is mounted on PATH itself.
mounted() {
	awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' "$T/mountinfo"
}
# ns NAME: whether the daemon has a NAME namespace of its own.
own_ns() {
	[ "$(cx readlink "/proc/$pid/ns/$1")" != "$(cx readlink /proc/1/ns/$1)" ]
}
is_ro() {
	_m=$(mnt "$1") && case ",${_m%% *}," in *,ro,*) ;; *) false ;; esac
}
is_rw() {
	_m=$(mnt "$1") && case ",${_m%% *}," in *,rw,*) ;; *) false ;; esac
}
# Every filter systemd installs is one more; one alone would be the
# system call filter.
seccomp_on() {
	[ "$(field Seccomp)" = 2 ] && [ "$(field Seccomp_filters)" -ge 8 ]
}
manager_has() {
	[ "$(prop "$1")" = "$2" ]
}
sed -n 's/^+ \([A-Za-z]*\)=.*/\1/p' "$T/security" | sort -u >"$T/scored"
[ "$(wc -l <"$T/scored")" -ge 30 ] || die "systemd-analyze scored: $(cat "$T/scored")"
while read -r d; do
	case $d in
	User) set -- "$(field Uid)" "$(field Gid)"
		[ "$1" = "$kuid	$kuid	$kuid	$kuid" ] &&
			[ "$2" = "$kgid	$kgid	$kgid	$kgid" ] ;;
	SupplementaryGroups) [ -z "$(field Groups)" ] || [ "$(field Groups)" = "$kgid" ] ;;
	NoNewPrivileges) [ "$(field NoNewPrivs)" = 1 ] ;;
	CapabilityBoundingSet | AmbientCapabilities)
		for c in CapInh CapPrm CapEff CapBnd CapAmb; do
			[ "$(field $c)" = 0000000000000000 ] || break
		done ;;
	PrivateUsers) own_ns user && ! grep -q ' 4294967295$' "$T/uid_map" &&
		[ "$(wc -l <"$T/uid_map")" -le 2 ] ;;
	PrivateMounts) own_ns mnt ;;
	ProtectHostname) own_ns uts ;;
	ProtectSystem) is_ro / && is_ro /usr && is_ro /etc && is_rw /var/lib/kedge ;;
	ProtectHome) mounted /home && mounted /root ;;
	PrivateTmp) mounted /tmp && is_rw /tmp && mounted /var/tmp && is_rw /var/tmp ;;
	PrivateDevices) mounted /dev && mnt /dev | grep -q '^[^ ]* tmpfs ' ;;
	ProtectProc) mnt /proc | grep -q 'hidepid=invisible' ;;
	ProcSubset) mnt /proc | grep -q 'subset=pid' ;;
	ProtectKernelTunables) is_ro /sys ;;
	ProtectControlGroups) is_ro /sys/fs/cgroup ;;
	ProtectKernelLogs) ! cx nsenter -t "$pid" -m test -e /dev/kmsg &&
		! cx nsenter -t "$pid" -m test -e /proc/kmsg ;;
	ProtectKernelModules | ProtectClock | SystemCallFilter | \
	SystemCallArchitectures | RestrictAddressFamilies | RestrictNamespaces | \
	RestrictRealtime | RestrictSUIDSGID | LockPersonality | MemoryDenyWriteExecute)
		seccomp_on ;;
	RemoveIPC) manager_has RemoveIPC yes ;;
	KeyringMode) manager_has KeyringMode private ;;
	Delegate) manager_has Delegate no ;;
	NotifyAccess) manager_has NotifyAccess main ;;
	*) die "systemd-analyze scored $d=, which this test cannot see applied" ;;
	esac || die "systemd-analyze scored $d=, but the running kedge does not run under it: $(grep "^+ $d=" "$T/security" | head -1)"
done <"$T/scored"
echo "kedge.service: exposure $exposure, with the $(wc -l <"$T/scored") settings it scored in force"
cx -t 120 systemctl stop kedge || die "systemctl stop kedge (after the security check)"

# --- 6. failing starts ----------------------------------------------------

# journal_since N: the unit's journal from line N + 1 on.
journal_since() {
	journal | tail -n +$(($1 + 1))
}
# A file kedge cannot load: exit 78, failed at once, no restart.
n=$(journal | wc -l)
conf 2 'kafka = { brokers = "twice"; };' >"$C/etc/kedge/kedge.conf"
cx systemctl reset-failed kedge
cx -t 120 systemctl start kedge >/dev/null 2>&1 &&
	die "kedge started on a file it cannot load"
[ "$(prop ExecMainStatus)" = 78 ] && [ "$(prop ActiveState)" = failed ] &&
	[ "$(prop SubState)" = failed ] ||
	die "a file kedge cannot load: status $(prop ExecMainStatus)," \
		"$(prop ActiveState)/$(prop SubState), not 78 and failed"
journal_since "$n" | grep -q '^/etc/kedge/kedge.conf:[0-9]*: ' ||
	die "no file and line in the journal: $(journal_since "$n")"

# A spool outside /var/lib/kedge: ProtectSystem=strict makes it read-only,
# and kedge says so; as it is the configuration, no restart either.
n=$(journal | wc -l)
cx install -d -o kedge -g kedge -m 0750 /srv/kedge/spool
conf 2 | sed 's|"/var/lib/kedge/spool"|"/srv/kedge/spool"|' >"$C/etc/kedge/kedge.conf"
cx systemctl reset-failed kedge
cx -t 120 systemctl start kedge >/dev/null 2>&1 &&
	die "kedge started with its spool on a read-only file system"
[ "$(prop ExecMainStatus)" = 78 ] && [ "$(prop SubState)" = failed ] ||
	die "a read-only spool: status $(prop ExecMainStatus), $(prop SubState)"
journal_since "$n" |
	grep -q '^/etc/kedge/kedge.conf:[0-9]*: output.spool_dir: /srv/kedge/spool is not writable: Read-only file system$' ||
	die "the journal does not say the spool is read-only: $(journal_since "$n" | tail -5)"

# A restart storm: a metrics port below 1024, which kedge without
# capabilities cannot bind, fails every start after the file has loaded;
# restarted until StartLimitBurst=, then failed for good.
n=$(journal | wc -l)
conf 2 | sed 's|^metrics = .*|metrics = { enabled = true; listen = "127.0.0.1:80"; };|' \
	>"$C/etc/kedge/kedge.conf"
grep -q '"127.0.0.1:80"' "$C/etc/kedge/kedge.conf" || die "conf has no metrics line"
cx systemctl reset-failed kedge
cx -t 120 systemctl start kedge >/dev/null 2>&1 &&
	die "kedge started with a metrics port it cannot bind"
burst=$(prop StartLimitBurst)
# systemd 252 keeps the last start's result (exit-code) when a restart
# hits the limit; the journal names the limit.
limit_hit() {
	[ "$(prop ActiveState)" = failed ] &&
		journal_since "$n" | grep -q 'Start request repeated too quickly'
}
wait_for "the start limit" 120 limit_hit
starts=$(journal_since "$n" | grep -c '^Starting kedge.service' || :)
[ "$starts" -eq "$burst" ] ||
	die "$starts starts before the start limit, want StartLimitBurst=$burst"
journal_since "$n" | grep -q '^/etc/kedge/kedge.conf: metrics.listen: ' ||
	die "the journal does not say why: $(journal_since "$n" | grep -v '^kafka' | tail -8)"

# --- 7. remove, purge ---------------------------------------------------------

cx -t 300 apt-get remove -y kedge >"$T/apt.log" 2>&1 ||
	die "apt-get remove kedge: $(tail -5 "$T/apt.log")"
[ ! -e "$C/usr/bin/kedge" ] && [ ! -e "$C/lib/systemd/system/kedge.service" ] ||
	die "apt-get remove left the binary or the unit"
[ -f "$C/etc/kedge/kedge.conf" ] && [ -d "$C/var/lib/kedge/warehouse/access" ] ||
	die "apt-get remove did not keep /etc/kedge and /var/lib/kedge"
cx -t 300 apt-get purge -y kedge >"$T/apt.log" 2>&1 ||
	die "apt-get purge kedge: $(tail -5 "$T/apt.log")"
[ ! -e "$C/etc/kedge" ] && [ ! -e "$C/var/lib/kedge" ] ||
	die "apt-get purge left /etc/kedge or /var/lib/kedge"

# --- the end: power off, nothing left ----------------------------------------

container_stop
[ "$NSPAWN_RC" -eq 0 ] || die "systemd-nspawn exited $NSPAWN_RC: $(tail -3 "$T/nspawn.log")"
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/ns/pid" 2>/dev/null)" != "$CPIDNS" ] ||
		die "left running from the container: $(cat "$p/cmdline" | tr '\0' ' ')"
done
echo "package_systemd: OK"
