import Foundation
import HeraldCrypto
import HeraldSandbox
import Synchronization

/// An ``APNsSandbox`` on a hand-moved clock, with its key, and builders of valid requests.
final class APNsFixture: Sendable {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM123456"
    static let bundleID = "dev.herald.test"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let deviceToken = String(repeating: "ab", count: 32)

    let key: SigningKey
    let sandbox: APNsSandbox
    private let now = TestNow(APNsFixture.start)

    init(acceptedLimit: Int = 10_000) throws {
        key = try SigningKey.generateP256()
        let now = self.now
        sandbox = APNsSandbox(
            publicKey: try key.publicKey(), keyID: Self.keyID, teamID: Self.teamID, bundleID: Self.bundleID,
            acceptedLimit: acceptedLimit, clock: { now.value.withLock { $0 } })
        token = try Self.token(key: key, iat: Self.start)
    }

    /// The provider token every request carries unless told otherwise.
    let token: String

    /// Moves the sandbox's clock forward.
    func advance(_ seconds: TimeInterval) {
        now.value.withLock { $0 += seconds }
    }

    static func token(
        key: SigningKey, iat: Date, keyID: String = APNsFixture.keyID, teamID: String = APNsFixture.teamID
    ) throws -> String {
        try JWT.sign(
            header: ["kid": keyID], claims: APNsProviderClaims(iss: teamID, iat: Int64(iat.timeIntervalSince1970)),
            key: key)
    }

    /// A valid push, with `headers` replacing (nil value: removing) the defaults.
    func request(
        method: String = "POST", path: String = "/3/device/" + APNsFixture.deviceToken,
        headers overrides: [String: String?] = [:], extraHeaders: [HTTP2Header] = [],
        body: String = #"{"aps":{"alert":{"title":"Hi","body":"There"}},"notificationId":"n1"}"#
    ) -> HTTP2Request {
        var fields: [String: String?] = [
            "authorization": "bearer \(token)", "apns-topic": Self.bundleID, "apns-push-type": "alert",
            "apns-priority": "10", "apns-expiration": "0",
        ]
        fields.merge(overrides) { $1 }
        let headers = fields.sorted { $0.key < $1.key }.compactMap { name, value in value.map { HTTP2Header(name, $0) }
        }
        return HTTP2Request(method: method, path: path, headers: headers + extraHeaders, body: Array(body.utf8))
    }

    /// The `reason` of a refusal's JSON body.
    static func reason(_ response: HTTP2Response) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["reason"] as? String
    }
}

/// The time a test's clock shows, moved by hand.
final class TestNow: Sendable {
    let value: Mutex<Date>

    init(_ start: Date) { value = Mutex(start) }
}
