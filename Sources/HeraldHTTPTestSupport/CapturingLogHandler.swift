import HeraldHTTP
import Synchronization

/// A log handler that keeps every message, for assertions.
public final class CapturingLogHandler: LogHandler {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var label: String
        public var message: String
        public var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    public init() {}

    public func log(level: Logger.Level, label: String, message: String, metadata: [String: String]) {
        storage.withLock { $0.append(Entry(level: level, label: label, message: message, metadata: metadata)) }
    }

    public var entries: [Entry] { storage.withLock { $0 } }

    public func entries(_ message: String) -> [Entry] {
        entries.filter { $0.message == message }
    }

    /// A logger that writes here.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        Logger(label: label, level: level, handler: self)
    }
}
