#!/usr/bin/env bash
# Push benchmark (release build): COUNT APNs deliveries end to end (outbox rows in SQLite or in
# the PostgreSQL database given, the delivery worker, HTTP/2 through the push client,
# the APNs look-alike `herald sandbox` over TLS, every outcome recorded), then the same COUNT
# pushes sent by aioapns (Debian's python3-aioapns, scripts/bench-push-aioapns.py) to the same
# sandbox.
#
# herald: `herald bench push-seed` registers COUNT APNs devices (one per user) and publishes one
# notification with push to all of them with no worker running; the clock starts as
# `herald serve` starts and stops when /metrics counts COUNT deliveries recorded sent.
# aioapns: the clock starts after one warm-up push has opened a connection.
# The sandbox restarts on the same state directory, key, certificate and port between the two
# sides: it remembers the provider token it adopted and, as APNs does, would refuse the second
# client's new token within 20 minutes (TooManyProviderTokenUpdates).
#
# The last line is exactly `push: herald <N>/s, aioapns <M>/s, ratio <N/M>, herald <U> us per
# delivery`, the ratio with one decimal; <U> is the CPU `herald serve` used (user and system, from
# /proc/<pid>/stat, its start included) divided by COUNT.
#
#   scripts/bench-push.sh [DATABASE_URL]   (default: a fresh SQLite file in a temp dir; a
#                                          postgres:// URL must name an empty database)
#                                    BENCH_PUSH_COUNT=100000 BENCH_AIOAPNS_CONNECTIONS=10
#                                    BENCH_SANDBOX_PORT=18490 BENCH_PORT=18491
#                                    BENCH_SCRATCH_PATH=DIR (swift build's --scratch-path)
#                                    BENCH_HERALD=PATH (run this herald binary instead of building one)
#                                    BENCH_SERVERS=N (PostgreSQL only: N `herald serve` processes
#                                    share the outbox, on ports BENCH_PORT...; rate and CPU are of
#                                    all of them, and the sandbox must have answered 200 exactly
#                                    COUNT times: no delivery sent twice)
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT="${BENCH_PUSH_COUNT:-100000}"
AIOAPNS_CONNECTIONS="${BENCH_AIOAPNS_CONNECTIONS:-10}"
SANDBOX_PORT="${BENCH_SANDBOX_PORT:-18490}"
PORT="${BENCH_PORT:-18491}"
WORK="$(mktemp -d)"
DATABASE="${1:-sqlite:$WORK/push.db}"
SERVERS="${BENCH_SERVERS:-1}"
case "$SERVERS" in '' | *[!0-9]* | 0) echo "BENCH_SERVERS must be a positive number" >&2; exit 2 ;; esac
if [ "$SERVERS" -gt 1 ] && [ "${DATABASE#postgres}" = "$DATABASE" ]; then
    echo "BENCH_SERVERS=$SERVERS needs a postgres:// DATABASE_URL (SQLite is one process's)" >&2
    exit 2
fi
SECRET="bench-user-token-secret-$(date +%s)-0123456789"

missing=""
for package in curl python3-aioapns python3-uvloop; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
fi

. scripts/bench-herald.sh  # sets HERALD

stop() {  # PID variable name
    local pid="${!1:-}"
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    eval "$1=''"
}
SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
cleanup() {
    stop_servers
    stop SANDBOX_PID
    rm -rf "$WORK"
}
trap cleanup EXIT

start_sandbox() {
    rm -f "$WORK/sandbox/herald.env"
    "$HERALD" sandbox --port "$SANDBOX_PORT" --state-dir "$WORK/sandbox" 2>>"$WORK/sandbox.log" &
    SANDBOX_PID=$!
    for _ in $(seq 1 100); do
        [ -f "$WORK/sandbox/herald.env" ] && return
        sleep 0.1
    done
    echo "the sandbox did not start:" >&2
    cat "$WORK/sandbox.log" >&2
    exit 1
}

# Deliveries recorded sent, from each server's /metrics (0 until it answers), summed.
sent() {
    local index total=0 count
    for ((index = 0; index < SERVERS; index++)); do
        count=$(curl -sf "http://127.0.0.1:$((PORT + index))/metrics" 2>/dev/null |
            awk '/^herald_push_deliveries_total\{provider="apns",outcome="sent"\}/ { print $2; found = 1 }
                 END { if (!found) print 0 }')
        total=$((total + count))
    done
    echo "$total"
}

start_sandbox
echo "seeding $COUNT APNs deliveries into $DATABASE" >&2
"$HERALD" bench push-seed --devices "$COUNT" --database "$DATABASE" >&2

started=$(date +%s.%N)
for ((index = 0; index < SERVERS; index++)); do
    (
        set -a
        . "$WORK/sandbox/herald.env"
        set +a
        exec "$HERALD" serve --port "$((PORT + index))" --database "$DATABASE" --user-token-secret "$SECRET" \
            --log-level warning
    ) 2>"$WORK/server-$index.log" &
    SERVER_PIDS+=($!)
done
deadline=$(($(date +%s) + 600))
while [ "$(sent)" -lt "$COUNT" ]; do
    for pid in "${SERVER_PIDS[@]}"; do
        if [ "$(date +%s)" -gt "$deadline" ] || ! kill -0 "$pid" 2>/dev/null; then
            echo "herald did not send $COUNT deliveries: $(sent) sent" >&2
            tail -n 20 "$WORK"/server-*.log >&2
            exit 1
        fi
    done
    sleep 0.1  # each poll is a curl process: polling faster takes CPU from herald
done
finished=$(date +%s.%N)
# The servers' CPU so far (user + system clock ticks, fields 14 and 15 of /proc/<pid>/stat).
HERALD_TICKS=0
for pid in "${SERVER_PIDS[@]}"; do
    HERALD_TICKS=$((HERALD_TICKS + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
done
HERALD_US=$(awk -v t="$HERALD_TICKS" -v hz="$(getconf CLK_TCK)" -v n="$COUNT" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
for ((index = 0; index < SERVERS; index++)); do
    echo "server $index: $(curl -sf "http://127.0.0.1:$((PORT + index))/metrics" | grep '^herald_push_deliveries_total' | tr '\n' ' ')" >&2
done
HERALD_RATE=$(awk -v n="$COUNT" -v a="$started" -v b="$finished" 'BEGIN { printf "%d", n / (b - a) }')
echo "herald $HERALD_RATE/s ($COUNT deliveries in $(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.2f", b - a }') s, $SERVERS server(s))" >&2
stop_servers
# What the sandbox answered, by HTTP status (a retry shows here as its refusal); 200 exactly
# COUNT times, or a delivery went out twice.
ANSWERS=$(curl -sf --http2 --cacert "$WORK/sandbox/sandbox-cert.pem" "https://127.0.0.1:$SANDBOX_PORT/admin/apns/accepted" |
    /usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["statusCounts"]))')
echo "sandbox answers: $ANSWERS" >&2
ACCEPTED=$(echo "$ANSWERS" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin).get("200", 0))')
if [ "$ACCEPTED" -ne "$COUNT" ]; then
    echo "the sandbox accepted $ACCEPTED pushes for $COUNT deliveries" >&2
    exit 1
fi

stop SANDBOX_PID
start_sandbox
AIOAPNS_LINE=$(/usr/bin/python3 scripts/bench-push-aioapns.py "$WORK/sandbox/herald.env" "$COUNT" "$AIOAPNS_CONNECTIONS")
echo "$AIOAPNS_LINE" >&2
AIOAPNS_RATE=$(echo "$AIOAPNS_LINE" | awk '{ sub("/s", "", $2); print $2 }')
case "$AIOAPNS_LINE" in *", 0 failed)"*) ;; *) echo "aioapns had failures" >&2; exit 1 ;; esac

echo "push: herald $HERALD_RATE/s, aioapns $AIOAPNS_RATE/s, ratio $(awk -v a="$HERALD_RATE" -v b="$AIOAPNS_RATE" 'BEGIN { printf "%.1f", a / b }'), herald $HERALD_US us per delivery"
