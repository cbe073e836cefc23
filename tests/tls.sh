# Throwaway certificate authorities and certificates for the TLS tests,
# made with the openssl command line at test time: P-256 keys (fast),
# SHA-256 signatures, every key mode 0600, and extensions set here rather
# than by the system's openssl.cnf.  Source it after tests/lib.sh (it uses
# die).
#
#   tls_ca DIR NAME
#   tls_cert DIR CA NAME SAN [START END]
#   tls_make DIR
#
# tls_make makes the set the tests use, all under DIR:
#
#   ca.pem, ca.key           the test CA
#   server.pem, server.key   signed by ca, for DNS:localhost and
#                            IP:127.0.0.1
#   wrongname.pem, .key      signed by ca, for DNS:not-this-host.example
#                            only
#   expired.pem, .key        signed by ca, for localhost and 127.0.0.1,
#                            valid only on 2020-01-01
#   client.pem, client.key   signed by ca, a client certificate (no
#                            name to verify)
#   other-ca.pem, .key       a second CA, unrelated to the first
#   other-client.pem, .key   signed by other-ca, a client certificate

# tls_ca DIR NAME: a self-signed CA, DIR/NAME.pem and DIR/NAME.key, valid
# from now for a year, with what `openssl ca` needs to sign with it
# under DIR/NAME.ca/.
tls_ca() {
	_tls_db=$1/$2.ca
	mkdir -p "$_tls_db/new"
	: >"$_tls_db/index"
	echo 01 >"$_tls_db/serial"
	cat >"$_tls_db/openssl.cnf" <<CNF
[ req ]
distinguished_name = dn
[ dn ]
[ ca_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ ca ]
default_ca = this
[ this ]
database = $_tls_db/index
new_certs_dir = $_tls_db/new
serial = $_tls_db/serial
certificate = $1/$2.pem
private_key = $1/$2.key
default_md = sha256
policy = any
unique_subject = no
[ any ]
commonName = supplied
CNF
	tls_key "$1/$2.key"
	openssl req -new -x509 -config "$_tls_db/openssl.cnf" \
		-extensions ca_ext -key "$1/$2.key" -subj "/CN=kedge test $2" \
		-days 365 -out "$1/$2.pem" 2>"$_tls_db/err" ||
		die "openssl could not make CA $2: $(cat "$_tls_db/err")"
}

# tls_cert DIR CA NAME SAN [START END]: DIR/NAME.pem with its key
# DIR/NAME.key, subject CN=NAME, signed by the CA DIR/CA.pem that tls_ca
# made; SAN is its subjectAltName ("DNS:localhost,IP:127.0.0.1"), or "-"
# for a client certificate without one; valid from START to END
# (YYYYMMDDHHMMSSZ, UTC), by default from an hour ago for 90 days: kedge
# warns of a client certificate that expires within 30.
tls_cert() {
	_tls_db=$1/$2.ca
	_tls_from=${5:-$(date -u -d '-1 hour' +%Y%m%d%H%M%SZ)}
	_tls_until=${6:-$(date -u -d '+90 days' +%Y%m%d%H%M%SZ)}
	{
		echo "[ leaf ]"
		echo "basicConstraints = CA:FALSE"
		echo "keyUsage = critical,digitalSignature"
		echo "authorityKeyIdentifier = keyid"
		if [ "$4" = - ]; then
			echo "extendedKeyUsage = clientAuth"
		else
			echo "extendedKeyUsage = serverAuth"
			echo "subjectAltName = $4"
		fi
	} >"$_tls_db/$3.ext"
	tls_key "$1/$3.key"
	openssl req -new -config "$_tls_db/openssl.cnf" -key "$1/$3.key" \
		-subj "/CN=$3" -out "$_tls_db/$3.csr" 2>"$_tls_db/err" &&
		openssl ca -batch -notext -config "$_tls_db/openssl.cnf" \
			-in "$_tls_db/$3.csr" -out "$1/$3.pem" \
			-extfile "$_tls_db/$3.ext" -extensions leaf \
			-startdate "$_tls_from" -enddate "$_tls_until" \
			>>"$_tls_db/err" 2>&1 ||
		die "openssl could not make certificate $3: $(tail -3 "$_tls_db/err")"
}

# tls_make DIR: the set above.
tls_make() {
	mkdir -p "$1"
	tls_ca "$1" ca
	tls_cert "$1" ca server "DNS:localhost,IP:127.0.0.1"
	tls_cert "$1" ca wrongname "DNS:not-this-host.example"
	tls_cert "$1" ca expired "DNS:localhost,IP:127.0.0.1" \
		20200101000000Z 20200102000000Z
	tls_cert "$1" ca client -
	tls_ca "$1" other-ca
	tls_cert "$1" other-ca other-client -
}

# The helpers below are the library's own.

# tls_key FILE: a new P-256 private key in FILE, mode 0600 from the start.
tls_key() {
	(umask 077 && openssl genpkey -algorithm EC \
		-pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null) ||
		die "openssl could not make the key $1"
}
