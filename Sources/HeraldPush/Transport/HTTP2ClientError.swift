/// Why an HTTP/2 exchange failed before a response arrived.
///
/// The delivery worker decides on `kind` (and `isRetryable`); `description` is safe to log and
/// `debugDescription` adds the library and its code (nghttp2, OpenSSL or the system).
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
        /// HTTP/2 framing): the request may be sent again.
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
    /// The library's code: an nghttp2 error (negative), the HTTP/2 error code of a reset or GOAWAY, an `errno`, or an
    /// OpenSSL error (0 when the failure is Herald's own).
    public let code: Int
    /// The library's text for the failure, with the detailed message when there is one.
    public let message: String
    /// Which library `code` belongs to: "nghttp2", "HTTP/2" (an error code the server
    /// sent), "OpenSSL", "system", "getaddrinfo", or "Herald" (its own checks).
    let library: String

    /// Whether sending the same request again later may succeed.
    public var isRetryable: Bool {
        kind != .certificate && kind != .invalidRequest && kind != .other
    }

    public var description: String { "HTTP/2 \(kind): \(message)" }
    public var debugDescription: String { "HTTP/2 \(kind) (\(library) code \(code)): \(message)" }

    init(kind: Kind, code: Int, library: String, message: String) {
        self.kind = kind
        self.code = code
        self.library = library
        self.message = message
    }

    /// The failure of a request the client no longer takes or finishes.
    static let shutDown = HTTP2ClientError(
        kind: .closed, code: 0, library: "Herald", message: "the HTTP/2 client was shut down")
}
