import Foundation
import HeraldModel
import HeraldSandbox
import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// The Expo look-alike over TLS on a loopback port (wanting an access token), and a server whose
/// delivery worker and receipt poller talk to it.
struct ExpoFixture {
    let sandbox: ExpoSandbox
    let gateway: HTTP2Server
    let server: TestServer
    let credentials: SandboxCredentials
    let apiKey: String

    /// Runs `body` against a fresh sandbox and server that sends with `accessToken` (the
    /// sandbox's own when nil), fetches receipts `receiptDelay` seconds after a ticket, and
    /// retries after at most `retryBase` seconds; stops both afterwards, also when `body` throws.
    static func run(
        accessToken: String? = nil, receiptDelay: TimeInterval = 0.05, retryBase: TimeInterval = 0.01,
        _ body: (ExpoFixture) async throws -> Void
    ) async throws {
        let credentials = try TestSandboxCredentials.fresh(prefix: "herald-expo")
        let sandbox = ExpoSandbox(accessToken: credentials.expoAccessToken)
        let gateway = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls),
            answering: SandboxRouter(sandbox.routes).answer)
        let server = try await TestServer.start(configure: { configuration in
            configuration.expo.baseURL = "https://127.0.0.1:\(gateway.port)"
            configuration.expo.accessToken = accessToken ?? credentials.expoAccessToken
            configuration.expo.caFile = credentials.tls.certificatePath
            configuration.expo.receiptDelay = receiptDelay
            configuration.expo.receiptPollInterval = .milliseconds(20)
            configuration.pushWorker.isEnabled = true
            configuration.pushWorker.retryBase = retryBase
            configuration.pushWorker.retryCap = retryBase
        })
        let fixture = ExpoFixture(
            sandbox: sandbox, gateway: gateway, server: server, credentials: credentials,
            apiKey: try await server.apiKey())
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    private func stop() async {
        #expect(server.app.serverErrorCount == 0, "a request was answered with a 5xx")
        await server.stop()
        await gateway.stop()
        try? FileManager.default.removeItem(atPath: credentials.directory)
    }

    /// `count` fresh Expo push tokens.
    static func tokens(_ count: Int) -> [String] {
        (0..<count).map { _ in "ExponentPushToken[\(UUID().uuidString.prefix(22))]" }
    }

    /// Registers Expo devices `tokens` for `user` in the store (as the device route would).
    func register(_ tokens: [String], for user: String) async throws {
        for token in tokens {
            _ = try await server.app.store.upsertDevice(
                userID: user, DeviceRegistration(token: token, provider: .expo, platform: .ios), at: Date())
        }
    }

    /// Publishes one pushed notification to `user`; answers its id.
    func publish(to user: String) async throws -> String {
        let ids = try await server.publish(
            to: [user], title: "Your order shipped", body: "Arrives Friday", extra: #","push":{"send":true}"#,
            key: apiKey)
        return try #require(ids.first)
    }

    /// The delivery rows of `notificationID` once `condition` holds for them, polling the store
    /// until `deadline` runs out (then the last rows, whatever they are).
    func deliveries(
        of notificationID: String, deadline: Duration = .seconds(10), until condition: ([DeliveryRecord]) -> Bool
    ) async throws -> [DeliveryRecord] {
        var rows: [DeliveryRecord] = []
        _ = try await becomesTrue(within: deadline) {
            rows = try await server.app.store.deliveries(notificationID: notificationID)
            return condition(rows)
        }
        return rows
    }

    /// The delivery rows of `notificationID` once none is queued or sending.
    func settledDeliveries(of notificationID: String) async throws -> [DeliveryRecord] {
        try await deliveries(of: notificationID) { rows in rows.allSatisfy { ![.queued, .sending].contains($0.status) }
        }
    }

    /// Whether each of `tokens` is still active.
    func activeFlags(_ tokens: [String], of user: String) async throws -> [Bool] {
        let devices = try await server.app.store.devices(userID: user)
        return tokens.map { token in devices.first { $0.token == token }?.active ?? false }
    }
}
