#!/usr/bin/env bash
# Inbox on PostgreSQL against PostgreSQL's own read ceiling, in one run on one throwaway cluster
# (scripts/pg-test-cluster.sh): `pgbench -S -M prepared` at 64 clients (primary-key reads, the
# fastest a client can read from this cluster), then scripts/bench-inbox.sh against the same
# cluster (seeded notifications, the inbox page at 64 connections, herald's default pool of 8
# connections: reads that find them busy go out together in pipelines), then
# pgbench sending the inbox page's own statement (its ceiling on this cluster, printed to stderr).
# The last line is the summary.
#
#   scripts/bench-inbox-postgres.sh
#   BENCH_NOTIFICATIONS (default 1000000), BENCH_USERS, BENCH_DURATION (default 10s), BENCH_HERALD,
#   BENCH_PGBENCH_SCALE (default 10) as for scripts/bench-inbox.sh; BENCH_POOL_SIZE (default 8,
#   herald's own; the figures before 2026-12-08 used 64, where reads then went one to a connection)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec scripts/pg-test-cluster.sh run "$0" "$@"
fi
URL="$HERALD_TEST_POSTGRES_URL"
WORK_PG="$(mktemp -d)"
trap 'rm -rf "$WORK_PG"' EXIT
DURATION="${BENCH_DURATION:-10s}"
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || dirname "$(command -v pgbench)")

echo "pgbench: initializing (scale ${BENCH_PGBENCH_SCALE:-10})" >&2
"$BIN/pgbench" -i -q -s "${BENCH_PGBENCH_SCALE:-10}" "$URL" >&2 2>/dev/null
PGBENCH_OUT="$("$BIN/pgbench" -S -M prepared -c 64 -j 2 -T "${DURATION%s}" "$URL" 2>/dev/null)"
echo "$PGBENCH_OUT" >&2
TPS="$(echo "$PGBENCH_OUT" | awk '/^tps = / {print $3; exit}')"

INBOX_LINE="$(BENCH_SERVE_FLAGS="--database-pool-size ${BENCH_POOL_SIZE:-8} ${BENCH_SERVE_FLAGS:-}" scripts/bench-inbox.sh "$URL" | tail -n 1)"
echo "$INBOX_LINE" >&2
INBOX_RPS="$(echo "$INBOX_LINE" | sed -E 's/.*inbox ([0-9]+) req\/s.*/\1/')"
P99="$(echo "$INBOX_LINE" | sed -E 's/.*p99 ([0-9.]+) ms.*/\1/')"

# The ceiling for the inbox's own statement: pgbench sends the page-and-counts statement of
# InboxStatements.pageWithCountsQuery (as herald writes it for PostgreSQL; keep the two alike)
# for random seeded users, prepared, at 64 clients, against the rows bench-inbox.sh seeded.
# What herald reaches against this is what herald costs; against `pgbench -S`, what the page
# costs the database as well.
cat >"$WORK_PG/inbox.sql" <<SQL
\\set u random(0, ${BENCH_USERS:-10000} - 1)
SELECT 0 AS kind, NULL AS seq, NULL AS list_json, NULL AS read_at, NULL AS seen_at, unread, unseen
FROM user_counters WHERE user_id = 'bench-user-' || :u
UNION ALL
SELECT 1, seq, list_json, read_at, seen_at, NULL, NULL FROM (
    SELECT seq, list_json, read_at, seen_at FROM notifications
    WHERE user_id = 'bench-user-' || :u AND deleted_at IS NULL AND hidden = 0 AND seq < 9223372036854775807
    ORDER BY seq DESC LIMIT 21) AS page;
SQL
STATEMENT_OUT="$("$BIN/pgbench" -n -f "$WORK_PG/inbox.sql" -M prepared -c 64 -j 2 -T "${DURATION%s}" "$URL" 2>/dev/null)"
STATEMENT_TPS="$(echo "$STATEMENT_OUT" | awk '/^tps = / {print $3; exit}')"
python3 - "$TPS" "$STATEMENT_TPS" "$INBOX_RPS" <<'PY' >&2
import sys
tps, statement, inbox = (float(value) for value in sys.argv[1:])
print(f"the inbox statement through pgbench: {statement:.0f} tps ({statement / tps:.2f} of pgbench -S); "
      f"herald's inbox {inbox / statement:.2f} of it")
PY

python3 - "$TPS" "$INBOX_RPS" "$P99" <<'PY'
import sys
tps, inbox, p99 = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"inbox-postgres: pgbench {tps:.0f} tps, inbox {inbox:.0f} req/s, ratio {inbox / tps:.2f}, p99 {p99:.2f} ms")
PY
