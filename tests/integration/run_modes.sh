#!/bin/sh
# kedge run from a shell whose umask is 000: kedge sets its own (027, the
# unit's UMask=), so no file or directory of its spool or its warehouse,
# rejects and _kedge included, is writable by its group or open to others.
# Run as root, it says so on every start, naming the user kedge and how to
# run as it; as another user it says nothing of the kind.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

printf '%s\n' '{"a":"b"}' 'nope' '{"a":"c"}' >"$T/records"
mock_start "$T" --topic modes:2 --produce "modes=$T/records"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "j"; topics = [ "modes" ]; udtf = "json";
  udtf_config = { fields = "a"; }; codec = "none"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse";
  timezone = "UTC"; };
metrics = { enabled = false; };
CONF
(umask 000
timeout 120 $KEDGE run -c "$T/kedge.conf" --exit-at-end 2>"$T/kedge.log") ||
	die "kedge run failed: $(tail -5 "$T/kedge.log")"

[ -n "$(find "$T/warehouse/j" "$T/warehouse/_rejects" "$T/warehouse/_kedge" \
	-type f)" ] || die "kedge wrote no file in its warehouse"
[ -n "$(find "$T/spool" -mindepth 1 -type d)" ] ||
	die "kedge made no directory in its spool"
loose=$(find "$T/spool" "$T/warehouse" -perm /027 -printf '%m %p\n')
[ -z "$loose" ] || die "under umask 000, kedge made these writable by its \
group or open to others: $(echo "$loose" | head -5)"

warning="kedge runs as root: plugins run with root's rights, and what it \
writes belongs to root, which kedge.service (User=kedge) cannot write later; \
run it as the user kedge (systemctl start kedge, or runuser -u kedge -- kedge \
run), after chown -R kedge: $T/spool $T/warehouse"
if [ "$(id -u)" -eq 0 ]; then
	log_lines "$T/kedge.log" | grep -qF "warning $warning" ||
		die "kedge run as root did not warn: $(head -3 "$T/kedge.log")"
else
	! grep -q 'runs as root' "$T/kedge.log" ||
		die "kedge run as $(id -un) warned of root"
fi
echo "ok: modes under umask 000 are at most 750/640; running as uid $(id -u)" \
	"is$([ "$(id -u)" -eq 0 ] || echo " not") warned of"
