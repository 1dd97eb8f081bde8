import Foundation

/// A minimal HTTP/1.1 client over real loopback sockets for tests: one connection per
/// request (`Connection: close`), Content-Length and chunked bodies, event streams. All
/// waiting happens on one reactor thread, never on the cooperative pool, and every wait
/// has a deadline so a broken server fails the test instead of hanging it.
public struct LoopbackHTTPClient: Sendable {
    public var host: String
    public var port: Int
    /// Longest wait for the server at any step (connect, send, each read).
    public var timeout: Duration
    /// The IPv4 address connections are made from (another loopback address such as
    /// "127.0.0.2" looks like another client); nil lets the system choose.
    public var sourceAddress: String?

    public init(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(10), sourceAddress: String? = nil) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.sourceAddress = sourceAddress
    }

    /// Sends one request and reads the whole response. Adds Host, Connection: close and
    /// Content-Length (unless given) headers.
    public func request(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> LoopbackResponse {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        let given = Set(headers.map { $0.0.lowercased() })
        if !given.contains("host") { head += "Host: \(host):\(port)\r\n" }
        if !given.contains("connection") { head += "Connection: close\r\n" }
        if !given.contains("content-length") && !given.contains("transfer-encoding")
            && (!body.isEmpty || ["POST", "PUT", "PATCH"].contains(method.uppercased()))
        {
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return try await rawRequest(Array(head.utf8) + body, method: method)
    }

    /// Sends `bytes` exactly as given (for malformed or unusual requests) and reads one
    /// response. `method` tells how to read the body (a HEAD response has none). A
    /// failed send is ignored if the server still answers (e.g. an early 413).
    public func rawRequest(_ bytes: [UInt8], method: String = "GET") async throws -> LoopbackResponse {
        let connection = try await openConnection()
        defer { connection.close() }
        var sendError: (any Error)?
        do {
            try await connection.send(bytes)
        } catch {
            sendError = error
        }
        do {
            return try await connection.readResponse(method: method)
        } catch {
            throw sendError ?? error
        }
    }

    /// A raw connection for multi-step exchanges (keep-alive, slow uploads).
    public func openConnection() async throws -> LoopbackConnection {
        let socket = try await LoopbackSocket.connect(
            host: host, port: port, from: sourceAddress, deadline: .now + timeout)
        return LoopbackConnection(socket: socket, timeout: timeout)
    }

    /// Opens an event stream: GET with `Accept: text/event-stream`, returning once the
    /// response head has arrived.
    public func openStream(_ path: String, headers: [(String, String)] = []) async throws -> SSEConnection {
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let connection = try await openConnection()
        try await connection.send(Array(head.utf8))
        let responseHead = try await connection.reader.readHead(deadline: .now + timeout)
        await connection.reader.beginEventStream(framing: ResponseReader.framing(for: responseHead, method: "GET"))
        return SSEConnection(connection: connection, status: responseHead.status, headers: responseHead.headers)
    }
}

/// One open loopback connection.
public final class LoopbackConnection: Sendable {
    let socket: LoopbackSocket
    let reader: ResponseReader
    let timeout: Duration

    init(socket: LoopbackSocket, timeout: Duration) {
        self.socket = socket
        self.reader = ResponseReader(socket: socket)
        self.timeout = timeout
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await socket.writeAll(bytes, deadline: .now + timeout)
    }

    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Reads one response; `method` is the request's (HEAD responses have no body).
    public func readResponse(method: String = "GET") async throws -> LoopbackResponse {
        let deadline = ContinuousClock.now + timeout
        let head = try await reader.readHead(deadline: deadline)
        let body = try await reader.readBody(
            framing: ResponseReader.framing(for: head, method: method), deadline: deadline)
        return LoopbackResponse(status: head.status, headers: head.headers, body: body)
    }

    /// True once the server has closed the connection (waits up to the timeout).
    public func waitForClose() async throws -> Bool {
        let bytes = try await socket.read(deadline: .now + timeout)
        return bytes.isEmpty
    }

    /// Closes the connection (the server sees the client leave).
    public func close() {
        socket.shutdown()
    }
}

/// A complete response.
public struct LoopbackResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed with JSONSerialization.
    public func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
    }

    /// The body decoded as JSON; dates as RFC 3339 with or without fractional seconds.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date: \(text)")
        }
        return try decoder.decode(type, from: Data(body))
    }

    /// `error.code` of a `{"error":{"code":…,"message":…}}` body, if that is what it is.
    public var errorCode: String? {
        ((try? json()) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    /// `error.message` of such a body.
    public var errorMessage: String? {
        ((try? json()) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["message"] as? String
    }
}

/// An open event stream.
public final class SSEConnection: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    private let connection: LoopbackConnection

    init(connection: LoopbackConnection, status: Int, headers: [(String, String)]) {
        self.connection = connection
        self.status = status
        self.headers = headers
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// The next event or comment (`isComment`), or nil once the server ended the stream.
    /// Throws `LoopbackClientError.timedOut` if nothing arrives in time.
    public func next(timeout: Duration = .seconds(5)) async throws -> SSEEvent? {
        try await connection.reader.nextEvent(deadline: .now + timeout, skipComments: false)
    }

    /// The next event, skipping comments (heartbeats).
    public func nextEvent(timeout: Duration = .seconds(5)) async throws -> SSEEvent? {
        try await connection.reader.nextEvent(deadline: .now + timeout, skipComments: true)
    }

    /// The last event id a browser would send as `Last-Event-ID` on reconnecting: the latest
    /// `id` of the frames read so far, data-less ones included (`""`: none yet).
    public var lastEventID: String {
        get async { await connection.reader.lastEventID }
    }

    /// Disconnects.
    public func close() {
        connection.close()
    }
}

/// One server-sent event as received; a comment line arrives with `isComment` and its
/// text in `data`.
public struct SSEEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String
    public var isComment: Bool

    public init(id: String? = nil, event: String? = nil, data: String, isComment: Bool = false) {
        self.id = id
        self.event = event
        self.data = data
        self.isComment = isComment
    }
}
