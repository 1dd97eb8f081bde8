#!/usr/bin/env bash
# JSON body benchmark (release build): the server's CPU per request for analytics bodies whose
# `properties` are nested 500 deep (arrays, then objects), and for an ordinary 100-event
# batch, read from /proc/<pid>/stat around a run of curl requests. One line per body:
#   json: <body>: <bytes> bytes, HTTP <status>, <cpu> ms CPU per request, <wall> ms per request
#
#   scripts/bench-json.sh          BENCH_REQUESTS=20 (deep bodies; ordinary ones run 10x as many)
#   BENCH_SCRATCH_PATH=DIR (swift build's --scratch-path)
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS="${BENCH_REQUESTS:-20}"
WORK="$(mktemp -d)"
SECRET="bench-user-token-secret-$(date +%s)-0123456789"

. scripts/bench-herald.sh  # sets HERALD

cleanup() {
    [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"$HERALD" serve --port 0 --database sqlite::memory: --user-token-secret "$SECRET" --log-level info \
    2>"$WORK/server.log" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 100); do
    PORT="$(sed -n 's/.*herald listening.* port=\([0-9]*\).*/\1/p' "$WORK/server.log" | head -n 1)"
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { echo "herald serve did not start:" >&2; cat "$WORK/server.log" >&2; exit 1; }
TOKEN="$("$HERALD" token --user bench-json --database sqlite::memory: --user-token-secret "$SECRET" | tail -n 1)"

python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
event = '{"name":"bench_event","at":"2026-11-29T10:00:00Z","properties":%s}'
def batch(properties, count=1):
    return '{"events":[' + ",".join([event % properties] * count) + ']}'
open(work + "/deep-arrays.json", "w").write(batch('{"p":' + "[" * 500 + "]" * 500 + "}"))
open(work + "/deep-objects.json", "w").write(batch('{"p":' + '{"a":' * 500 + "1" + "}" * 500 + "}"))
open(work + "/ordinary.json", "w").write(batch('{"source":"home","count":2,"tags":["a","b"]}', 100))
PY

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
TICK_MS=$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN { print 1000 / hz }')

measure() {
    local name=$1 file=$2 count=$3
    local status before after started ended
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' --data-binary "@$file" "http://127.0.0.1:$PORT/v1/me/events")
    before=$(cpu_ticks)
    started=$(date +%s%N)
    for _ in $(seq 1 "$count"); do
        curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
            --data-binary "@$file" "http://127.0.0.1:$PORT/v1/me/events"
    done
    ended=$(date +%s%N)
    after=$(cpu_ticks)
    awk -v name="$name" -v bytes="$(stat -c %s "$file")" -v status="$status" -v ticks=$((after - before)) \
        -v tick="$TICK_MS" -v count="$count" -v wall=$((ended - started)) 'BEGIN {
        printf "json: %s: %d bytes, HTTP %s, %.2f ms CPU per request, %.2f ms per request\n",
            name, bytes, status, ticks * tick / count, wall / 1e6 / count }'
}

measure "properties nested 500 deep (arrays)" "$WORK/deep-arrays.json" "$REQUESTS"
measure "properties nested 500 deep (objects)" "$WORK/deep-objects.json" "$REQUESTS"
measure "ordinary batch of 100 events" "$WORK/ordinary.json" $((REQUESTS * 10))
