/// Why the sandbox could not set itself up.
public struct SandboxError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The key material of the state directory could not be read, made or written.
        public static let credentials = Code("credentials")
    }

    public let code: Code
    /// What failed, with the path; safe to log (never key material).
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public var debugDescription: String { "SandboxError(\(code): \(message))" }
}
