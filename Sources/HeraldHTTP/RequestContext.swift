import Synchronization

/// Per-request information that travels with a request through middleware and handlers.
public struct RequestContext: Sendable {
    /// From a sane `X-Request-Id` header (1–128 visible ASCII characters), else generated.
    /// Echoed as the `X-Request-Id` response header.
    public var requestID: String
    /// A logger carrying `request_id` metadata.
    public var logger: Logger
    /// Path parameters of the matched route, e.g. `["id": "abc"]`.
    public var parameters: [String: String]
    /// The matched route pattern, e.g. "/v1/me/notifications/{id}"; nil when no route matched.
    public var route: String?
    public var startTime: ContinuousClock.Instant
    /// What middleware found out about the request (the caller's identity, say), by type.
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init(
        requestID: String,
        logger: Logger,
        parameters: [String: String] = [:],
        route: String? = nil,
        startTime: ContinuousClock.Instant = .now
    ) {
        self.requestID = requestID
        self.logger = logger
        self.parameters = parameters
        self.route = route
        self.startTime = startTime
    }

    /// The value of type `Value` a middleware stored for this request, e.g.
    /// `context[UserIdentity.self]`; one value per type.
    public subscript<Value: Sendable>(_ type: Value.Type) -> Value? {
        get { values[ObjectIdentifier(type)] as? Value }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}

/// Request ids: accepted from clients when sane, generated otherwise.
public enum RequestID {
    public static let headerName = "X-Request-Id"

    /// The client's id if it is 1–128 visible ASCII characters, else nil.
    public static func sanitized(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128 else { return nil }
        guard value.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return nil }
        return value
    }

    /// A random prefix drawn once per process, so ids from different processes differ.
    private static let processPrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let sequence = Atomic<UInt64>(0)

    /// A new id of 32 lowercase hex digits: the process's random prefix and a counter.
    /// Unique within the process and, with overwhelming likelihood, across processes; no
    /// system call per request (a random id cost two `getrandom` calls).
    public static func generate() -> String {
        let number = sequence.wrappingAdd(1, ordering: .relaxed).newValue
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for (half, source) in [processPrefix, number].enumerated() {
            var value = source
            for index in 0..<16 {
                bytes[half * 16 + 15 - index] = digits[Int(value & 0xF)]
                value >>= 4
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
