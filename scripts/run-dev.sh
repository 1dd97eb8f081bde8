#!/usr/bin/env bash
# `make run`: starts `herald serve` on 127.0.0.1:8080 with ./herald.db and prints a
# development API key, a user token and curl lines to try.
set -euo pipefail
cd "$(dirname "$0")/.."
HERALD="$(swift build -c release --show-bin-path)/herald"
DATABASE="${HERALD_DATABASE_URL:-sqlite:./herald.db}"
PORT="${HERALD_PORT:-8080}"

"$HERALD" migrate --database "$DATABASE" >/dev/null
KEY=$("$HERALD" keys create --name development --database "$DATABASE" | tail -n 1)
TOKEN=$("$HERALD" token --user dev-user --database "$DATABASE" | tail -n 1)

cat <<MSG

  Herald on http://127.0.0.1:$PORT  (database $DATABASE)

  Publisher API key:  $KEY
  User token (dev-user, 24 h):
    $TOKEN

  Try:
    curl -s -X POST http://127.0.0.1:$PORT/v1/notifications \\
      -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
      -d '{"recipients":["dev-user"],"type":"order.shipped","title":"Your order shipped","body":"Arrives Friday","data":{"orderId":"42"}}'
    curl -s http://127.0.0.1:$PORT/v1/me/notifications -H "Authorization: Bearer $TOKEN"
    curl -sN http://127.0.0.1:$PORT/v1/me/stream -H "Authorization: Bearer $TOKEN"

MSG
exec "$HERALD" serve --port "$PORT" --database "$DATABASE"
