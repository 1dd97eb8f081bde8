import HeraldHTTP

/// How a test reaches the server under test: through its responder in process (no sockets,
/// ``InProcessClient``), or over real HTTP on a loopback port (``LoopbackHTTPClient``). A suite
/// run over both shows that the transport changes nothing a client sees.
public enum TestTransport: String, Sendable, CaseIterable {
    case router
    case live
}

/// One request API over either transport, answering ``LoopbackResponse`` both ways.
public struct TestClient: Sendable {
    private enum Backend: Sendable {
        case router(InProcessClient)
        case live(LoopbackHTTPClient)
    }

    private let backend: Backend

    /// Requests to `responder` in process.
    public init(router responder: any Responder, logger: Logger = Logger(label: "herald.test", level: .warning)) {
        backend = .router(InProcessClient(responder: responder, logger: logger))
    }

    /// Requests over loopback HTTP.
    public init(live client: LoopbackHTTPClient) {
        backend = .live(client)
    }

    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> LoopbackResponse {
        switch backend {
        case .live(let client):
            return try await client.request(method, path, headers: headers, body: body)
        case .router(let client):
            let answer = try await client.execute(
                HTTPMethod(rawValue: method), path, headers: HTTPHeaders(headers), body: body)
            return LoopbackResponse(
                status: answer.status, headers: answer.headers.map { ($0.name, $0.value) }, body: answer.body)
        }
    }
}
