#!/bin/sh
# Install the Python readers the tests check kedge's output with
# (tests/real/requirements.txt, pinned versions) from PyPI, when python3
# lacks them: into the virtual environment build/py (Debian's python3 takes
# no system-wide pip install).  tests/real/python.sh runs the one that has
# them.  Safe to run again; scripts/install-deps.sh calls it.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
req="$root/tests/real/requirements.txt"
venv="$root/build/py"

mods='import pyarrow, duckdb, prometheus_client, promql_parser'
if python3 -c "$mods" 2>/dev/null ||
	"$venv/bin/python3" -c "$mods" 2>/dev/null; then
	exit 0
fi
echo "install-py-deps: installing $(grep -v '^#' "$req" | tr '\n' ' ')"
python3 -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
	-r "$req"
