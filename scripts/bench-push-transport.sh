#!/usr/bin/env bash
# HTTP/2 transport benchmark: 10,000 small POSTs through HeraldPush's HTTP2Client
# (`herald bench transport`, release build) to nghttpd over TLS on loopback, WINDOW in flight at
# a time. Sizes the push target of 20,000 deliveries/s. One result line per server mode.
#
#   scripts/bench-push-transport.sh [COUNT] [WINDOW] [CONNECTIONS]   (10000 500 2)
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT="${1:-10000}"
WINDOW="${2:-500}"
CONNECTIONS="${3:-2}"
PORT="${BENCH_PORT:-18451}"
WORK="$(mktemp -d)"
command -v nghttpd >/dev/null || { echo "nghttpd is missing: make deps (or apt-get install nghttp2-server)" >&2; exit 1; }

cleanup() {
    [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
BUILD=(swift build -c release ${BENCH_SCRATCH_PATH:+--scratch-path "$BENCH_SCRATCH_PATH"})
"${BUILD[@]}" --product herald >&2
HERALD="$("${BUILD[@]}" --show-bin-path)/herald"
run() {  # NAME, nghttpd options...
    local name="$1"; shift
    mkdir -p "$WORK/$name/3/device" && : >"$WORK/$name/3/device/abc"
    nghttpd "$@" -d "$WORK/$name" "$PORT" "$WORK/key.pem" "$WORK/cert.pem" &
    SERVER_PID=$!
    sleep 0.5
    echo "$name:"
    "$HERALD" bench transport --url "https://127.0.0.1:$PORT/3/device/abc" --ca-file "$WORK/cert.pem" \
        --count "$COUNT" --window "$WINDOW" --connections "$CONNECTIONS"
    kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
# nghttpd answers a static file without reading the upload (fast; it ends a connection with
# GOAWAY after ~1,000 reset streams, and the client resets none), or
# echoes it after reading it (as APNs reads it, but nghttpd spools it to a temporary file).
run discarding-server
run echoing-server --echo-upload
