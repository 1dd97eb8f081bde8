/// Reads a `text/event-stream` body as it arrives, in chunks cut anywhere (the parsing rules of
/// the WHATWG HTML standard, "Server-sent events").
///
/// Lines end with CRLF, LF or CR (a CRLF split across chunks counts once); a line starting with
/// `:` is a comment; `data` lines join with newlines; `id` sets the last event id (committed when
/// an event is dispatched, so an event cut off by a dropped connection does not move it);
/// `retry` takes digits only; unknown fields are ignored; a blank line dispatches.
struct ServerSentEventParser: Sendable {
    /// One dispatched event.
    struct Message: Sendable, Equatable {
        /// The last event id when the event was dispatched (`""` when none was ever set).
        var lastEventID: String
        /// The `event` field, `message` when absent.
        var event: String
        var data: String
    }

    /// The id a reconnection sends as `Last-Event-ID` (`""`: none).
    private(set) var lastEventID: String
    /// The reconnection time the server asked for, in milliseconds.
    private(set) var retry: Int?
    /// Comment lines seen (heartbeats).
    private(set) var comments = 0

    private var line: [UInt8] = []
    private var afterCR = false
    private var isFirstLine = true
    private var data = ""
    private var hasData = false
    private var eventType = ""
    private var idBuffer: String

    /// A parser for a new connection that resumes after `lastEventID`.
    init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Consumes `bytes`; answers the events they complete, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Message] {
        var messages: [Message] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == Self.lf { continue }
            }
            switch byte {
            case Self.cr:
                afterCR = true
                if let message = endLine() { messages.append(message) }
            case Self.lf:
                if let message = endLine() { messages.append(message) }
            default:
                line.append(byte)
            }
        }
        return messages
    }

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")

    private mutating func endLine() -> Message? {
        var bytes = line[...]
        line = []
        if isFirstLine {
            isFirstLine = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty { return dispatch() }
        if bytes.first == Self.colon {
            comments += 1
            return nil
        }
        guard let colon = bytes.firstIndex(of: Self.colon) else {
            return process(field: String(decoding: bytes, as: UTF8.self), value: [])
        }
        var value = bytes[bytes.index(after: colon)...]
        if value.first == Self.space { value = value.dropFirst() }
        return process(field: String(decoding: bytes[..<colon], as: UTF8.self), value: value)
    }

    private mutating func process(field: String, value: ArraySlice<UInt8>) -> Message? {
        switch field {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data += "\n" }
            data += String(decoding: value, as: UTF8.self)
            hasData = true
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                retry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> Message? {
        lastEventID = idBuffer
        defer {
            data = ""
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return Message(lastEventID: lastEventID, event: eventType.isEmpty ? "message" : eventType, data: data)
    }
}
