import Foundation
import HeraldHTTPTestSupport
import Testing

/// Each test runs twice: in process through the router, and over HTTP to the port.
@Suite("Preferences and permission API")
struct PreferencesTests {
    @Test(
        "STORE-01 defaults on first access: every category enabled, OS decision null", arguments: TestTransport.allCases
    )
    func defaults(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let response = try await server.get("/v1/me/preferences", token: try server.token("alice"))
            #expect(response.status == 200)
            let prefs = response.object
            #expect(prefs["globalEnabled"] as? Bool == true)
            #expect(prefs["osPermissionGranted"] is NSNull)
            #expect(
                prefs["categories"] as? [String: Bool] == [
                    "orders": true, "rewards": true, "promotions": true, "reminders": true,
                ])
            #expect(prefs["disabledTypes"] as? [String] == [])
            #expect(prefs["quietHours"] is NSNull)
        }
    }

    @Test(
        "STORE-02 updates persist and later reads return them; PATCH keeps what it does not name",
        arguments: TestTransport.allCases)
    func updatesPersist(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            let first =
                #"{"categories":{"promotions":false},"quietHours":{"start":"22:00","end":"07:00","timeZone":"Europe/Amsterdam"}}"#
            #expect(try await server.send("PATCH", "/v1/me/preferences", json: first, token: token).status == 200)
            let second = #"{"categories":{"orders":false}}"#
            let saved = try await server.send("PATCH", "/v1/me/preferences", json: second, token: token).object
            #expect(
                saved["categories"] as? [String: Bool] == [
                    "orders": false, "rewards": true, "promotions": false, "reminders": true,
                ])
            let read = try await server.get("/v1/me/preferences", token: token).object
            #expect(read["categories"] as? [String: Bool] == saved["categories"] as? [String: Bool])
            #expect((read["quietHours"] as? [String: String])?["start"] == "22:00")
            let cleared = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"quietHours":null}"#, token: token
            ).object
            #expect(cleared["quietHours"] is NSNull)
            #expect((cleared["categories"] as? [String: Bool])?["orders"] == false)
            let other = try await server.get("/v1/me/preferences", token: try server.token("bob")).object
            #expect((other["categories"] as? [String: Bool])?["orders"] == true, "another user keeps defaults")
        }
    }

    @Test(
        "STORE-03 a grant or denial records the decision and the global switch follows it",
        arguments: TestTransport.allCases)
    func decisionTracking(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            let denied = try await server.send("POST", "/v1/me/permission", json: #"{"granted":false}"#, token: token)
                .object
            #expect(denied["osPermissionGranted"] as? Bool == false)
            #expect(denied["globalEnabled"] as? Bool == false)
            let granted = try await server.send("POST", "/v1/me/permission", json: #"{"granted":true}"#, token: token)
                .object
            #expect(granted["osPermissionGranted"] as? Bool == true)
            #expect(granted["globalEnabled"] as? Bool == true)
            expectError(
                try await server.send("POST", "/v1/me/permission", json: #"{"granted":"yes"}"#, token: token), 400,
                "invalid_body")
            expectError(
                try await server.send("POST", "/v1/me/permission", json: #"{}"#, token: token), 400, "invalid_body")
        }
    }

    @Test(
        "PREFS-06 the account category cannot be opted out of: 400 and nothing saved", arguments: TestTransport.allCases
    )
    func accountCannotOptOut(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            let response = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"globalEnabled":false,"categories":{"account":false}}"#,
                token: token)
            #expect(response.status == 400)
            let prefs = try await server.get("/v1/me/preferences", token: token).object
            #expect(prefs["globalEnabled"] as? Bool == true, "nothing of the bad patch was written")
            #expect((prefs["categories"] as? [String: Bool])?["account"] == nil, "account has no switch")
            let unknown = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"categories":{"weather":false}}"#, token: token)
            #expect(unknown.status == 400)
        }
    }

    @Test("PREFS-11 saving a toggle keeps disabled types that no toggle owns", arguments: TestTransport.allCases)
    func otherDisabledTypesKept(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            _ = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"disabledTypes":["promo.flash","general.digest"]}"#,
                token: token)
            let saved = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"categories":{"rewards":false}}"#, token: token
            ).object
            #expect(saved["disabledTypes"] as? [String] == ["promo.flash", "general.digest"])
            #expect((saved["categories"] as? [String: Bool])?["rewards"] == false)
        }
    }

    @Test(
        "SYNC-01 revoked in system settings: on start the stored global switch becomes false",
        arguments: TestTransport.allCases)
    func syncRevoked(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            _ = try await server.send("POST", "/v1/me/permission", json: #"{"granted":true}"#, token: token)
            let synced = try await server.send(
                "POST", "/v1/me/permission/sync", json: #"{"status":"denied"}"#, token: token
            ).object
            #expect(synced["globalEnabled"] as? Bool == false)
            #expect(synced["osPermissionGranted"] as? Bool == false)
            #expect(try await server.get("/v1/me/preferences", token: token).object["globalEnabled"] as? Bool == false)
        }
    }

    @Test(
        "SYNC-02 granted in system settings: on start the stored global switch becomes true",
        arguments: TestTransport.allCases)
    func syncGranted(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            _ = try await server.send("POST", "/v1/me/permission", json: #"{"granted":false}"#, token: token)
            let synced = try await server.send(
                "POST", "/v1/me/permission/sync", json: #"{"status":"granted"}"#, token: token
            ).object
            #expect(synced["globalEnabled"] as? Bool == true)
            #expect(synced["osPermissionGranted"] as? Bool == true)
        }
    }

    @Test(
        "SYNC-03 never asked: no sync on start, the global switch keeps its default", arguments: TestTransport.allCases)
    func syncNeverAsked(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            for status in ["denied", "granted", "undetermined"] {
                let synced = try await server.send(
                    "POST", "/v1/me/permission/sync", json: #"{"status":"\#(status)"}"#, token: token
                ).object
                #expect(synced["globalEnabled"] as? Bool == true)
                #expect(synced["osPermissionGranted"] is NSNull)
            }
            expectError(
                try await server.send("POST", "/v1/me/permission/sync", json: #"{"status":"maybe"}"#, token: token),
                400, "invalid_body")
        }
    }

    @Test("bad preference patches answer 400 and write nothing", arguments: TestTransport.allCases)
    func badPatches(transport: TestTransport) async throws {
        try await withServer(transport: transport) { server in
            let token = try server.token("alice")
            let longType = String(repeating: "a", count: 101)
            let tooMany = (0..<101).map { "\"t.n\($0)\"" }.joined(separator: ",")
            let cases: [(String, String)] = [
                ("{not json", "invalid_json"),
                (#"{"globalEnabled":"no"}"#, "invalid_body"),
                (#"{"categories":["orders"]}"#, "invalid_body"),
                (#"{"disabledTypes":["\#(longType)"]}"#, ""),
                (#"{"disabledTypes":[\#(tooMany)]}"#, ""),
                (#"{"quietHours":{"start":"25:00","end":"07:00","timeZone":"UTC"}}"#, ""),
                (#"{"quietHours":{"start":"22:00","end":"07:00","timeZone":"Mars/Olympus"}}"#, ""),
            ]
            for (json, code) in cases {
                let response = try await server.send("PATCH", "/v1/me/preferences", json: json, token: token)
                #expect(response.status == 400, "\(json) answered \(response.status)")
                if !code.isEmpty { expectError(response, 400, code) }
            }
            let prefs = try await server.get("/v1/me/preferences", token: token).object
            #expect(prefs["disabledTypes"] as? [String] == [])
            #expect(prefs["quietHours"] is NSNull)
        }
    }
}
