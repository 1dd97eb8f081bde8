import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

@Suite("APNs look-alike: requests checked as Apple checks them")
struct APNsSandboxTests {
    @Test("a valid push is accepted: 200, apns-id echoed, apns-unique-id, recorded with its fields")
    func accepted() async throws {
        let fixture = try APNsFixture()
        let id = "7f2b1c4e-9a8d-4e6f-b1a2-3c4d5e6f7a8b"
        let response = await fixture.sandbox.respond(
            to: fixture.request(headers: ["apns-id": id, "apns-collapse-id": "order-1", "apns-priority": "5"]))
        #expect(response.status == 200)
        #expect(response.header("apns-id") == id)
        #expect(response.header("apns-unique-id").flatMap(UUID.init(uuidString:)) != nil)
        #expect(response.body.isEmpty)
        let recorded = try #require(fixture.sandbox.accepted.first)
        #expect(recorded.deviceToken == APNsFixture.deviceToken)
        #expect(recorded.apnsID == id)
        #expect(recorded.topic == APNsFixture.bundleID)
        #expect(recorded.pushType == "alert")
        #expect(recorded.priority == 5)
        #expect(recorded.collapseID == "order-1")
        #expect(recorded.expiration == 0)
        #expect(recorded.receivedAt == APNsFixture.start)
        #expect(recorded.payloadObject["notificationId"] as? String == "n1")
        #expect(recorded.headers.contains(HTTP2Header("apns-collapse-id", "order-1")))
        #expect(fixture.sandbox.statusCounts == [200: 1])
    }

    @Test("a push whose answer never left (its connection ended) is taken back: not accepted, no 200")
    func unansweredTakenBack() async throws {
        let fixture = try APNsFixture()
        _ = await fixture.sandbox.respond(
            to: fixture.request(headers: ["apns-id": "7f2b1c4e-9a8d-4e6f-b1a2-3c4d5e6f7a8b"]))
        let unanswered = await fixture.sandbox.respond(to: fixture.request())
        let whenUnanswered = try #require(unanswered.whenUnanswered)
        whenUnanswered()
        #expect(fixture.sandbox.accepted.map(\.apnsID) == ["7f2b1c4e-9a8d-4e6f-b1a2-3c4d5e6f7a8b"])
        #expect(fixture.sandbox.statusCounts == [200: 1])
    }

    @Test("without apns-id the sandbox makes a lowercase UUID")
    func generatedID() async throws {
        let fixture = try APNsFixture()
        let response = await fixture.sandbox.respond(to: fixture.request(headers: ["apns-id": nil]))
        let id = try #require(response.header("apns-id"))
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        #expect(fixture.sandbox.accepted.map(\.apnsID) == [id])
    }

    @Test(
        "each malformed request gets Apple's reason and status",
        arguments: [
            (APNsCase(method: "GET"), "MethodNotAllowed", 405),
            (APNsCase(path: "/3/devices/abc"), "BadPath", 404),
            (APNsCase(path: "/3/device/"), "MissingDeviceToken", 400),
            (APNsCase(path: "/3/device/" + String(repeating: "ab", count: 31)), "BadDeviceToken", 400),
            (APNsCase(path: "/3/device/" + String(repeating: "zz", count: 32)), "BadDeviceToken", 400),
            (APNsCase(path: "/3/device/" + String(repeating: "a", count: 65)), "BadDeviceToken", 400),
            (APNsCase(headers: ["authorization": nil]), "MissingProviderToken", 403),
            (APNsCase(headers: ["authorization": "basic abc"]), "MissingProviderToken", 403),
            (APNsCase(headers: ["authorization": "bearer not.a.jwt"]), "InvalidProviderToken", 403),
            (APNsCase(headers: ["apns-topic": nil]), "MissingTopic", 400),
            (APNsCase(headers: ["apns-topic": "bad topic"]), "BadTopic", 400),
            (APNsCase(headers: ["apns-topic": "com.other.app"]), "TopicDisallowed", 400),
            (APNsCase(headers: ["apns-push-type": "voip"]), "TopicDisallowed", 400),
            (APNsCase(headers: ["apns-push-type": "shout"]), "InvalidPushType", 400),
            (APNsCase(headers: ["apns-priority": "7"]), "BadPriority", 400),
            (APNsCase(headers: ["apns-priority": "high"]), "BadPriority", 400),
            (APNsCase(headers: ["apns-expiration": "tomorrow"]), "BadExpirationDate", 400),
            (APNsCase(headers: ["apns-expiration": "-1"]), "BadExpirationDate", 400),
            (APNsCase(headers: ["apns-collapse-id": String(repeating: "c", count: 65)]), "BadCollapseId", 400),
            (APNsCase(headers: ["apns-id": "delivery-1"]), "BadMessageId", 400),
            (APNsCase(headers: ["apns-id": "7F2B1C4E9-A8D-4E6F-B1A2-3C4D5E6F7A8B"]), "BadMessageId", 400),
            (APNsCase(headers: ["apns-id": "7F2B1C4E-9A8D-4E6F-B1A2-3C4D5E6F7A8G"]), "BadMessageId", 400),
            (APNsCase(headers: ["apns-id": "7F2B1C4E-9A8D-4E6F-B1A2-3C4D5E6F7A8B0"]), "BadMessageId", 400),
            (APNsCase(duplicate: HTTP2Header("apns-priority", "5")), "DuplicateHeaders", 400),
            (APNsCase(body: ""), "PayloadEmpty", 400),
            (APNsCase(body: #"{"aps":{"alert":"\#(String(repeating: "x", count: 4_090))"}}"#), "PayloadTooLarge", 413),
            (APNsCase(body: "not json"), "BadPayload", 400),
            (APNsCase(body: "[1,2]"), "BadPayload", 400),
            (APNsCase(body: #"{"data":{}}"#), "BadPayload", 400),
            (APNsCase(body: #"{"aps":"alert"}"#), "BadPayload", 400),
        ])
    func refused(_ request: APNsCase, reason: String, status: Int) async throws {
        let fixture = try APNsFixture()
        let response = await fixture.sandbox.respond(
            to: fixture.request(
                method: request.method, path: request.path, headers: request.headers,
                extraHeaders: request.duplicate.map { [$0] } ?? [], body: request.body))
        #expect(response.status == status)
        #expect(APNsFixture.reason(response) == reason)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        #expect(fixture.sandbox.accepted.isEmpty)
        #expect(fixture.sandbox.statusCounts == [status: 1])
    }

    @Test("the topic of a VoIP push is the bundle id with .voip, and its payload may reach 5 KB")
    func voipTopic() async throws {
        let fixture = try APNsFixture()
        let big = #"{"aps":{},"call":"\#(String(repeating: "x", count: 4_500))"}"#
        let response = await fixture.sandbox.respond(
            to: fixture.request(
                headers: ["apns-push-type": "voip", "apns-topic": APNsFixture.bundleID + ".voip"], body: big))
        #expect(response.status == 200)
    }

    @Test("an error echoes the apns-id of the request")
    func errorEchoesID() async throws {
        let fixture = try APNsFixture()
        let id = "7F2B1C4E-9A8D-4E6F-B1A2-3C4D5E6F7A8B"
        let response = await fixture.sandbox.respond(
            to: fixture.request(headers: ["apns-id": id, "apns-priority": "3"]))
        #expect(response.status == 400)
        #expect(response.header("apns-id") == id)
    }
}

/// The parts of a request one refusal case changes.
struct APNsCase: Sendable, CustomStringConvertible {
    var method = "POST"
    var path = "/3/device/" + APNsFixture.deviceToken
    var headers: [String: String?] = [:]
    var duplicate: HTTP2Header?
    var body = #"{"aps":{"alert":"Hi"}}"#

    var description: String {
        "\(method) \(path.prefix(24)) \(headers) \(duplicate.map(\.name) ?? "") \(body.prefix(20))"
    }
}

@Suite("APNs look-alike: the accepted list")
struct APNsAcceptedListTests {
    @Test("past its limit the list drops the oldest; the counts keep every answer")
    func limit() async throws {
        let fixture = try APNsFixture(acceptedLimit: 4)
        for index in 0..<6 {
            let id = "00000000-0000-4000-8000-00000000000\(index)"
            #expect(await fixture.sandbox.respond(to: fixture.request(headers: ["apns-id": id])).status == 200)
        }
        #expect(fixture.sandbox.accepted.map { $0.apnsID.suffix(1) } == ["2", "3", "4", "5"])
        #expect(fixture.sandbox.statusCounts == [200: 6])
    }
}
