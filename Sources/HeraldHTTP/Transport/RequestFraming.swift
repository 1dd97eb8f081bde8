import HeraldModel

/// The strict HTTP/1.1 message-framing rules (RFC 9112 sections 3.2, 6 and 7), checked on a
/// request head before any of its body is read. A head that breaks one is answered with the
/// error and its connection closed, so no two parties can disagree about where the body ends.
enum RequestFraming {
    /// The error a head deserves, or nil when its framing is sound. `version` is the request
    /// line's protocol, e.g. "HTTP/1.1".
    static func violation(version: String, headers: HTTPHeaders) -> HTTPError? {
        // One pass, allocating only for the rare framing headers. libmicrohttpd 0.9.75 appends a
        // folded continuation line (obs-fold) to the header's name ("Content-Length: 1\r\n 0"
        // arrives as "Content-Length0: 1"), so the framing header vanishes: a name that starts
        // with a framing header's name and goes on is one of those.
        var lengths: [String] = []
        var codings: [String] = []
        var hosts: [String] = []
        for (name, value) in headers {
            guard isToken(name) else {
                // "Transfer-Encoding : chunked" (RFC 9112 section 5.1), or a name no field has.
                return bad("A header name is not a token (no spaces or separators before its colon).")
            }
            let size = name.utf8.count
            if size == 4 && HTTPHeaders.namesMatch(name, "Host") {
                hosts.append(value)
            } else if size >= 14 {
                if HTTPHeaders.namesMatch(name, "Content-Length") {
                    lengths.append(value)
                } else if HTTPHeaders.namesMatch(name, "Transfer-Encoding") {
                    codings.append(value)
                } else if startsWith(name, "Content-Length") || startsWith(name, "Transfer-Encoding") {
                    return bad("A framing header is folded over more than one line or misspelled (\(name)).")
                }
            }
        }
        if lengths.count > 1 {
            return bad("The request has more than one Content-Length header.")
        }
        if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            return bad("The Content-Length header must be a decimal number of bytes.")
        }
        if !codings.isEmpty {
            if version == "HTTP/1.0" {
                return bad("Transfer-Encoding is not allowed in an HTTP/1.0 request.")
            }
            if !lengths.isEmpty {
                return bad("The request has both Content-Length and Transfer-Encoding.")
            }
            let list = codings.joined(separator: ",").split(separator: ",").map {
                $0.trimming(where: \.isSpaceOrTab).lowercased()
            }
            if let unknown = list.first(where: { $0 != "chunked" }) {
                return HTTPError(
                    501, code: "not_implemented",
                    message: "The transfer coding \"\(unknown)\" is not supported; only chunked is.")
            }
            if list.count != 1 {
                return bad("The chunked transfer coding must be given exactly once.")
            }
        }
        if hosts.count > 1 {
            return bad("The request has more than one Host header.")
        }
        if hosts.isEmpty && version != "HTTP/1.0" {
            return bad("An HTTP/1.1 request must have a Host header.")
        }
        if let host = hosts.first, !host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return bad("The Host header is not a valid host.")
        }
        return nil
    }

    /// Whether `name` is an RFC 9110 token: one or more of tchar.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { tchar[Int($0)] }
    }

    private static let tchar: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }
    }

    /// Whether `name` begins with `prefix` (ASCII case-insensitively) and goes on past it.
    private static func startsWith(_ name: String, _ prefix: String) -> Bool {
        let size = prefix.utf8.count
        guard name.utf8.count > size else { return false }
        return HTTPHeaders.namesMatch(String(decoding: name.utf8.prefix(size), as: UTF8.self), prefix)
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(400, code: "bad_request", message: message)
    }
}
