#!/bin/sh
# The Kerberos fixture (tests/krb.sh) itself: the KDC issues tickets no
# longer than asked of krb_start, serves service tickets, krb_rekey makes
# the old keytab useless, krb_kdc_down and krb_kdc_up make an outage and end
# it, krb_stop leaves no KDC behind, the KDC listens on 127.0.0.1 only, and
# nothing is written outside the test's directory.
set -eu
. tests/lib.sh
. tests/krb.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'krb_stop; rm -rf "$T"' EXIT

cc_default=/tmp/krb5cc_$(id -u)
[ ! -e "$cc_default" ] || had_cc=1
touch "$T/before"
start=$(date +%s%N)
krb_start "$T" --lifetime 20 --renewable 60
setup_ms=$((($(date +%s%N) - start) / 1000000))
[ "$setup_ms" -lt 2000 ] || die "krb_start took $setup_ms ms"
kdc_pid=$KRB_PID
[ "$KRB_REALM" = KEDGE.TEST ] && [ "$KRB_DIR" = "$T/krb" ] &&
	[ "$KRB5_CONFIG" = "$T/krb/krb5.conf" ] &&
	[ "$KRB5_KDC_PROFILE" = "$T/krb/kdc.conf" ] &&
	[ "$KRB5CCNAME" = "FILE:$T/krb/ccache" ] ||
	die "krb_start set the wrong variables: $(env | grep KRB)"
for kt in kedge kafka http; do
	[ "$(stat -c %a "$KRB_DIR/$kt.keytab")" = 600 ] ||
		die "$kt.keytab is not mode 0600"
done

# Every layer holds the limits: the realm, krbtgt and the principals.
grep -q 'max_life = 20s' "$KRB5_KDC_PROFILE" &&
	grep -q 'max_renewable_life = 60s' "$KRB5_KDC_PROFILE" ||
	die "kdc.conf lacks the lifetimes: $(cat "$KRB5_KDC_PROFILE")"
for p in krbtgt/KEDGE.TEST kedge/localhost kafka/localhost HTTP/localhost; do
	kadmin.local -q "getprinc $p" >"$T/getprinc" 2>&1
	grep -q '^Maximum ticket life: 0 days 00:00:20$' "$T/getprinc" &&
		grep -q '^Maximum renewable life: 0 days 00:01:00$' "$T/getprinc" ||
		die "$p: $(grep -i life "$T/getprinc")"
done

# expect_fail WHAT PATTERN COMMAND...: COMMAND fails saying PATTERN.
expect_fail() {
	_what=$1
	_want=$2
	shift 2
	if "$@" >"$T/said" 2>&1; then
		die "$_what: \"$*\" succeeded"
	fi
	grep -q "$_want" "$T/said" ||
		die "$_what: got \"$(cat "$T/said")\", want \"$_want\""
}

# seconds_between "MM/DD/YY HH:MM:SS" "MM/DD/YY HH:MM:SS"
seconds_between() {
	echo $(($(date -d "$2" +%s) - $(date -d "$1" +%s)))
}

# Ask for more than the realm allows: the KDC must cut it down.  The
# principal name has no realm: the default realm is ours, not /etc's.
kinit -l 1h -r 1h -kt "$KRB_DIR/kedge.keytab" kedge/localhost ||
	die "kinit with the kedge keytab"
LC_ALL=C klist >"$T/klist"
tgt=$(grep -A1 "krbtgt/KEDGE.TEST@KEDGE.TEST" "$T/klist") ||
	die "no TGT in klist: $(cat "$T/klist")"
set -- $tgt
life=$(seconds_between "$1 $2" "$3 $4")
renew=$(seconds_between "$1 $2" "$8 $9")
[ "$life" -gt 0 ] && [ "$life" -le 21 ] ||
	die "ticket lifetime $life s, want at most 20: $(cat "$T/klist")"
[ "$renew" -gt 0 ] && [ "$renew" -le 61 ] ||
	die "renewable for $renew s, want at most 60: $(cat "$T/klist")"

kvno kafka/localhost >"$T/kvno" 2>&1 || die "kvno: $(cat "$T/kvno")"
grep -qx 'kafka/localhost@KEDGE.TEST: kvno = 1' "$T/kvno" ||
	die "kvno printed \"$(cat "$T/kvno")\""
klist | grep -q ' kafka/localhost@KEDGE.TEST$' || die "no service ticket"

# The KDC's sockets, UDP and TCP, are all on 127.0.0.1:KRB_PORT.
socks=$(ls -l "/proc/$kdc_pid/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
port=$(printf '%04X' "$KRB_PORT")
for proto in tcp udp tcp6 udp6; do
	for inode in $socks; do
		awk -v i="$inode" -v p="$proto" '$10 == i { print p, $2, $4 }' \
			"/proc/net/$proto"
	done
done >"$T/socks"
grep -qx "tcp 0100007F:$port 0A" "$T/socks" || die "no TCP listener: $(cat "$T/socks")"
grep -qx "udp 0100007F:$port 07" "$T/socks" || die "no UDP socket: $(cat "$T/socks")"
[ "$(grep -cvx "\(tcp 0100007F:$port 0A\|udp 0100007F:$port 07\)" "$T/socks")" -eq 0 ] ||
	die "the KDC has other sockets: $(cat "$T/socks")"

krb_rekey kedge/localhost
expect_fail "the old keytab after krb_rekey" "Password incorrect" \
	kinit -kt "$KRB_DIR/kedge.keytab" kedge/localhost
expect_fail "a principal not in the keytab" "Keytab contains no suitable keys" \
	kinit -kt "$KRB_DIR/kedge.keytab" nobody/localhost
krb_addprinc other/localhost "$T/other.keytab"
[ "$(stat -c %a "$T/other.keytab")" = 600 ] || die "other.keytab is not 0600"
kinit -kt "$T/other.keytab" other/localhost || die "kinit with krb_addprinc's keytab"

krb_kdc_down
! kill -0 "$kdc_pid" 2>/dev/null || die "krb_kdc_down left the KDC running"
expect_fail "KDC down" "Cannot contact any KDC for realm 'KEDGE.TEST'" \
	kinit -kt "$KRB_DIR/kafka.keytab" kafka/localhost
krb_kdc_up
kinit -kt "$KRB_DIR/kafka.keytab" kafka/localhost || die "kinit after krb_kdc_up"
kvno HTTP/localhost >/dev/null || die "kvno after krb_kdc_up"

# kdc_ours: lists the krb5kdc processes of this test's realm.
kdc_ours() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = krb5kdc ] || continue
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null |
			grep -qx "KRB5_KDC_PROFILE=$KRB5_KDC_PROFILE" && echo "${p#/proc/}"
	done
	:
}
[ -n "$(kdc_ours)" ] || die "cannot find the running KDC by its profile"
krb_stop
krb_stop
[ -z "$(kdc_ours)" ] || die "krb_stop left a KDC: $(kdc_ours)"

# Nothing Kerberos wrote outside $T: no ccache, replay cache, database or
# log in the usual places.
if [ -z "${had_cc:-}" ] && [ -e "$cc_default" ]; then
	die "$cc_default was created"
fi
outside=$(find /tmp /var/tmp -maxdepth 1 -newer "$T/before" \
	\( -name 'krb5*' -o -name 'tkt*' -o -name '*rcache*' \) 2>/dev/null
	find /etc/krb5.conf /etc/krb5kdc /var/lib/krb5kdc -newer "$T/before" \
		2>/dev/null)
[ -z "$outside" ] || die "written outside $T: $outside"
echo "ok (krb_start took $setup_ms ms; ticket for $life s, renewable for $renew s)"
