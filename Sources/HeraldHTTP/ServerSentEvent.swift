/// One server-sent event in the `text/event-stream` wire format.
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String
    /// Reconnection delay hint in milliseconds.
    public var retry: Int?

    public init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The encoded event, ending with the blank line that dispatches it.
    public var bytes: [UInt8] {
        var text = ""
        if let id { text += "id: \(Self.singleLine(id))\n" }
        if let event { text += "event: \(Self.singleLine(event))\n" }
        if let retry { text += "retry: \(retry)\n" }
        // Every line break a client recognises (CR, LF, CRLF) starts a new `data:` line, so
        // data can never smuggle in a field of its own.
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return Array(text.utf8)
    }

    /// A frame without data: it sets the client's last event id (when `id` is given) and its
    /// reconnection time (when `retry` is given), and dispatches no event. A stream that starts
    /// with an id lets a client that drops before any event arrived resume from that point.
    public static func fields(id: String? = nil, retry: Int? = nil) -> [UInt8] {
        var text = ""
        if let id { text += "id: \(singleLine(id))\n" }
        if let retry { text += "retry: \(retry)\n" }
        return Array((text + "\n").utf8)
    }

    /// A comment line (ignored by clients), used as a heartbeat.
    public static func comment(_ text: String) -> [UInt8] {
        Array(":\(singleLine(text))\n\n".utf8)
    }

    private static func singleLine(_ value: String) -> String {
        value.contains(where: \.isNewline) ? value.filter { !$0.isNewline } : value
    }
}

extension ResponseStream {
    /// Writes one server-sent event; false once the client has gone.
    @discardableResult
    public func send(_ event: ServerSentEvent) -> Bool {
        write(event.bytes)
    }
}
