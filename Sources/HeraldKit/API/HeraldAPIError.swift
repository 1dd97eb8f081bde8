/// Why an API call failed, in the terms the models act on.
///
/// A struct around a kind, so new kinds do not break callers: compare with
/// `error.kind == .unauthenticated`.
public struct HeraldAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the screens tell it apart.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// 401: no valid session; the app shows its sign-in gate.
        public static let unauthenticated = Kind("unauthenticated")
        /// 404: the thing does not exist for this user.
        public static let notFound = Kind("notFound")
        /// The device has no connection, or the server could not be reached.
        public static let offline = Kind("offline")
        /// The server did not answer in time.
        public static let timeout = Kind("timeout")
        /// 5xx, or an answer the client could not read: a server-side problem.
        public static let server = Kind("server")
        /// Another 4xx: the request was refused (`code` says why).
        public static let rejected = Kind("rejected")

        public var description: String { name }
    }

    public var kind: Kind
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The `error.code` of the server's JSON error body, when there was one.
    public var code: String?
    /// Human text, safe to log.
    public var message: String

    public init(kind: Kind, status: Int? = nil, code: String? = nil, message: String) {
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String {
        var text = "HeraldAPIError(\(kind)"
        if let status { text += ", status \(status)" }
        if let code { text += ", \(code)" }
        return text + "): \(message)"
    }

    public static func unauthenticated(_ message: String = "Sign in again.") -> HeraldAPIError {
        HeraldAPIError(kind: .unauthenticated, status: 401, code: "unauthenticated", message: message)
    }
    public static func notFound(_ message: String = "Not found.") -> HeraldAPIError {
        HeraldAPIError(kind: .notFound, status: 404, code: "not_found", message: message)
    }
    public static func offline(_ message: String = "The server could not be reached.") -> HeraldAPIError {
        HeraldAPIError(kind: .offline, message: message)
    }
    public static func timeout(_ message: String = "The server did not answer in time.") -> HeraldAPIError {
        HeraldAPIError(kind: .timeout, message: message)
    }
    public static func server(status: Int = 500, _ message: String = "The server failed.") -> HeraldAPIError {
        HeraldAPIError(kind: .server, status: status, message: message)
    }
}
