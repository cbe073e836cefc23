#!/bin/sh
# Install every package kedge needs to build, test, run its demo and its
# benchmark, from Debian's archive (and the real Kafka broker of the
# tests from Maven Central).  Safe to run again; works on its own.
set -eu

PACKAGES="
  build-essential pkg-config
  librdkafka-dev libconfig-dev zlib1g-dev libzstd-dev libpcre2-dev
  libcmocka-dev clang libclang-rt-14-dev
  libkrb5-dev krb5-kdc krb5-admin-server krb5-user libssl-dev openssl
  libsasl2-modules-gssapi-mit
  libcurl4-openssl-dev libjansson-dev python3-gssapi curl
  libmicrohttpd-dev libxxhash-dev
  libsnappy-dev python3-venv
  kcat zstd jq bc tzdata procps faketime time valgrind
  lintian rpm systemd adduser man-db
  debootstrap systemd-container rpmlint
  openjdk-17-jdk-headless maven
"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (apt-get needs it)" >&2
	exit 1
fi

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The real Kafka broker of the tests, from Maven Central into the local
# Maven repository, once (tests/README.md).
"$(dirname "$0")/../tests/real/fetch-deps"
# The Python readers of the Parquet tests, from PyPI.
"$(dirname "$0")/install-py-deps.sh"
