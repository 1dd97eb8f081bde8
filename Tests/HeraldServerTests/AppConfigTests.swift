import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("App config API")
struct AppConfigTests {
    static let policy = #"""
        {"update":{"ios":{"minimumVersion":"1.7.0","storeURL":"https://apps.apple.com/app/id1"},
                   "android":{"minimumVersion":"1.7.0","storeURL":"https://play.google.com/store/apps/details?id=x","sideloadPrompt":true}},
         "deepLinks":{"allowedPrefixes":["myapp://","https://shop.example/"]}}
        """#

    static func configured(_ body: (TestServer) async throws -> Void) async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let put = try await server.send("PUT", "/v1/app-config", json: policy, token: key)
            #expect(put.status == 200, "\(put.text)")
            try await body(server)
        }
    }

    static func update(_ server: TestServer, _ query: String) async throws -> [String: Any]? {
        let response = try await server.get("/v1/app-config?\(query)")
        #expect(response.status == 200, "\(response.text)")
        return response.object["update"] as? [String: Any]
    }

    static func kind(_ server: TestServer, _ query: String) async throws -> String? {
        try await update(server, query)?["kind"] as? String
    }

    @Test("UPDATE-01 no update decision without a policy, without installer info, or without a policy for the platform")
    func hidden() async throws {
        try await withServer { server in
            let bare = try await server.get("/v1/app-config?installSource=app_store&platform=ios&version=1.0.0")
            #expect(bare.object["update"] is NSNull, "no policy published yet")
            #expect((bare.object["catalog"] as? [String: Any])?["categories"] != nil, "the default catalog is served")
            #expect((bare.object["deepLinks"] as? [String: Any])?["allowedPrefixes"] as? [String] == [])
            let key = try await server.apiKey()
            _ = try await server.send(
                "PUT", "/v1/app-config", json: #"{"update":{"ios":{"minimumVersion":"1.7.0"}}}"#, token: key)
            #expect(
                try await Self.update(server, "installSource=play_store&platform=android&version=1.0.0") == nil,
                "no policy for android")
            #expect(try await Self.update(server, "") == nil, "no platform")
            #expect(try await Self.update(server, "platform=ios&version=1.0.0") == nil, "no installer info")
            #expect(try await Self.kind(server, "installSource=app_store&platform=ios&version=1.7.0") == "none")
        }
    }

    @Test("UPDATE-02 installed version below the minimum asks for an update (1.10.0 is above 1.9.9)")
    func versionUpdate() async throws {
        try await Self.configured { server in
            let update = try await Self.update(server, "installSource=app_store&platform=ios&version=1.6.9")
            #expect(update?["kind"] as? String == "version")
            #expect(update?["minimumVersion"] as? String == "1.7.0")
            #expect(update?["storeURL"] as? String == "https://apps.apple.com/app/id1")
            #expect(try await Self.kind(server, "installSource=app_store&platform=ios&version=1.10.0") == "none")
            #expect(try await Self.kind(server, "installSource=app_store&platform=ios&version=1.7.0") == "none")
        }
    }

    @Test("UPDATE-03 a sideloaded Android install gets the Play Store prompt, which wins over the version update")
    func sideloadedAndroid() async throws {
        try await Self.configured { server in
            let sideloaded = try await Self.kind(server, "platform=android&version=1.0.0&installSource=sideload")
            let outdated = try await Self.kind(server, "platform=android&version=1.0.0&installSource=play_store")
            let current = try await Self.kind(server, "platform=android&version=2.0.0&installSource=play_store")
            #expect(sideloaded == "store")
            #expect(outdated == "version")
            #expect(current == "none")
        }
    }

    @Test("UPDATE-04 the policy has no forced update: only none, version or store, all dismissible by the app")
    func neverForced() async throws {
        try await Self.configured { server in
            let update = try #require(
                try await Self.update(server, "installSource=app_store&platform=ios&version=0.1.0"))
            #expect(Set(update.keys) == ["kind", "minimumVersion", "storeURL"])
            let key = try await server.apiKey()
            let forced = #"{"update":{"ios":{"minimumVersion":"1.7.0","forced":true}}}"#
            expectError(try await server.send("PUT", "/v1/app-config", json: forced, token: key), 400, "invalid_body")
            #expect(try await Self.kind(server, "installSource=app_store&platform=ios&version=0.1.0") == "version")
        }
    }

    @Test("the deep-link allowlist and a custom catalog round-trip; publishing needs a key; bad input is 400")
    func publisherWrites() async throws {
        try await withServer { server in
            expectError(try await server.send("PUT", "/v1/app-config", json: Self.policy), 401, "unauthenticated")
            let key = try await server.apiKey()
            #expect(try await server.send("PUT", "/v1/app-config", json: Self.policy, token: key).status == 200)
            let read = try await server.get("/v1/app-config").object
            #expect(
                (read["deepLinks"] as? [String: Any])?["allowedPrefixes"] as? [String] == [
                    "myapp://", "https://shop.example/",
                ])
            for bad in [
                #"{"update":{"ios":{"minimumVersion":"banana"}}}"#, #"{"deepLinks":{"allowedPrefixes":"x"}}"#, "[1,2",
                #"{"deeplinks":{"allowedPrefixes":[]}}"#,
                #"{"catalog":{"categories":[],"types":[{"prefix":"admin","hidden":false}]}}"#,
            ] {
                #expect(try await server.send("PUT", "/v1/app-config", json: bad, token: key).status == 400, "\(bad)")
            }
            expectError(try await server.get("/v1/app-config?platform=windows"), 400, "invalid_platform")
            expectError(
                try await server.get("/v1/app-config?installSource=app_store&platform=ios&version=x.y"), 400,
                "invalid_version")
            let still = try await server.get("/v1/app-config").object
            #expect(
                (still["deepLinks"] as? [String: Any])?["allowedPrefixes"] as? [String] == [
                    "myapp://", "https://shop.example/",
                ])
        }
    }
}
