import Foundation
import HeraldHTTP
import HeraldModel
import HeraldPush
import HeraldSandbox
import HeraldServer
import HeraldTestSupport
import Testing

/// The APNs and FCM look-alikes over TLS on a loopback port, and a server whose delivery worker
/// sends to them (one provider token for the app, as the sandbox's `TooManyProviderTokenUpdates`
/// wants; FCM through the sandbox's service account and token endpoint).
struct PushFixture {
    let sandbox: APNsSandbox
    let fcm: FCMSandbox
    let gateway: HTTP2Server
    let server: TestServer
    let credentials: SandboxCredentials
    let apiKey: String

    /// A fresh sandbox and server; backoff starts at `retryBase` seconds, waits (a `Retry-After`
    /// included) at most `retryCap` (default `retryBase`), and gives up after `maxAttempts`; the
    /// worker claims `batchSize` rows at a time (default: the server's). The server sends to FCM
    /// unless `configuresFCM` is false, and logs to `logger`; `configure` changes the rest.
    static func start(
        retryBase: TimeInterval = 0.01, retryCap: TimeInterval? = nil, maxAttempts: Int = 8, batchSize: Int? = nil,
        configuresFCM: Bool = true, clock: OffsetClock? = nil,
        configure: (inout HeraldConfiguration) -> Void = { _ in },
        logger: Logger = Logger(label: "herald-test", level: .warning)
    ) async throws -> PushFixture {
        let credentials = try TestSandboxCredentials.fresh(prefix: "herald-push")
        var now: @Sendable () -> Date = Date.init
        if let clock { now = { clock.now } }
        let sandbox = try APNsSandbox(credentials: credentials, clock: now)
        let fcm = try FCMSandbox(credentials: credentials, clock: now)
        let gateway = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls),
            answering: SandboxRouter(sandbox.routes + fcm.routes).answer)
        try credentials.fcm.write(tokenURI: "https://127.0.0.1:\(gateway.port)/token")
        let server = try await TestServer.start(
            configure: { configuration in
                configuration.apns = APNsSettings(
                    keyFile: credentials.keyPath, keyID: credentials.keyID, teamID: credentials.teamID,
                    topic: credentials.bundleID, baseURL: "https://127.0.0.1:\(gateway.port)",
                    caFile: credentials.tls.certificatePath)
                if configuresFCM {
                    configuration.fcm = FCMSettings(
                        serviceAccountFile: credentials.fcm.path, baseURL: "https://127.0.0.1:\(gateway.port)",
                        caFile: credentials.tls.certificatePath)
                }
                configuration.pushWorker.isEnabled = true
                configuration.pushWorker.retryBase = retryBase
                configuration.pushWorker.retryCap = retryCap ?? retryBase
                configuration.pushWorker.maxAttempts = maxAttempts
                if let batchSize { configuration.pushWorker.batchSize = batchSize }
                // A moved clock is seen at the runner's next look.
                configuration.attention.wakeInterval = .milliseconds(50)
                configure(&configuration)
            }, now: now, logger: logger)
        return PushFixture(
            sandbox: sandbox, fcm: fcm, gateway: gateway, server: server, credentials: credentials,
            apiKey: try await server.apiKey())
    }

    /// Runs `body` against a fresh fixture (see
    /// ``start(retryBase:retryCap:maxAttempts:batchSize:configuresFCM:logger:configure:)``) and
    /// stops it afterwards, also when `body` throws.
    static func run(
        retryBase: TimeInterval = 0.01, retryCap: TimeInterval? = nil, maxAttempts: Int = 8, batchSize: Int? = nil,
        configuresFCM: Bool = true, clock: OffsetClock? = nil,
        configure: (inout HeraldConfiguration) -> Void = { _ in },
        logger: Logger = Logger(label: "herald-test", level: .warning),
        _ body: (PushFixture) async throws -> Void
    ) async throws {
        let fixture = try await start(
            retryBase: retryBase, retryCap: retryCap, maxAttempts: maxAttempts, batchSize: batchSize,
            configuresFCM: configuresFCM, clock: clock, configure: configure, logger: logger)
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// ``run(retryBase:retryCap:maxAttempts:batchSize:configuresFCM:clock:configure:logger:_:)`` on a
    /// database of its own of `database`'s kind (a SQLite file, or a new PostgreSQL schema).
    static func run(
        on database: ServerDatabase, clock: OffsetClock? = nil,
        configure: @escaping (inout HeraldConfiguration) -> Void = { _ in },
        _ body: (PushFixture) async throws -> Void
    ) async throws {
        try await database.withURL { url in
            try await run(
                clock: clock,
                configure: { configuration in
                    configuration.databaseURL = url
                    configure(&configuration)
                }, body)
        }
    }

    /// The `active` flag of each of `user`'s devices, as the publisher device list shows them.
    func deviceActiveFlags(of user: String) async throws -> [Bool?] {
        let devices = try await server.get("/v1/users/\(user)/devices", token: apiKey).object
        let listed = devices["items"] as? [[String: Any]] ?? []
        return listed.map { $0["active"] as? Bool }
    }

    /// Stops both (the server unless `serverStopped`); no request may have been answered with a 5xx.
    func stop(serverStopped: Bool = false) async {
        #expect(server.app.serverErrorCount == 0, "a request was answered with a 5xx")
        if serverStopped {
            try? FileManager.default.removeItem(at: server.directory)
        } else {
            await server.stop()
        }
        await gateway.stop()
        try? FileManager.default.removeItem(atPath: credentials.directory)
    }

    /// Registers `token` for `user` through the HTTP API.
    func register(_ token: String, provider: PushProvider = .apns, platform: DevicePlatform = .ios, for user: String)
        async throws
    {
        let registration = DeviceRegistration(token: token, provider: provider, platform: platform)
        let response = try await server.send(
            "POST", "/v1/me/devices", body: registration, token: try server.token(user))
        try #require(response.status == 200, "\(response.text)")
    }

    /// Publishes one notification with `push.send` (and the other `push` fields of `push`, a JSON
    /// fragment starting with a comma) to `user`; answers its id.
    func publish(to user: String, type: String = "order.shipped", push: String = "") async throws -> String {
        let ids = try await server.publish(
            to: [user], type: type, title: "Your order shipped", body: "Arrives Friday",
            extra: #","push":{"send":true"# + push + "}",
            key: apiKey)
        return try #require(ids.first)
    }

    /// The deliveries of `notificationID` once none is queued or sending, polling the route
    /// until `deadline` runs out.
    func settledDeliveries(of notificationID: String, deadline: Duration = .seconds(10)) async throws
        -> [DeliveryTests.Answer.Item]
    {
        try await Self.settledDeliveries(of: notificationID, on: server, key: apiKey, deadline: deadline)
    }

    /// The deliveries of `notificationID` once `condition` holds for them, polling the route
    /// until `deadline` runs out (then the last answer, whatever it is).
    func deliveries(
        of notificationID: String, deadline: Duration = .seconds(10),
        until condition: ([DeliveryTests.Answer.Item]) -> Bool
    ) async throws -> [DeliveryTests.Answer.Item] {
        try await Self.deliveries(of: notificationID, on: server, key: apiKey, deadline: deadline, until: condition)
    }

    /// The deliveries of `notificationID` on `server` once none is queued or sending.
    static func settledDeliveries(
        of notificationID: String, on server: TestServer, key: String, deadline: Duration = .seconds(10)
    ) async throws -> [DeliveryTests.Answer.Item] {
        try await deliveries(of: notificationID, on: server, key: key, deadline: deadline) { items in
            items.allSatisfy { !["queued", "sending"].contains($0.status) }
        }
    }

    /// The deliveries of `notificationID` on `server` once `condition` holds for them, polling
    /// the route with `key` until `deadline` runs out (then the last answer, whatever it is).
    static func deliveries(
        of notificationID: String, on server: TestServer, key: String, deadline: Duration,
        until condition: ([DeliveryTests.Answer.Item]) -> Bool
    ) async throws -> [DeliveryTests.Answer.Item] {
        var items: [DeliveryTests.Answer.Item] = []
        _ = try await becomesTrue(within: deadline) {
            let response = try await server.get("/v1/notifications/\(notificationID)/deliveries", token: key)
            try #require(response.status == 200, "\(response.text)")
            items = try response.decode(DeliveryTests.Answer.self).items
            return condition(items)
        }
        return items
    }

    /// A fresh FCM registration token (letters, digits, `_`, `:` and `-`, as FCM's).
    static func registrationToken() -> String {
        "fcm_" + UUID().uuidString.lowercased() + ":APA91bH-"
            + (0..<24).map { _ in String(Int.random(in: 0...9)) }.joined()
    }

    /// A fresh 64-hex-digit APNs device token.
    static func deviceToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
