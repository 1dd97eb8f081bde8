import HeraldModel

/// Reads HTTP/1.1 responses (and event-stream bodies) from a loopback socket.
actor ResponseReader {
    let socket: LoopbackSocket
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(socket: LoopbackSocket) {
        self.socket = socket
    }

    struct Head: Sendable {
        var status: Int
        var headers: [(String, String)]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    enum Framing {
        case length(Int)
        case chunked
        case untilClose
        case none
    }

    // MARK: Low level

    private var available: Int { buffer.count - start }

    /// Reads more bytes; false at end of stream.
    private func fill(_ deadline: ContinuousClock.Instant) async throws -> Bool {
        guard !atEnd else { return false }
        let bytes = try await socket.read(deadline: deadline)
        if bytes.isEmpty {
            atEnd = true
            return false
        }
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
        return true
    }

    private func readLine(_ deadline: ContinuousClock.Instant) async throws -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            guard try await fill(deadline) else {
                throw LoopbackClientError.malformedResponse("connection closed in the middle of a line")
            }
        }
    }

    private func readExactly(_ count: Int, _ deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        while available < count {
            guard try await fill(deadline) else {
                throw LoopbackClientError.malformedResponse(
                    "connection closed after \(available) of \(count) body bytes")
            }
        }
        let bytes = Array(buffer[start..<(start + count)])
        start += count
        return bytes
    }

    /// Whatever is buffered, or the next bytes from the socket; empty at the end.
    private func readSome(upTo maximum: Int, _ deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        if available == 0 {
            guard try await fill(deadline) else { return [] }
        }
        let count = min(maximum, available)
        let bytes = Array(buffer[start..<(start + count)])
        start += count
        return bytes
    }

    // MARK: HTTP

    /// The status line and headers, skipping interim (1xx) responses.
    func readHead(deadline: ContinuousClock.Instant) async throws -> Head {
        while true {
            let statusLine = try await readLine(deadline)
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                throw LoopbackClientError.malformedResponse("bad status line \"\(statusLine)\"")
            }
            var headers: [(String, String)] = []
            while true {
                let line = try await readLine(deadline)
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else {
                    throw LoopbackClientError.malformedResponse("bad header line \"\(line)\"")
                }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimming(where: \.isSpaceOrTab)
                headers.append((name, value))
            }
            if (100..<200).contains(status) && status != 101 { continue }
            return Head(status: status, headers: headers)
        }
    }

    static func framing(for head: Head, method: String) -> Framing {
        if method.uppercased() == "HEAD" || head.status == 204 || head.status == 304
            || (100..<200).contains(head.status)
        {
            return .none
        }
        if let encoding = head.header("Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            return .chunked
        }
        if let length = head.header("Content-Length").flatMap({ Int($0) }) {
            return .length(length)
        }
        return .untilClose
    }

    func readBody(framing: Framing, deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        switch framing {
        case .none:
            return []
        case .length(let length):
            return try await readExactly(length, deadline)
        case .chunked:
            var body: [UInt8] = []
            while let chunk = try await readChunk(deadline: deadline) {
                body.append(contentsOf: chunk)
            }
            return body
        case .untilClose:
            var body: [UInt8] = []
            while true {
                let bytes = try await readSome(upTo: 1 << 20, deadline)
                if bytes.isEmpty { return body }
                body.append(contentsOf: bytes)
            }
        }
    }

    /// The next chunk's data; nil after the last chunk (trailers consumed).
    func readChunk(deadline: ContinuousClock.Instant) async throws -> [UInt8]? {
        let sizeLine = try await readLine(deadline)
        let hex =
            sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimming(where: \.isSpaceOrTab) ?? ""
        guard let size = Int(hex, radix: 16) else {
            throw LoopbackClientError.malformedResponse("bad chunk size \"\(sizeLine)\"")
        }
        if size == 0 {
            while try await !readLine(deadline).isEmpty {}
            return nil
        }
        let data = try await readExactly(size, deadline)
        guard try await readLine(deadline).isEmpty else {
            throw LoopbackClientError.malformedResponse("chunk not followed by CRLF")
        }
        return data
    }

    // MARK: Event streams

    private var framing: Framing = .untilClose
    private var remainingLength = 0
    private var bodyEnded = false
    private var eventBuffer: [UInt8] = []
    private var pendingID: String?
    private var pendingEvent: String?
    private var pendingData: [String] = []
    /// The last event id as a browser keeps it: the latest `id` field of a completed frame.
    private(set) var lastEventID = ""

    func beginEventStream(framing: Framing) {
        self.framing = framing
        if case .length(let length) = framing { remainingLength = length }
        if case .none = framing { bodyEnded = true }
    }

    /// The next event or comment; nil when the server ended the response or closed.
    func nextEvent(deadline: ContinuousClock.Instant, skipComments: Bool) async throws -> SSEEvent? {
        while true {
            while let event = parseEvent() {
                if skipComments && event.isComment { continue }
                return event
            }
            guard !bodyEnded else { return nil }
            let bytes = try await nextBodyBytes(deadline)
            if bytes.isEmpty {
                bodyEnded = true
            } else {
                eventBuffer.append(contentsOf: bytes)
            }
        }
    }

    private func nextBodyBytes(_ deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        switch framing {
        case .none:
            return []
        case .chunked:
            return try await readChunk(deadline: deadline) ?? []
        case .length:
            guard remainingLength > 0 else { return [] }
            let bytes = try await readSome(upTo: remainingLength, deadline)
            remainingLength -= bytes.count
            return bytes
        case .untilClose:
            return try await readSome(upTo: 1 << 16, deadline)
        }
    }

    private func parseEvent() -> SSEEvent? {
        while let newline = eventBuffer.firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > 0 && eventBuffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = String(decoding: eventBuffer[..<end], as: UTF8.self)
            eventBuffer.removeSubrange(...newline)

            if line.isEmpty {
                // As in the SSE rules: a completed frame sets the last event id when it has one,
                // and dispatches an event only when it has data.
                if let pendingID { lastEventID = pendingID }
                defer {
                    pendingID = nil
                    pendingEvent = nil
                    pendingData = []
                }
                guard !pendingData.isEmpty else { continue }
                return SSEEvent(
                    id: pendingID, event: pendingEvent, data: pendingData.joined(separator: "\n"), isComment: false)
            }
            if line.hasPrefix(":") {
                var text = line.dropFirst()
                if text.first == " " { text = text.dropFirst() }
                return SSEEvent(id: nil, event: nil, data: String(text), isComment: true)
            }
            let field: Substring
            var value: Substring
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
            } else {
                field = Substring(line)
                value = ""
            }
            switch field {
            case "id": pendingID = String(value)
            case "event": pendingEvent = String(value)
            case "data": pendingData.append(String(value))
            default: continue
            }
        }
        return nil
    }
}
