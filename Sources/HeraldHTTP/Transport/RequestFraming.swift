/// The strict HTTP/1.1 message-framing rules (RFC 9112 sections 3.2, 6 and 7), checked on a
/// request head before any of its body is read. A head that breaks one is answered with the
/// error and its connection closed, so no two parties can disagree about where the body ends.
enum RequestFraming {
    /// The error a head deserves, or nil when its framing is sound. `version` is the request
    /// line's protocol, e.g. "HTTP/1.1".
    static func violation(version: String, headers: HTTPHeaders) -> HTTPError? {
        // libmicrohttpd 0.9.75 appends a folded continuation line (obs-fold) to the header's
        // name ("Content-Length: 1\r\n 0" arrives as "Content-Length0: 1"), so the framing header
        // vanishes. A name that starts with a framing header's name and goes on is one of those.
        for (name, _) in headers where name.utf8.count > 14 {
            for framing in ["Content-Length", "Transfer-Encoding"]
            where name.utf8.count > framing.utf8.count
                && HTTPHeaders.namesMatch(
                    String(decoding: name.utf8.prefix(framing.utf8.count), as: UTF8.self), framing)
            {
                return bad("A framing header is folded over more than one line or misspelled (\(name)).")
            }
        }
        let lengths = headers.values(for: "Content-Length")
        let codings = headers.values(for: "Transfer-Encoding")
        let hosts = headers.values(for: "Host")
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
                $0.trimmingASCIIWhitespace().lowercased()
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

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(400, code: "bad_request", message: message)
    }
}

extension Substring {
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
