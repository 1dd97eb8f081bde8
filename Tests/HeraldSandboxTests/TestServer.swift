import Foundation
import HeraldLog
import HeraldSandbox
import HeraldTestSupport
import Synchronization

/// An ``HTTP2Server`` with the handler the tests speak to, and what that handler saw.
///
/// - `/echo`: status from `x-status` (default 200), `x-echo` and the method echoed as headers,
///   the request body as the response body.
/// - `/hold`: reports its arrival, answers `held` after 1.5 s.
/// - `/drop`: cuts the connection.
final class TestServer: Sendable {
    let server: HTTP2Server
    /// Paths of `/hold` requests, as they arrive.
    let arrivals: AsyncStream<String>
    private let seen = RequestTally()

    var port: Int { server.port }

    /// Requests seen per connection id.
    var requestsPerConnection: [UInt64: Int] { seen.counts.withLock { $0 } }

    init(tls: TLSIdentity? = nil, shutdownGrace: Duration = .seconds(5), logger: Logger = .disabled) throws {
        let seen = self.seen
        let (arrivals, arrived) = AsyncStream<String>.makeStream()
        server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: tls, shutdownGrace: shutdownGrace, logger: logger)
        ) { request in
            seen.counts.withLock { $0[request.connectionID, default: 0] += 1 }
            switch request.path.split(separator: "?").first {
            case "/echo":
                return HTTP2Response(
                    status: request.header("x-status").flatMap { Int($0) } ?? 200,
                    headers: [
                        HTTP2Header("X-Echo", request.header("x-echo") ?? ""),
                        HTTP2Header("x-method", request.method),
                    ],
                    body: request.body)
            case "/hold":
                arrived.yield(request.path)
                try? await Task.sleep(for: .milliseconds(1500))
                return HTTP2Response(status: 200, body: Array("held".utf8))
            case "/drop":
                return .dropConnection
            default:
                return HTTP2Response(status: 404)
            }
        }
        self.arrivals = arrivals
    }

    func url(_ path: String, scheme: String = "http", host: String = "127.0.0.1") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    /// Waits for the next `/hold` request to reach the handler.
    func nextArrival() async -> String? {
        await arrivals.first { _ in true }
    }
}

/// Requests counted per connection id.
final class RequestTally: Sendable {
    let counts = Mutex<[UInt64: Int]>([:])
}

/// A fresh temporary directory, removed when the test process exits.
func temporaryDirectory() throws -> String {
    try TemporaryDirectory("herald-h2").path
}
