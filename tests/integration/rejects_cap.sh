#!/bin/sh
# What a rejects row keeps of its record: a malformed record of 1 MiB goes
# to _rejects with its first output.rejects.max_raw_bytes bytes (64 KiB by
# default), its length in raw_bytes and raw_truncated true, so that nothing
# is lost silently and topic, partition and offset find the rest; a small
# malformed record is kept whole (raw_truncated false); a good record lands.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'mock_stop; rm -rf "$T"' EXIT

command -v jq >/dev/null || die "jq is needed to read the rejects"
# A record that is not JSON past its first byte: "{" and 1 MiB of x.
{ printf '{'; head -c 1048576 /dev/zero | tr '\0' x; printf '\n'
  printf 'nope\n'
  printf '{"a":"b"}\n'; } >"$T/records"

mock_start "$T" --topic big:1 --produce "big=$T/records"
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "$BOOTSTRAP"; };
tables = ( { name = "j"; topics = [ "big" ]; udtf = "json";
  udtf_config = { fields = "a"; }; codec = "none"; format = "jsonl"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/warehouse";
  timezone = "UTC"; rejects = { format = "jsonl"; }; };
metrics = { enabled = false; };
CONF
$KEDGE check-config -c "$T/kedge.conf" >/dev/null || die "check-config failed"
run_to_end "$T/kedge.conf" "$T/kedge.log" "kedge run"

landed_rows "$T/warehouse" j | cut -f2- >"$T/rows"
[ "$(cat "$T/rows")" = '{"a":"b"}' ] || die "table j holds $(head -c 200 "$T/rows")"
landed_rows "$T/warehouse" _rejects | cut -f2- |
	jq -r '[.offset, (.raw | length), .raw_bytes, .raw_truncated,
	    (.raw | .[0:4])] | map(tostring) | join(" ")' | sort >"$T/got"
printf '%s\n' "0 65536 1048577 true {xxx" "1 4 4 false nope" >"$T/want"
same_or_die "$T/want" "$T/got" "the rejects rows do not keep what they should"
out=$($KEDGE verify "$T/warehouse" 2>&1) || die "kedge verify: $out"
echo "ok: a 1 MiB reject keeps 65536 bytes and says it had 1048577"
