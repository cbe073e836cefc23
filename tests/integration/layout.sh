#!/bin/sh
# The tree's one rule (docs/design.md, "Layout"): a folder includes lib/,
# the folders upstream of it and its own files, and names every project
# header by its path from the top of the tree ("lib/buf.h",
# "agent/write/writer.h"; the Makefile passes -I. alone).  Every
# #include "..." under lib/, checkpoint/, security/, agent/, tests/ and
# fuzz/ is checked; a broken one fails the test naming the file, the line
# and the include.  No binary is needed.
set -eu
. tests/lib.sh

# rank FOLDER: the folder's place upstream to downstream.  A file may
# include a header of its own folder or of a folder of a lower rank;
# folders of one rank do not include each other.  tests/ and fuzz/ drive
# every part and may include any of them.
rank() {
	case $1 in
	lib) echo 0 ;;                           # leaf helpers used across stages
	checkpoint|security|agent/udtf) echo 1 ;; # leaf modules: lib/ only
	agent/parquet) echo 2 ;;  # typed rows to Parquet's bytes and back
	agent/write) echo 3 ;;    # rows to part files: format, spool
	agent/config) echo 4 ;;   # struct conf (names write's kinds), the keys
	agent/source) echo 5 ;;   # the Kafka consumer
	agent/parse) echo 6 ;;    # a table: its chain, its writer, the rejects
	agent/target) echo 7 ;;   # where parts land: local directory, WebHDFS
	agent/complete) echo 8 ;; # an hour's manifest, progress, on_complete
	agent/publish) echo 9 ;;  # spool to target, then the hour's completion
	agent/ops) echo 10 ;;     # metrics, status, notify
	agent/cli) echo 11 ;;     # verify, report, bench
	agent) echo 12 ;;         # the orchestrators, the only code that logs
	tests|tests/*|fuzz) echo 99 ;;
	*) echo -1 ;;
	esac
}

# The includes that cross the order, each with its reason.  Each names a
# file and the header it includes.
EXCEPTIONS='
agent/config/confkeys.c agent/complete/oncomplete.h
agent/config/confkeys.c agent/ops/metrics_http.h
'
# confkeys.c, the key table, checks metrics.listen with
# metrics_parse_listen() and on_complete's placeholders with
# oncomplete_placeholder(): each value is checked by the module that
# reads it, at check-config time.

exception() {
	printf '%s\n' "$EXCEPTIONS" | grep -qxF "$1 $2"
}

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
trap 'rm -rf "$T"' EXIT

find lib checkpoint security agent tests fuzz -type f \
	\( -name '*.c' -o -name '*.h' \) | sort >"$T/files"
[ -s "$T/files" ] || die "no source file found: run from the repository root"

: >"$T/bad"
while read -r f; do
	dir=${f%/*}
	from=$(rank "$dir")
	[ "$from" -ge 0 ] ||
		echo "$f: folder $dir has no place in tests/integration/layout.sh's order" >>"$T/bad"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
	while IFS= read -r hit; do
		line=${hit%%:*}
		inc=$(printf '%s\n' "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
		where="$f:$line: #include \"$inc\""
		if [ ! -f "$inc" ]; then
			echo "$where: no such file from the top of the tree" >>"$T/bad"
			continue
		fi
		to_dir=${inc%/*}
		[ "$to_dir" != "$dir" ] || continue
		to=$(rank "$to_dir")
		[ "$from" -ge 0 ] || continue
		if [ "$to" -lt 0 ] || [ "$to" -ge 99 ] ||
		    { [ "$from" -lt 99 ] && [ "$to" -ge "$from" ]; }; then
			exception "$f" "$inc" ||
				echo "$where: $dir may not include $to_dir (not upstream of it)" >>"$T/bad"
		fi
	done
done <"$T/files"

if [ -s "$T/bad" ]; then
	cat "$T/bad" >&2
	die "$(wc -l <"$T/bad") include(s) break the layout rule"
fi

# Each exception must still be needed, or it goes.
printf '%s\n' "$EXCEPTIONS" | while read -r f inc; do
	[ -n "$f" ] || continue
	grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$inc\"" "$f" 2>/dev/null ||
		die "exception \"$f $inc\": $f no longer includes $inc; remove it"
done
echo "layout: $(wc -l <"$T/files") files, every include upstream or own"
