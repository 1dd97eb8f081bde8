#!/usr/bin/env bash
# HTTP/2 transport benchmark: 10,000 small POSTs through HeraldPush's HTTP2Client (optimized
# build of the transport's sources) to nghttpd over TLS on loopback. Sizes the push target of
# 20,000 deliveries/s; the server here is nghttpd until the sandbox exists. Last line: summary.
#
#   scripts/bench-push-transport.sh [COUNT] [WINDOW] [CONNECTIONS]   (10000 500 2)
set -euo pipefail
cd "$(dirname "$0")/.."

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
swiftc -O -swift-version 6 -module-name HeraldPush -I Sources/CCurl -lcurl \
    Sources/HeraldPush/Transport/*.swift scripts/bench-push-transport/main.swift -o "$WORK/bench" >&2
# APNs answers 200 with an empty body: so does this static file (nghttpd discards the upload).
mkdir -p "$WORK/root/3/device" && : >"$WORK/root/3/device/abc"
nghttpd -d "$WORK/root" "$PORT" "$WORK/key.pem" "$WORK/cert.pem" &
SERVER_PID=$!
sleep 0.5
"$WORK/bench" "https://127.0.0.1:$PORT/3/device/abc" "$WORK/cert.pem" "${1:-10000}" "${2:-500}" "${3:-2}"
