#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one logfmt line per message to standard error:
/// `ts=2025-05-20T12:00:00.123Z level=info label=herald msg="server started" port=8080`.
/// Metadata keys are sorted; values with spaces, quotes or `=` are quoted.
public struct StderrLogHandler: LogHandler {
    public init() {}

    public func log(level: Logger.Level, label: String, message: String, metadata: [String: String]) {
        var line = Self.format(level: level, label: label, message: message, metadata: metadata)
        line.append("\n")
        Self.writeAll(line)
    }

    /// Writes `text` to standard error whole (a write may take part of it), as `print` does to
    /// standard output: log lines, and the command line's messages. An error writing it has
    /// nowhere to be told.
    public static func writeAll(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// The line for one message (without the newline).
    public static func format(
        level: Logger.Level,
        label: String,
        message: String,
        metadata: [String: String],
        timestamp: String = Self.timestamp()
    ) -> String {
        var line = "ts=\(timestamp) level=\(level) label=\(quoteIfNeeded(label)) msg=\(quote(message))"
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quoteIfNeeded(metadata[key]!))"
        }
        return line
    }

    /// Current UTC time as RFC 3339 with milliseconds.
    public static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = Int(now.tv_nsec / 1_000_000)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
            + ".\(pad(Int32(millis), 3))Z"
    }

    static func quoteIfNeeded(_ value: String) -> String {
        if value.isEmpty { return "\"\"" }
        let needsQuotes = value.unicodeScalars.contains { scalar in
            scalar == " " || scalar == "\"" || scalar == "=" || scalar == "\\" || scalar.value < 0x20
        }
        return needsQuotes ? quote(value) : value
    }

    static func quote(_ value: String) -> String {
        JSONString.quote(value)
    }
}
