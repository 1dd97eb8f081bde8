import Foundation
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
    private let worker: DeliveryWorker
    private let senders: PushSenders
    private let workerTask = Mutex<Task<Void, Never>?>(nil)
    private let receiptPoller: ExpoReceiptPoller?
    private let tokenKeeper: ProviderTokenKeeper?
    private let receiptPollerTask = Mutex<Task<Void, Never>?>(nil)
    private let broadcastRunner: BroadcastRunner
    private let broadcastTask = Mutex<Task<Void, Never>?>(nil)
    private let background = Mutex<[Task<Void, Never>]>([])

    /// Opens the database (applying migrations) and builds the routes; call ``start()`` to listen.
    public init(
        configuration: HeraldConfiguration, store: (any HeraldStore)? = nil,
        logger: Logger = Logger(label: "herald"), now: @escaping @Sendable () -> Date = Date.init
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        let poolSize = configuration.databasePoolSize
        let store = try store ?? StoreFactory.open(url: configuration.databaseURL, poolSize: poolSize, logger: logger)
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
        let services = Services(
            store: store, hub: hub,
            auth: Authenticator(
                userTokenSecret: secret, store: store, maxTokenLifetime: configuration.maxTokenLifetime,
                publisherRate: PublisherRateLimiter(
                    rate: configuration.publisherLimits.rate, burst: configuration.publisherLimits.burst),
                now: now),
            appConfig: AppConfigState(try await store.appConfig()), metrics: metrics, deliveryWake: wake,
            broadcastWake: broadcastWake, publisherLimits: configuration.publisherLimits, now: now)
        let senders = try PushSenders(
            apns: configuration.apns, fcm: configuration.fcm, expo: configuration.expo,
            engine: configuration.pushHTTPEngine, now: now)
        self.senders = senders
        self.receiptPoller = senders.expo.map { client in
            ExpoReceiptPoller(
                store: store, client: client, settings: configuration.expo,
                policy: RetryPolicy(
                    base: configuration.pushWorker.retryBase, cap: configuration.pushWorker.retryCap,
                    maxAttempts: configuration.pushWorker.maxAttempts),
                lease: configuration.pushWorker.lease, metrics: pushMetrics, logger: logger, now: now)
        }
        self.tokenKeeper = senders.apnsProviderToken.map { token in
            ProviderTokenKeeper(store: store, token: token, logger: logger, now: now)
        }
        self.worker = DeliveryWorker(
            store: store, senders: senders, settings: configuration.pushWorker, metrics: pushMetrics, signal: wake,
            logger: logger, now: now)
        self.broadcastRunner = BroadcastRunner(
            store: store, hub: hub, appConfig: services.appConfig, deliveryWake: wake, signal: broadcastWake,
            settings: configuration.broadcasts, logger: logger, now: now)
        self.services = services
        self.router = Self.routes(services, maxJSONDepth: configuration.maxJSONDepth)

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
        http.threadPoolSize = configuration.threadPoolSize
        self.http = HTTPServer(configuration: http, responder: router, logger: logger)
    }

    /// Every route of the contract, behind access logging and metrics.
    static func routes(_ services: Services, maxJSONDepth: Int = HeraldConfiguration.defaultMaxJSONDepth) -> Router {
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
        DeliveryRoutes(services: services).register(in: &router)
        BroadcastRoutes(services: services).register(in: &router)
        return router
    }

    /// The database this server runs on.
    public var store: any HeraldStore { services.store }

    /// The bound port (the configured one, or the one picked for port 0).
    public var port: Int { http.port }

    /// Every (method, path pattern) the server answers.
    public var routes: [(method: HTTPMethod, pattern: String)] { router.routes }

    /// Starts listening and the background jobs (the delivery worker and the Expo receipt poller;
    /// the broadcast runner; heartbeats; hourly pruning of the event log and of expired
    /// idempotency claims).
    public func start() throws {
        if let changes = services.store as? any LiveChangeSource {
            // Before listening, so no stream opens before changes of other processes are heard.
            try changes.startWatchingChanges { [hub = services.hub] change in hub.receive(change) }
        }
        try http.start()
        if configuration.pushWorker.isEnabled {
            let worker = worker
            let keeper = tokenKeeper
            // The first send goes out with the token the other servers on this database use.
            workerTask.withLock {
                $0 = Task.detached {
                    await keeper?.refresh()
                    await worker.run()
                }
            }
            if let keeper {
                background.withLock { $0.append(Task.detached { await keeper.run() }) }
            }
            if let receiptPoller {
                receiptPollerTask.withLock { $0 = Task.detached { await receiptPoller.run() } }
            }
        }
        if configuration.broadcasts.isEnabled {
            let runner = broadcastRunner
            broadcastTask.withLock { $0 = Task.detached { await runner.run() } }
        }
        let hub = services.hub
        let store = services.store
        let heartbeat = configuration.heartbeatInterval
        let retention = configuration.streamRetention
        let logger = logger
        let now = services.now
        background.withLock { tasks in
            tasks.append(
                Task.detached {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: heartbeat)
                        hub.heartbeat(now: now())
                    }
                })
            tasks.append(
                Task.detached {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        hub.endExpired(now: now())
                    }
                })
            tasks.append(
                Task.detached {
                    while !Task.isCancelled {
                        let cutoff = now().addingTimeInterval(-Double(retention.components.seconds))
                        let claimsCutoff = now().addingTimeInterval(-PublisherRoutes.idempotencyWindow)
                        do {
                            _ = try await store.pruneStreamEvents(olderThan: cutoff)
                            _ = try await store.pruneIdempotencyKeys(olderThan: claimsCutoff)
                        } catch {
                            logger.warning("pruning failed", metadata: ["error": "\(error)"])
                        }
                        try? await Task.sleep(for: .seconds(3600))
                    }
                })
        }
    }

    /// Graceful stop: no new connections, in-flight requests and sends finish, streams end; the
    /// broadcast runner finishes its chunk and hands its broadcast back for the next start.
    public func stop() async {
        broadcastRunner.stop()
        await broadcastTask.withLock { $0 }?.value
        worker.stop()
        receiptPoller?.stop()
        await workerTask.withLock { $0 }?.value
        await receiptPollerTask.withLock { $0 }?.value
        await senders.shutdown()
        for task in background.withLock({ tasks in
            defer { tasks = [] }
            return tasks
        }) { task.cancel() }
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
