#!/usr/bin/env bash
# Publish benchmark (release build): seeds 1,000,000 notifications across 10,000 users and 1,000
# users with an APNs device each, then times POST /v1/notifications of one notification with push
# to those 1,000 users, one request at a time (each writes 1,000 inbox rows, 1,000 delivery rows,
# the counters and the stream events in one transaction). No provider is configured, so the
# delivery worker ends each row at once (provider_not_configured): the figure is the publish.
# The last line is the summary.
#
#   scripts/bench-publish.sh [DATABASE_URL]      (default: a fresh SQLite file in a temp dir)
#   BENCH_PUBLISHES=50 BENCH_USERS=10000 BENCH_NOTIFICATIONS=1000000 BENCH_PORT=18081
#   BENCH_SCRATCH_PATH=DIR (swift build's --scratch-path)
#   BENCH_HERALD=PATH (run this herald binary instead of building one)
#   BENCH_SEEDED=FILE (SQLite only: the first run saves the seeded database there, later runs copy
#                      it instead of seeding again, so a before/after pair measures the same data)
set -euo pipefail
cd "$(dirname "$0")/.."

PUBLISHES="${BENCH_PUBLISHES:-50}"
USERS="${BENCH_USERS:-10000}"
NOTIFICATIONS="${BENCH_NOTIFICATIONS:-1000000}"
PORT="${BENCH_PORT:-18081}"
RECIPIENTS=1000
WORK="$(mktemp -d)"
DATABASE="${1:-sqlite:$WORK/bench.db}"

. scripts/bench-herald.sh  # sets HERALD
SEEDED="${BENCH_SEEDED:-}"
if [ -n "$SEEDED" ] && [ -n "${1:-}" ]; then
    echo "BENCH_SEEDED keeps a SQLite file; it cannot be used with a DATABASE_URL" >&2
    exit 2
fi

cleanup() {
    [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# What a saved database was seeded with: a mismatch is refused. (A binary older than the one that
# seeded it refuses the newer schema itself.)
SEEDED_WITH="users=$USERS notifications=$NOTIFICATIONS recipients=$RECIPIENTS"
if [ -n "$SEEDED" ] && [ -f "$SEEDED" ]; then
    if [ "$(cat "$SEEDED.params" 2>/dev/null)" != "$SEEDED_WITH" ]; then
        echo "$SEEDED was seeded with '$(cat "$SEEDED.params" 2>/dev/null)', not '$SEEDED_WITH': remove it to seed again" >&2
        exit 2
    fi
    echo "copying the seeded database $SEEDED" >&2
    cp "$SEEDED" "$WORK/bench.db"
    [ ! -f "$SEEDED-wal" ] || cp "$SEEDED-wal" "$WORK/bench.db-wal"
else
    echo "seeding $NOTIFICATIONS notifications across $USERS users into $DATABASE" >&2
    "$HERALD" bench seed --users "$USERS" --notifications "$NOTIFICATIONS" --database "$DATABASE" | tail -n 1 >&2
    # One APNs device for each of bench-push-user-0 ... 999 (and one published push to them).
    "$HERALD" bench push-seed --devices "$RECIPIENTS" --database "$DATABASE" >&2
    if [ -n "$SEEDED" ]; then
        # A copy made before the API key and the measured publishes (push-seed published one),
        # with its WAL if a process left one.
        cp "$WORK/bench.db" "$SEEDED"
        echo "$SEEDED_WITH" >"$SEEDED.params"
        rm -f "$SEEDED-wal"
        [ ! -f "$WORK/bench.db-wal" ] || cp "$WORK/bench.db-wal" "$SEEDED-wal"
    fi
fi
KEY="$("$HERALD" keys create --name bench --database "$DATABASE" | tail -n 1)"

"$HERALD" serve --port "$PORT" --database "$DATABASE" --log-level warning --publisher-rate 0 \
    2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done

python3 - "$RECIPIENTS" >"$WORK/publish.json" <<'PY'
import json, sys
count = int(sys.argv[1])
print(json.dumps({
    "recipients": [f"bench-push-user-{i}" for i in range(count)],
    "type": "order.shipped", "title": "Your order shipped", "body": "It arrives on Friday.",
    "data": {"orderId": "42"}, "push": {"send": True},
}))
PY

publish() {
    curl -s -o "$WORK/answer.json" -w '%{http_code} %{time_total}\n' -X POST \
        -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
        --data-binary "@$WORK/publish.json" "http://127.0.0.1:$PORT/v1/notifications"
}

for _ in 1 2 3; do publish >/dev/null; done  # warm up
: >"$WORK/times.txt"
for _ in $(seq 1 "$PUBLISHES"); do
    read -r STATUS SECONDS_TAKEN < <(publish)
    if [ "$STATUS" != 202 ]; then
        echo "publish answered $STATUS: $(cat "$WORK/answer.json")" >&2
        exit 1
    fi
    echo "$SECONDS_TAKEN" >>"$WORK/times.txt"
done
STORED="$(( NOTIFICATIONS + RECIPIENTS * (PUBLISHES + 4) ))"
kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""

python3 - "$WORK/times.txt" "$PUBLISHES" "$RECIPIENTS" "$STORED" <<'PY'
import statistics, sys
times = sorted(float(line) * 1000 for line in open(sys.argv[1]) if line.strip())
count, recipients, stored = sys.argv[2], sys.argv[3], int(sys.argv[4])
p99 = times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
print(f"publish: {count} publishes of {recipients} recipients with push at {stored:,} stored, "
      f"median {statistics.median(times):.1f} ms, p99 {p99:.1f} ms")
PY
