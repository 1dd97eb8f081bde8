import Foundation
import HeraldHTTPTestSupport
import HeraldServer
import HeraldTestSupport
import Testing

/// `/metrics` stays parsable and bounded whatever the clients send, and the transport's own
/// answers (413, bad framing) are counted like every other answer.
@Suite("metrics protections")
struct MetricsProtectionTests {
    /// Every line of a Prometheus text exposition: a comment, or `name{label="value",…} number`
    /// with label values escaped as the format requires.
    static func isValidExposition(_ text: String) -> Bool {
        let sample =
            #/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\["\\n])*",?)*\})? [-+0-9.eEInfa]+$/#
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") { continue }
            guard (try? sample.wholeMatch(in: String(line))) != nil else { return false }
        }
        return text.hasSuffix("\n")
    }

    @Test func hostileMethodsNeitherBreakNorBloatMetrics() async throws {
        try await withServer { server in
            let injected = try await server.client.rawRequest(
                Array("INJ\"} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(injected.status == 405 || injected.status == 400)
            let first = try await server.get("/metrics").text
            #expect(Self.isValidExposition(first), "\(first)")
            let before = try await server.get("/metrics").text
            for index in 0..<500 {
                _ = try await server.client.rawRequest(
                    Array("M\(index)X /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            }
            let after = try await server.get("/metrics").text
            #expect(Self.isValidExposition(after))
            #expect(!after.contains("M17X"))
            #expect(after.contains(#"method="_OTHER",route="/healthz""#))
            let series = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count }
            // 500 invented methods add no series.
            #expect(series(after) == series(before), "\(series(before)) → \(series(after))")
        }
    }

    @Test func transportAnswersAreCounted() async throws {
        try await withServer { configuration in
            configuration.maxBodyBytes = 1024
        } _: { server in
            let large = try await server.client.rawRequest(
                Array("POST /v1/me/events HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\n\r\n".utf8)
                    + [UInt8](repeating: 0x20, count: 3000), method: "POST")
            #expect(large.status == 413)
            let framing = try await server.client.rawRequest(
                Array("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8))
            #expect(framing.status == 400)
            var text = ""
            _ = try await becomesTrue {
                text = try await server.get("/metrics").text
                return text.contains(#"status="413""#) && text.contains(#"status="400""#)
            }
            #expect(
                text.contains(#"herald_http_requests_total{method="POST",route="unmatched",status="413"} 1"#), "\(text)"
            )
            #expect(text.contains(#"herald_http_requests_total{method="GET",route="unmatched",status="400"} 1"#))
        }
    }

    @Test func answersTheLibraryGivesItselfAreCountedAndLogged() async throws {
        let log = CapturingLogHandler()
        try await withServer(logger: log.logger(level: .info)) { server in
            // libmicrohttpd answers these itself, before any handler sees them.
            let version = try await server.client.rawRequest(Array("GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n".utf8))
            #expect(version.status == 505)
            let header = try await server.client.rawRequest(
                Array(
                    "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "b", count: 70_000))\r\n\r\n".utf8))
            #expect(header.status == 431)
            var text = ""
            _ = try await becomesTrue {
                text = try await server.get("/metrics").text
                return text.contains(#"status="505""#) && text.contains(#"status="431""#)
            }
            #expect(text.contains(#"herald_http_requests_total{method="_OTHER",route="unmatched",status="505"} 1"#))
            #expect(text.contains(#"herald_http_requests_total{method="_OTHER",route="unmatched",status="431"} 1"#))
            let answers = log.entries("request").compactMap { $0.metadata["status"] }
            #expect(answers.filter { $0 == "505" }.count == 1, "\(answers)")
            #expect(answers.filter { $0 == "431" }.count == 1, "\(answers)")
        }
    }
}
