#!/bin/sh
# Every configuration the docs give as a whole kedge.conf (a ```kedge.conf
# block in README.md or docs/*.md) passes `kedge check-config`, so that a
# reader who copies one starts from a file kedge takes.  The files a block
# names are made for it: a keytab of its kerberos.principal (ktutil, with a
# key of its own: check-config reads the keytab offline), under
# $CREDENTIALS_DIRECTORY when kerberos.keytab is relative, and a CA, a
# client certificate and key (tests/tls.sh) for its TLS files; paths under
# /etc/kedge/ are taken under the test's directory instead.  README.md and
# docs/security.md (the SASL_SSL recipe) must each have one.
set -eu
. tests/lib.sh
. tests/tls.sh

command -v ktutil >/dev/null || die "needs ktutil (krb5-user)"
T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT
tls_make "$T/tls"

# value KEY FILE: the first quoted value of KEY in FILE.
value() {
	sed -n "s/.*[{; ]$1 *= *\"\\([^\"]*\\)\".*/\\1/p" "$2" | head -1
}

# keytab FILE PRINCIPAL: a keytab holding a key of PRINCIPAL, mode 0600.
keytab() {
	mkdir -p "$(dirname "$1")"
	printf 'addent -password -p %s -k 1 -e aes256-cts-hmac-sha1-96\nnot-the-key\nwkt %s\nquit\n' \
		"$2" "$1" | ktutil >"$T/ktutil.log" 2>&1 ||
		die "ktutil: $(cat "$T/ktutil.log")"
	chmod 600 "$1"
}

n=0
mkdir -p "$T/conf" "$T/etc/kedge" "$T/cred"
for md in README.md docs/*.md; do
	awk -v dir="$T/conf" -v name="$(echo "$md" | tr / _)" '
		/^```kedge\.conf[ \t]*$/ { n++; f = dir "/" name "." n; printf "" >f; inb = 1; next }
		inb && /^```/ { inb = 0; close(f); next }
		inb { print >>f }' "$md"
done
for c in "$T"/conf/*; do
	[ -f "$c" ] || continue
	n=$((n + 1))
	what=$(basename "$c")
	sed -i "s|\"/etc/kedge/|\"$T/etc/kedge/|g" "$c"
	p=$(value principal "$c")
	k=$(value keytab "$c")
	if [ -n "$p" ]; then
		case $k in
		'') keytab "$T/etc/kedge/kedge.keytab" "$p"
			sed -i "s|^\\(kerberos *= *{\\)|\\1 keytab = \"$T/etc/kedge/kedge.keytab\";|" "$c" ;;
		/*) keytab "$k" "$p" ;;
		*) keytab "$T/cred/$k" "$p" ;;
		esac
	fi
	for f in ca_file:ca.pem cert_file:client.pem key_file:client.key \
		crl_file:; do
		v=$(value "${f%%:*}" "$c")
		[ -n "$v" ] || continue
		[ -n "${f#*:}" ] || die "$what: a crl_file; give the test one to make"
		mkdir -p "$(dirname "$v")"
		install -m 0600 "$T/tls/${f#*:}" "$v"
	done
	out=$(CREDENTIALS_DIRECTORY=$T/cred $KEDGE check-config -c "$c" 2>&1) ||
		die "$what: kedge check-config: $out"
	[ "$out" = "configuration OK" ] || die "$what: kedge check-config said: $out"
done
[ -f "$T/conf/README.md.1" ] || die "README.md has no \`\`\`kedge.conf block"
grep -l 'protocol *= *"SASL_SSL"' "$T"/conf/docs_security.md.* >/dev/null 2>&1 ||
	die "docs/security.md has no \`\`\`kedge.conf block with SASL_SSL"
echo "check-config takes the $n configurations of README.md and docs/*.md"
