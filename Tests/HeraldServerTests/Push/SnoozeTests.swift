import Foundation
import HeraldModel
import Testing

/// Snooze (issue 16, point 5), over real sockets through the APNs look-alike: what a snooze
/// holds, what passes it, and ending it early.
@Suite("Snooze: pushes wait, but the account category's and urgent ones", .serialized)
struct SnoozeTests {
    static func snooze(_ fixture: PushFixture, _ user: String, until: String) async throws -> [String: Any] {
        let response = try await fixture.server.send(
            "PATCH", "/v1/me/preferences", json: #"{"snoozedUntil":\#(until)}"#, token: try fixture.server.token(user))
        try #require(response.status == 200, "\(response.text)")
        return response.object
    }

    @Test("a snoozed user's push waits (deferred, snoozed) until the snooze ends; account and time-sensitive pass")
    func holdsAndPasses() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            let until = Date().addingTimeInterval(3_600).rounded
            let saved = try await Self.snooze(fixture, "ana", until: "\"\(until.formatted(.iso8601))\"")
            #expect(saved["snoozedUntil"] as? String == until.formatted(.iso8601))

            let held = try await fixture.publish(to: "ana")
            let urgent = try await fixture.publish(to: "ana", push: #","interruptionLevel":"time-sensitive""#)
            let account = try #require(
                try await fixture.server.publish(
                    to: ["ana"], type: "account.password_changed", extra: #","push":{"send":true}"#,
                    key: fixture.apiKey
                ).first)
            #expect(try await fixture.settledDeliveries(of: urgent).map(\.status) == ["sent"])
            #expect(try await fixture.settledDeliveries(of: account).map(\.status) == ["sent"])
            let waiting = try #require(try await fixture.settledDeliveries(of: held).first)
            #expect(waiting.status == "deferred" && waiting.reason == "snoozed")
            #expect(waiting.nextAttemptAt == until)
            #expect(fixture.sandbox.accepted(for: token).count == 2)
        }
    }

    @Test("ending a snooze early releases what it held at once; a sooner end makes it due then")
    func endingEarly() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ben")
            let later = Date().addingTimeInterval(7_200).rounded
            _ = try await Self.snooze(fixture, "ben", until: "\"\(later.formatted(.iso8601))\"")
            let first = try await fixture.publish(to: "ben")
            let second = try await fixture.publish(to: "ben")
            let sooner = Date().addingTimeInterval(3_600).rounded
            _ = try await Self.snooze(fixture, "ben", until: "\"\(sooner.formatted(.iso8601))\"")
            let moved = try await fixture.settledDeliveries(of: first)
            #expect(moved.map(\.nextAttemptAt) == [sooner] && moved.map(\.status) == ["deferred"])
            let cleared = try await Self.snooze(fixture, "ben", until: "null")
            #expect(cleared["snoozedUntil"] is NSNull)
            for id in [first, second] {
                let items = try await fixture.deliveries(of: id) { $0.allSatisfy { $0.status == "sent" } }
                #expect(items.map(\.status) == ["sent"], "\(items)")
            }
            #expect(fixture.sandbox.accepted(for: token).count == 2)
        }
    }

    @Test("ending a snooze inside quiet hours releases what it held when they end, not at once")
    func endingInsideQuietHours() async throws {
        try await PushFixture.run { fixture in
            try await fixture.register(PushFixture.deviceToken(), for: "dee")
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            func hhmm(_ date: Date) -> String {
                let parts = calendar.dateComponents([.hour, .minute], from: date)
                return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
            }
            // Quiet hours from a minute ago to an hour from now; a snooze beyond them.
            let quietEnd = calendar.date(bySetting: .second, value: 0, of: Date().addingTimeInterval(3_600))
            let start = hhmm(Date().addingTimeInterval(-60))
            let end = hhmm(Date().addingTimeInterval(3_600))
            let token = try fixture.server.token("dee")
            let quiet = try await fixture.server.send(
                "PATCH", "/v1/me/preferences",
                json: #"{"quietHours":{"start":"\#(start)","end":"\#(end)","timeZone":"UTC"}}"#, token: token)
            try #require(quiet.status == 200, "\(quiet.text)")
            let until = Date().addingTimeInterval(7_200).rounded
            _ = try await Self.snooze(fixture, "dee", until: "\"\(until.formatted(.iso8601))\"")
            let held = try await fixture.publish(to: "dee")
            #expect(try await fixture.settledDeliveries(of: held).map(\.nextAttemptAt) == [until])
            _ = try await Self.snooze(fixture, "dee", until: "null")
            let released = try await fixture.settledDeliveries(of: held)
            #expect(released.map(\.status) == ["deferred"])
            let due = try #require(released.first?.nextAttemptAt)
            let expected = try #require(quietEnd)
            #expect(abs(due.timeIntervalSince(expected)) < 61, "due when quiet hours end: \(due) vs \(expected)")
        }
    }

    @Test("a snooze more than a year ahead, or not a time, is a 400 naming snoozedUntil")
    func refused() async throws {
        try await withServer { server in
            let token = try server.token("cy")
            for (value, code) in [
                (#""\#(Date().addingTimeInterval(366 * 86_400).formatted(.iso8601))""#, "out_of_range"),
                (#""tomorrow""#, nil), ("3600", nil),
            ] {
                let response = try await server.send(
                    "PATCH", "/v1/me/preferences", json: #"{"snoozedUntil":\#(value)}"#, token: token)
                #expect(response.status == 400, "\(value): \(response.text)")
                if let code { #expect(response.errorCode == code) }
            }
        }
    }
}

extension Date {
    /// Whole seconds, as RFC 3339 without a fraction carries it.
    var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
