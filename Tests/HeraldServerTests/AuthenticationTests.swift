import Foundation
import HeraldCrypto
import HeraldHTTPTestSupport
import Testing

@Suite("Authentication: challenges and user tokens")
struct AuthenticationTests {
    /// The calls anyone may make; every other route needs a user token or an API key.
    static let publicRoutes: Set<String> = [
        "GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.json", "GET /v1/app-config",
        "POST /console/session", "GET /console", "GET /console/assets/{name}",
    ]

    /// Routes whose credential is the console's session cookie, not a bearer credential (their
    /// 401s and challenge: ConsoleSessionTests).
    static let cookieRoutes: Set<String> = ["GET /console/session", "DELETE /console/session"]

    /// Every route that needs a credential, with its parameters filled in.
    static func protectedCalls(_ server: TestServer) -> [(method: String, path: String)] {
        server.app.routes.compactMap { route in
            let name = "\(route.method.rawValue) \(route.pattern)"
            guard !publicRoutes.contains(name), !cookieRoutes.contains(name) else { return nil }
            let path = route.pattern.split(separator: "/").map { $0.hasPrefix("{") ? "x" : String($0) }
                .joined(separator: "/")
            return (route.method.rawValue, "/" + path)
        }
    }

    @Test(
        "every 401 carries WWW-Authenticate: Bearer realm=\"herald\" without a credential, invalid_token with a bad one"
    )
    func challenges() async throws {
        try await withServer { server in
            let calls = Self.protectedCalls(server)
            #expect(calls.count >= 20, "\(calls)")
            let expired = try TestTokens.sign(sub: "alice", exp: Date().addingTimeInterval(-120))
            for (method, path) in calls {
                for header in [[], [("Authorization", "Basic YWxpY2U6eA==")]] as [[(String, String)]] {
                    let response = try await server.client.request(
                        method, path, headers: header, body: Array("{}".utf8))
                    expectError(response, 401, "unauthenticated")
                    #expect(response.header("WWW-Authenticate") == #"Bearer realm="herald""#, "\(method) \(path)")
                }
                for token in ["not-a-jwt", "hk_0123456789ab_wrong", expired] {
                    let response = try await server.client.request(
                        method, path, headers: [("Authorization", "Bearer \(token)")], body: Array("{}".utf8))
                    expectError(response, 401, "unauthenticated")
                    let challenge = response.header("WWW-Authenticate") ?? ""
                    #expect(challenge.hasPrefix(#"Bearer realm="herald", error="invalid_token", "#), "\(challenge)")
                    let message = response.object["error"].flatMap { ($0 as? [String: Any])?["message"] as? String }
                    #expect(challenge.hasSuffix(#"error_description="\#(message ?? "?")""#), "\(challenge)")
                }
            }
            let expiredAnswer = try await server.get("/v1/me/counts", token: expired)
            #expect(expiredAnswer.header("WWW-Authenticate")?.contains("expired") == true)
        }
    }
}

extension AuthenticationTests {
    /// A token over `payload` exactly as written, signed with the test secret.
    static func raw(_ payload: String, secret: String = TestServer.secret) -> String {
        let input = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(HMAC.sha256(key: Array(secret.utf8), message: input))
    }

    static func string(_ value: String) -> String {
        String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test("a token's sub is checked like every user id: too long, control characters or other symbols are 401")
    func subjectIsAUserID() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await withServer(now: { now }) { server in
            let exp = Int(now.timeIntervalSince1970) + 3600
            func counts(_ sub: String) async throws -> LoopbackResponse {
                try await server.get("/v1/me/counts", token: Self.raw(#"{"sub":\#(Self.string(sub)),"exp":\#(exp)}"#))
            }
            for bad in [
                String(repeating: "a", count: 5_000), String(repeating: "a", count: 129), "alice\u{1}", "alice\n",
                "\u{7f}", "bad id!", "ålice", "alice/../bob",
            ] {
                let response = try await counts(bad)
                expectError(response, 401, "unauthenticated")
                #expect(response.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
                #expect(response.text.contains("sub"), "\(response.text)")
            }
            #expect(try await counts(String(repeating: "a", count: 128)).status == 200)
            #expect(try await counts("user:42@shop.example_-").status == 200)
            let stream = try await server.get("/v1/me/stream", token: Self.raw(#"{"sub":"a\u0000b","exp":\#(exp)}"#))
            expectError(stream, 401, "unauthenticated")
        }
    }

    @Test("exp at most --max-token-lifetime away (plus 60 s of skew); exp 1e300 or beyond any date is 401")
    func lifetime() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let at = Int(now.timeIntervalSince1970)
        let thirtyDays = 30 * 86_400
        try await withServer(now: { now }) { server in
            func counts(_ exp: String) async throws -> LoopbackResponse {
                try await server.get("/v1/me/counts", token: Self.raw(#"{"sub":"alice","exp":\#(exp)}"#))
            }
            #expect(try await counts(String(at + thirtyDays)).status == 200)
            #expect(try await counts(String(at + thirtyDays + 60)).status == 200, "clock skew")
            for exp in [
                String(at + thirtyDays + 61), String(at + 365 * 86_400), "1e300", "1e999", "-1e300",
                "123456789012345678901234567890", "9223372036854775807",
            ] {
                let response = try await counts(exp)
                expectError(response, 401, "unauthenticated")
                #expect(response.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true, "\(exp)")
            }
            let longLived = try await counts(String(at + thirtyDays + 61))
            #expect(longLived.text.contains("2592000 seconds"), "\(longLived.text)")
            for path in ["/v1/me/stream", "/v1/me/notifications"] {
                let token = Self.raw(#"{"sub":"alice","exp":1e300}"#)
                expectError(try await server.get(path, token: token), 401, "unauthenticated")
            }
            #expect(try await server.get("/healthz").status == 200)
        }
        try await withServer(configure: { $0.maxTokenLifetime = 3600 }, now: { now }) { server in
            let ok = Self.raw(#"{"sub":"alice","exp":\#(at + 3600)}"#)
            #expect(try await server.get("/v1/me/counts", token: ok).status == 200)
            let tooLong = Self.raw(#"{"sub":"alice","exp":\#(at + 3661)}"#)
            expectError(try await server.get("/v1/me/counts", token: tooLong), 401, "unauthenticated")
        }
    }

    @Test("herald serve --max-token-lifetime sets the lifetime it accepts")
    func serveFlag() async throws {
        let server = try await HeraldProcess.start(
            secret: TestServer.secret, extraArguments: ["--max-token-lifetime", "3600"])
        let client = LoopbackHTTPClient(port: server.port)
        let at = Int(Date().timeIntervalSince1970)
        let short = Self.raw(#"{"sub":"alice","exp":\#(at + 1800)}"#)
        let long = Self.raw(#"{"sub":"alice","exp":\#(at + 7200)}"#)
        #expect(
            try await client.request("GET", "/v1/me/counts", headers: [("Authorization", "Bearer \(short)")]).status
                == 200)
        let refused = try await client.request("GET", "/v1/me/counts", headers: [("Authorization", "Bearer \(long)")])
        expectError(refused, 401, "unauthenticated")
        #expect(await server.stop() == .exited(0))
    }
}
