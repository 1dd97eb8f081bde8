import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldPush

/// Everything `herald serve` can be told. Every field has a flag and an environment twin.
public struct HeraldConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// `sqlite:./herald.db` (default), `sqlite::memory:`, or `postgres://user@host:port/db`.
    public var databaseURL: String = "sqlite:./herald.db"
    /// PostgreSQL connections a process opens at most (1 to 100); SQLite ignores it.
    public var databasePoolSize: Int = 8
    /// One-statement PostgreSQL reads a connection sends together at most when every pooled
    /// connection is busy (1 to 64; 1 sends each alone); SQLite ignores it.
    public var databasePipelineDepth: Int = 16
    /// HS256 secret for user tokens; generated and stored in the database when `nil`.
    public var userTokenSecret: String?
    public var maxBodyBytes: Int = 1_048_576
    /// Deepest nesting a JSON request body may have (objects and arrays, one level each).
    public var maxJSONDepth: Int = HeraldConfiguration.defaultMaxJSONDepth
    public static let defaultMaxJSONDepth = 32
    /// The longest a user token may still have to live: a token whose `exp` is further away
    /// (beyond 60 s of clock skew) answers 401. `herald token --ttl` mints no longer ones.
    public var maxTokenLifetime: TimeInterval = HeraldConfiguration.defaultMaxTokenLifetime
    /// 30 days.
    public static let defaultMaxTokenLifetime: TimeInterval = 30 * 86_400
    /// The range `--max-token-lifetime` takes, in seconds: a minute to a year.
    public static let maxTokenLifetimeRange: ClosedRange<Int> = 60...(365 * 86_400)
    /// A connection with nothing to do is closed after this long (also the time a kept-alive
    /// connection has to send its next request head).
    public var idleTimeout: Duration = .seconds(60)
    /// A handler slower than this is cancelled and answered 503 `timeout`.
    public var requestTimeout: Duration = .seconds(30)
    /// From accepting a connection to its whole request head; later, 408 and close.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// From a request head to the end of its body; later, 408 and close.
    public var requestBodyTimeout: Duration = .seconds(30)
    /// Most simultaneous connections; `nil` follows the open-files limit (less a reserve).
    public var maxConnections: Int?
    /// Most simultaneous connections from one client address (0: no cap).
    public var maxConnectionsPerAddress: Int = 512
    /// libmicrohttpd's memory per connection (see ``HTTPServerConfiguration/connectionMemoryLimit``):
    /// a request head that does not fit is answered 431.
    public var connectionMemoryBytes: Int = HTTPServerConfiguration.defaultConnectionMemory
    /// Comment sent on every open stream so idle connections stay open.
    public var heartbeatInterval: Duration = .seconds(15)
    /// Streams one user may hold; a new one beyond this ends their oldest (`event: closed`,
    /// reason `replaced`).
    public var maxStreamsPerUser: Int = 16
    /// How long stream events are kept for `Last-Event-ID` resume.
    public var streamRetention: Duration = .seconds(7 * 24 * 3600)
    public var threadPoolSize: Int = 2
    public var logLevel: Logger.Level = .info
    /// APNs token auth and gateway; `nil` leaves APNs rows failing with `provider_not_configured`.
    public var apns: APNsSettings?
    /// FCM service account and endpoint; `nil` leaves FCM rows failing with `provider_not_configured`.
    public var fcm: FCMSettings?
    /// The Expo push service (on by default: it needs no credentials) and its receipts.
    public var expo = ExpoSettings()
    /// Apps besides the default one (whose credentials are `apns`, `fcm` and `expo`), each with
    /// its own push credentials: the apps file (`--apps-file`).
    public var apps: [AppPushSettings] = []

    /// Every app: the default one first, then ``apps``.
    public var allApps: [AppPushSettings] {
        [AppPushSettings(id: DeviceRegistration.defaultAppID, apns: apns, fcm: fcm, expo: expo)] + apps
    }
    /// Batching, concurrency, lease and retry of the delivery worker.
    public var pushWorker = PushWorkerSettings()
    /// Chunking and lease of the broadcast runner.
    public var broadcasts = BroadcastSettings()
    /// Scheduled notifications and digests.
    public var attention = AttentionSettings()
    /// What one API key may ask of the server: call rate, broadcasts at once, publish size.
    public var publisherLimits = PublisherLimits()
    public var consoleSessions = ConsoleSessionSettings()
    /// Webhook subscriptions, their addresses, attempts and retries.
    public var webhooks = WebhookSettings()

    public init() {}
}

/// How long a console sign-in lasts, each with a flag and an environment twin.
public struct ConsoleSessionSettings: Sendable, Equatable {
    /// A session unused this long ends (`--console-session-idle`, seconds).
    public var idleTimeout: TimeInterval = 30 * 60
    /// A session ends this long after sign-in, however active (`--console-session-lifetime`, seconds).
    public var lifetime: TimeInterval = 12 * 3_600

    public static let idleTimeoutRange: ClosedRange<Int> = 60...86_400
    public static let lifetimeRange: ClosedRange<Int> = 60...(30 * 86_400)

    public init() {}
}

/// The limits on publishers, each with a flag and an environment twin.
public struct PublisherLimits: Sendable, Equatable {
    /// Publisher calls a second each API key regains (`--publisher-rate`); 0 turns the rate
    /// limit off. Fractions allowed: 0.5 is one call every two seconds.
    public var rate: Double = 100
    /// Calls a key may make at once before the rate holds it back (`--publisher-burst`).
    public var burst: Int = 1_000
    /// Broadcasts one API key may have queued or running at once (`--max-active-broadcasts`);
    /// 0: no cap.
    public var maxActiveBroadcasts: Int = 5
    /// The most one publish may store (`--max-publish-bytes`): recipients × the UTF-8 bytes of
    /// its title, body, data keys and values, deep link and detail fields (HTML as sanitized).
    public var maxPublishBytes: Int = 16 << 20

    public static let rateRange: ClosedRange<Double> = 0...1_000_000
    public static let burstRange: ClosedRange<Int> = 1...1_000_000
    public static let maxActiveBroadcastsRange: ClosedRange<Int> = 0...10_000
    public static let maxPublishBytesRange: ClosedRange<Int> = 1_024...(1 << 40)

    public init() {}
}
