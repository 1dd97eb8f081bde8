#!/usr/bin/env bash
# `make run`: starts the push provider sandbox (`herald sandbox`) in the background and
# `herald serve` on 127.0.0.1:8080 with ./herald.db, sending APNs, FCM and Expo pushes to the
# sandbox through its herald.env. Prints a development API key, a user token and curl lines to try. The
# sandbox stops when the server does. HERALD_BIN runs another build of herald (the tests use
# the debug one).
set -euo pipefail
cd "$(dirname "$0")/.."
HERALD="${HERALD_BIN:-$(swift build -c release --show-bin-path)/herald}"
DATABASE="${HERALD_DATABASE_URL:-sqlite:./herald.db}"
PORT="${HERALD_PORT:-8080}"
SANDBOX_DIR="${HERALD_SANDBOX_STATE_DIR:-./.herald-sandbox}"
SANDBOX_PORT="${HERALD_SANDBOX_PORT:-8090}"

# The sandbox writes herald.env on each start; an old one must not be mistaken for its start.
rm -f "$SANDBOX_DIR/herald.env"
"$HERALD" sandbox --port "$SANDBOX_PORT" --state-dir "$SANDBOX_DIR" &
SANDBOX_PID=$!
trap 'kill -TERM "$SANDBOX_PID" 2>/dev/null || true; wait "$SANDBOX_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    [ -f "$SANDBOX_DIR/herald.env" ] && break
    kill -0 "$SANDBOX_PID" 2>/dev/null || { echo "herald sandbox did not start" >&2; exit 1; }
    sleep 0.1
done
[ -f "$SANDBOX_DIR/herald.env" ] || { echo "herald sandbox wrote no $SANDBOX_DIR/herald.env" >&2; exit 1; }
set -a
# shellcheck disable=SC1091
. "$SANDBOX_DIR/herald.env"
set +a

"$HERALD" migrate --database "$DATABASE" >/dev/null
KEY=$("$HERALD" keys create --name development --database "$DATABASE" | tail -n 1)
TOKEN=$("$HERALD" token --user dev-user --database "$DATABASE" | tail -n 1)
DEVICE=$(printf 'de%.0s' $(seq 32))
FCM_DEVICE="dev-fcm-token:APA91b$(printf 'x%.0s' $(seq 100))"
EXPO_DEVICE="ExponentPushToken[dev-expo-device-0001]"

cat <<MSG

  Herald on http://127.0.0.1:$PORT  (database $DATABASE)
  Push sandbox (APNs, FCM, Expo) on $HERALD_APNS_BASE_URL  (state in $SANDBOX_DIR; pushes go there)

  Console:            http://127.0.0.1:$PORT/console  (sign in with the publisher API key)
  Publisher API key:  $KEY
  User token (dev-user, 24 h):
    $TOKEN

  Try:
    curl -s -X POST http://127.0.0.1:$PORT/v1/me/devices \\
      -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
      -d '{"token":"$DEVICE","provider":"apns","platform":"ios"}'
    curl -s -X POST http://127.0.0.1:$PORT/v1/me/devices \\
      -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
      -d '{"token":"$FCM_DEVICE","provider":"fcm","platform":"android"}'
    curl -s -X POST http://127.0.0.1:$PORT/v1/me/devices \\
      -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
      -d '{"token":"$EXPO_DEVICE","provider":"expo","platform":"ios"}'
    "$HERALD" send --url http://127.0.0.1:$PORT --api-key $KEY \\
      --user dev-user --type order.shipped --title "Your order shipped" --body "Arrives Friday"
    curl -s --cacert "$HERALD_APNS_CA_FILE" $HERALD_APNS_BASE_URL/admin/apns/accepted
    curl -s --cacert "$HERALD_APNS_CA_FILE" $HERALD_APNS_BASE_URL/admin/fcm/accepted
    curl -s --cacert "$HERALD_APNS_CA_FILE" $HERALD_APNS_BASE_URL/admin/expo/accepted
    curl -s http://127.0.0.1:$PORT/v1/me/notifications -H "Authorization: Bearer $TOKEN"
    curl -sN http://127.0.0.1:$PORT/v1/me/stream -H "Authorization: Bearer $TOKEN"

MSG
# In the background, so that SIGTERM and SIGINT (Ctrl-C) reach this script, which passes them on
# and waits for the server to finish its requests; the EXIT trap then stops the sandbox.
"$HERALD" serve --port "$PORT" --database "$DATABASE" &
SERVER_PID=$!
trap 'kill -TERM "$SERVER_PID" 2>/dev/null || true' TERM INT
while kill -0 "$SERVER_PID" 2>/dev/null; do
    STATUS=0
    wait "$SERVER_PID" || STATUS=$?  # a signal ends the wait early; then wait again
done
exit "$STATUS"
