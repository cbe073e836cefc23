#!/bin/sh
# kedge check-config inspects its TLS files with OpenSSL before it ever
# talks to a broker, and names the file and the fix: a missing or
# unparseable CA file, a client certificate expired or not yet valid, a
# key that does not match its certificate, a key without its certificate,
# an encrypted key without its password (never asked for on the terminal)
# or with a wrong one; the password in kafka.rdkafka ssl_key_password opens
# it.  kafka.rdkafka switching certificate checks off is warned about.  A
# good set passes.  The CA and certificates are made here with openssl.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"

# A CA, and `openssl ca` for certificates with chosen validity dates.
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
	-subj "/CN=kedge test CA" -days 2 2>/dev/null
mkdir -p ca/new
: >ca/index
echo 01 >ca/serial
cat >ca.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
dir = $T/ca
database = $T/ca/index
new_certs_dir = $T/ca/new
serial = $T/ca/serial
certificate = $T/ca.pem
private_key = $T/ca.key
default_md = sha256
policy = any
unique_subject = no
[ any ]
commonName = supplied
CNF
# cert NAME START END: a client certificate and key signed by the CA.
cert() {
	openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" \
		-subj "/CN=$1" 2>/dev/null
	openssl ca -batch -config ca.cnf -in "$1.csr" -out "$1.pem" \
		-startdate "$2" -enddate "$3" >/dev/null 2>&1 ||
		die "openssl ca could not make $1"
}
cert good "$(date -u -d '-1 day' +%Y%m%d%H%M%SZ)" "$(date -u -d '+365 days' +%Y%m%d%H%M%SZ)"
cert old 20200101000000Z 20200102000000Z
cert future 20990101000000Z 20990102000000Z
cert soon "$(date -u -d '-1 day' +%Y%m%d%H%M%SZ)" "$(date -u -d '+10 days' +%Y%m%d%H%M%SZ)"
echo "not a certificate" >garbage.pem
openssl pkey -in good.key -aes256 -passout pass:s3cret -out crypt.key ||
	die "openssl could not encrypt good.key"

cd - >/dev/null
# check CA CERT KEY: check-config's output with those files (- for none).
check() {
	{
		echo 'kafka = { brokers = "127.0.0.1:9"; security = { protocol = "SSL";'
		[ "$1" = - ] || echo "ca_file = \"$T/$1\";"
		[ "$2" = - ] || echo "cert_file = \"$T/$2\";"
		[ "$3" = - ] || echo "key_file = \"$T/$3\";"
		echo '};'
		[ -z "${RDKAFKA:-}" ] || echo "rdkafka = { $RDKAFKA };"
		echo '};'
		echo 'tables = ( { name = "t"; topics = [ "a" ]; udtf = "raw"; } );'
		echo "output = { spool_dir = \"$T/spool\"; local_dir = \"$T/wh\"; };"
	} >"$T/k.conf"
	$KEDGE check-config -c "$T/k.conf" 2>&1 || true
}
# refused CA CERT KEY WANT: check-config says WANT after "FILE:LINE: ",
# the line of the key the sentence names.
refused() {
	out=$(check "$1" "$2" "$3")
	[ "${out#"$T"/k.conf:[0-9]: }" = "$4" ] ||
		die "check-config with $1 $2 $3 said: $out
want: $T/k.conf:LINE: $4"
}

[ "$(check ca.pem good.pem good.key)" = "configuration OK" ] ||
	die "a good set was refused: $(check ca.pem good.pem good.key)"
[ "$(check ca.pem - -)" = "configuration OK" ] || die "a CA alone was refused"
refused missing.pem - - "kafka.security.ca_file $T/missing.pem: No such file or directory"
out=$(check garbage.pem - -)
case $out in
"$T/k.conf:2: kafka.security.ca_file $T/garbage.pem holds no PEM certificate ("*"): give the PEM file, -----BEGIN CERTIFICATE-----") ;;
*) die "garbage CA: $out" ;;
esac
refused ca.pem old.pem old.key "kafka.security.cert_file: certificate $T/old.pem expired at 2020-01-02T00:00:00Z: renew it"
refused ca.pem future.pem future.key "kafka.security.cert_file: certificate $T/future.pem is not valid yet: from 2099-01-01T00:00:00Z (is this host's clock right?)"
refused ca.pem good.pem old.key "kafka.security.cert_file: key $T/old.key does not match certificate $T/good.pem: give the key the certificate was made for"
refused ca.pem - good.key "kafka.security.key_file is set but cert_file is not: name the key's certificate"
out=$(check ca.pem soon.pem soon.key)
echo "$out" | grep -q "certificate $T/soon.pem expires in [0-9]* days: renew it" ||
	die "no warning for a certificate that expires in 10 days: $out"
echo "$out" | grep -qx "configuration OK" || die "a certificate about to expire was refused: $out"

# An encrypted key: OpenSSL's default would prompt on the terminal, so
# check-config runs with one (script(1) gives it a pseudo-terminal whose
# input ends at once); no prompt may come, only the sentence.
command -v script >/dev/null || die "script(1) (util-linux) is needed"
check_tty() {
	check "$@" >/dev/null   # writes $T/k.conf
	timeout 20 script -qec "$KEDGE check-config -c $T/k.conf" /dev/null \
		</dev/null 2>&1 | tr -d '\r' || true
}
out=$(check_tty ca.pem good.pem crypt.key)
case $out in
*"pass phrase"*|*"passphrase:"*) die "check-config asked for the key's password: $out" ;;
"$T/k.conf:4: kafka.security.key_file $T/crypt.key is encrypted and no password is given: set kafka.rdkafka ssl_key_password (librdkafka's ssl.key.password) to its password, or decrypt the key (openssl pkey -in KEY -out PLAIN)") ;;
*) die "encrypted key without a password: $out" ;;
esac
out=$(RDKAFKA='ssl_key_password = "wrong";' check_tty ca.pem good.pem crypt.key)
case $out in
"$T/k.conf:4: kafka.security.key_file $T/crypt.key: the password in kafka.rdkafka ssl_key_password does not decrypt it ("*")") ;;
*) die "encrypted key with a wrong password: $out" ;;
esac
out=$(RDKAFKA='ssl_key_password = "s3cret";' check ca.pem good.pem crypt.key)
[ "$out" = "configuration OK" ] || die "encrypted key with its password: $out"

# Certificate checks switched off in kafka.rdkafka: warned, still OK.
out=$(RDKAFKA='enable_ssl_certificate_verification = "false";' check ca.pem - -)
echo "$out" | grep -q "^warning: $T/k.conf:[0-9]*: kafka.rdkafka sets enable.ssl.certificate.verification = false: kedge does not check the brokers' certificates at all, so anyone on the way can pose as a broker and read or forge records; remove it, and name the brokers' CA in kafka.security.ca_file$" ||
	die "no warning for enable.ssl.certificate.verification = false: $out"
echo "$out" | grep -qx "configuration OK" || die "verification off was refused: $out"
out=$(RDKAFKA='ssl_endpoint_identification_algorithm = "none";' check ca.pem - -)
echo "$out" | grep -q "kafka.rdkafka sets ssl.endpoint.identification.algorithm = none: kedge does not check that a broker's certificate names that broker" ||
	die "no warning for ssl.endpoint.identification.algorithm = none: $out"
out=$(RDKAFKA='enable_ssl_certificate_verification = "true";' check ca.pem - -)
[ "$out" = "configuration OK" ] || die "verification on was warned about: $out"
echo "ok: TLS files checked"
