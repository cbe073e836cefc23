#!/bin/sh
# Install the Python readers the tests check kedge's output with
# (tests/real/requirements.txt, pinned versions) from PyPI, when python3
# lacks them: into the virtual environment build/py (Debian's python3 takes
# no system-wide pip install).  tests/real/python.sh runs the one that has
# them.  With --spark, also PySpark (tests/real/requirements-spark.txt),
# which only `make test` needs.  Safe to run again; scripts/install-deps.sh
# calls it.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/build/py"

# have MODULES: python3 or the venv imports them all.
have() {
	python3 -c "import $1" 2>/dev/null ||
		"$venv/bin/python3" -c "import $1" 2>/dev/null
}

# install REQUIREMENTS: into the venv.
install() {
	echo "install-py-deps: installing $(grep -v '^#' "$1" | tr '\n' ' ')"
	[ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
	"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
		-r "$1"
}

have 'pyarrow, duckdb, prometheus_client, promql_parser' || install "$root/tests/real/requirements.txt"
if [ "${1:-}" = "--spark" ]; then
	have pyspark || install "$root/tests/real/requirements-spark.txt"
fi
