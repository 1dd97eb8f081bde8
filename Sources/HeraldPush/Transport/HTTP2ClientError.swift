import CCurl

/// Why an HTTP/2 exchange failed before a response arrived.
///
/// The delivery worker decides on `kind` (and `isRetryable`); `description` is safe to log and
/// `debugDescription` adds the library and its code (libcurl, nghttp2, OpenSSL or the system).
public struct HTTP2ClientError: Error, Sendable, Hashable, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// The class of failure, open to new members without breaking callers.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable, Hashable {
            case connectionRefused, connectionLost, goaway, streamReset, timedOut, tlsHandshake, certificate, closed,
                invalidRequest,
                other
        }
        private let code: Code

        /// Nothing listens on the host and port (or the host cannot be reached): nothing was sent.
        public static let connectionRefused = Kind(code: .connectionRefused)
        /// The connection was reset or closed while the request was in flight.
        public static let connectionLost = Kind(code: .connectionLost)
        /// The server ended the connection with GOAWAY before processing the request (or broke
        /// HTTP/2 framing): the request may be sent again. libcurl 7.88 reports both as one code.
        public static let goaway = Kind(code: .goaway)
        /// The server reset the request's stream (RST_STREAM) before answering it.
        public static let streamReset = Kind(code: .streamReset)
        /// The request's timeout ran out (connecting included).
        public static let timedOut = Kind(code: .timedOut)
        /// The TLS handshake broke off (most often the connection was reset while connecting).
        public static let tlsHandshake = Kind(code: .tlsHandshake)
        /// The server's certificate is not trusted, or the CA file cannot be read: retrying
        /// will not help.
        public static let certificate = Kind(code: .certificate)
        /// The client was shut down before the request finished.
        public static let closed = Kind(code: .closed)
        /// The request itself is malformed (a bad URL, an unsupported option).
        public static let invalidRequest = Kind(code: .invalidRequest)
        /// Anything else the HTTP/2 library reports (such as a server that does not offer HTTP/2
        /// through ALPN).
        public static let other = Kind(code: .other)

        public var description: String { code.rawValue }
    }

    /// The class of failure.
    public let kind: Kind
    /// The library's code: libcurl's `CURLcode` or `CURLMcode`; for the nghttp2 engine an
    /// nghttp2 error (negative), the HTTP/2 error code of a reset or GOAWAY, an `errno`, or an
    /// OpenSSL error (0 when the failure is Herald's own).
    public let code: Int
    /// The library's text for the failure, with the detailed message when there is one.
    public let message: String
    /// Which library `code` belongs to: "libcurl", "nghttp2", "HTTP/2" (an error code the server
    /// sent), "OpenSSL", "system", "getaddrinfo", or "Herald" (its own checks).
    private let library: String

    /// Whether sending the same request again later may succeed.
    public var isRetryable: Bool {
        kind != .certificate && kind != .invalidRequest && kind != .other
    }

    public var description: String { "HTTP/2 \(kind): \(message)" }
    public var debugDescription: String { "HTTP/2 \(kind) (\(library) code \(code)): \(message)" }

    init(kind: Kind, code: Int, library: String = "libcurl", message: String) {
        self.kind = kind
        self.code = code
        self.library = library
        self.message = message
    }

    /// The failure of a request the client no longer takes or finishes.
    static let shutDown = HTTP2ClientError(
        kind: .closed, code: 0, library: "Herald", message: "the HTTP/2 client was shut down")

    /// The error of a failed transfer.
    init(_ result: CURLcode, detail: String) {
        let text = String(cString: curl_easy_strerror(result))
        self.init(
            kind: Self.kind(of: result), code: Int(result.rawValue),
            message: detail.isEmpty ? text : "\(text): \(detail)")
    }

    /// The error of a failed multi-handle call.
    init(_ result: CURLMcode) {
        self.init(kind: .other, code: Int(result.rawValue), message: String(cString: curl_multi_strerror(result)))
    }

    private static func kind(of result: CURLcode) -> Kind {
        switch result {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: .connectionRefused
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE: .connectionLost
        case CURLE_HTTP2: .goaway
        case CURLE_HTTP2_STREAM: .streamReset
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_SSL_CONNECT_ERROR: .tlsHandshake
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM: .certificate
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT,
            CURLE_UNKNOWN_OPTION:
            .invalidRequest
        default: .other
        }
    }
}

/// The one checking helper: every `CURLcode` of a setup call goes through it.
func curlCheck(_ result: CURLcode) throws(HTTP2ClientError) {
    guard result == CURLE_OK else { throw HTTP2ClientError(result, detail: "") }
}

/// The one checking helper for `CURLMcode`.
func curlCheck(_ result: CURLMcode) throws(HTTP2ClientError) {
    guard result == CURLM_OK else { throw HTTP2ClientError(result) }
}
