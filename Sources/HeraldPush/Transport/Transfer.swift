import CCurl
import Synchronization

/// One request in flight: its easy handle, the caller waiting for it, and the response as it
/// arrives.
///
/// `@unchecked Sendable`: after `send` queues it, only the transfer loop's thread touches it.
final class Transfer: @unchecked Sendable {
    /// Given back to the pool as the caller is resumed, so a finished request holds no libcurl
    /// handle.
    private var easyHandle: CurlEasy?
    private let pool: EasyHandlePool
    /// Unique for the process's life, unlike the easy handle's address, which a later transfer
    /// may reuse: a late cancellation never hits the wrong transfer.
    let id = Transfer.lastID.add(1, ordering: .relaxed).newValue
    var continuation: CheckedContinuation<ReceivedResponse, any Error>?
    private var head: [UInt8] = []
    private var body: [UInt8] = []

    /// The easy handle's address, the key libcurl gives back when the transfer finishes.
    let key: Int

    private static let lastID = Atomic<Int>(0)

    init(_ request: HTTP2Request, configuration: HTTP2ClientConfiguration, pool: EasyHandlePool)
        throws(HTTP2ClientError)
    {
        let easy = try pool.take()
        easyHandle = easy
        self.pool = pool
        key = Int(bitPattern: easy.handle)
        do {
            try configure(request, configuration)
        } catch {
            pool.give(easy)
            easyHandle = nil
            throw error
        }
    }

    /// The easy handle; a transfer is not used after it resumed its caller.
    var easy: CurlEasy {
        guard let easyHandle else { preconditionFailure("a finished transfer was used") }
        return easyHandle
    }

    private func configure(_ request: HTTP2Request, _ configuration: HTTP2ClientConfiguration)
        throws(HTTP2ClientError)
    {
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        let version =
            switch configuration.negotiation {
            case .tls: CURL_HTTP_VERSION_2TLS
            case .priorKnowledge: CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
            }
        try easy.set(CURLOPT_HTTP_VERSION, Int(version))
        try easy.set(CURLOPT_PIPEWAIT, 1)
        try easy.set(CURLOPT_TIMEOUT_MS, (request.timeout ?? configuration.requestTimeout).milliseconds)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_TCP_KEEPIDLE, max(1, configuration.keepAliveIdle.milliseconds / 1000))
        if let caFile = configuration.caFile { try easy.set(CURLOPT_CAINFO, caFile) }
        switch request.method {
        case "GET": try easy.set(CURLOPT_HTTPGET, 1)
        case "POST": try easy.setBody(request.body)
        default:
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
            if !request.body.isEmpty { try easy.setBody(request.body) }
        }
        let unsafe = request.headers.first { ($0.name + $0.value).utf8.contains { $0 == 0x0D || $0 == 0x0A } }
        if let unsafe {
            throw HTTP2ClientError(kind: .invalidRequest, code: 0, message: "line break in header \(unsafe.name)")
        }
        // libcurl sends an `accept-encoding` itself, and then decodes the body it asked for.
        let encodings = request.header("accept-encoding")
        if let encodings { try easy.set(CURLOPT_ACCEPT_ENCODING, encodings) }
        let fields = request.headers.filter { encodings == nil || $0.name.lowercased() != "accept-encoding" }
        // An empty "Expect:" and "Accept:" stop libcurl from adding its own.
        try easy.setHeaders(["Expect:", "Accept:"] + fields.map { "\($0.name): \($0.value)" })
        let context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        try easy.set(CURLOPT_HEADERFUNCTION, callback: transferHeaderCallback)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: transferBodyCallback)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
    }

    /// Keeps one header line of the response, to be parsed off the loop thread; a status line
    /// starts a new head (after an interim 1xx response).
    func receivedHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.starts(with: "HTTP/".utf8) { head.removeAll(keepingCapacity: true) }
        head.append(contentsOf: line)
    }

    func receivedBody(_ bytes: UnsafeBufferPointer<UInt8>) {
        body.append(contentsOf: bytes)
    }

    /// Resumes the caller with the outcome of libcurl's `result`.
    func finish(_ result: CURLcode) {
        let outcome: Result<ReceivedResponse, any Error>
        if result == CURLE_OK {
            outcome = Result { () throws(HTTP2ClientError) in
                ReceivedResponse(status: try easy.info(CURLINFO_RESPONSE_CODE), head: head, body: body)
            }
        } else {
            outcome = .failure(HTTP2ClientError(result, detail: easy.errorDetail))
        }
        resume(outcome)
    }

    /// Gives the easy handle (already out of the multi handle) back to the pool and resumes the
    /// caller once; later calls do nothing.
    func resume(_ outcome: Result<ReceivedResponse, any Error>) {
        if let easyHandle { pool.give(easyHandle) }
        easyHandle = nil
        continuation?.resume(with: outcome)
        continuation = nil
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a short timeout never becomes "none" (0).
    fileprivate var milliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }
}
