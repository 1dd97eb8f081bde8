import Foundation
import HeraldSandbox
import Testing

@Suite("APNs look-alike: Live Activity pushes checked as ActivityKit needs them")
struct APNsLiveActivityTests {
    static let topic = APNsFixture.bundleID + ".push-type.liveactivity"
    static let update = #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"stops":3}}}"#
    static let start = """
        {"aps":{"timestamp":1800000000,"event":"start","content-state":{"stops":3},\
        "attributes-type":"DeliveryAttributes","attributes":{"orderId":"o-1"},\
        "alert":{"title":"On its way","body":"3 stops to go","sound":"default"},"input-push-token":1}}
        """

    func send(_ body: String, headers: [String: String?] = [:]) async throws -> (Int, String?, APNsFixture) {
        let fixture = try APNsFixture()
        var fields: [String: String?] = ["apns-push-type": "liveactivity", "apns-topic": Self.topic]
        fields.merge(headers) { $1 }
        let response = await fixture.sandbox.respond(to: fixture.request(headers: fields, body: body))
        return (response.status, APNsFixture.reason(response), fixture)
    }

    @Test("a start, an update and an end are accepted and recorded with their push type, topic and priority")
    func accepted() async throws {
        let (status, _, fixture) = try await send(Self.start)
        #expect(status == 200)
        let recorded = try #require(fixture.sandbox.accepted.first)
        #expect(recorded.pushType == "liveactivity" && recorded.topic == Self.topic && recorded.priority == 10)
        let aps = try #require(recorded.payloadObject["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start" && aps["attributes-type"] as? String == "DeliveryAttributes")
        #expect(try await send(Self.update, headers: ["apns-priority": "5"]).0 == 200)
        let end = #"{"aps":{"timestamp":1800000000,"event":"end","content-state":{},"dismissal-date":1800003600}}"#
        #expect(try await send(end).0 == 200)
    }

    @Test("the topic must be the bundle id with .push-type.liveactivity")
    func topic() async throws {
        #expect(try await send(Self.update, headers: ["apns-topic": APNsFixture.bundleID]).1 == "TopicDisallowed")
        let alertOnLiveTopic = try await send(
            #"{"aps":{"alert":"hi"}}"#, headers: ["apns-push-type": "alert"])
        #expect(alertOnLiveTopic.1 == "TopicDisallowed", "an alert push may not use the Live Activity topic")
    }

    @Test("priority 1 is refused: Live Activity pushes go at 5 or 10")
    func priority() async throws {
        #expect(try await send(Self.update, headers: ["apns-priority": "1"]).1 == "BadPriority")
    }

    @Test(
        "a payload the device would drop is BadPayload",
        arguments: [
            #"{"aps":{"event":"update","content-state":{}}}"#,  // no timestamp
            #"{"aps":{"timestamp":1800000000.5,"event":"update","content-state":{}}}"#,  // not whole seconds
            #"{"aps":{"timestamp":true,"event":"update","content-state":{}}}"#,
            #"{"aps":{"timestamp":1800000000,"content-state":{}}}"#,  // no event
            #"{"aps":{"timestamp":1800000000,"event":"pause","content-state":{}}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"update"}}"#,  // no content-state
            #"{"aps":{"timestamp":1800000000,"event":"update","content-state":[1]}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"end","content-state":{},"dismissal-date":"soon"}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{},"stale-date":-5}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"start","content-state":{},"attributes":{},"alert":"hi"}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"start","content-state":{},"attributes-type":"A","alert":"hi"}}"#,
            #"{"aps":{"timestamp":1800000000,"event":"start","content-state":{},"attributes-type":"A","attributes":{}}}"#,
        ])
    func badPayload(_ body: String) async throws {
        let (status, reason, fixture) = try await send(body)
        #expect(status == 400 && reason == "BadPayload")
        #expect(fixture.sandbox.accepted.isEmpty)
    }
}
