#!/bin/sh
# The metrics listener cannot be held shut.  16 connections from each of
# four local addresses (127.0.0.2..5: the per-address limit, and together
# every slot there is) each send a request line and then one header line a
# second, never finishing the request, so that no idle time limit ever
# closes them.  While all 64 are held (each accepted by the server, as the
# listening socket's accept queue shows), a fresh scrape from 127.0.0.1 is
# answered: the server keeps a slot for a new peer by closing the oldest
# connection.  And each of the 64 is closed by the server within its bound
# on a request's whole time, however busy the client keeps it.  kedge
# runs with brokers that do not answer: the server needs no Kafka.
set -eu
. tests/lib.sh

T=$(mktemp -d /tmp/kedge-it.XXXXXX)
KPID=
HPID=
trap '[ -z "$HPID" ] || kill "$HPID" 2>/dev/null; [ -z "$KPID" ] || kill "$KPID" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

command -v python3 >/dev/null || die "python3 is not installed"
PORT=$(free_port)
URL=http://127.0.0.1:$PORT/metrics
cat >"$T/kedge.conf" <<CONF
kafka = { brokers = "127.0.0.1:1"; group_id = "held"; };
tables = ( { name = "t"; topics = [ "t" ]; udtf = "raw"; } );
output = { spool_dir = "$T/spool"; local_dir = "$T/out"; };
metrics = { listen = "127.0.0.1:$PORT"; };
CONF
timeout 120 $KEDGE run -c "$T/kedge.conf" 2>"$T/kedge.log" &
KPID=$!
wait_for "kedge to serve metrics" 20 curl -fs --max-time 3 -o /dev/null "$URL"

# The slow clients: "held" once all 64 are accepted, then one line per
# closed connection ("closed A N": from 127.0.0.A, after N header lines),
# then "done" once every one is closed, or after 60 lines ("gave up").
python3 - "$PORT" >"$T/held" 2>"$T/held.err" <<'PY' &
import select, socket, sys, time
port = int(sys.argv[1])

def accept_queue():
    """The listening socket's accept queue (/proc/net/tcp's rx_queue)."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[1].endswith(":%04X" % port) and fields[3] == "0A":
                return int(fields[4].split(":")[1], 16)
    raise SystemExit("no listening socket on port %d" % port)

def accepted():
    for _ in range(100):
        if accept_queue() == 0:
            return
        time.sleep(0.1)
    raise SystemExit("the server accepts no more connections")

conns = {}
for a in range(2, 6):
    for i in range(16):
        s = socket.socket()
        s.bind(("127.0.0.%d" % a, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        conns[s] = a
        accepted()
print("held", flush=True)
for n in range(1, 61):
    for s in list(conns):
        r, _, _ = select.select([s], [], [], 0)
        closed = False
        try:
            if r and s.recv(4096) == b"":
                closed = True
            else:
                s.sendall(b"X-Slow-%d: y\r\n" % n)
        except OSError:
            closed = True
        if closed:
            print("closed %d %d" % (conns.pop(s), n), flush=True)
            s.close()
    if not conns:
        print("done", flush=True)
        break
    time.sleep(1)
else:
    print("gave up: %d still open" % len(conns), flush=True)
time.sleep(120)
PY
HPID=$!
# held: the slow clients hold their 64 connections; fails the test if
# they died.
held() {
	grep -q '^held$' "$T/held" && return 0
	kill -0 "$HPID" 2>/dev/null || die "slow clients: $(cat "$T/held.err")"
	return 1
}
wait_for "64 slow connections to be held" 60 held
curl -fs --max-time 5 -o "$T/scrape" "$URL" ||
	die "no scrape answered while 64 slow connections are held"
grep -q '^kedge_up 1$' "$T/scrape" || die "scrape: $(head -3 "$T/scrape")"
wait_for "the server to close every slow connection" 90 sh -c \
	"grep -q '^done$\|^gave up' '$T/held'"
grep -q '^done$' "$T/held" ||
	die "slow connections outlived the bound: $(tail -1 "$T/held")"
[ "$(grep -c '^closed ' "$T/held")" -eq 64 ] ||
	die "closed: $(grep -c '^closed ' "$T/held") of 64"
curl -fs --max-time 5 -o /dev/null "$URL" || die "no scrape after the slow clients"
kill -0 "$KPID" 2>/dev/null || die "kedge exited: $(tail -3 "$T/kedge.log")"
echo "ok: a scrape answered with 64 slow connections held; each closed after" \
	"$(awk '/^closed/ { if ($3 > m) m = $3 } END { print m }' "$T/held") header lines at most"
