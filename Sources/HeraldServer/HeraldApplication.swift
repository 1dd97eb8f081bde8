import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldPush
import HeraldStore
import Synchronization

/// The running server: store, routes, live hub and background jobs, started and stopped together.
public final class HeraldApplication: Sendable {
    public let configuration: HeraldConfiguration
    let services: Services
    let router: Router
    private let http: HTTPServer
    private let logger: Logger
    private let senders: PushSenders
    /// Every long-lived job, started together after the HTTP server and stopped in reverse order.
    let jobs: ServiceGroup

    /// Opens the database (applying migrations) and builds the routes; call ``start()`` to listen.
    public init(
        configuration: HeraldConfiguration, store: (any HeraldStore)? = nil,
        logger: Logger = Logger(label: "herald"), now: @escaping @Sendable () -> Date = Date.init
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        let pool = PostgresPoolSettings(
            size: configuration.databasePoolSize, pipelineDepth: configuration.databasePipelineDepth)
        let store: any HeraldStore =
            if let store { store } else {
                try await StoreFactory.open(url: configuration.databaseURL, postgres: pool, logger: logger)
            }
        let secret = try await UserTokenSecret.resolve(configured: configuration.userTokenSecret, store: store)
        let hub = LiveHub(
            counts: { userID in try await store.counts(userID: userID) },
            events: { userID, afterSeq, limit in
                try await store.streamEvents(userID: userID, afterSeq: afterSeq, limit: limit)
            }, maxStreamsPerUser: configuration.maxStreamsPerUser)
        let pushMetrics = PushMetrics()
        let metrics = Metrics(
            gauges: { [hub] in
                [(name: "herald_live_streams", help: "Open live-update streams.", value: Double(hub.streamCount))]
            }, sections: pushMetrics.render)
        let wake = WakeSignal()
        let broadcastWake = WakeSignal()
        let attentionWake = WakeSignal()
        let services = Services(
            store: store, hub: hub,
            auth: Authenticator(
                userTokenSecret: secret, store: store, maxTokenLifetime: configuration.maxTokenLifetime,
                publisherRate: PublisherRateLimiter(
                    rate: configuration.publisherLimits.rate, burst: configuration.publisherLimits.burst),
                consoleSessions: configuration.consoleSessions, now: now),
            appConfig: AppConfigState(try await store.appConfig()), metrics: metrics, deliveryWake: wake,
            broadcastWake: broadcastWake, attentionWake: attentionWake, publisherLimits: configuration.publisherLimits,
            appIDs: Set(configuration.allApps.map(\.id)), now: now)
        let senders = try PushSenders(
            apps: configuration.allApps, expoReceiptDelay: configuration.expo.receiptDelay, logger: logger, now: now)
        self.senders = senders
        let receiptPoller =
            !senders.hasExpo
            ? nil
            : ExpoReceiptPoller(
                store: store, senders: senders, settings: configuration.expo,
                policy: RetryPolicy(
                    base: configuration.pushWorker.retryBase, cap: configuration.pushWorker.retryCap,
                    maxAttempts: configuration.pushWorker.maxAttempts),
                lease: configuration.pushWorker.lease, metrics: pushMetrics, logger: logger, now: now)
        let tokenKeepers = senders.apnsProviderTokens.map { token in
            ProviderTokenKeeper(store: store, token: token, logger: logger, now: now)
        }
        let worker = DeliveryWorker(
            store: store, senders: senders, settings: configuration.pushWorker, metrics: pushMetrics, signal: wake,
            logger: logger, now: now)
        let broadcastRunner = BroadcastRunner(
            store: store, appConfig: services.appConfig, deliveryWake: wake, signal: broadcastWake,
            settings: configuration.broadcasts, logger: logger, now: now)
        let attentionRunner = AttentionRunner(
            store: store, appConfig: services.appConfig, deliveryWake: wake, signal: attentionWake,
            settings: configuration.attention, logger: logger, now: now)
        let webhookWorker = WebhookWorker(
            store: store, client: try WebhookClient(settings: configuration.webhooks),
            settings: configuration.webhooks, logger: logger, now: now)
        self.services = services
        self.jobs = ServiceGroup(
            Self.jobs(
                configuration, services: services, worker: worker, tokenKeepers: tokenKeepers,
                receiptPoller: receiptPoller, broadcastRunner: broadcastRunner, attentionRunner: attentionRunner,
                webhookWorker: webhookWorker,
                logger: logger),
            logger: logger)
        self.router = Self.routes(services, maxJSONDepth: configuration.maxJSONDepth, webhooks: configuration.webhooks)

        var http = HTTPServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxBodyBytes = configuration.maxBodyBytes
        http.idleTimeout = configuration.idleTimeout
        http.requestTimeout = configuration.requestTimeout
        http.headTimeout = configuration.requestHeadTimeout
        http.bodyTimeout = configuration.requestBodyTimeout
        http.connectionLimit = configuration.maxConnections
        http.connectionsPerAddress = configuration.maxConnectionsPerAddress
        http.connectionMemoryLimit = configuration.connectionMemoryBytes
        http.threadPoolSize = configuration.threadPoolSize
        self.http = HTTPServer(configuration: http, responder: router, logger: logger)
    }

    /// Every route of the contract, behind access logging and metrics.
    static func routes(
        _ services: Services, maxJSONDepth: Int = HeraldConfiguration.defaultMaxJSONDepth,
        webhooks: WebhookSettings = WebhookSettings()
    ) -> Router {
        var router = Router()
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: MetricsMiddleware(metrics: services.metrics))
        router.add(middleware: ValidationErrorMiddleware())
        router.add(middleware: DatabaseUnavailableMiddleware())
        router.add(middleware: JSONShapeMiddleware(maxDepth: maxJSONDepth))
        OperationRoutes(services: services).register(in: &router)
        InboxRoutes(services: services).register(in: &router)
        StreamRoutes(services: services).register(in: &router)
        PreferenceRoutes(services: services).register(in: &router)
        DeviceRoutes(services: services).register(in: &router)
        EventRoutes(services: services).register(in: &router)
        AppConfigRoutes(services: services).register(in: &router)
        PublisherRoutes(services: services).register(in: &router)
        PushPreviewRoutes(services: services).register(in: &router)
        PreviewRoutes(services: services).register(in: &router)
        NotificationRoutes(services: services).register(in: &router)
        UserRoutes(services: services).register(in: &router)
        KeyRoutes(services: services).register(in: &router)
        StatsRoutes(services: services).register(in: &router)
        ConsoleSessionRoutes(services: services).register(in: &router)
        ConsoleAssetRoutes().register(in: &router)
        DeliveryRoutes(services: services).register(in: &router)
        BroadcastRoutes(services: services).register(in: &router)
        MessageRoutes(services: services).register(in: &router)
        LiveActivityRoutes(services: services).register(in: &router)
        WebhookRoutes(services: services, settings: webhooks).register(in: &router)
        return router
    }

    /// The database this server runs on.
    public var store: any HeraldStore { services.store }

    /// The bound port (the configured one, or the one picked for port 0).
    public var port: Int { http.port }

    /// Every (method, path pattern) the server answers.
    public var routes: [(method: HTTPMethod, pattern: String)] { router.routes }

    /// The long-lived jobs, in start order (they stop in reverse): stream heartbeats, the stream
    /// expiry sweep and hourly pruning of the event log and of expired idempotency claims; with
    /// push on, the provider-token keeper, the delivery worker and the Expo receipt poller; with
    /// broadcasts on, the broadcast runner; the attention runner (scheduled notifications, digests,
    /// message completion); with webhooks on, the webhook worker.
    private static func jobs(
        _ configuration: HeraldConfiguration, services: Services, worker: DeliveryWorker,
        tokenKeepers: [ProviderTokenKeeper], receiptPoller: ExpoReceiptPoller?, broadcastRunner: BroadcastRunner,
        attentionRunner: AttentionRunner, webhookWorker: WebhookWorker, logger: Logger
    ) -> [any Service] {
        let hub = services.hub
        let store = services.store
        let now = services.now
        let retention = configuration.streamRetention
        let sessions = configuration.consoleSessions
        let webhookRetention = configuration.webhooks.retention
        var jobs: [any Service] = [
            PeriodicService(name: "stream heartbeats", interval: configuration.heartbeatInterval) {
                hub.heartbeat(now: now())
            },
            PeriodicService(name: "stream expiry", interval: .seconds(1)) { hub.endExpired(now: now()) },
            PeriodicService(name: "pruning", interval: .seconds(3600), atStart: true) {
                let cutoff = now().addingTimeInterval(-Double(retention.components.seconds))
                let claimsCutoff = now().addingTimeInterval(-PublisherRoutes.idempotencyWindow)
                do {
                    _ = try await store.pruneStreamEvents(olderThan: cutoff)
                    _ = try await store.pruneIdempotencyKeys(olderThan: claimsCutoff)
                    // A session past either expiry is refused anyway; this only keeps the table small.
                    _ = try await store.pruneConsoleSessions(
                        idleBefore: now().addingTimeInterval(-sessions.idleTimeout),
                        createdBefore: now().addingTimeInterval(-sessions.lifetime))
                    _ = try await store.pruneWebhookDeliveries(
                        finishedBefore: now().addingTimeInterval(-webhookRetention))
                } catch {
                    logger.warning("pruning failed", metadata: ["error": "\(error)"])
                }
            },
        ]
        if configuration.pushWorker.isEnabled {
            jobs.append(contentsOf: tokenKeepers as [any Service])
            jobs.append(DeliveryService(worker: worker, tokenKeepers: tokenKeepers))
            if let receiptPoller { jobs.append(receiptPoller) }
        }
        if configuration.broadcasts.isEnabled { jobs.append(broadcastRunner) }
        jobs.append(attentionRunner)
        if configuration.webhooks.isEnabled { jobs.append(webhookWorker) }
        return jobs
    }

    /// Starts listening, then the long-lived jobs (see ``jobs``).
    public func start() throws {
        if let changes = services.store as? any LiveChangeSource {
            // Before listening, so no stream opens before changes of other processes are heard.
            try changes.startWatchingChanges { [hub = services.hub] change in hub.receive(change) }
        }
        if let problem = NamedTimeZoneSupport.problem() {
            logger.warning(
                "named time zones are unavailable: preferences and devices naming one are refused (400); quiet hours stored in one are not applied, and deliverAt and digests use UTC for it",
                metadata: ["reason": "\(problem)"])
        }
        try http.start()
        jobs.start()
    }

    /// Graceful stop: the jobs stop in reverse order (the broadcast runner finishes its chunk and
    /// hands its broadcast back for the next start; in-flight sends finish and are recorded), then
    /// no new connections, in-flight requests finish and streams end.
    public func stop() async {
        await jobs.stop()
        await senders.shutdown()
        (services.store as? any LiveChangeSource)?.stopWatchingChanges()
        services.hub.closeAll()
        await http.stop()
        logger.info("herald stopped")
    }

    /// How many requests were answered with a 5xx (each one is a bug).
    public var serverErrorCount: Int { services.metrics.serverErrorCount }

    /// Mints a user token signed with this server's secret (development and tests).
    public func userToken(for userID: String, ttl: TimeInterval = 3600) throws -> String {
        try UserTokens.mint(user: userID, ttl: ttl, secret: services.auth.userTokenSecret, now: services.now())
    }

    /// Creates a publisher API key and returns it; only its hash is stored.
    public func createAPIKey(name: String) async throws -> String {
        let (key, record) = APIKeys.generate(name: name, now: services.now())
        try await services.store.createAPIKey(record)
        return key
    }
}
