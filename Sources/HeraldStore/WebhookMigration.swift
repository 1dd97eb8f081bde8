extension Migration {
    /// Migration 15: webhook subscriptions and their outbox.
    static func webhookTables(_ d: SQLDialect) -> [String] {
        [
            // One row per subscription. `events` is the JSON array of its event types, as the
            // publisher named them; `secret` signs its deliveries (HMAC-SHA256 key).
            """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY,
                url TEXT NOT NULL,
                events TEXT NOT NULL,
                secret TEXT NOT NULL,
                created_at \(d.bigint) NOT NULL
            )
            """,
            // Who listens to what: an event looks its subscriptions up here, once per transaction.
            """
            CREATE TABLE webhook_events (
                type TEXT NOT NULL,
                webhook_id TEXT NOT NULL,
                PRIMARY KEY (type, webhook_id)
            )
            """,
            // One row per (subscription, event), written in the transaction of the change the event
            // tells of. `seq` orders a subscription's events: only its first open one (pending or
            // sending) is ever claimed. `next_attempt_at` is when a pending row is due, a sending
            // one's lease expiry, NULL once final (delivered, failed). `body` is the JSON POSTed,
            // the same on every attempt; `attempt_log` the attempts as a JSON array, oldest first.
            """
            CREATE TABLE webhook_deliveries (
                seq \(d.sequenceKey),
                id TEXT NOT NULL UNIQUE,
                webhook_id TEXT NOT NULL,
                event_id TEXT NOT NULL,
                type TEXT NOT NULL,
                body TEXT NOT NULL,
                status TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                attempt_log TEXT NOT NULL,
                next_attempt_at \(d.bigint),
                claim_token TEXT,
                created_at \(d.bigint) NOT NULL,
                updated_at \(d.bigint) NOT NULL
            )
            """,
            // A subscription's head: one search per subscription, over open rows only.
            """
            CREATE INDEX webhook_deliveries_open ON webhook_deliveries (webhook_id, seq)
            WHERE next_attempt_at IS NOT NULL
            """,
            // A subscription's deliveries, newest first (GET /v1/webhooks/{id}/deliveries).
            "CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, seq)",
            // Final rows past the retention, pruned hourly.
            """
            CREATE INDEX webhook_deliveries_final ON webhook_deliveries (updated_at)
            WHERE next_attempt_at IS NULL
            """,
        ]
    }
}
