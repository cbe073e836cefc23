#!/bin/sh
# UDTF plugins, as a user builds and runs them.  The sample plugin
# (examples/udtf-plugin) is built with its own Makefile against the tree's
# <kedge/udtf.h>, installed under a DESTDIR, checked and run over generated
# RFC 5424 lines: every row, column by column, lands where it belongs; the
# malformed lines are rejected with their reasons; the lines below
# min_severity give no row and are noted; `kedge verify` passes; `kedge
# bench udtf` runs it.  Then the ABI's refusals, with the plugins of
# tests/plugins/bad.c: kedge refuses each with its sentence; a symbolic
# link, a file or directory another user owns or may write, and a file it
# cannot stat (tests/plugins/failstat.c) are refused; and a plugin
# whose values do not match its columns sees every record rejected, not a
# crash.  KEEP=1 keeps the working directory.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

ABI=$(sed -n 's/^#define KEDGE_UDTF_ABI_VERSION \([0-9]*\)$/\1/p' \
	agent/udtf/udtf.h)
[ -n "$ABI" ] || die "no KEDGE_UDTF_ABI_VERSION in agent/udtf/udtf.h"

# The header as a user finds it once kedge is installed: DIR/kedge/udtf.h.
mkdir "$T/include"
ln -s "$PWD/agent/udtf" "$T/include/kedge"

# --- build and install the sample with its own Makefile -----------------

# Not the make that may have started this test: none of its variables.
sample_make() {
	(unset MAKEFLAGS MFLAGS MAKELEVEL
	make -C examples/udtf-plugin O="$T/build" KEDGE_INCLUDE="$T/include" \
		"$@") >>"$T/make.log" 2>&1 ||
		die "make $* in examples/udtf-plugin: $(tail -5 "$T/make.log")"
}
sample_make
sample_make install DESTDIR="$T/root"
SO=$T/root/usr/lib/kedge/udtf/libsyslog5424.so
[ -f "$SO" ] || die "make install put no $SO"
[ -f "$T/build/libsyslog5424.so" ] ||
	die "make O=$T/build built no plugin there"
# It needs nothing but libc, and exports nothing but its descriptor.
needed=$(objdump -p "$SO" | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || die "$SO needs $needed, not only libc"
exported=$(nm -D --defined-only "$SO" | awk '{ print $3 }' | tr '\n' ' ')
[ "$exported" = "kedge_udtf_plugin " ] || die "$SO exports $exported"

# --- the records ---------------------------------------------------------

# Line i of 2,000 goes to partition i % 3, offset i / 3 (mockkafka).  Every
# 100th line, from the 50th, is one of the malformed lines below (raw TAB
# reason).  Of the others, severity is i % 6, but 7 when i % 53 == 17 and 6
# when i % 41 == 29 (below min_severity = notice: no row in table syslog);
# the timestamp is "-" when i % 397 == 100 (NULL: kedge rejects the row for
# want of an event time).  awk computes every expected value on its own,
# dates included.
cat >"$T/malformed" <<'EOF'
34>1 2026-11-29T10:00:00Z h a p m - no angle	byte 1: expected '<' at the start
<999>1 2026-11-29T10:00:00Z h a p m - pri too big	PRI 999 is out of range (0 to 191)
<34>2 2026-11-29T10:00:00Z h a p m - version 2	VERSION 2 is not 1, the one RFC 5424 defines
<34>1 2026-13-29T10:00:00Z h a p m - month 13	timestamp: month 13 is out of range
<34>1 2026-02-29T10:00:00Z h a p m - not a leap year	timestamp: 2026-02-29 is not a day
<34>1 2026-11-29 10:00:00Z h a p m - space for T	timestamp: expected 'T' after the day, at byte 17
<34>1 2026-11-29T10:00:60Z h a p m - leap second	timestamp: second 60 is out of range
<34>1 2026-11-29T10:00:00 h a p m - no offset	timestamp: expected 'Z' or an offset +hh:mm or -hh:mm at byte 26
<34>1 2026-11-29T10:00:00.1234567Z h a p m - 7 digits	timestamp: the fraction of a second has more than 6 digits
<34>1 2026-11-29T10:00:00+0800 h a p m - offset without colon	timestamp: expected ':' in the offset, at byte 29
<34>1 2026-11-29T10:00:00Z  a p m - no hostname	byte 28: expected HOSTNAME, or '-' for none
<34>1 2026-11-29T10:00:00Z hé a p m - not ASCII	byte 29: HOSTNAME holds byte 0xC3, which is not printable US-ASCII
<34>1 2026-11-29T10:00:00Z h a p 123456789012345678901234567890123 - long MSGID	byte 34: MSGID is longer than 32 bytes
<34>1 2026-11-29T10:00:00Z h a p m	byte 35: the line ends after MSGID
<34>1 2026-11-29T10:00:00Z h a p m [id x="1" y] no value	byte 47: expected '=' after PARAM-NAME
<34>1 2026-11-29T10:00:00Z h a p m [id x="1"]no space	byte 46: expected a space before MSG
<34>1 2026-11-29T10:00:00Z h a p m [id x="unterminated\"]	byte 58: the line ends inside PARAM-VALUE
	empty record
<191>1 2026-11-29T10:00:00Z h a p m x debug but malformed	byte 37: expected STRUCTURED-DATA, '-' or '['
hello world	byte 1: expected '<' at the start
EOF

# Structured data with every escape, as the line holds it and as the
# column keeps it.
SD_ESCAPED='[meta@1 q="say \"hi\" \] ok\\"][origin ip="192.0.2.1"]'
export SD_ESCAPED

# Outputs: records; rows-syslog and rows-syslog_all, "dt=../hr=..<TAB>"
# and the columns, NULL for NULL; rejects, "table<TAB>partition<TAB>offset
# <TAB>reason<TAB>raw"; empty, "partition<TAB>offset" of the lines dropped.
LC_ALL=C awk -v T="$T" '
function civil(days,   z, era, doe, yoe, doy, mp, d, m, y) {
	z = days + 719468
	era = int(z / 146097)
	doe = z - era * 146097
	yoe = doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)
	yoe = int(yoe / 365)
	doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
	mp = int((5 * doy + 2) / 153)
	d = doy - int((153 * mp + 2) / 5) + 1
	m = mp < 10 ? mp + 3 : mp - 9
	y = yoe + era * 400 + (m <= 2)
	return sprintf("%04d-%02d-%02d", y, m, d)
}
function clock(secs,   rem) {
	rem = secs % 86400
	return sprintf("%02d:%02d:%02d", int(rem / 3600), int(rem % 3600 / 60),
	    rem % 60)
}
function hour_dir(secs,   date) {
	date = civil(int(secs / 86400))
	gsub(/-/, "", date)
	return "dt=" date "/hr=" substr(clock(secs), 1, 2)
}
# A column as the rows file holds it: "-" is NULL when nil is.
function col(v, nil) {
	return (nil && v == "-") ? "NULL" : v
}
BEGIN {
	FS = "\t"
	nm = 0
	while ((getline l < (T "/malformed")) > 0) {
		split(l, f, "\t")
		mraw[nm] = f[1]
		mwhy[nm++] = f[2]
	}
	split("su sshd cron kernel -", apps, " ")
	bom = "\357\273\277"
	start = 1798756200   # 2026-12-31T22:30:00Z: local dates and years turn
	for (i = 0; i < 2000; i++) {
		part = i % 3
		off = int(i / 3)
		if (i % 100 == 50) {
			k = int(i / 100) % nm
			print mraw[k] > (T "/records")
			for (t = 0; t < 2; t++)
				printf "%s\t%d\t%d\t%s\t%s\n",
				    t ? "syslog_all" : "syslog", part, off,
				    mwhy[k], mraw[k] > (T "/rejects")
			continue
		}
		fac = i % 24
		sev = i % 53 == 17 ? 7 : i % 41 == 29 ? 6 : i % 6
		secs = start + i * 5
		kind = i % 4
		if (kind == 0) { us = 0; frac = "" }
		if (kind == 1) { us = (i * 37) % 1000 * 1000
		    frac = sprintf(".%03d", us / 1000) }
		if (kind == 2) { us = (i * 7919) % 1000000
		    frac = sprintf(".%06d", us) }
		if (kind == 3) { us = i % 10 * 100000; frac = "." i % 10 }
		zone = int(i / 4) % 3
		shift = zone == 0 ? 0 : zone == 1 ? 28800 : -19800
		ts = civil(int((secs + shift) / 86400)) "T" clock(secs + shift) \
		    frac (zone == 0 ? "Z" : zone == 1 ? "+08:00" : "-05:30")
		nullts = i % 397 == 100
		if (nullts)
			ts = "-"
		# kedge writes microseconds as .ffffff, whole milliseconds
		# as .fff, whole seconds bare
		want_ts = civil(int(secs / 86400)) "T" clock(secs) \
		    (us % 1000 ? sprintf(".%06d", us) : \
		    us ? sprintf(".%03d", us / 1000) : "") "+00:00"
		host = i % 10 == 3 ? "-" : "host" i % 5 ".example.com"
		app = apps[int(i / 3) % 5 + 1]
		procid = i % 7 == 0 ? "-" : 1000 + i
		msgid = i % 6 == 0 ? "-" : "ID" i % 50
		sd = i % 9 == 0 ? "[exampleSDID@32473 iut=\"3\" eventID=\"" \
		    i "\"]" : i % 9 == 4 ? ENVIRON["SD_ESCAPED"] : "-"
		m = i % 8
		if (m == 0) { tail = ""; msg = "NULL" }
		else if (m == 3) { msg = "UTF-8 é message " i
		    tail = " " bom msg }
		else if (m == 5) { tail = " "; msg = "" }
		else { msg = "message " i " from " app; tail = " " msg }
		line = sprintf("<%d>1 %s %s %s %s %s %s%s", fac * 8 + sev, ts,
		    host, app, procid, msgid, sd, tail)
		print line > (T "/records")
		for (t = 0; t < 2; t++) {
			table = t ? "syslog_all" : "syslog"
			if (!t && sev > 5) {
				print part "\t" off > (T "/empty")
				continue
			}
			if (nullts) {
				printf "%s\t%d\t%d\t%s\t%s\n", table, part, off,
				    "event time timestamp is NULL",
				    line > (T "/rejects")
				continue
			}
			printf "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			    hour_dir(secs), fac, sev, want_ts, col(host, !t),
			    col(app, !t), col(procid, !t), col(msgid, !t),
			    col(sd, !t), msg > (T "/rows-" table)
		}
	}
}' </dev/null
[ "$(wc -l <"$T/records")" -eq 2000 ] || die "the generator wrote no 2000 lines"
# The mix the checks below rely on: some of everything.
for f in rows-syslog rows-syslog_all rejects empty; do
	[ "$(wc -l <"$T/$f")" -ge 15 ] || die "the generator made too few $f"
done
grep -q '	NULL	[^	]*$' "$T/rows-syslog" || die "no NULL structured_data"
grep -q '	NULL$' "$T/rows-syslog" || die "no line without MSG"
grep -q 'T.*\.[0-9]\{6\}+00:00' "$T/rows-syslog" || die "no microseconds"

# 10 records for the broken plugins' run.
seq 1 10 | sed 's/^/abi record /' >"$T/abi-records"

mock_start "$T" --topic syslog:3 --topic abi:2 \
	--produce "syslog=$T/records" --produce "abi=$T/abi-records"

# --- check-config and run with the sample --------------------------------

cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = (
  {
    name = "syslog"; topics = [ "syslog" ];
    udtf = "plugin:$SO";
    udtf_config = { min_severity = "notice"; };
    event_time = "timestamp"; format = "jsonl"; codec = "none";
  },
  {
    name = "syslog_all"; topics = [ "syslog" ];
    udtf = "plugin:$SO";
    udtf_config = { nil_as_null = false; };
    event_time = "timestamp"; format = "jsonl"; codec = "none";
  }
);
output = { $OLD_EVENTS
  spool_dir = "$T/spool"; local_dir = "$T/warehouse"; timezone = "UTC";
  rejects = { format = "jsonl"; codec = "none"; };
};
metrics = { enabled = false; };
CONF

NOTE="UDTF syslog5424: min_severity is notice: lines of severity 6 to 7 \
give no row"
out=$($KEDGE check-config -c "$T/kedge.conf" 2>"$T/check.err") ||
	die "check-config refused the sample: $(cat "$T/check.err")"
[ "$out" = "configuration OK" ] || die "check-config printed \"$out\""
grep -qxF "warning: $T/kedge.conf:6: tables[0].udtf_config: $NOTE" \
	"$T/check.err" ||
	die "check-config did not give the plugin's note: $(cat "$T/check.err")"

run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"

# landed_jsonl DIR TABLE JQ: JQ over every row under DIR/TABLE, each output
# line prefixed by the row's dt=/hr= directory when JQ uses $hour.
landed_jsonl() {
	find "$1/$2" -type f ! -name '.*' ! -name '_*' | sort | while read -r f; do
		jq -r --arg hour "$(dirname "$f" |
			sed 's|.*/\(dt=[0-9]*/hr=[0-9]*\)$|\1|')" "$3" "$f"
	done
}

COLUMNS='["facility", "severity", "timestamp", "hostname", "app_name",
	"procid", "msgid", "structured_data", "message"]'
for table in syslog syslog_all; do
	# the columns in order, typed
	landed_jsonl "$T/warehouse" "$table" "keys_unsorted == $COLUMNS and
		(.facility | type) == \"number\" and
		(.severity | type) == \"number\" and
		(.timestamp | type) == \"string\" and
		all(.hostname, .app_name, .procid, .msgid, .structured_data,
		    .message; type == \"string\" or type == \"null\")" |
		sort -u >"$T/types-$table"
	[ "$(cat "$T/types-$table")" = true ] ||
		die "$table: a row's columns or types are not the plugin's"
	# every row, every column, in its hour
	landed_jsonl "$T/warehouse" "$table" '[$hour, .facility, .severity,
		.timestamp, .hostname, .app_name, .procid, .msgid,
		.structured_data, .message] |
		map(if . == null then "NULL" else tostring end) | join("\t")' |
		LC_ALL=C sort >"$T/got-rows-$table"
	LC_ALL=C sort "$T/rows-$table" >"$T/want-rows-$table"
	same_or_die "$T/want-rows-$table" "$T/got-rows-$table" \
		"rows of $table differ from the lines (want < > got)"
done

# The malformed lines, and those without an event time, are rejects with
# their reasons, whole.
find "$T/warehouse/_rejects" -type f ! -name '.*' ! -name '_*' -exec cat {} + |
	jq -r 'select(.topic == "syslog") | [.table, .partition, .offset,
		.reason, .raw] | map(tostring) | join("\t")' |
	LC_ALL=C sort >"$T/got-rejects"
LC_ALL=C sort "$T/rejects" >"$T/want-rejects"
same_or_die "$T/want-rejects" "$T/got-rejects" "rejects differ (want < > got)"

# The lines below min_severity gave no row: kedge notes each one's offset
# as "empty" in a sidecar of its partition, and counts it in the summary
# (records - rows - rejects, as every kept line is one row).
find "$T/warehouse/syslog" -type f -name '.*.json' -exec cat {} + |
	jq -r '.partition as $p | .empty[] | range(.[0]; .[1] + 1) |
		"\($p)\t\(.)"' | LC_ALL=C sort >"$T/got-empty"
LC_ALL=C sort "$T/empty" >"$T/want-empty"
same_or_die "$T/want-empty" "$T/got-empty" \
	"the offsets noted as empty are not the lines below min_severity"
[ -z "$(find "$T/warehouse/syslog_all" -type f -name '.*.json' \
	-exec cat {} + | jq -r '.empty[]')" ] ||
	die "syslog_all (min_severity debug) noted records as empty"
for table in syslog syslog_all; do
	rows=$(wc -l <"$T/rows-$table")
	rejects=$(grep -c "^$table	" "$T/rejects")
	dropped=0
	[ "$table" = syslog ] && dropped=$(wc -l <"$T/empty")
	log_lines "$T/kedge.log" | grep -qxF "notice table $table: 2000 records, $rows rows, $rejects rejects, $dropped gave no row" ||
		die "no summary of $rows rows and $rejects rejects for $table: $(
			grep "table $table: [0-9]* records" "$T/kedge.log")"
	grep -qF "table $table: UDTF syslog5424 ns/record: mean " \
		"$T/kedge.log" || die "no cost per record for $table"
done
[ $((2000 - $(wc -l <"$T/rows-syslog") - $(grep -c '^syslog	' \
	"$T/rejects"))) -eq "$(wc -l <"$T/empty")" ] ||
	die "records - rows - rejects of syslog is not the lines dropped"
! grep -q 'gave no row found no file' "$T/kedge.log" ||
	die "kedge could not note every dropped line: $(grep 'no file' \
		"$T/kedge.log")"
log_lines "$T/kedge.log" | grep -qxF "notice table syslog: $NOTE" || die "kedge run did not log the note"

out=$($KEDGE verify "$T/warehouse" 2>&1) || die "kedge verify: $out"
case $out in
"verify OK: "*) ;;
*) die "kedge verify printed \"$out\"" ;;
esac
echo "ok: sample plugin: $(wc -l <"$T/got-rows-syslog") + $(wc -l \
	<"$T/got-rows-syslog_all") rows, $(wc -l <"$T/got-rejects") rejects, $(
	wc -l <"$T/got-empty") dropped"

# kedge bench udtf runs the plugin over the same lines, without Kafka: it
# gives a row for every line but the malformed and the dropped.
malformed=$(($(grep -c '^syslog	' "$T/rejects") -
	$(grep -c '^syslog	.*	event time timestamp is NULL	' "$T/rejects")))
want="$((2000 - malformed - $(wc -l <"$T/empty"))) from 2000 records;\
 $malformed rejects"
out=$(timeout 60 $KEDGE bench udtf -c "$T/kedge.conf" --table syslog \
	--input "$T/records" --seconds 0.1 2>&1) || die "kedge bench udtf: $out"
case $out in
*"rows out"*" $want"*) ;;
*) die "kedge bench udtf did not report $want: $out" ;;
esac

# The sample's own kedge.conf, pointed at this test's paths, is valid.
sed -e "s|/usr/lib/kedge/udtf/|$T/root/usr/lib/kedge/udtf/|" \
	-e "s|\"/var/lib/kedge/spool\"|\"$T/ex-spool\"|" \
	-e "s|\"/var/lib/kedge/warehouse\"|\"$T/ex-warehouse\"|" \
	examples/udtf-plugin/kedge.conf >"$T/example.conf"
out=$($KEDGE check-config -c "$T/example.conf" 2>"$T/check.err") &&
	[ "$out" = "configuration OK" ] ||
	die "examples/udtf-plugin/kedge.conf: $out $(cat "$T/check.err")"

# --- refusals -------------------------------------------------------------

# refused SPEC UDTF_CONFIG WANT: check-config of a table whose udtf (line 4)
# is SPEC, with UDTF_CONFIG on line 5, exits 1 printing WANT, one line;
# WANT ending in "*" is a prefix.
refused() {
	cat >"$T/refused.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( {
  name = "t"; topics = [ "abi" ];
  udtf = "$1";
  udtf_config = { $2 };
} );
output = { spool_dir = "$T/refused-spool"; local_dir = "$T/refused-wh"; };
metrics = { enabled = false; };
CONF
	rc=0
	$KEDGE check-config -c "$T/refused.conf" >"$T/refused.out" \
		2>"$T/refused.err" || rc=$?
	[ "$rc" -eq 1 ] || die "check-config with $1 exited $rc, not 1"
	[ ! -s "$T/refused.out" ] || die "check-config with $1 printed \
$(cat "$T/refused.out")"
	got=$(cat "$T/refused.err")
	case $3 in
	*'*') [ "${got#"${3%'*'}"}" != "$got" ] ;;
	*) [ "$got" = "$3" ] ;;
	esac && [ "$(wc -l <"$T/refused.err")" -eq 1 ] ||
		die "check-config with $1 printed \"$got\", not \"$3\""
}

C=$T/refused.conf
P="$C:4: tables[0].udtf"
G="$C:5: tables[0].udtf_config"
refused "plugin:$SO" 'min_severity = "loud";' "$G.min_severity: UDTF \
syslog5424: min_severity must be a severity, 0 to 7 or its name (emerg, \
alert, crit, err, warning, notice, info, debug), not \"loud\""
refused "plugin:$SO" 'nil_as_null = "maybe";' "$G.nil_as_null: UDTF \
syslog5424: nil_as_null must be true or false, not \"maybe\""
refused "plugin:$SO" 'severity = 3;' "$G.severity: UDTF syslog5424 has no \
such key; its keys: min_severity, nil_as_null"
refused "plugin:build/libsyslog5424.so" '' "$P: plugin path \
\"build/libsyslog5424.so\" is not absolute"
refused "plugin:$T/missing.so" '' \
	"$P: cannot open UDTF plugin $T/missing.so: No such file or directory"
cp "$SO" "$T/shared.so"
chmod 666 "$T/shared.so"
refused "plugin:$T/shared.so" '' "$P: UDTF plugin $T/shared.so is writable \
by others; chmod go-w $T/shared.so"
chmod 664 "$T/shared.so"
refused "plugin:$T/shared.so" '' "$P: UDTF plugin $T/shared.so is writable \
by its group; chmod go-w $T/shared.so"

# Only root or kedge's own user may change the code kedge runs: the file is
# opened once, not through a symbolic link, and what was checked is what is
# loaded; its owner and every directory up to / count (a sticky one, /tmp,
# may be writable by all).  Making files of another owner needs root.
[ "$(id -u)" -eq 0 ] || die "the plugin owner checks need root, to chown"
nobody=$(id -u nobody) || die "no user nobody, to own the foreign plugin"
chmod 644 "$T/shared.so"
ln -s "$T/shared.so" "$T/link.so"
refused "plugin:$T/link.so" '' "$P: UDTF plugin $T/link.so is a symbolic \
link; name the file it points to"
cp "$SO" "$T/theirs.so"
chown nobody "$T/theirs.so"
refused "plugin:$T/theirs.so" '' "$P: UDTF plugin $T/theirs.so is owned by \
uid $nobody, not by root or kedge's user (uid 0); chown root $T/theirs.so"
mkdir "$T/shared-dir" "$T/their-dir"
cp "$SO" "$T/shared-dir/p.so"
cp "$SO" "$T/their-dir/p.so"
chmod 775 "$T/shared-dir"
chown nobody "$T/their-dir"
refused "plugin:$T/shared-dir/p.so" '' "$P: UDTF plugin $T/shared-dir/p.so: \
its directory $T/shared-dir is writable by its group; chmod go-w \
$T/shared-dir"
refused "plugin:$T/their-dir/p.so" '' "$P: UDTF plugin $T/their-dir/p.so: \
its directory $T/their-dir is owned by uid $nobody, not by root or kedge's \
user (uid 0); chown root $T/their-dir"
# A file kedge cannot stat is refused, not let through unchecked: under
# tests/plugins/failstat.c, stat and fstat of it fail.
${CC:-cc} -std=c11 -shared -fPIC -Wall -Wextra -Werror -o "$T/failstat.so" \
	tests/plugins/failstat.c -ldl || die "cannot build tests/plugins/failstat.c"
cp "$SO" "$T/unstat.so"
chmod 664 "$T/unstat.so"
(FAILSTAT_PATH=$T/unstat.so LD_PRELOAD=$T/failstat.so
ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export FAILSTAT_PATH LD_PRELOAD ASAN_OPTIONS
refused "plugin:$T/unstat.so" '' "$P: cannot stat UDTF plugin $T/unstat.so: \
Input/output error") || exit 1

for v in GOOD WRONG_ABI NO_SYMBOL NO_PROCESS INIT_FAILS NO_COLUMNS \
    WRONG_TYPE WRONG_COUNT; do
	${CC:-cc} -std=c11 -shared -fPIC -Wall -Wextra -Werror \
		-I"$T/include" -D"$v" -o "$T/bad-$v.so" tests/plugins/bad.c ||
		die "cannot build tests/plugins/bad.c with -D$v"
done
B=$T/bad
refused "plugin:$B-WRONG_ABI.so" '' "$P: $B-WRONG_ABI.so was built for UDTF \
ABI version 999, this kedge speaks version $ABI: rebuild the plugin against \
this kedge's <kedge/udtf.h>"
refused "plugin:$B-NO_SYMBOL.so" '' "$P: $B-NO_SYMBOL.so exports no symbol \
kedge_udtf_plugin: is it a kedge UDTF plugin? (see <kedge/udtf.h>)"
refused "plugin:$B-NO_PROCESS.so" '' "$P: $B-NO_PROCESS.so: \
kedge_udtf_plugin.process is not set"
refused "plugin:$B-INIT_FAILS.so" '' "$G: UDTF bad: this plugin always \
refuses: for testing"
refused "plugin:$B-NO_COLUMNS.so" '' "$P: UDTF bad has no columns"

# kedge run refuses the same way, before it touches anything, with
# EX_CONFIG.
rc=0
$KEDGE run -c "$T/refused.conf" --exit-at-end 2>"$T/refused.err" || rc=$?
[ "$rc" -eq 78 ] && grep -qF "$P: UDTF bad has no columns" "$T/refused.err" ||
	die "kedge run with a refused plugin: exit $rc, $(cat "$T/refused.err")"
[ ! -e "$T/refused-spool" ] || die "kedge run made its spool before refusing"

# --- plugins whose rows do not match their columns -------------------------

cat >"$T/abi.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = (
  { name = "good"; topics = [ "abi" ]; udtf = "plugin:$B-GOOD.so";
    format = "jsonl"; codec = "none"; },
  { name = "wrong_type"; topics = [ "abi" ]; udtf = "plugin:$B-WRONG_TYPE.so";
    format = "jsonl"; codec = "none"; },
  { name = "wrong_count"; topics = [ "abi" ];
    udtf = "plugin:$B-WRONG_COUNT.so"; format = "jsonl"; codec = "none"; }
);
output = { $OLD_EVENTS
  spool_dir = "$T/abi-spool"; local_dir = "$T/abi-warehouse";
  timezone = "UTC"; rejects = { format = "jsonl"; codec = "none"; };
};
metrics = { enabled = false; };
CONF
out=$($KEDGE check-config -c "$T/abi.conf" 2>&1) ||
	die "check-config refused plugins that load: $out"
timeout 120 $KEDGE run -c "$T/abi.conf" --exit-at-end 2>"$T/abi.log" ||
	die "kedge run with a plugin emitting wrong values failed: $(
		tail -5 "$T/abi.log")"
landed_jsonl "$T/abi-warehouse" good '.line' | sort >"$T/got-good"
sort "$T/abi-records" >"$T/want-good"
same_or_die "$T/want-good" "$T/got-good" "the GOOD plugin's rows differ"
find "$T/abi-warehouse/_rejects" -type f ! -name '.*' ! -name '_*' -exec cat {} + |
	jq -r '[.table, .reason, .raw] | join("\t")' | sort >"$T/got-abi-rejects"
sed 's/^/wrong_count	UDTF bad emitted a row of 1 values for its 2 columns	/' \
	"$T/abi-records" >"$T/want-abi-rejects"
sed "s/^/wrong_type	UDTF bad emitted a value whose type is not its column's	/" \
	"$T/abi-records" >>"$T/want-abi-rejects"
sort -o "$T/want-abi-rejects" "$T/want-abi-rejects"
same_or_die "$T/want-abi-rejects" "$T/got-abi-rejects" \
	"records of the plugins with wrong values are not all rejected"
for table in wrong_type wrong_count; do
	[ -z "$(find "$T/abi-warehouse/$table" -type f ! -name '.*' ! -name '_*' \
		2>/dev/null)" ] || die "$table landed a part file"
	grep -qF "table $table: 10 records, 0 rows, 10 rejects" "$T/abi.log" ||
		die "no summary of 10 rejects for $table"
done
out=$($KEDGE verify "$T/abi-warehouse" 2>&1) || die "kedge verify: $out"
echo "ok: ABI refusals, and $(grep -c . "$T/got-abi-rejects") records of" \
	"plugins with wrong values rejected"
