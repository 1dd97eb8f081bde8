import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Console sign-in over real HTTP: the cookie, the CSRF token, publisher calls made with the
/// session, sign-out, a revoked key, and both expiries on the server's clock.
@Suite("Console sessions")
struct ConsoleSessionTests {
    struct SignedIn {
        let cookie: (String, String)
        let csrf: String
        let response: LoopbackResponse
    }

    static func signIn(_ server: TestServer, key: String, headers: [(String, String)] = []) async throws -> SignedIn {
        let response = try await server.send(
            "POST", "/console/session", json: #"{"apiKey":"\#(key)"}"#, headers: headers)
        #expect(response.status == 201, "\(response.text)")
        let setCookie = try #require(response.header("Set-Cookie"))
        let pair = try #require(setCookie.split(separator: ";").first)
        return SignedIn(
            cookie: ("Cookie", "theme=dark; " + pair), csrf: try #require(response.object["csrfToken"] as? String),
            response: response)
    }

    static let publish = #"{"recipients":["alice"],"type":"order.shipped","title":"Shipped","body":"Friday"}"#

    @Test("sign-in sets an HttpOnly, SameSite=Strict session cookie and answers the CSRF token and the key")
    func signInCookie() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let signedIn = try await Self.signIn(server, key: key)
            let setCookie = try #require(signedIn.response.header("Set-Cookie"))
            #expect(setCookie.hasPrefix("herald_console="), "\(setCookie)")
            for attribute in ["Path=/", "Max-Age=43200", "HttpOnly", "SameSite=Strict"] {
                #expect(setCookie.contains("; \(attribute)"), "\(attribute): \(setCookie)")
            }
            #expect(!setCookie.contains("Secure"), "plain HTTP: a Secure cookie would never come back")
            #expect(!setCookie.contains(key), "the cookie is not the key")
            #expect(signedIn.csrf.count == 64 && signedIn.csrf.allSatisfy(\.isHexDigit))
            let keyID = try #require(try await server.app.store.apiKeys().first?.id)
            #expect((signedIn.response.object["key"] as? [String: Any])?["id"] as? String == keyID)
            #expect(signedIn.response.object["expiresAt"] is String)
            #expect(signedIn.response.header("Cache-Control") == "no-store", "it carries the CSRF token")

            let current = try await server.get("/console/session", headers: [signedIn.cookie])
            #expect(current.status == 200)
            #expect(current.object["csrfToken"] as? String == signedIn.csrf)

            let behindTLS = try await Self.signIn(server, key: key, headers: [("X-Forwarded-Proto", "https")])
            #expect(behindTLS.response.header("Set-Cookie")?.hasSuffix("; Secure") == true)
            #expect(behindTLS.csrf != signedIn.csrf, "each sign-in is a session of its own")
        }
    }

    @Test("a wrong or revoked key, a missing body and an unknown cookie are refused")
    func refusals() async throws {
        try await withServer { server in
            expectError(
                try await server.send("POST", "/console/session", json: #"{"apiKey":"hk_nope_nope"}"#), 401,
                "invalid_credential")
            expectError(try await server.send("POST", "/console/session", json: nil), 400, "invalid_json")
            expectError(try await server.send("POST", "/console/session", json: #"{"key":"x"}"#), 400, "invalid_body")
            expectError(
                try await server.get("/console/session", headers: [("Cookie", "herald_console=forged")]), 401,
                "unauthenticated")
            let notSignedIn = try await server.get("/console/session")
            expectError(notSignedIn, 401, "unauthenticated")
            #expect(notSignedIn.header("WWW-Authenticate") == #"Bearer realm="herald""#)
            let refused = try await server.get("/v1/broadcasts", headers: [("Cookie", "herald_console=forged")])
            expectError(refused, 401, "unauthenticated")
            #expect(refused.text.contains("console session has ended"), "\(refused.text)")
            expectError(try await server.get("/v1/broadcasts"), 401, "unauthenticated")
        }
    }

    @Test("publisher routes accept the session; a call that changes something needs the CSRF token")
    func publisherCallsWithTheSession() async throws {
        try await withServer { server in
            let signedIn = try await Self.signIn(server, key: try await server.apiKey())
            #expect(try await server.get("/v1/broadcasts", headers: [signedIn.cookie]).status == 200)
            expectError(
                try await server.send("POST", "/v1/notifications", json: Self.publish, headers: [signedIn.cookie]), 403,
                "csrf_token_invalid")
            expectError(
                try await server.send(
                    "POST", "/v1/notifications", json: Self.publish,
                    headers: [signedIn.cookie, ("X-CSRF-Token", String(signedIn.csrf.reversed()))]), 403,
                "csrf_token_invalid")
            #expect(try await server.app.store.counts(userID: "alice").unread == 0, "a refused call writes nothing")
            let sent = try await server.send(
                "POST", "/v1/notifications", json: Self.publish,
                headers: [signedIn.cookie, ("X-CSRF-Token", signedIn.csrf)])
            #expect(sent.status == 202, "\(sent.text)")
            #expect(try await server.app.store.counts(userID: "alice").unread == 1)
        }
    }

    @Test("a page of another origin can neither sign a visitor in nor act with their session")
    func otherOrigins() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let host = "127.0.0.1:\(server.app.port)"
            for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
                expectError(
                    try await server.send(
                        "POST", "/console/session", json: #"{"apiKey":"\#(key)"}"#, headers: [("Origin", origin)]), 403,
                    "origin_refused")
            }
            let signedIn = try await Self.signIn(server, key: key, headers: [("Origin", "http://\(host)")])
            let fromElsewhere = try await server.send(
                "POST", "/v1/notifications", json: Self.publish,
                headers: [signedIn.cookie, ("X-CSRF-Token", signedIn.csrf), ("Origin", "https://evil.example")])
            expectError(fromElsewhere, 403, "origin_refused")
            #expect(try await server.app.store.counts(userID: "alice").unread == 0)
            // Reading is no harm and is how the console's own pages load: GET passes.
            #expect(
                try await server.get(
                    "/v1/broadcasts", headers: [signedIn.cookie, ("Origin", "https://evil.example")]
                ).status == 200)
        }
    }

    @Test("sign-out needs the CSRF token, ends the session and clears the cookie")
    func signOut() async throws {
        try await withServer { server in
            let signedIn = try await Self.signIn(server, key: try await server.apiKey())
            expectError(
                try await server.send("DELETE", "/console/session", headers: [signedIn.cookie]), 403,
                "csrf_token_invalid")
            let out = try await server.send(
                "DELETE", "/console/session", headers: [signedIn.cookie, ("X-CSRF-Token", signedIn.csrf)])
            #expect(out.status == 204)
            #expect(out.header("Set-Cookie")?.hasPrefix("herald_console=; Path=/; Max-Age=0") == true)
            expectError(try await server.get("/v1/broadcasts", headers: [signedIn.cookie]), 401, "unauthenticated")
            expectError(try await server.get("/console/session", headers: [signedIn.cookie]), 401, "unauthenticated")
        }
    }

    @Test("revoking the key ends its sessions at once")
    func revokedKey() async throws {
        try await withServer { server in
            let signedIn = try await Self.signIn(server, key: try await server.apiKey())
            #expect(try await server.get("/v1/broadcasts", headers: [signedIn.cookie]).status == 200)
            let keyID = try #require(try await server.app.store.apiKeys().first?.id)
            _ = try await server.app.store.revokeAPIKey(id: keyID, at: Date())
            expectError(try await server.get("/v1/broadcasts", headers: [signedIn.cookie]), 401, "unauthenticated")
        }
    }

    @Test("a session ends when idle for --console-session-idle, and --console-session-lifetime after sign-in")
    func expiries() async throws {
        let clock = ManualClock()
        try await withServer(
            configure: {
                $0.consoleSessions.idleTimeout = 60
                $0.consoleSessions.lifetime = 120
            }, now: { clock.now }
        ) { server in
            let key = try await server.apiKey()
            let idle = try await Self.signIn(server, key: key)
            clock.advance(by: 59)
            #expect(try await server.get("/v1/broadcasts", headers: [idle.cookie]).status == 200)
            clock.advance(by: 61)
            expectError(try await server.get("/v1/broadcasts", headers: [idle.cookie]), 401, "unauthenticated")

            let busy = try await Self.signIn(server, key: key)
            #expect(busy.response.header("Set-Cookie")?.contains("Max-Age=120") == true)
            for _ in 0..<2 {
                clock.advance(by: 50)
                #expect(try await server.get("/v1/broadcasts", headers: [busy.cookie]).status == 200)
            }
            clock.advance(by: 21)
            expectError(try await server.get("/v1/broadcasts", headers: [busy.cookie]), 401, "unauthenticated")
        }
    }

    @Test("serve refuses session times out of range, and a lifetime shorter than the idle time")
    func flags() async {
        for bad in [
            ["--console-session-idle", "59"], ["--console-session-lifetime", "2592001"],
            ["--console-session-idle", "600", "--console-session-lifetime", "300"],
        ] {
            let result = await CLITests.run(["serve"] + bad)
            #expect(result.status == 2, "\(bad)")
            #expect(result.err.joined().contains("--console-session"), "\(bad): \(result.err)")
        }
        let lifetime = await CLITests.run(["serve"], environment: ["HERALD_CONSOLE_SESSION_LIFETIME": "10"])
        #expect(lifetime.status == 2, "the environment twin is read too")
    }
}
