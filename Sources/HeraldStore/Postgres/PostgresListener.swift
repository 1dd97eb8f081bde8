import CPostgres
import FoundationEssentials
import HeraldLog
import HeraldThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One dedicated PostgreSQL connection in LISTEN mode on ``PostgresConnection/liveChangeChannel``,
/// watched by a thread of its own, that reports the changes of its schema to a handler.
///
/// It is not one of the store's connections: it never runs a statement of a request. When the
/// connection is lost it reconnects (waiting 50 ms, doubling up to 5 s between attempts), LISTENs
/// again and reports ``LiveChange/resync``, since NOTIFYs sent meanwhile went nowhere.
final class PostgresListener: Sendable {
    /// `application_name` of the listening session, followed by its schema: what an operator
    /// (or a test) finds it by in `pg_stat_activity`.
    static let applicationName = "herald-listen"

    private let url: String
    private let logger: Logger
    private let handler: @Sendable (LiveChange) -> Void
    private let wake: WakePipe
    private let stopping = Mutex(false)

    init(url: String, logger: Logger, handler: @escaping @Sendable (LiveChange) -> Void) throws(StoreError) {
        self.url = url
        self.logger = logger
        self.handler = handler
        self.wake = try WakePipe()
    }

    /// Starts the thread; it connects, then reports until ``stop()``.
    func start() {
        LoopThread.detach(LoopThread.start(name: "herald-pglisten") { [self] in run() })
    }

    /// Ends the thread and its connection without waiting for them: the thread sees the
    /// wake at once, unless it is connecting, and reports nothing more either way.
    func stop() {
        stopping.withLock { $0 = true }
        wake.signal()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func run() {
        var delay = 0.05
        var failures = 0
        while !isStopping {
            let session: ListeningSession
            do {
                session = try ListeningSession(url: url)
            } catch {
                // The first failure in a row is a warning; the retries (every 5 s at most) are debug.
                failures += 1
                logger.log(
                    level: failures == 1 ? .warning : .debug,
                    "PostgreSQL listener cannot listen; retrying (live updates from other servers wait)",
                    metadata: [
                        "error": error.message, "attempt": String(failures), "retry_in_ms": String(Int(delay * 1000)),
                    ]
                )
                wake.wait(seconds: delay)
                delay = min(delay * 2, 5)
                continue
            }
            delay = 0.05
            guard !isStopping else { return }
            if failures > 0 {
                logger.notice("PostgreSQL listener listening again", metadata: ["attempts": String(failures + 1)])
            }
            failures = 0
            // Whatever was committed while no session listened is in the log: every stream
            // catches up (at start-up there is none yet, so this costs nothing).
            handler(.resync)
            watch(session)
            if !isStopping {
                logger.warning("PostgreSQL listener lost its session; reconnecting and resyncing streams")
            }
        }
    }

    /// Reports the session's notifications until it is lost or the listener stops.
    private func watch(_ session: ListeningSession) {
        while !isStopping {
            switch wake.waitReadable(session.socket) {
            case .woken: continue
            case .readable: break
            }
            guard session.consumeInput() else { return }
            for payload in session.takeNotifications() where !isStopping {
                guard payload.hasPrefix(session.schemaPrefix) else { continue }
                if let change = LiveChangeMessage.decode(String(payload.dropFirst(session.schemaPrefix.count))) {
                    handler(change)
                } else {
                    logger.warning(
                        "PostgreSQL listener ignored a notification it cannot read",
                        metadata: ["payload": String(payload.prefix(200))])
                }
            }
            guard session.isConnected else { return }
        }
    }
}

/// One LISTENing `PGconn*`, used only by the listener's thread; `PQfinish` in `deinit`.
private final class ListeningSession {
    private let handle: OpaquePointer
    /// What payloads written in this session's schema start with.
    let schemaPrefix: String
    let socket: Int32

    init(url: String) throws(StoreError) {
        // An idle LISTEN session sends nothing: TCP keepalives find a peer that vanished
        // without closing (about a minute), and a connection attempt gives up after 10 s.
        let settings = [
            ("dbname", url), ("application_name", PostgresListener.applicationName), ("connect_timeout", "10"),
            ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
        ]
        guard let connection = try LibPQ.connect(settings) else {
            throw StoreError(code: .postgres, message: "libpq could not allocate a connection")
        }
        guard libpq.PQstatus(connection) == CONNECTION_OK else {
            libpq.PQfinish(connection)
            throw StoreError(code: .postgres, message: "the listener could not connect to PostgreSQL")
        }
        LibPQ.ignoreNotices(connection)
        handle = connection
        do {
            _ = try Self.run("LISTEN \(PostgresConnection.liveChangeChannel)", connection)
            let schema = try Self.run(
                """
                SELECT current_schema(),
                       set_config('application_name', '\(PostgresListener.applicationName) ' || current_schema(), false)
                """, connection
            ).row(0).text(at: 0)
            schemaPrefix = schema + " "
        } catch {
            libpq.PQfinish(connection)
            throw error
        }
        socket = libpq.PQsocket(connection)
    }

    deinit { libpq.PQfinish(handle) }

    private static func run(_ sql: String, _ connection: OpaquePointer) throws(StoreError) -> PostgresResult {
        try postgresCheck(libpq.PQexec(connection, sql), connection: connection, sql: sql)
    }

    var isConnected: Bool { libpq.PQstatus(handle) == CONNECTION_OK }

    /// Reads what the server sent; `false` when the connection is lost.
    func consumeInput() -> Bool { libpq.PQconsumeInput(handle) != 0 && isConnected }

    /// The payloads of the notifications read so far, oldest first.
    func takeNotifications() -> [String] {
        var payloads: [String] = []
        while let notification = libpq.PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            libpq.PQfreemem(notification)
        }
        return payloads
    }
}
