import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("Devices API")
struct DeviceTests {
    static let apnsToken = String(repeating: "ab12", count: 16)

    static func registration(token: String, provider: String = "apns", platform: String = "ios") -> String {
        #"{"token":"\#(token)","provider":"\#(provider)","platform":"\#(platform)","environment":"development","appVersion":"1.7.0","locale":"nl-NL","timeZone":"Europe/Amsterdam"}"#
    }

    @Test("PUSH-04 the token is registered with the backend against the signed-in user")
    func registerToken() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let response = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: Self.apnsToken.uppercased()), token: token)
            #expect(response.status == 200)
            #expect(response.object["token"] as? String == Self.apnsToken, "APNs tokens are stored lower-case")
            #expect(response.object["userId"] as? String == "alice")
            #expect(response.object["active"] as? Bool == true)
            #expect(response.object["environment"] as? String == "development")

            let key = try await server.apiKey()
            let list = try await server.get("/v1/users/alice/devices", token: key).object
            let items = list["items"] as? [[String: Any]] ?? []
            #expect(items.map { $0["token"] as? String } == [Self.apnsToken])
            #expect(items.first?["appVersion"] as? String == "1.7.0")
        }
    }

    @Test("each provider's token format is validated")
    func tokenValidation() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let good = [
                (Self.apnsToken, "apns", "ios"),
                ("fcm-token_abc:APA91bH" + String(repeating: "x", count: 100), "fcm", "android"),
                ("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", "expo", "ios"),
            ]
            for (value, provider, platform) in good {
                let response = try await server.send(
                    "POST", "/v1/me/devices",
                    json: Self.registration(token: value, provider: provider, platform: platform), token: token)
                #expect(response.status == 200, "\(provider) \(value): \(response.text)")
            }
            let bad = [
                ("abc", "apns"), (String(repeating: "zz", count: 32), "apns"), ("has space", "fcm"),
                (String(repeating: "a", count: 4097), "fcm"), ("ExponentPushToken[]", "expo"), ("not-expo", "expo"),
            ]
            for (value, provider) in bad {
                let response = try await server.send(
                    "POST", "/v1/me/devices", json: Self.registration(token: value, provider: provider), token: token)
                #expect(response.status == 400, "\(provider) \(value.prefix(20)) answered \(response.status)")
            }
            let badProvider = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: "x", provider: "pigeon"), token: token)
            expectError(badProvider, 400, "invalid_body")
            let longVersion =
                #"{"token":"\#(Self.apnsToken)","provider":"apns","platform":"ios","appVersion":"\#(String(repeating: "1", count: 40))"}"#
            #expect(try await server.send("POST", "/v1/me/devices", json: longVersion, token: token).status == 400)
            let key = try await server.apiKey()
            let devices = try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [Any]
            #expect(devices?.count == good.count, "bad registrations wrote nothing")
        }
    }

    @Test("a token with a slash is unregistered through its percent-encoded path segment")
    func slashInToken() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let device = "ExponentPushToken[ab/cd+ef==]"
            let registered = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: device, provider: "expo"), token: token)
            #expect(registered.status == 200)
            let encoded = try #require(device.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            #expect(encoded.contains("%2F"))
            let removed = try await server.delete("/v1/me/devices/\(encoded)", token: token)
            #expect(removed.status == 204 || removed.status == 200, "\(removed.status) \(removed.text)")
            let key = try await server.apiKey()
            let items = try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [[String: Any]]
            #expect(items?.allSatisfy { $0["active"] as? Bool == false } == true, "\(String(describing: items))")
        }
    }

    @Test("a token registered by another user moves to the new user")
    func tokenMoves() async throws {
        try await withServer { server in
            let body = Self.registration(token: Self.apnsToken)
            _ = try await server.send("POST", "/v1/me/devices", json: body, token: try server.token("alice"))
            let moved = try await server.send("POST", "/v1/me/devices", json: body, token: try server.token("bob"))
            #expect(moved.object["userId"] as? String == "bob")
            let key = try await server.apiKey()
            #expect(
                (try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [Any])?.isEmpty == true
            )
            #expect((try await server.get("/v1/users/bob/devices", token: key).object["items"] as? [Any])?.count == 1)
        }
    }

    @Test("PUSH-13 sign-out unregisters the device's token; another user's token is untouched")
    func unregister() async throws {
        try await withServer { server in
            let alice = try server.token("alice")
            _ = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: Self.apnsToken), token: alice)
            let bobToken = "ExponentPushToken[bobbobbob]"
            _ = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: bobToken, provider: "expo"),
                token: try server.token("bob"))

            #expect(try await server.delete("/v1/me/devices/\(bobToken)", token: alice).status == 204)
            #expect(
                try await server.delete("/v1/me/devices/\(Self.apnsToken.uppercased())", token: alice).status == 204,
                "an APNs token sent in upper case (as some SDKs print it) still signs out")
            #expect(
                try await server.delete("/v1/me/devices/\(Self.apnsToken)", token: alice).status == 204, "idempotent")
            let key = try await server.apiKey()
            #expect(
                (try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [Any])?.isEmpty == true
            )
            #expect((try await server.get("/v1/users/bob/devices", token: key).object["items"] as? [Any])?.count == 1)
        }
    }

    @Test("publisher device admin needs an API key, and removes one device")
    func publisherAdmin() async throws {
        try await withServer { server in
            _ = try await server.send(
                "POST", "/v1/me/devices", json: Self.registration(token: Self.apnsToken),
                token: try server.token("alice"))
            expectError(try await server.get("/v1/users/alice/devices"), 401, "unauthenticated")
            expectError(
                try await server.get("/v1/users/alice/devices", token: try server.token("alice")), 401,
                "unauthenticated")
            let key = try await server.apiKey()
            expectError(try await server.delete("/v1/users/alice/devices/nope", token: key), 404, "not_found")
            #expect(try await server.delete("/v1/users/alice/devices/\(Self.apnsToken)", token: key).status == 204)
            #expect(
                (try await server.get("/v1/users/alice/devices", token: key).object["items"] as? [Any])?.isEmpty == true
            )
        }
    }
}
