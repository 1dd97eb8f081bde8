import Foundation
import HeraldHTTPTestSupport
import HeraldStore
import Testing

@Suite("Analytics events API")
struct EventTests {
    static func batch(_ names: [String]) -> String {
        let events = names.map {
            #"{"name":"\#($0)","at":"2026-11-29T10:00:00Z","properties":{"source":"home","count":2}}"#
        }
        return #"{"events":[\#(events.joined(separator: ","))]}"#
    }

    /// Posts one event of the flow and checks it was stored for the user.
    static func ingest(_ name: String) async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let response = try await server.send("POST", "/v1/me/events", json: batch([name]), token: token)
            #expect(response.status == 202)
            #expect(response.object["accepted"] as? Int == 1)
            #expect(try await server.app.store.eventCount(userID: "alice") == 1)
        }
    }

    @Test("EVENT-01 notification_banner_shown is accepted and stored") func bannerShown() async throws {
        try await Self.ingest("notification_banner_shown")
    }
    @Test("EVENT-02 notification_banner_tapped is accepted and stored") func bannerTapped() async throws {
        try await Self.ingest("notification_banner_tapped")
    }
    @Test("EVENT-03 notification_consent_sheet_shown is accepted and stored") func sheetShown() async throws {
        try await Self.ingest("notification_consent_sheet_shown")
    }
    @Test("EVENT-04 notification_consent_accepted is accepted and stored") func accepted() async throws {
        try await Self.ingest("notification_consent_accepted")
    }
    @Test("EVENT-05 notification_consent_cancelled is accepted and stored") func cancelled() async throws {
        try await Self.ingest("notification_consent_cancelled")
    }
    @Test("EVENT-06 notification_permission_granted is accepted and stored") func granted() async throws {
        try await Self.ingest("notification_permission_granted")
    }
    @Test("EVENT-07 notification_permission_denied is accepted and stored") func denied() async throws {
        try await Self.ingest("notification_permission_denied")
    }

    @Test("batches of 100 are accepted; 101, empty, bad names and bad times answer 400 and store nothing")
    func limits() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let full = try await server.send(
                "POST", "/v1/me/events", json: Self.batch(Array(repeating: "notification_banner_shown", count: 100)),
                token: token)
            #expect(full.status == 202)
            let bad = [
                Self.batch(Array(repeating: "notification_banner_shown", count: 101)),
                #"{"events":[]}"#,
                Self.batch(["Bad Name!"]),
                Self.batch([String(repeating: "a", count: 101)]),
                #"{"events":[{"name":"x","at":"yesterday"}]}"#,
                #"{"events":[{"name":"x"}]}"#,
                #"{"events":[{"name":"x","at":"2026-11-29T10:00:00Z","properties":{"blob":"\#(String(repeating: "x", count: 5000))"}}]}"#,
                #"{"events":"none"}"#,
            ]
            for json in bad {
                let response = try await server.send("POST", "/v1/me/events", json: json, token: token)
                #expect(response.status == 400, "\(json.prefix(60)) answered \(response.status)")
            }
            #expect(try await server.app.store.eventCount(userID: "alice") == 100)
        }
    }
}
