import FoundationEssentials
import HeraldHTTP2
import HeraldModel

/// HTTP/1.1 on one sandbox connection (RFC 9112), for the clients that speak it to Google's and
/// Expo's services (Python's `requests`, curl without `--http2`): requests parsed as strictly as
/// a careful server does, one at a time (a pipelined request waits in the buffer), and answers
/// written with `Content-Length`.
///
/// Refused, with the connection closed after the answer: a malformed request line or header
/// line (400), a version other than 1.0 or 1.1 (505), a head over ``maxHeadBytes`` (431), a
/// 1.1 request without exactly one `Host` (400), `Content-Length` with `Transfer-Encoding` or
/// repeated with different values (400), a transfer coding other than `chunked` (501), and a
/// body over the server's limit (413).
final class HTTP1Exchange {
    /// The request line and header fields together, at most.
    static let maxHeadBytes = 16 * 1024
    /// One chunk-size line (with extensions), or one trailer line, at most.
    private static let maxChunkLineBytes = 1_024

    /// A request the connection answers and then closes.
    struct Refusal: Error, Equatable {
        var status: Int
        var message: String
    }

    /// A parsed request head.
    struct Head {
        var method: String
        var target: String
        /// 0 for HTTP/1.0, 1 for HTTP/1.1.
        var minorVersion: Int
        var headers: [HTTP2Header]

        /// Whether the connection stays open after the answer (RFC 9112 §9.3).
        var keepsAlive: Bool {
            let tokens = headers.filter { $0.lowercasedName == "connection" }.flatMap {
                $0.value.lowercased().listItems
            }
            if tokens.contains("close") { return false }
            return minorVersion == 1 || tokens.contains("keep-alive")
        }
    }

    /// What ``next()`` found in the bytes received so far.
    enum Step {
        /// Nothing complete yet.
        case needMore
        /// The head asked `Expect: 100-continue` and the body has not come: say so, then wait.
        case sendContinue
        /// A whole request.
        case request(Head, body: [UInt8])
    }

    private enum Body {
        case length(Int)
        case chunked(Chunked)
    }

    private enum Chunked {
        /// Waiting for a chunk-size line.
        case size
        /// Inside a chunk's data: this many bytes left, then its CRLF.
        case data(Int)
        /// Reading trailer lines until the empty one.
        case trailers
    }

    private let maxBodyBytes: Int
    private var input: [UInt8] = []
    /// Where the unparsed bytes of `input` begin.
    private var start = 0
    private var head: Head?
    private var body: Body?
    private var received: [UInt8] = []
    private var continueSent = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Adds bytes read from the connection. What was parsed already is dropped once it is most
    /// of the buffer, so a long-lived connection holds only what it has not parsed yet.
    func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == input.count {
            input.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 * 1024, start * 2 >= input.count {
            input.removeFirst(start)
            start = 0
        }
        input.append(contentsOf: bytes)
    }

    /// Bytes received and not parsed yet (a pipelined request waiting behind the one answered).
    var unparsedCount: Int { input.count - start }

    /// The most a connection may hold unparsed while its request is answered: a whole next
    /// request at its largest. A client sending more before reading its answers is dropped.
    var maxUnparsedBytes: Int { Self.maxHeadBytes + maxBodyBytes }

    /// Parses what it can: the next request once it is whole.
    func next() throws(Refusal) -> Step {
        if head == nil {
            guard let end = Self.find(Self.crlfcrlf, in: input, from: start) else {
                if input.count - start > Self.maxHeadBytes {
                    throw Refusal(status: 431, message: "the request head is over \(Self.maxHeadBytes) bytes")
                }
                return .needMore
            }
            guard end + 4 - start <= Self.maxHeadBytes else {
                throw Refusal(status: 431, message: "the request head is over \(Self.maxHeadBytes) bytes")
            }
            let parsed = try Self.parseHead(input[start..<end])
            start = end + 4
            body = try Self.bodyFraming(of: parsed, limit: maxBodyBytes)
            head = parsed
            received = []
            continueSent = false
        }
        guard let head, let body else { return .needMore }
        switch body {
        case .length(let length):
            let available = min(input.count - start, length - received.count)
            received.append(contentsOf: input[start..<start + available])
            start += available
            guard received.count == length else { return waitForBody(head) }
        case .chunked(let state):
            guard try readChunks(state) else { return waitForBody(head) }
        }
        let request = received
        self.head = nil
        self.body = nil
        received = []
        return .request(head, body: request)
    }

    private func waitForBody(_ head: Head) -> Step {
        let expects = head.headers.contains { $0.lowercasedName == "expect" && $0.value.lowercased() == "100-continue" }
        guard expects, !continueSent, head.minorVersion == 1 else { return .needMore }
        continueSent = true
        return .sendContinue
    }

    /// Reads chunks from `state` on; true once the last chunk and its trailers are in.
    private func readChunks(_ initial: Chunked) throws(Refusal) -> Bool {
        var state = initial
        defer { if self.body != nil { self.body = .chunked(state) } }
        while true {
            switch state {
            case .size:
                guard let line = try line(limit: Self.maxChunkLineBytes) else { return false }
                let digits = line.prefix { $0 != UInt8(ascii: ";") }.trimmingSpaces
                // RFC 9112 `chunk-size = 1*HEXDIG`: no sign (Int(_:radix:) would take one).
                guard !digits.isEmpty, digits.count <= 8, digits.allSatisfy(\.isHexDigit),
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else { throw Refusal(status: 400, message: "a chunk size is not a hexadecimal number") }
                guard received.count + size <= maxBodyBytes else { throw Self.tooLarge(maxBodyBytes) }
                state = size == 0 ? .trailers : .data(size)
            case .data(let left):
                let available = min(input.count - start, left)
                received.append(contentsOf: input[start..<start + available])
                start += available
                guard available == left else {
                    state = .data(left - available)
                    return false
                }
                guard input.count - start >= 2 else {
                    state = .data(0)
                    return false
                }
                guard input[start] == 13, input[start + 1] == 10 else {
                    throw Refusal(status: 400, message: "a chunk's data does not end with CRLF")
                }
                start += 2
                state = .size
            case .trailers:
                guard let line = try line(limit: Self.maxChunkLineBytes) else { return false }
                if line.isEmpty { return true }
            }
        }
    }

    /// The next CRLF-terminated line (without its CRLF), or nil while it is incomplete.
    private func line(limit: Int) throws(Refusal) -> ArraySlice<UInt8>? {
        guard let end = Self.find(Self.crlf, in: input, from: start) else {
            if input.count - start > limit { throw Refusal(status: 400, message: "a chunk line is too long") }
            return nil
        }
        guard end - start <= limit else { throw Refusal(status: 400, message: "a chunk line is too long") }
        let line = input[start..<end]
        start = end + 2
        return line
    }

    // MARK: The head

    private static let crlf: [UInt8] = [13, 10]
    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(Refusal) -> Head {
        var lines = split(bytes)
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
            parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { throw Refusal(status: 400, message: "the request line is not METHOD SP target SP version") }
        let version = String(decoding: parts[2], as: UTF8.self)
        let minorVersion: Int
        switch version {
        case "HTTP/1.1": minorVersion = 1
        case "HTTP/1.0": minorVersion = 0
        default:
            guard version.hasPrefix("HTTP/"), version.count == 8 else {
                throw Refusal(status: 400, message: "the request line is not METHOD SP target SP version")
            }
            throw Refusal(status: 505, message: "this server speaks HTTP/1.1 and HTTP/2, not \(version)")
        }
        var headers: [HTTP2Header] = []
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[line.startIndex..<colon].allSatisfy(isTokenByte)
            else {
                throw Refusal(status: 400, message: "a header line is not a token, a colon and a value")
            }
            let value = line[(colon + 1)...].trimmingSpaces
            guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw Refusal(status: 400, message: "a header value has a control character")
            }
            headers.append(
                HTTP2Header(
                    String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                    String(decoding: value, as: UTF8.self)))
        }
        let hosts = headers.filter { $0.lowercasedName == "host" }
        if minorVersion == 1, hosts.count != 1 {
            throw Refusal(status: 400, message: "an HTTP/1.1 request needs exactly one Host header")
        }
        return Head(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
            minorVersion: minorVersion, headers: headers)
    }

    private static func bodyFraming(of head: Head, limit: Int) throws(Refusal) -> Body {
        let codings = head.headers.filter { $0.lowercasedName == "transfer-encoding" }
        let lengths = head.headers.filter { $0.lowercasedName == "content-length" }.flatMap(\.value.listItems)
        if !codings.isEmpty {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing.
            guard head.minorVersion == 1 else {
                throw Refusal(status: 400, message: "an HTTP/1.0 request cannot use Transfer-Encoding")
            }
            guard lengths.isEmpty else {
                throw Refusal(status: 400, message: "a request has both Content-Length and Transfer-Encoding")
            }
            let names = codings.flatMap { $0.value.lowercased().listItems }
            guard names == ["chunked"] else {
                throw Refusal(status: 501, message: "the only transfer coding taken is chunked")
            }
            return .chunked(.size)
        }
        guard let first = lengths.first else { return .length(0) }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(first)
        else { throw Refusal(status: 400, message: "Content-Length is not one decimal number") }
        guard length <= limit else { throw tooLarge(limit) }
        return .length(length)
    }

    private static func tooLarge(_ limit: Int) -> Refusal {
        Refusal(status: 413, message: "the request body is over \(limit) bytes")
    }

    /// The head's lines; a line that does not end in CRLF, or a folded line, is refused by the
    /// line parsers (a lone CR or LF is not a token byte and not allowed in a value).
    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count - from >= needle.count else { return nil }
        var index = from
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    // MARK: Answers

    /// `response` as HTTP/1.1 bytes: the status line, its fields (framing fields it carried
    /// replaced by `Content-Length`, which a 204 or 304 has none of), `Connection: close` when
    /// `closing` (`keep-alive` to an HTTP/1.0 client that stays), the body unless the request was
    /// HEAD or the status has none.
    static func serialize(_ response: HTTP2Response, method: String, closing: Bool, minorVersion: Int = 1)
        -> [UInt8]
    {
        var text = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]
        for field in response.headers where !framing.contains(field.lowercasedName) {
            text += "\(field.name): \(field.value)\r\n"
        }
        let bodiless = response.status == 204 || response.status == 304
        if !bodiless { text += "content-length: \(response.body.count)\r\n" }
        if closing {
            text += "connection: close\r\n"
        } else if minorVersion == 0 {
            text += "connection: keep-alive\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if method != "HEAD", !bodiless { bytes += response.body }
        return bytes
    }

    /// The answer to a refused request: a JSON error, as the sandbox's other errors.
    static func refusalResponse(_ refusal: Refusal) -> HTTP2Response {
        .json(refusal.status, ["error": refusal.message])
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

extension UInt8 {
    /// `0`–`9`, `a`–`f`, `A`–`F`.
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}

extension String {
    /// The items of a comma-separated field value, trimmed of spaces and tabs (empty ones kept,
    /// so that `1,,1` is not one length).
    fileprivate var listItems: [String] {
        split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimming(where: \.isSpaceOrTab)
        }
    }
}

extension BidirectionalCollection where Element == UInt8, SubSequence == Self {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: SubSequence {
        let isSpace = { (byte: UInt8) in byte == 32 || byte == 9 }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let last = lastIndex(where: { !isSpace($0) }) ?? first
        return self[first...last]
    }
}
