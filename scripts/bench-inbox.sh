#!/usr/bin/env bash
# Inbox benchmark (release build): seeds 1,000,000 notifications across 10,000 users, then
# measures GET /healthz and GET /v1/me/notifications?limit=20 with wrk on loopback at
# 64 connections, tokens spread over the users. The last line is the summary.
#
#   scripts/bench-inbox.sh [DATABASE_URL]      (default: a fresh SQLite file in a temp dir)
#   BENCH_DURATION=10s BENCH_USERS=10000 BENCH_NOTIFICATIONS=1000000 BENCH_PORT=18080
#   BENCH_SCRATCH_PATH=DIR (swift build's --scratch-path), BENCH_SERVE_FLAGS="..." (more serve flags),
#   BENCH_HERALD=PATH (run this herald binary instead of building one)
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${BENCH_DURATION:-10s}"
USERS="${BENCH_USERS:-10000}"
NOTIFICATIONS="${BENCH_NOTIFICATIONS:-1000000}"
PORT="${BENCH_PORT:-18080}"
CONNECTIONS=64
WORK="$(mktemp -d)"
DATABASE="${1:-sqlite:$WORK/bench.db}"
SECRET="bench-user-token-secret-$(date +%s)-0123456789"

command -v wrk >/dev/null || { echo "wrk is missing: make deps (or apt-get install wrk)" >&2; exit 1; }
. scripts/bench-herald.sh  # sets HERALD

cleanup() {
    [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "seeding $NOTIFICATIONS notifications across $USERS users into $DATABASE" >&2
"$HERALD" bench seed --users "$USERS" --notifications "$NOTIFICATIONS" --database "$DATABASE" | tail -n 1 >&2
"$HERALD" bench tokens --users "$USERS" --output "$WORK/tokens.txt" --database "$DATABASE" \
    --user-token-secret "$SECRET" >&2

# shellcheck disable=SC2086 # BENCH_SERVE_FLAGS is a list of flags
"$HERALD" serve --port "$PORT" --database "$DATABASE" --user-token-secret "$SECRET" --log-level warning \
    ${BENCH_SERVE_FLAGS:-} 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done

cat >"$WORK/inbox.lua" <<LUA
local tokens = {}
for line in io.lines("$WORK/tokens.txt") do tokens[#tokens + 1] = line end
local counter = 0
function setup(thread)
    counter = counter + 1
    thread:set("offset", counter * 7919)
end
function init(args)
    math.randomseed(os.time() + offset)
end
function request()
    local token = tokens[math.random(#tokens)]
    return wrk.format("GET", "/v1/me/notifications?limit=20", { ["Authorization"] = "Bearer " .. token })
end
function done(summary, latency, requests)
    io.write(string.format("p99_us %d\n", latency:percentile(99)))
    io.write(string.format("non2xx %d\n", summary.errors.status))
end
LUA

# Warm up both paths, then measure.
wrk -t2 -c"$CONNECTIONS" -d2s "http://127.0.0.1:$PORT/healthz" >/dev/null
wrk -t2 -c"$CONNECTIONS" -d2s -s "$WORK/inbox.lua" "http://127.0.0.1:$PORT/" >/dev/null

HEALTH_OUT="$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "http://127.0.0.1:$PORT/healthz")"
INBOX_OUT="$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/inbox.lua" "http://127.0.0.1:$PORT/")"
echo "$HEALTH_OUT" >&2
echo "$INBOX_OUT" >&2

HEALTH_RPS="$(echo "$HEALTH_OUT" | awk '/Requests\/sec/ {print $2}')"
INBOX_RPS="$(echo "$INBOX_OUT" | awk '/Requests\/sec/ {print $2}')"
P99_US="$(echo "$INBOX_OUT" | awk '/^p99_us/ {print $2}')"
NON2XX="$(echo "$INBOX_OUT" | awk '/^non2xx/ {print $2}')"
kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
if [ "${NON2XX:-0}" != "0" ]; then
    echo "inbox run had $NON2XX non-2xx answers" >&2
    exit 1
fi

python3 - "$HEALTH_RPS" "$INBOX_RPS" "$P99_US" <<'PY'
import sys
health, inbox, p99_us = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"inbox: healthz {health:.0f} req/s, inbox {inbox:.0f} req/s, ratio {inbox / health:.2f}, p99 {p99_us / 1000:.2f} ms")
PY
