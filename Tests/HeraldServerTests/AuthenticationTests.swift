import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("Authentication: challenges and user tokens")
struct AuthenticationTests {
    /// The calls anyone may make; every other route needs a user token or an API key.
    static let publicRoutes: Set<String> = [
        "GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.json", "GET /v1/app-config",
    ]

    /// Every route that needs a credential, with its parameters filled in.
    static func protectedCalls(_ server: TestServer) -> [(method: String, path: String)] {
        server.app.routes.compactMap { route in
            guard !publicRoutes.contains("\(route.method.rawValue) \(route.pattern)") else { return nil }
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
