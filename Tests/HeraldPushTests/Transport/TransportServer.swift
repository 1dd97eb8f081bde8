import Foundation
import HeraldSandbox
import HeraldTestSupport
import Synchronization

/// The sandbox's ``HTTP2Server`` as the server of the transport tests: HTTP/2 over TLS with the
/// sandbox's self-signed certificate (``TransportServer/caFile`` is what a client trusts), or
/// h2c, with the server's faults as each test asks. It answers:
///
/// - `GET /hello.txt`: `hello\n`, with `content-length: 6`;
/// - `/empty`: 200 and no body;
/// - `/echo` and `/3/device/…`: 200 with the request's body;
/// - `/hang`: nothing, until the server stops (the request stays in flight);
/// - `/reset`: RST_STREAM INTERNAL_ERROR;
/// - anything else: 404.
///
/// Each answer but the hang's is made on the server's loop thread, at once.
final class TransportServer: Sendable {
    let server: HTTP2Server
    /// "https", or "http" for h2c.
    let scheme: String
    private let hangs = Hangs()
    private let received = Received()

    var port: Int { server.port }

    /// The CA file that makes a client trust the server's certificate (every server of the run
    /// presents the same one).
    static var caFile: String {
        get throws { try identity.get().certificatePath }
    }

    /// The run's certificate for `localhost` and `127.0.0.1`, made in process by the sandbox.
    private static let identity = Result {
        try TLSIdentity.selfSigned(in: TemporaryDirectory("herald-transport-tls").path)
    }

    /// Listens on `port` (0: a free one) over TLS, or h2c when `cleartext`.
    init(
        port: Int = 0, cleartext: Bool = false, maxConcurrentStreams: UInt32 = 1000,
        faults: HTTP2ServerFaults = HTTP2ServerFaults()
    ) throws {
        scheme = cleartext ? "http" : "https"
        let hangs = self.hangs
        let received = self.received
        server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(
                port: port, tls: cleartext ? nil : try Self.identity.get(), maxConcurrentStreams: maxConcurrentStreams,
                faults: faults),
            answering: { request in
                received.requests.withLock { $0.append(request) }
                return Self.answer(request, hangs: hangs)
            })
    }

    private static func answer(_ request: HTTP2Request, hangs: Hangs) -> HTTP2Answer {
        switch request.path {
        case "/hang":
            return .later {
                await hangs.wait()
                return HTTP2Response(status: 200)
            }
        case "/reset": return .now(.resetStream(.internalError))
        case "/hello.txt" where request.method == "GET":
            return .now(
                HTTP2Response(status: 200, headers: [HTTP2Header("content-length", "6")], body: Array("hello\n".utf8)))
        case "/empty": return .now(HTTP2Response(status: 200))
        case let path where path == "/echo" || path.hasPrefix("/3/device/"):
            return .now(HTTP2Response(status: 200, body: request.body))
        default: return .now(HTTP2Response(status: 404))
        }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Every request that reached the handler, in order.
    var requests: [HTTP2Request] { received.requests.withLock { $0 } }

    /// Waits until `count` requests for `/hang` are in flight on the server.
    func waitUntilHanging(count: Int = 1) async throws {
        try await eventually("\(count) requests for /hang reached the server") { hangs.waiting >= count }
    }

    /// Lets hanging requests go, then stops as ``HTTP2Server/stop()`` does.
    func stop() async {
        hangs.release()
        await server.stop()
    }

    /// Ends the server as a crash would (``HTTP2Server/kill()``).
    func kill() async {
        await server.kill()
        hangs.release()
    }
}

/// The requests that reached the handler.
private final class Received: Sendable {
    let requests = Mutex<[HTTP2Request]>([])
}

/// The requests for `/hang`, waiting for ``release()``.
private final class Hangs: Sendable {
    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let state = Mutex(State())

    /// Requests waiting now.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Returns once ``release()`` is called (at once when it was).
    func wait() async {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state in
                if !state.released { state.waiting.append(continuation) }
                return state.released
            }
            if released { continuation.resume() }
        }
    }

    /// Lets every waiting request go, and every later one at once.
    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
