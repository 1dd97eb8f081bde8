import HeraldHTTP2

/// Why the HTTP/2 server could not start, or which library call failed.
public struct HTTP2ServerError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A socket, epoll or thread call failed.
        public static let system = Code("system")
        /// libnghttp2 refused an operation.
        public static let nghttp2 = Code("nghttp2")
        /// OpenSSL refused an operation (context, key, certificate).
        public static let openSSL = Code("openssl")
        /// The certificate files could not be read or written.
        public static let certificateFiles = Code("certificate_files")
    }

    public let code: Code
    /// Names the failing call; safe to log.
    public let message: String
    /// The library's number for the failure: `errno`, an nghttp2 error or an OpenSSL error.
    public let libraryCode: Int?

    init(_ code: Code, _ message: String, libraryCode: Int? = nil) {
        self.code = code
        self.message = message
        self.libraryCode = libraryCode
    }

    public var description: String { message }

    public var debugDescription: String {
        "HTTP2ServerError(\(code): \(message)\(libraryCode.map { ", code \($0)" } ?? ""))"
    }
}

extension HTTP2ServerError: NativeCallError {
    /// The error of a failed libnghttp2, OpenSSL or system call.
    package init(_ failure: NativeFailure) {
        let code: Code =
            switch failure.library {
            case .nghttp2: .nghttp2
            case .openSSL: .openSSL
            case .system: .system
            }
        self.init(code, failure.message, libraryCode: failure.code)
    }
}
