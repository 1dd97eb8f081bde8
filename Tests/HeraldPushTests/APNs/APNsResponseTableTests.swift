import Foundation
import HeraldPush
import Testing

@Suite("APNs responses")
struct APNsResponseTableTests {
    /// What each documented answer must come to, spelled out apart from the table under test.
    /// `retry-after: 120` comes with every answer; only the retryable ones pass it on.
    static let rows: [(status: Int, reason: String, verdict: PushVerdict)] = [
        (400, "BadCollapseId", .failed(reason: "BadCollapseId")),
        (400, "BadDeviceToken", .pruned(reason: "BadDeviceToken")),
        (400, "BadExpirationDate", .failed(reason: "BadExpirationDate")),
        (400, "BadMessageId", .failed(reason: "BadMessageId")),
        (400, "BadPriority", .failed(reason: "BadPriority")),
        (400, "BadTopic", .failed(reason: "BadTopic")),
        (400, "DeviceTokenNotForTopic", .pruned(reason: "DeviceTokenNotForTopic")),
        (400, "DuplicateHeaders", .failed(reason: "DuplicateHeaders")),
        (400, "IdleTimeout", .retry(reason: "IdleTimeout", retryAfter: "120")),
        (400, "InvalidPushType", .failed(reason: "InvalidPushType")),
        (400, "MissingDeviceToken", .failed(reason: "MissingDeviceToken")),
        (400, "MissingTopic", .failed(reason: "MissingTopic")),
        (400, "PayloadEmpty", .failed(reason: "PayloadEmpty")),
        (400, "TopicDisallowed", .failed(reason: "TopicDisallowed")),
        (403, "BadCertificate", .failed(reason: "BadCertificate")),
        (403, "BadCertificateEnvironment", .failed(reason: "BadCertificateEnvironment")),
        (403, "ExpiredProviderToken", .retry(reason: "ExpiredProviderToken", retryAfter: nil)),
        (403, "Forbidden", .failed(reason: "Forbidden")),
        (403, "InvalidProviderToken", .retry(reason: "InvalidProviderToken", retryAfter: nil)),
        (403, "MissingProviderToken", .failed(reason: "MissingProviderToken")),
        (404, "BadPath", .failed(reason: "BadPath")),
        (405, "MethodNotAllowed", .failed(reason: "MethodNotAllowed")),
        (410, "ExpiredToken", .pruned(reason: "ExpiredToken")),
        (410, "Unregistered", .pruned(reason: "Unregistered")),
        (413, "PayloadTooLarge", .failed(reason: "PayloadTooLarge")),
        (429, "TooManyProviderTokenUpdates", .retry(reason: "TooManyProviderTokenUpdates", retryAfter: "120")),
        (429, "TooManyRequests", .retry(reason: "TooManyRequests", retryAfter: "120")),
        (500, "InternalServerError", .retry(reason: "InternalServerError", retryAfter: "120")),
        (503, "ServiceUnavailable", .retry(reason: "ServiceUnavailable", retryAfter: "120")),
        (503, "Shutdown", .retry(reason: "Shutdown", retryAfter: "120")),
    ]

    @Test("every documented reason is in the table with its status, and in this test")
    func complete() {
        #expect(Set(APNsResponseTable.reasons.keys) == Set(Self.rows.map(\.reason)))
        for row in Self.rows { #expect(APNsResponseTable.reasons[row.reason]?.status == row.status, "\(row.reason)") }
    }

    @Test("each documented answer maps to its verdict", arguments: rows.indices)
    func row(index: Int) async throws {
        let row = Self.rows[index]
        let (client, fake) = try APNsFixtures.client(clock: TestClock())
        fake.script(row.status, reason: row.reason, headers: [HTTP2Header("retry-after", "120")])
        // The verdict carries the status APNs answered with.
        #expect(try await send(client) == row.verdict.answered(row.status))
    }

    @Test(
        "an undocumented reason or none goes by status",
        arguments: [
            (410, nil, PushVerdict.pruned(reason: "HTTP 410")),
            (502, nil, .retry(reason: "HTTP 502", retryAfter: nil)),
            (429, "SomethingNew", .retry(reason: "SomethingNew", retryAfter: nil)),
            (400, "SomethingNew", .failed(reason: "SomethingNew")),
            (401, nil, .failed(reason: "HTTP 401")),
            (202, nil, .sent(providerMessageID: nil)),
        ] as [(Int, String?, PushVerdict)])
    func byStatus(status: Int, reason: String?, verdict: PushVerdict) async throws {
        let (client, fake) = try APNsFixtures.client(clock: TestClock())
        fake.script(status, reason: reason)
        #expect(try await send(client) == verdict.answered(status))
    }

    @Test("200 is sent, with APNs's apns-id as the provider message id")
    func sent() async throws {
        let (client, fake) = try APNsFixtures.client(clock: TestClock())
        #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
        #expect(fake.received.count == 1)
    }

    func send(_ client: APNsClient) async throws -> PushVerdict {
        try await client.send(
            deviceToken: APNsFixtures.deviceToken, deliveryID: APNsFixtures.deliveryID,
            payload: APNsFixtures.payload(), expiresAt: nil, now: Date(timeIntervalSince1970: 1_750_000_000))
    }
}
