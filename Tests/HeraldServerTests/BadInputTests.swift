import Foundation
import HeraldHTTPTestSupport
import Testing

/// Every call that takes a body refuses the same kinds of bad input the same way.
@Suite("Bad input on every body-taking call")
struct BadInputTests {
    enum Caller { case user, publisher }

    /// (method, path, who calls it, a body of the right shape with one over-long string, one with an over-long list)
    static let calls: [(String, String, Caller, String, String)] = [
        (
            "PATCH", "/v1/me/preferences", .user,
            #"{"disabledTypes":["\#(String(repeating: "a", count: 101))"]}"#,
            #"{"disabledTypes":[\#((0..<101).map { "\"t.n\($0)\"" }.joined(separator: ","))]}"#
        ),
        (
            "POST", "/v1/me/devices", .user,
            #"{"token":"ExponentPushToken[x]","provider":"expo","platform":"ios","locale":"\#(String(repeating: "a", count: 36))"}"#,
            ""
        ),
        (
            "POST", "/v1/me/events", .user,
            #"{"events":[{"name":"\#(String(repeating: "a", count: 101))","at":"2026-11-29T10:00:00Z"}]}"#,
            #"{"events":[\#(Array(repeating: #"{"name":"x","at":"2026-11-29T10:00:00Z"}"#, count: 101).joined(separator: ","))]}"#
        ),
        (
            "PUT", "/v1/app-config", .publisher,
            #"{"deepLinks":{"allowedPrefixes":["\#(String(repeating: "a", count: 513))"]}}"#,
            #"{"deepLinks":{"allowedPrefixes":[\#((0..<101).map { "\"app\($0)://\"" }.joined(separator: ","))]}}"#
        ),
        (
            "POST", "/v1/notifications", .publisher,
            #"{"recipients":["alice"],"type":"order.x","title":"t","body":"\#(String(repeating: "b", count: 2001))"}"#,
            #"{"recipients":[\#((0..<1001).map { "\"u\($0)\"" }.joined(separator: ","))],"type":"order.x","title":"t","body":"b"}"#
        ),
        (
            // 100,001 user ids do not fit this suite's body limit: BroadcastTests checks that list.
            "POST", "/v1/broadcasts", .publisher,
            #"{"audience":"all","type":"order.x","title":"t","body":"\#(String(repeating: "b", count: 2001))"}"#, ""
        ),
        ("POST", "/v1/me/permission", .user, "", ""),
        ("POST", "/v1/me/permission/sync", .user, "", ""),
    ]

    @Test("bad JSON, wrong types, over-long strings and over-long lists answer 400; a too-large body 413")
    func everyCall() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 64 * 1024 }) { server in
            let user = try server.token("alice")
            let key = try await server.apiKey()
            for (method, path, caller, longString, longList) in Self.calls {
                let token = caller == .user ? user : key
                let label = "\(method) \(path)"
                expectError(try await server.send(method, path, json: "{\"a\":", token: token), 400, "invalid_json")
                expectError(try await server.send(method, path, json: "", token: token), 400, "invalid_json")
                let wrongType = try await server.send(method, path, json: "[1,2,3]", token: token)
                #expect(wrongType.status == 400, "\(label) wrong type answered \(wrongType.status)")
                for body in [longString, longList] where !body.isEmpty {
                    let response = try await server.send(method, path, json: body, token: token)
                    #expect(
                        response.status == 400, "\(label) answered \(response.status): \(response.text.prefix(200))")
                    #expect(response.object["error"] is [String: Any], "\(label): \(response.text.prefix(200))")
                }
                let huge = #"{"padding":"\#(String(repeating: "x", count: 70_000))"}"#
                expectError(try await server.send(method, path, json: huge, token: token), 413, "payload_too_large")
            }
            // Nothing of any refused request was written.
            let prefs = try await server.get("/v1/me/preferences", token: user).object
            #expect(prefs["disabledTypes"] as? [String] == [])
            #expect(prefs["osPermissionGranted"] is NSNull)
            #expect(
                (try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [Any])?.isEmpty == true
            )
            #expect(try await server.app.store.eventCount(userID: "alice") == 0)
            #expect(try await server.get("/v1/me/counts", token: user).object["unread"] as? Int == 0)
            let config = try await server.get("/v1/app-config").object
            #expect((config["deepLinks"] as? [String: Any])?["allowedPrefixes"] as? [String] == [])
        }
    }

    @Test("path parameters are checked: an over-long or malformed user id is 400, an unknown id 404")
    func pathParameters() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let long = String(repeating: "u", count: 129)
            #expect(try await server.get("/v1/users/\(long)/devices", token: key).status == 400)
            #expect(try await server.get("/v1/users/bad%20id/devices", token: key).status == 400)
            #expect(
                (try await server.get("/v1/users/nobody/devices", token: key).object["items"] as? [Any])?.isEmpty
                    == true)
            let user = try server.token("alice")
            expectError(
                try await server.get("/v1/me/notifications/\(String(repeating: "x", count: 300))", token: user), 404,
                "not_found")
        }
    }
}
