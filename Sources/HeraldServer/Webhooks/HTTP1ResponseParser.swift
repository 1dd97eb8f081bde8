import FoundationEssentials
import HeraldModel

/// Reads one HTTP/1.1 response as its bytes arrive, for the HTTP/1.1 client: the head (interim 1xx
/// answers skipped) within `maxHeadBytes`, then just enough of the body's framing
/// (`Content-Length`, chunked, or up to the close) to know where it ends, until it ends or
/// `maxBodyBytes` of it were read (a chunked body's framing counts). The body's bytes are dropped
/// (a webhook's answer), or kept in ``body`` when `keepingBody` (the command line's publisher
/// calls), which then checks ``truncated`` and ``endsAtClose``.
struct HTTP1ResponseParser {
    /// Why the bytes are not an HTTP/1.1 response.
    struct Malformed: Error, Equatable {
        let reason: String
    }

    private enum Framing: Equatable {
        case length(Int)
        case chunked
        case untilClose
    }

    /// Where a chunked body stands.
    private enum ChunkState: Equatable {
        /// Reading a size line.
        case size
        /// Reading this many data bytes, then the CRLF.
        case data(Int)
        /// Reading the CRLF after a chunk's data.
        case dataEnd
        /// Reading trailer lines until the empty one.
        case trailers
    }

    private enum State: Equatable {
        case head
        case body(Framing)
        case done
    }

    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// The final answer's status, once its head is read.
    private(set) var status: Int?
    /// Bytes consumed in all.
    private(set) var received = 0
    private var state = State.head
    private var pending: [UInt8] = []
    /// How much of `pending` was searched for the end of a head already: a receiver that trickles
    /// its head a byte at a time costs a linear scan, not a quadratic one.
    private var headScanned = 0
    private var bodyRead = 0
    private var chunk = ChunkState.size
    private let keepingBody: Bool
    /// The body's bytes read so far (without chunk framing), when kept.
    private(set) var body: [UInt8] = []
    /// The read stopped at `maxBodyBytes` before the body's end.
    private(set) var truncated = false

    /// The body ends where the connection closes (no length, not chunked): a close ends it whole.
    var endsAtClose: Bool { state == .body(.untilClose) }

    init(maxHeadBytes: Int, maxBodyBytes: Int, keepingBody: Bool = false) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.keepingBody = keepingBody
    }

    /// The response ended, or its body reached the limit.
    var isComplete: Bool { state == .done }

    mutating func consume(_ bytes: some Collection<UInt8>) throws(Malformed) {
        received += bytes.count
        pending.append(contentsOf: bytes)
        while true {
            switch state {
            case .done:
                pending = []
                return
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: pending, from: max(0, headScanned - 3)) else {
                    if pending.count > maxHeadBytes {
                        throw Malformed(reason: "the response head is over \(maxHeadBytes) bytes")
                    }
                    headScanned = pending.count
                    return
                }
                headScanned = 0
                guard end + 4 <= maxHeadBytes else {
                    throw Malformed(reason: "the response head is over \(maxHeadBytes) bytes")
                }
                let head = Array(pending[..<end])
                pending.removeFirst(end + 4)
                try readHead(head)
            case .body(let framing):
                guard try readBody(framing) else { return }
            }
        }
    }

    /// Reads a head; an interim one leaves the parser waiting for the next.
    private mutating func readHead(_ head: [UInt8]) throws(Malformed) {
        let lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        let statusLine = String(decoding: lines[0], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].utf8.count == 3,
            let code = Int(parts[1]), (100...599).contains(code)
        else {
            throw Malformed(reason: "bad status line \"\(statusLine.prefix(100))\"")
        }
        var lengths: Set<String> = []
        var chunked = false
        var transferEncoded = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw Malformed(reason: "bad header line \"\(String(decoding: line.prefix(100), as: UTF8.self))\"")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            guard !name.contains(" "), !name.contains("\t") else {
                throw Malformed(reason: "bad header name \"\(name.prefix(100))\"")
            }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimming(where: \.isSpaceOrTab)
            switch name {
            case "content-length":
                for item in value.split(separator: ",") { lengths.insert(item.trimming(where: \.isSpaceOrTab)) }
            case "transfer-encoding":
                transferEncoded = true
                let codings = value.lowercased().split(separator: ",").map { $0.trimming(where: \.isSpaceOrTab) }
                chunked = codings.last == "chunked"
            default: break
            }
        }
        if (100..<200).contains(code) && code != 101 { return }  // interim: the answer follows
        status = code
        if code == 204 || code == 304 || (100..<200).contains(code) {
            state = .done
        } else if transferEncoded {
            state = .body(chunked ? .chunked : .untilClose)
        } else if let length = lengths.first {
            guard lengths.count == 1, !length.isEmpty, length.allSatisfy(\.isNumber), let count = Int(length) else {
                throw Malformed(reason: "bad Content-Length \"\(length.prefix(30))\"")
            }
            state = count == 0 ? .done : .body(.length(count))
        } else {
            state = .body(.untilClose)
        }
    }

    /// Drops what `pending` holds of the body; false when it needs more bytes.
    private mutating func readBody(_ framing: Framing) throws(Malformed) -> Bool {
        switch framing {
        case .untilClose:
            keep(pending.prefix(maxBodyBytes - bodyRead))
            bodyRead += pending.count
            pending = []
            if bodyRead >= maxBodyBytes {
                state = .done
                truncated = true
            }
            return false
        case .length(let total):
            let taken = min(pending.count, total - bodyRead)
            keep(pending.prefix(min(taken, maxBodyBytes - bodyRead)))
            bodyRead += taken
            pending = []
            if bodyRead >= total || bodyRead >= maxBodyBytes {
                state = .done
                truncated = bodyRead < total
            }
            return false
        case .chunked:
            return try readChunked()
        }
    }

    /// One step of a chunked body; false when it needs more bytes.
    private mutating func readChunked() throws(Malformed) -> Bool {
        if bodyRead >= maxBodyBytes {
            state = .done
            truncated = true
            return true
        }
        switch chunk {
        case .data(let remaining):
            let taken = min(remaining, pending.count)
            keep(pending.prefix(min(taken, max(0, maxBodyBytes - bodyRead))))
            pending.removeFirst(taken)
            bodyRead += taken
            chunk = remaining == taken ? .dataEnd : .data(remaining - taken)
            return !pending.isEmpty
        case .size, .dataEnd, .trailers:
            guard let end = Self.find([13, 10], in: pending) else {
                if pending.count > 1_024 { throw Malformed(reason: "a chunk line is over 1024 bytes") }
                return false
            }
            let line = String(decoding: pending[..<end], as: UTF8.self)
            pending.removeFirst(end + 2)
            bodyRead += end + 2
            switch chunk {
            case .size:
                let digits =
                    line.split(separator: ";", maxSplits: 1).first.map {
                        $0.trimming(where: \.isSpaceOrTab)
                    } ?? ""
                guard !digits.isEmpty, digits.count <= 16, let size = Int(digits, radix: 16) else {
                    throw Malformed(reason: "bad chunk size \"\(line.prefix(30))\"")
                }
                chunk = size == 0 ? .trailers : .data(size)
            case .dataEnd:
                guard line.isEmpty else { throw Malformed(reason: "a chunk's data is not followed by CRLF") }
                chunk = .size
            case .trailers:
                if line.isEmpty { state = .done }
            case .data: break
            }
            return true
        }
    }

    /// Adds body bytes to ``body`` when it is kept.
    private mutating func keep(_ bytes: ArraySlice<UInt8>) {
        if keepingBody { body += bytes }
    }

    /// The index where `needle` first starts in `haystack`, looking from `from` on.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0) -> Int? {
        guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        for start in from...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
