extension Option {
    /// The `serve` flags of webhooks.
    static let webhooks: [Option] = [
        .toggle(
            "webhook-allow-private-addresses", twin: .standard,
            """
            Let webhooks reach loopback, private, link-local and other
            non-public addresses (development, receivers on a private
            network) {twin} (default: refused)
            """),
        .value(
            "max-webhooks", "N",
            """
            Webhook subscriptions at most, 1 to 10000; one more gets
            409 too_many_webhooks {twin} (default 25)
            """),
        .value(
            "webhook-timeout", "SECONDS",
            """
            One attempt's limit, lookup to response head, 0.1 to 300
            {twin} (default 10)
            """),
        .value(
            "webhook-retry-base", "SECONDS",
            """
            First retry's backoff ceiling, doubling per attempt
            {twin} (default 10)
            """),
        .value("webhook-retry-cap", "SECONDS", "Longest wait between attempts {twin} (default 3600)"),
        .value(
            "webhook-max-attempts", "N",
            """
            Attempts before an event's delivery fails, 1 to 100
            {twin} (default 20)
            """),
        .value(
            "webhook-max-age", "SECONDS",
            """
            An event is not tried after this long: it fails, and the
            next goes {twin} (default 259200, 3 days)
            """),
        .value(
            "webhook-concurrency", "N",
            """
            Attempts in flight at once (one per subscription)
            {twin} (default 16)
            """),
        .value(
            "webhook-retention", "SECONDS",
            """
            How long delivered and failed deliveries stay listed
            {twin} (default 604800, 7 days)
            """),
        .value(
            "webhook-max-response-bytes", "N",
            """
            Most of a response body read (and dropped) before closing
            {twin} (default 65536)
            """),
        .value(
            "webhook-ca-file", "PATH",
            """
            PEM certificates to trust for https receivers instead of
            the system's {twin}
            """),
    ]
}

extension Arguments {
    /// The webhook settings, defaults for what is not given.
    func webhookSettings() throws -> WebhookSettings {
        var settings = WebhookSettings()
        settings.allowPrivateAddresses = try flag("webhook-allow-private-addresses")
        settings.maxSubscriptions = try int(
            "max-webhooks", default: settings.maxSubscriptions, range: WebhookSettings.maxSubscriptionsRange)
        settings.timeout = try seconds(
            "webhook-timeout", default: settings.timeout, range: WebhookSettings.timeoutRange)
        settings.retryBase = try seconds(
            "webhook-retry-base", default: settings.retryBase, range: WebhookSettings.retryBaseRange)
        settings.retryCap = try seconds(
            "webhook-retry-cap", default: settings.retryCap, range: WebhookSettings.retryCapRange)
        guard settings.retryCap >= settings.retryBase else {
            throw CLIError("--webhook-retry-cap must be at least --webhook-retry-base")
        }
        settings.maxAttempts = try int(
            "webhook-max-attempts", default: settings.maxAttempts, range: WebhookSettings.maxAttemptsRange)
        settings.maxAge = try seconds("webhook-max-age", default: settings.maxAge, range: WebhookSettings.maxAgeRange)
        settings.concurrency = try int(
            "webhook-concurrency", default: settings.concurrency, range: WebhookSettings.concurrencyRange)
        settings.retention = try seconds(
            "webhook-retention", default: settings.retention, range: WebhookSettings.retentionRange)
        settings.maxResponseBytes = try int(
            "webhook-max-response-bytes", default: settings.maxResponseBytes,
            range: WebhookSettings.maxResponseBytesRange)
        settings.caFile = value("webhook-ca-file")
        return settings
    }
}
