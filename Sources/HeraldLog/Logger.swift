/// A small structured logger in the style of swift-log. Messages are built only when
/// their level is enabled.
public struct Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CustomStringConvertible, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        /// Parses "trace", "debug", … "critical" (case-insensitive).
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
            self = level
        }
    }

    public let label: String
    /// Messages below this level are dropped without being built.
    public var level: Level
    public var handler: any LogHandler
    /// Key-value pairs added to every message.
    public var metadata: [String: String]

    public init(label: String, level: Level = .info, handler: any LogHandler = StderrLogHandler()) {
        self.label = label
        self.level = level
        self.handler = handler
        self.metadata = [:]
    }

    /// A logger that writes nothing, for code run where nobody reads a log (tests, one-shot tools).
    public static let disabled = Logger(label: "disabled", level: .critical, handler: NullLogHandler())

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func log(level: Level, _ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        let merged = metadata.isEmpty ? self.metadata : self.metadata.merging(metadata) { _, new in new }
        handler.log(level: level, label: label, message: message(), metadata: merged)
    }

    public func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .trace, message(), metadata: metadata)
    }

    public func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .debug, message(), metadata: metadata)
    }

    public func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .info, message(), metadata: metadata)
    }

    public func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .notice, message(), metadata: metadata)
    }

    public func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .warning, message(), metadata: metadata)
    }

    public func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .error, message(), metadata: metadata)
    }

    public func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        log(level: .critical, message(), metadata: metadata)
    }
}

/// Where log messages go.
public protocol LogHandler: Sendable {
    func log(level: Logger.Level, label: String, message: String, metadata: [String: String])
}

/// A handler that drops everything.
public struct NullLogHandler: LogHandler {
    public init() {}
    public func log(level: Logger.Level, label: String, message: String, metadata: [String: String]) {}
}
