/// Why the HTTP server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// Another socket is bound to the address and port.
        public static let addressInUse = Code("address_in_use")
        /// The host could not be resolved or is not a local address.
        public static let invalidAddress = Code("invalid_address")
        /// A socket call failed.
        public static let socketFailed = Code("socket_failed")
        /// libmicrohttpd refused to start.
        public static let daemonFailed = Code("daemon_failed")
        /// `start()` was called on a server that was already started.
        public static let alreadyStarted = Code("already_started")
    }

    public let code: Code
    public let message: String
    /// The `errno` of the failing system call, when there was one.
    public let systemError: Int32?

    init(_ code: Code, _ message: String, systemError: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemError = systemError
    }

    public var description: String { message }

    public var debugDescription: String {
        "HTTPServerError(\(code): \(message)\(systemError.map { ", errno \($0)" } ?? ""))"
    }
}
