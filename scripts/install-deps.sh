#!/bin/sh
# Usage: scripts/install-deps.sh [build|bench|test]
#        scripts/install-deps.sh --list [build|bench|test]
# Installs what a target needs from Debian's archive, each set with the
# ones before it:
#   build  what `make`, `make deb` and `make demo` need: kedge's build
#          dependencies and a time zone database (the demo's broker is
#          librdkafka's mock cluster, built from tests/fixtures);
#   bench  and what `make bench` needs besides: kcat, the real Apache Kafka
#          broker and the Flink job it is measured against (Java and Maven,
#          their jars from Maven Central into the local Maven repository:
#          tests/real/fetch-deps), the KDC that broker runs with, callgrind;
#   test   (the default) and everything `make test` needs besides: cmocka,
#          clang for the fuzz targets, the packagers, a Debian root for the
#          package under systemd, HDFS and the Python readers (from PyPI,
#          scripts/install-py-deps.sh).
# --list prints the packages of the set, one a line, and installs nothing.
# Safe to run again; works on its own.
set -eu

BUILD_PACKAGES="
  build-essential pkg-config
  librdkafka-dev libconfig-dev zlib1g-dev libzstd-dev libpcre2-dev
  libkrb5-dev libssl-dev libcurl4-openssl-dev libjansson-dev
  libmicrohttpd-dev libxxhash-dev libsnappy-dev libisal-dev
  tzdata
"
BENCH_PACKAGES="
  kcat bc time procps zstd valgrind
  krb5-kdc krb5-admin-server krb5-user openssl
  openjdk-17-jdk-headless maven
"
TEST_PACKAGES="
  libcmocka-dev clang libclang-rt-14-dev
  libsasl2-modules-gssapi-mit python3-gssapi python3-venv curl
  jq faketime
  lintian rpm rpmlint systemd adduser man-db
  debootstrap systemd-container
"

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
what=${1:-test}
case $what in
build) PACKAGES=$BUILD_PACKAGES ;;
bench) PACKAGES="$BUILD_PACKAGES $BENCH_PACKAGES" ;;
test) PACKAGES="$BUILD_PACKAGES $BENCH_PACKAGES $TEST_PACKAGES" ;;
*) echo "usage: scripts/install-deps.sh [--list] [build|bench|test]" >&2
	exit 2 ;;
esac
if [ "$list" -eq 1 ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PACKAGES
	exit 0
fi

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
[ "$what" != build ] || exit 0
# The real Kafka broker, HDFS and the bench's Flink job, from Maven Central
# into the local Maven repository, once (tests/README.md).
"$(dirname "$0")/../tests/real/fetch-deps"
[ "$what" = test ] || exit 0
# The Python readers of the Parquet tests, from PyPI.
"$(dirname "$0")/install-py-deps.sh"
