#!/bin/sh
# The command of output.on_complete.  Appends one line per call to
# $HOOK_DIR/calls, "start RUN | ARGUMENTS | KEDGE_* VARIABLES", then does
# what $HOOK_DIR/mode says and, when it succeeds, appends
# "ok RUN DT HR REVISION":
#   ok     exits 0
#   slow   exits 0 after 1 s (so that kills land while it runs)
#   fail2  fails the first two calls of each revision, exit status 3
#   hang   hangs on the first call of each revision, until killed
set -u
d=$HOOK_DIR
echo "start ${RUN:-} | $* | $KEDGE_TABLE $KEDGE_DT $KEDGE_HR $KEDGE_REVISION" \
	"$KEDGE_ROWS $KEDGE_PATH" >>"$d/calls"
key=$KEDGE_TABLE.$KEDGE_DT.$KEDGE_HR.$KEDGE_REVISION
case $(cat "$d/mode") in
slow) sleep 1 ;;
fail2)
	n=$(cat "$d/tries.$key" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$d/tries.$key"
	if [ "$n" -lt 2 ]; then
		echo "the metastore said no" >&2
		echo "boom $n" >&2
		exit 3
	fi ;;
hang)
	if [ ! -e "$d/hung.$key" ]; then
		: >"$d/hung.$key"
		sleep 987
	fi ;;
esac
echo "ok ${RUN:-} $KEDGE_DT $KEDGE_HR $KEDGE_REVISION" >>"$d/calls"
