#!/bin/sh
# Runs python3 with the readers of tests/real/requirements.txt: the
# system's when it has them, else build/py's (scripts/install-py-deps.sh);
# fails saying so when neither has them.
root=$(cd "$(dirname "$0")/../.." && pwd)
for py in python3 "$root/build/py/bin/python3"; do
	if "$py" -c 'import pyarrow, duckdb, prometheus_client, promql_parser' \
		2>/dev/null; then
		exec "$py" "$@"
	fi
done
echo "FAIL: the readers of tests/real/requirements.txt (pyarrow, duckdb, prometheus_client, promql_parser) are not installed; run scripts/install-py-deps.sh" >&2
exit 1
