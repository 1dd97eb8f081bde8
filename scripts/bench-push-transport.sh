#!/usr/bin/env bash
# HTTP/2 transport benchmark: COUNT small POSTs through HeraldPush's HTTP2Client
# (`herald bench transport`, release build) over TLS on loopback, WINDOW in flight at a time, to
# the sandbox's own HTTP/2 server in the same process: once answering each POST on its HEADERS
# without reading the body, once after reading it. Sizes the push target of 20,000
# deliveries/s. One result line per server mode; the server threads' CPU is reported apart from
# the client's.
#
#   scripts/bench-push-transport.sh [COUNT] [WINDOW] [CONNECTIONS]   (10000 500 2)
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT="${1:-10000}"
WINDOW="${2:-500}"
CONNECTIONS="${3:-2}"
. scripts/bench-herald.sh  # sets HERALD
"$HERALD" bench transport --count "$COUNT" --window "$WINDOW" --connections "$CONNECTIONS"
