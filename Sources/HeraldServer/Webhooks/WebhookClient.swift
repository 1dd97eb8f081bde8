import FoundationEssentials
import HeraldHTTP2
import HeraldModel
import HeraldThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The server's one HTTP/1.1 client: a webhook attempt (or a command line's publisher call, which
/// keeps the answer's body) is one POST on one connection (`Connection: close`), over
/// HeraldHTTP2's sockets and TLS (certificates verified against the system's authorities or
/// `--webhook-ca-file`, SNI and host-name checks), every wait on the process's ``SocketReactor``,
/// so no thread blocks on the network.
///
/// The host is resolved and every address checked (``WebhookAddressPolicy``) before each
/// attempt; the connection goes to exactly an address that was checked, so a name that resolves
/// elsewhere a moment later (DNS rebinding) changes nothing. Redirects are answers like any other
/// (not 2xx, so the attempt failed), never followed. The response's head must fit
/// ``maxHeadBytes``; its body (Content-Length, chunked, or up to the close) is read up to
/// `maxResponseBytes` and dropped.
final class WebhookClient: Sendable {
    /// What one attempt came to.
    enum Outcome: Sendable, Equatable {
        /// The receiver answered with this status.
        case answered(status: Int)
        /// No answer: why (a refused address, a failed lookup or connection, TLS, a timeout, a
        /// malformed answer).
        case failed(String)
    }

    /// The largest response head read; a larger one fails the attempt.
    static let maxHeadBytes = 16 * 1024

    private let settings: WebhookSettings
    private let handles = HandleCounter()

    /// A TLS context and why its certificate authorities could not be loaded (every https
    /// attempt then fails with that).
    private typealias Trust = (context: TLSContext, failure: String?)

    /// Made for the first https attempt when it trusts the system's authorities (an idle server
    /// loads no certificates), at once for a `--webhook-ca-file`, so that a file that cannot be
    /// used stops the start.
    private let trust: MadeOnFirstUse<Trust>

    /// Refuses a `--webhook-ca-file` that cannot be loaded (a setting to fix, not a per-attempt failure).
    init(settings: WebhookSettings) throws {
        self.settings = settings
        if let caFile = settings.caFile {
            let made = try Self.trust(caFile: caFile, counter: handles)
            if let failure = made.failure {
                throw WebhookSettingsError("cannot use the webhook CA file \(caFile): \(failure)")
            }
            trust = MadeOnFirstUse(made: made)
        } else {
            let handles = handles
            trust = MadeOnFirstUse { () throws -> Trust in try Self.trust(caFile: nil, counter: handles) }
        }
    }

    /// A client context trusting `caFile`, or the system's authorities without one.
    private static func trust(caFile: String?, counter: HandleCounter) throws(Failure) -> Trust {
        let context = try TLSContext(
            clientTrusting: caFile, offering: ["http/1.1"], counter: counter, throwing: Failure.self)
        guard let (failure, _) = context.trustFailure else { return (context, nil) }
        return (
            context,
            caFile == nil
                ? "the system's certificate authorities could not be loaded: \(failure.message)" : failure.message
        )
    }

    /// The TLS context, made now (on a dispatch thread) if this is the first https attempt.
    private func context() async throws(Failure) -> TLSContext {
        let made: Trust
        do {
            made = try await trust.value(retired: Failure.cancelled)
        } catch {
            throw (error as? Failure) ?? .tls("\(error)")
        }
        if let failure = made.failure { throw .tls(failure) }
        return made.context
    }

    /// POSTs `body` with `headers` (besides Host, Content-Length and Connection) to `url`, within
    /// the attempt timeout.
    func post(to url: WebhookURL, headers: [(String, String)], body: [UInt8]) async -> Outcome {
        do throws(Failure) {
            return .answered(status: try await exchange(url, headers: headers, body: body, keepingBody: false).status)
        } catch {
            return .failed(error.message(timeout: settings.timeout))
        }
    }

    /// POSTs `body` as ``post(to:headers:body:)`` does, and answers the status with the
    /// response's body (its first `maxResponseBytes`); a failure says why, as ``Outcome/failed(_:)``.
    func postReadingBody(to url: WebhookURL, headers: [(String, String)], body: [UInt8]) async throws(Failure)
        -> (status: Int, body: [UInt8])
    {
        try await exchange(url, headers: headers, body: body, keepingBody: true)
    }

    private func exchange(_ url: WebhookURL, headers: [(String, String)], body: [UInt8], keepingBody: Bool)
        async throws(Failure) -> (status: Int, body: [UInt8])
    {
        let deadline = ContinuousClock.now + .milliseconds(Int64(settings.timeout * 1000))
        let addresses = try await Self.checkedAddresses(of: url, allowingPrivate: settings.allowPrivateAddresses)
        let connection = try await connect(to: addresses, url: url, deadline: deadline)
        var head = "POST \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try await connection.write(Array(head.utf8) + body, deadline: deadline)
        let answer = try await connection.readResponse(
            deadline: deadline, maxBodyBytes: settings.maxResponseBytes, keepingBody: keepingBody)
        connection.close()
        return answer
    }

    // MARK: Addresses

    /// The addresses of `url`'s host, each allowed by ``WebhookAddressPolicy`` (unless
    /// `allowingPrivate`): one refused address refuses the host. An IP literal in any form the C
    /// library reads (`2130706433`, `0x7f.1`, `017700000001`) is taken as the address it is.
    static func checkedAddresses(of url: WebhookURL, allowingPrivate: Bool) async throws(Failure) -> [SocketAddress] {
        let addresses: [SocketAddress]
        if let literal = literal(url.host, port: url.port) {
            addresses = [literal]
        } else {
            let host = url.host
            let port = url.port
            // getaddrinfo blocks: never on the cooperative pool.
            let resolved: Result<[SocketAddress], SocketAddress.ResolveFailure>
            do {
                resolved = try await offCooperativePool { SocketAddress.resolve(host: host, port: port) }
            } catch {
                throw Failure.unresolved("\(url.host) could not be resolved: \(error)")
            }
            switch resolved {
            case .success(let found) where !found.isEmpty: addresses = found
            case .success: throw Failure.unresolved("\(url.host) has no address")
            case .failure(let failure):
                throw Failure.unresolved("\(url.host) could not be resolved: \(failure.message)")
            }
        }
        guard !allowingPrivate else { return addresses }
        for address in addresses {
            if let kind = WebhookAddressPolicy.refusal(address.ipBytes) {
                let named =
                    address.ipText == url.host
                    ? "\(url.host) is" : "\(url.host) resolves to \(address.ipText), which is"
                throw Failure.refused("\(named) \(kind)")
            }
        }
        return addresses
    }

    /// The address of an IPv4 or IPv6 literal, IPv4 in every form `inet_aton` reads.
    private static func literal(_ host: String, port: UInt16) -> SocketAddress? {
        if let address = SocketAddress(literal: host, port: port) { return address }
        var v4 = in_addr()
        guard inet_aton(host, &v4) != 0 else { return nil }
        let octets = withUnsafeBytes(of: v4.s_addr) { Array($0) }
        return SocketAddress(literal: octets.map(String.init).joined(separator: "."), port: port)
    }

    // MARK: Connecting

    /// Connects to the first of `addresses` that answers, then (https) completes the TLS handshake.
    private func connect(to addresses: [SocketAddress], url: WebhookURL, deadline: ContinuousClock.Instant)
        async throws(Failure) -> Connection
    {
        var lastError = Failure.connect("no address to connect to")
        for address in addresses {
            let fd = socket(
                address.family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure.connect("socket failed: \(String(cString: strerror(errno)))") }
            let connection = Connection(fd: fd)
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            var code = address.connect(fd)
            if code == EINPROGRESS {
                try await connection.wait(writable: true, deadline: deadline)
                var size = socklen_t(MemoryLayout<Int32>.size)
                code = 0
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
            }
            guard code == 0 else {
                lastError = Failure.connect(
                    "could not connect to \(address.ipText) port \(url.port): \(String(cString: strerror(code)))")
                continue
            }
            if url.secure { try await handshake(connection, host: url.host, deadline: deadline) }
            return connection
        }
        throw lastError
    }

    private func handshake(_ connection: Connection, host: String, deadline: ContinuousClock.Instant)
        async throws(Failure)
    {
        let tls = try TLSStream(
            client: try await context(), fd: connection.io.fd, host: host, counter: handles, throwing: Failure.self)
        connection.io.tls = tls
        while true {
            switch tls.handshake() {
            case .done: return
            case .wantsReadable: try await connection.wait(writable: false, deadline: deadline)
            case .wantsWritable: try await connection.wait(writable: true, deadline: deadline)
            case .untrusted(_, let reason): throw Failure.tls("certificate problem: \(reason)")
            case .failed(let failure):
                throw Failure.tls(failure.code == 0 ? "the TLS handshake broke off" : failure.message)
            }
        }
    }

    // MARK: Errors

    /// Why an attempt got no answer.
    struct Failure: NativeCallError {
        enum Kind: Sendable { case refused, unresolved, connect, tls, timedOut, protocolError, cancelled }
        let kind: Kind
        /// What happened, without the kind's prefix.
        let detail: String

        init(_ failure: NativeFailure) {
            kind = .tls
            detail = failure.message
        }

        init(_ kind: Kind, _ detail: String) {
            self.kind = kind
            self.detail = detail
        }

        static func refused(_ detail: String) -> Failure { Failure(.refused, detail) }
        static func unresolved(_ detail: String) -> Failure { Failure(.unresolved, detail) }
        static func connect(_ detail: String) -> Failure { Failure(.connect, detail) }
        static func tls(_ detail: String) -> Failure { Failure(.tls, detail) }
        static func protocolError(_ detail: String) -> Failure { Failure(.protocolError, detail) }
        static let timedOut = Failure(.timedOut, "")
        static let cancelled = Failure(.cancelled, "cancelled")

        /// For the attempt's record.
        func message(timeout: TimeInterval) -> String {
            switch kind {
            case .refused: "refused: " + detail
            case .tls: "TLS: " + detail
            case .timedOut: "timed out after \(timeout.decimal(fractionDigits: 3, trimmingZeros: true)) s"
            case .unresolved, .connect, .protocolError, .cancelled: detail
            }
        }
    }
}

/// A `--webhook-*` setting the server cannot start with.
struct WebhookSettingsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One connection of an attempt: its socket and TLS (``ConnectionIO``, which closes the socket),
/// forgotten by the reactor before it closes.
private final class Connection {
    let io: ConnectionIO

    init(fd: Int32) {
        io = ConnectionIO(fd: fd)
    }

    deinit { SocketReactor.shared.forget(fd: io.fd) }

    func wait(writable: Bool, deadline: ContinuousClock.Instant) async throws(WebhookClient.Failure) {
        do {
            try await SocketReactor.shared.wait(fd: io.fd, writable: writable, deadline: deadline)
        } catch SocketReactor.WaitError.timedOut {
            throw .timedOut
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .connect("the connection failed while waiting: \(error)")
        }
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) async throws(WebhookClient.Failure) {
        io.queue(bytes)
        while true {
            switch io.flush(throwing: WebhookClient.Failure.self) {
            case .done: return
            case .blocked(let writable): try await wait(writable: writable, deadline: deadline)
            case .socketFailed(let code):
                throw .connect("the connection broke while sending: \(String(cString: strerror(code)))")
            case .sessionFailed(let failure): throw failure
            }
        }
    }

    /// Reads the response head (skipping interim 1xx answers), then up to `maxBodyBytes` of its
    /// body, which is dropped; answers the status. Once the head is in, a body that breaks off
    /// or outlasts the deadline changes nothing.
    func readResponse(deadline: ContinuousClock.Instant, maxBodyBytes: Int, keepingBody: Bool)
        async throws(WebhookClient.Failure) -> (status: Int, body: [UInt8])
    {
        var parser = HTTP1ResponseParser(
            maxHeadBytes: WebhookClient.maxHeadBytes, maxBodyBytes: maxBodyBytes, keepingBody: keepingBody)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !parser.isComplete {
            let read = buffer.withUnsafeMutableBytes { io.read(into: $0) }
            switch read {
            case .transferred(let count):
                do {
                    try parser.consume(buffer[..<count])
                } catch {
                    throw .protocolError("malformed response: \(error.reason)")
                }
            case .wantsReadable, .wantsWritable:
                do {
                    try await wait(writable: read == .wantsWritable, deadline: deadline)
                } catch {
                    if let status = parser.status, !keepingBody { return (status, []) }
                    throw error
                }
            case .closed, .failed:
                if let status = parser.status, !keepingBody || parser.endsAtClose { return (status, parser.body) }
                if parser.status != nil { throw .protocolError("the connection closed in the response body") }
                throw .protocolError(
                    parser.received == 0
                        ? "the connection closed without an answer" : "the connection closed in the response head")
            }
        }
        if keepingBody && parser.truncated {
            throw .protocolError("the response body is over \(maxBodyBytes) bytes")
        }
        return (parser.status ?? 0, parser.body)
    }

    /// Ends the connection (TLS `close_notify` first).
    func close() {
        io.tls?.closeNotify()
    }
}
