# A throwaway MIT Kerberos realm for the tests: a KDC on 127.0.0.1 only,
# its database, principals and keytabs, all under one directory.  Source it
# after tests/lib.sh (it uses die); it expects the repository root as the
# current directory, like lib.sh.
#
#   krb_start DIR [--lifetime SECONDS] [--renewable SECONDS]
#             [--skew SECONDS]
#   krb_stop
#   krb_kdc_down / krb_kdc_up
#   krb_kdc_skew SECONDS
#   krb_addprinc NAME [KEYTAB]
#   krb_rekey NAME
#   krb_kinit_stub DIR
#
# Call krb_start in the test's own shell, not in $(...) or a pipeline: it
# sets and exports the variables below and remembers the KDC's pid.
#
#   KRB_REALM          KEDGE.TEST
#   KRB_DIR            DIR/krb: krb5.conf, kdc.conf, the database, the
#                      keytabs kedge.keytab, kafka.keytab, http.keytab (0600,
#                      principals kedge/localhost, kafka/localhost,
#                      HTTP/localhost), kdc.log (the KDC's log) and
#                      kadmin.log (what kadmin.local and kdb5_util said);
#                      also krbprobe/localhost and probe.keytab, with which
#                      the fixture tells that the KDC answers
#   KRB_PORT           the KDC's port, UDP and TCP, on 127.0.0.1
#   KRB5_CONFIG        DIR/krb/krb5.conf, so /etc/krb5.conf is never read
#   KRB5_KDC_PROFILE   DIR/krb/kdc.conf
#   KRB5CCNAME         FILE:DIR/krb/ccache, so no kinit touches /tmp
#                      (krb5.conf names it the default ccache as well)
#   KRB5RCACHEDIR      DIR/krb, so no replay cache lands in /var/tmp
#   KRB_SKEW           empty, or with --skew and krb_kdc_skew how many
#                      seconds the KDC's clock runs ahead of this host's
#                      (behind if negative)
#
# A skewed KDC: with --skew SECONDS (or krb_kdc_skew SECONDS later) the KDC
# runs under libfaketime (package faketime) with its clock SECONDS off, and
# krb5.conf says kdc_timesync = 0 and clockskew = 300, so that clients do
# not adopt the KDC's time and refuse, or are refused, once the two clocks
# differ by more than 5 minutes.  Only the KDC and the fixture's own kinit
# run on the skewed clock; the programs under test run unmodified.  Without
# preauthentication the client's own check of the KDC's reply fails
# (KRB5_KDCREP_SKEW, "Clock skew too great in KDC reply"); for a principal
# with +requires_preauth the KDC refuses the timestamp in the request
# (KRB5KRB_AP_ERR_SKEW, "Clock skew too great").  The principals made here
# do not require preauthentication (kdc.conf keeps MIT's
# default_principal_flags).

KRB_REALM=KEDGE.TEST
KRB_PID=
KRB_SKEW=

# krb_start DIR [--lifetime SECONDS] [--renewable SECONDS] [--skew SECONDS]:
# creates the realm under DIR/krb with tickets that last at most SECONDS
# (default 10 h) and are renewable for at most SECONDS (default 7 d), in
# the KDC and in every principal including krbtgt; starts the KDC on a free
# port and waits until it answers.  With --skew, the KDC's clock runs
# SECONDS (a leading - for behind) off this host's (see above), and
# krb_start checks that the KDC's tickets start that far from now.  Fails
# the test otherwise.
krb_start() {
	[ $# -ge 1 ] ||
		die "usage: krb_start DIR [--lifetime S] [--renewable S] [--skew S]"
	[ -z "${KRB_PID:-}" ] || die "krb_start: a KDC already runs; krb_stop it"
	KRB_DIR=$1/krb
	shift
	_krb_life=36000
	_krb_renew=604800
	KRB_SKEW=
	while [ $# -gt 0 ]; do
		case $1 in
		--lifetime) _krb_life=${2:-} ;;
		--renewable) _krb_renew=${2:-} ;;
		--skew) KRB_SKEW=${2:-} ;;
		*) die "krb_start: unknown option \"$1\"" ;;
		esac
		case $1 in
		--skew) krb_seconds "krb_start $1" "${2:-}" ;;
		*) case ${2:-} in
			'' | *[!0-9]*)
				die "krb_start: $1 wants seconds, got \"${2:-}\"" ;;
			esac ;;
		esac
		shift 2
	done
	mkdir -p "$KRB_DIR"
	KRB_DIR=$(cd "$KRB_DIR" && pwd)
	KRB5_CONFIG=$KRB_DIR/krb5.conf
	KRB5_KDC_PROFILE=$KRB_DIR/kdc.conf
	KRB5CCNAME=FILE:$KRB_DIR/ccache
	KRB5RCACHEDIR=$KRB_DIR
	export KRB_REALM KRB_DIR KRB_PORT KRB5_CONFIG KRB5_KDC_PROFILE \
		KRB5CCNAME KRB5RCACHEDIR KRB_SKEW
	KRB_PORT=0
	krb_write_conf
	kdb5_util create -s -r "$KRB_REALM" \
		-P "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
		>>"$KRB_DIR/kadmin.log" 2>&1 ||
		die "kdb5_util create: $(tail -3 "$KRB_DIR/kadmin.log")"
	krb_kadmin modprinc -maxlife "$_krb_life seconds" \
		-maxrenewlife "$_krb_renew seconds" "krbtgt/$KRB_REALM"
	krb_addprinc kedge/localhost "$KRB_DIR/kedge.keytab"
	krb_addprinc kafka/localhost "$KRB_DIR/kafka.keytab"
	krb_addprinc HTTP/localhost "$KRB_DIR/http.keytab"
	# The fixture's own principal, for telling when the KDC answers: the
	# tests may rekey the others.
	krb_addprinc krbprobe/localhost "$KRB_DIR/probe.keytab"
	# Another process may take the port between the check and the bind.
	_krb_try=0
	until KRB_PORT=$(free_port) && krb_write_conf && krb_launch; do
		_krb_try=$((_krb_try + 1))
		[ "$_krb_try" -lt 5 ] || die "KDC: no free port after 5 tries"
	done
}

# krb_stop: stops the KDC if it runs and waits until it has exited.  Safe
# to call twice and from an EXIT trap; always succeeds.
krb_stop() {
	[ -z "${KRB_PID:-}" ] || krb_kill
	:
}

# krb_kdc_down: stops the running KDC (an outage); the realm stays.
krb_kdc_down() {
	[ -n "${KRB_PID:-}" ] || die "krb_kdc_down: no KDC is running"
	krb_kill
}

# krb_kdc_up: starts the KDC again on KRB_PORT with the same database and
# waits until it answers.
krb_kdc_up() {
	[ -z "${KRB_PID:-}" ] || die "krb_kdc_up: the KDC already runs"
	krb_launch || die "KDC: port $KRB_PORT is taken by another process"
}

# krb_kdc_skew SECONDS: restarts the KDC (the realm stays) with its clock
# SECONDS off this host's (a leading - for behind; 0 for the same time),
# with kdc_timesync = 0 in krb5.conf from then on, and waits until it
# answers and its tickets start that far from now.
krb_kdc_skew() {
	[ $# -eq 1 ] || die "usage: krb_kdc_skew SECONDS"
	krb_seconds krb_kdc_skew "$1"
	[ -n "${KRB_DIR:-}" ] || die "krb_kdc_skew: no realm; krb_start one"
	[ -z "${KRB_PID:-}" ] || krb_kill
	KRB_SKEW=$1
	krb_write_conf
	krb_launch || die "KDC: port $KRB_PORT is taken by another process"
}

# krb_addprinc NAME [KEYTAB]: adds principal NAME (in KEDGE.TEST unless
# NAME names a realm) with a random key and the realm's lifetimes; with
# KEYTAB, writes its keys there, mode 0600, without changing them.
krb_addprinc() {
	krb_kadmin addprinc -randkey -maxlife "$_krb_life seconds" \
		-maxrenewlife "$_krb_renew seconds" "$1"
	if [ $# -ge 2 ]; then
		krb_kadmin ktadd -k "$2" -norandkey "$1"
		chmod 600 "$2"
	fi
}

# krb_rekey NAME: gives principal NAME a new random key (kvno + 1); keytabs
# already written keep the old key and so no longer work.
krb_rekey() {
	krb_kadmin cpw -randkey "$1"
}

# krb_kinit_stub DIR: for proving that a program never starts kinit.
# Writes DIR/bin/kinit, which appends "kinit ARGS" to DIR/kinit-ran and
# exits 1, and sets KRB_KINIT_PATH to DIR/bin, then PATH.  Checks first
# that librdkafka's default sasl.kerberos.kinit.cmd, run by /bin/sh with
# that PATH, runs the stub and that the stub records it, so a wrong PATH
# cannot pass for "never ran"; then removes the record.  Run the program
# as PATH=$KRB_KINIT_PATH PROGRAM ...: DIR/kinit-ran exists afterwards if
# and only if kinit was started.
krb_kinit_stub() {
	mkdir -p "$1/bin"
	printf '#!/bin/sh\necho "kinit $*" >>"%s"\nexit 1\n' \
		"$1/kinit-ran" >"$1/bin/kinit"
	chmod 755 "$1/bin/kinit"
	KRB_KINIT_PATH=$1/bin:$PATH
	rm -f "$1/kinit-ran"
	! PATH=$KRB_KINIT_PATH sh -c 'kinit -R -t "$1" -k "$2" ||
		kinit -t "$1" -k "$2"' sh kt p >/dev/null 2>&1 &&
		[ "$(cat "$1/kinit-ran" 2>/dev/null)" = "kinit -R -t kt -k p
kinit -t kt -k p" ] ||
		die "the kinit stub in $1/bin does not record its runs"
	rm "$1/kinit-ran"
}

# The helpers below are the library's own.

# krb_kadmin ARGS...: runs kadmin.local's query ARGS (each one quoted);
# fails the test with kadmin.local's words if it reports an error, which it
# does on stderr but not through its exit status.
krb_kadmin() {
	_krb_q=
	for _krb_a; do
		_krb_q="$_krb_q \"$_krb_a\""
	done
	kadmin.local -r "$KRB_REALM" -q "$_krb_q" >>"$KRB_DIR/kadmin.log" \
		2>"$KRB_DIR/kadmin.err" ||
		die "kadmin.local $_krb_q: $(cat "$KRB_DIR/kadmin.err")"
	cat "$KRB_DIR/kadmin.err" >>"$KRB_DIR/kadmin.log"
	! grep -v '^No policy specified for ' "$KRB_DIR/kadmin.err" >/dev/null ||
		die "kadmin.local $_krb_q: $(cat "$KRB_DIR/kadmin.err")"
}

# krb_seconds WHO VALUE: fails the test unless VALUE is a whole number of
# seconds, maybe negative.
krb_seconds() {
	case ${2#-} in
	'' | *[!0-9]*) die "$1 wants seconds, got \"$2\"" ;;
	esac
}

# krb_write_conf: writes krb5.conf and kdc.conf for KRB_PORT (and
# KRB_SKEW).
krb_write_conf() {
	if [ -n "${KRB_SKEW:-}" ]; then
		_krb_sync="
	kdc_timesync = 0
	clockskew = 300"
	else
		_krb_sync=
	fi
	cat >"$KRB5_CONFIG" <<EOF
[libdefaults]
	default_realm = $KRB_REALM$_krb_sync
	dns_lookup_kdc = false
	dns_lookup_realm = false
	dns_canonicalize_hostname = false
	rdns = false
	udp_preference_limit = 1
	ticket_lifetime = ${_krb_life}s
	renew_lifetime = ${_krb_renew}s
	default_ccache_name = FILE:$KRB_DIR/ccache
	default_keytab_name = FILE:$KRB_DIR/default.keytab
	default_client_keytab_name = FILE:$KRB_DIR/client.keytab

[realms]
	$KRB_REALM = {
		kdc = 127.0.0.1:$KRB_PORT
	}

[domain_realm]
	localhost = $KRB_REALM
	.localhost = $KRB_REALM
EOF
	cat >"$KRB5_KDC_PROFILE" <<EOF
[kdcdefaults]
	kdc_listen = 127.0.0.1:$KRB_PORT
	kdc_tcp_listen = 127.0.0.1:$KRB_PORT

[realms]
	$KRB_REALM = {
		database_name = $KRB_DIR/principal
		key_stash_file = $KRB_DIR/stash
		acl_file = $KRB_DIR/kadm5.acl
		kdc_listen = 127.0.0.1:$KRB_PORT
		kdc_tcp_listen = 127.0.0.1:$KRB_PORT
		max_life = ${_krb_life}s
		max_renewable_life = ${_krb_renew}s
	}

[logging]
	kdc = FILE:$KRB_DIR/kdc.log
	admin_server = FILE:$KRB_DIR/kadmin.log
	default = FILE:$KRB_DIR/kdc.log
EOF
}

# krb_launch: starts the KDC (on the skewed clock with KRB_SKEW) and waits
# (bounded) until it answers; returns 1 if it could not bind KRB_PORT or
# shares it with another listener (the KDC binds with SO_REUSEPORT, so a
# second KDC on the port would not fail), fails the test on any other
# trouble.
krb_launch() {
	_krb_logged=$({ wc -l <"$KRB_DIR/kdc.log"; } 2>/dev/null || echo 0)
	[ -z "${KRB_SKEW:-}" ] || krb_find_faketime
	(
		krb_kdc_clock
		exec krb5kdc -n -r "$KRB_REALM"
	) >>"$KRB_DIR/kdc.log" 2>&1 &
	KRB_PID=$!
	_krb_n=0
	until krb_answers; do
		if ! kill -0 "$KRB_PID" 2>/dev/null; then
			wait "$KRB_PID" 2>/dev/null || :
			KRB_PID=
			sed "1,${_krb_logged}d" "$KRB_DIR/kdc.log" |
				grep -q 'Address already in use' && return 1
			die "the KDC exited: $(tail -5 "$KRB_DIR/kdc.log")"
		fi
		_krb_n=$((_krb_n + 1))
		[ "$_krb_n" -lt 500 ] ||
			die "the KDC does not answer after 10 s: $(tail -5 "$KRB_DIR/kdc.log")"
		sleep 0.02
	done
	if [ "$(krb_listeners)" -ne 1 ]; then
		krb_kill
		return 1
	fi
	[ -z "${KRB_SKEW:-}" ] || krb_check_skew
}

# krb_find_faketime: sets _krb_lib to libfaketime's path, or fails the
# test.
krb_find_faketime() {
	for _krb_lib in /usr/lib/*/faketime/libfaketime.so.1 \
		/usr/lib/faketime/libfaketime.so.1 \
		/usr/local/lib/faketime/libfaketime.so.1; do
		[ ! -f "$_krb_lib" ] || return 0
	done
	die "a skewed KDC needs libfaketime.so.1: install faketime (scripts/install-deps.sh)"
}

# krb_kdc_clock: in a subshell about to run a program, puts that program on
# the KDC's clock: with KRB_SKEW, preloads libfaketime (krb_find_faketime
# found it) with the offset.
krb_kdc_clock() {
	[ -n "${KRB_SKEW:-}" ] || return 0
	case $KRB_SKEW in
	-*) FAKETIME=$KRB_SKEW ;;
	*) FAKETIME=+$KRB_SKEW ;;
	esac
	LD_PRELOAD=$_krb_lib${LD_PRELOAD:+ $LD_PRELOAD}
	export FAKETIME LD_PRELOAD
}

# krb_check_skew: fails the test unless the ticket of krb_answers's last
# login starts KRB_SKEW seconds from now, give or take 5 s: the KDC, not
# only the probe, runs on the skewed clock.
krb_check_skew() {
	_krb_now=$(date +%s)
	_krb_start=$(LC_ALL=C klist -c "FILE:$KRB_DIR/probe.ccache" 2>/dev/null |
		awk '$NF ~ /^krbtgt\// { print $1, $2; exit }')
	[ -n "$_krb_start" ] &&
		_krb_start=$(date -d "$_krb_start" +%s 2>/dev/null) ||
		die "KDC: no ticket to tell its clock by: $(klist -c \
			"FILE:$KRB_DIR/probe.ccache" 2>&1)"
	_krb_off=$((_krb_start - _krb_now - KRB_SKEW))
	[ "${_krb_off#-}" -le 5 ] ||
		die "KDC: its tickets start at $_krb_start, $((_krb_start - _krb_now)) s from now, not $KRB_SKEW s"
}

# krb_listeners: how many TCP sockets listen on KRB_PORT, any address.
krb_listeners() {
	awk -v p=":$(printf '%04X' "$KRB_PORT")" '
		$4 == "0A" && substr(toupper($2), length($2) - 4) == p { n++ }
		END { print n + 0 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# krb_answers: the KDC issues a ticket (into a ccache of its own, so the
# test's stays as it was); with KRB_SKEW the probe runs on the KDC's clock.
krb_answers() {
	(
		krb_kdc_clock
		KRB5CCNAME=FILE:$KRB_DIR/probe.ccache exec kinit \
			-kt "$KRB_DIR/probe.keytab" "krbprobe/localhost@$KRB_REALM"
	) >/dev/null 2>&1
}

# krb_kill: stops the KDC KRB_PID and waits (bounded) until it is gone.
krb_kill() {
	kill "$KRB_PID" 2>/dev/null || :
	_krb_n=0
	while kill -0 "$KRB_PID" 2>/dev/null; do
		_krb_n=$((_krb_n + 1))
		[ "$_krb_n" -ne 100 ] || kill -9 "$KRB_PID" 2>/dev/null || :
		[ "$_krb_n" -lt 200 ] || break
		sleep 0.05
	done
	wait "$KRB_PID" 2>/dev/null || :
	# libfaketime's shared memory, left if the KDC was killed; named by
	# the KDC's pid.
	[ -z "${KRB_SKEW:-}" ] || rm -f "/dev/shm/faketime_shm_$KRB_PID" \
		"/dev/shm/sem.faketime_sem_$KRB_PID"
	KRB_PID=
}
