/// Where a request goes: scheme, host and port. Requests to one origin share its connections.
struct Origin: Hashable, Sendable {
    /// TLS with ALPN `h2` (`https://`), else h2c with prior knowledge (`http://`).
    var secure: Bool
    /// The host name or IP literal, without the brackets of an IPv6 literal.
    var host: String
    var port: UInt16
    /// The `:authority` pseudo-header: the host, and the port when it is not the scheme's default.
    var authority: String

    /// Splits an absolute `http://` or `https://` URL into its origin and its path with query
    /// (the `:path`; "/" when empty). A fragment is dropped. Parsed by hand: it runs per request.
    static func parse(_ url: String) throws(HTTP2ClientError) -> (origin: Origin, path: String) {
        let bytes = Array(url.utf8)
        guard let separator = bytes.firstRange(of: Array("://".utf8)) else { throw invalid(url, "no scheme") }
        let secure: Bool
        switch String(decoding: bytes[..<separator.lowerBound], as: UTF8.self).lowercased() {
        case "https": secure = true
        case "http": secure = false
        default: throw invalid(url, "unsupported scheme")
        }
        let rest = bytes[separator.upperBound...]
        let fragment = rest.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
        let authorityEnd =
            rest[..<fragment].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? fragment
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { throw invalid(url, "bad host") }
        var hostPart = authority[...]
        var portPart: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw invalid(url, "bad IPv6 host") }
            hostPart = authority[...close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw invalid(url, "bad port") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostPart = authority[..<colon]
            portPart = authority[(colon + 1)...]
        }
        let defaultPort: UInt16 = secure ? 443 : 80
        var port = defaultPort
        if let portPart {
            guard let parsed = UInt16(String(decoding: portPart, as: UTF8.self)), parsed > 0 else {
                throw invalid(url, "bad port")
            }
            port = parsed
        }
        let hostText = String(decoding: hostPart, as: UTF8.self)
        let host = hostText.hasPrefix("[") ? String(hostText.dropFirst().dropLast()) : hostText
        guard !host.isEmpty else { throw invalid(url, "bad host") }
        let pathBytes = rest[authorityEnd..<fragment]
        let path =
            pathBytes.isEmpty
            ? "/"
            : pathBytes.first == UInt8(ascii: "?")
                ? "/" + String(decoding: pathBytes, as: UTF8.self)
                : String(decoding: pathBytes, as: UTF8.self)
        let origin = Origin(
            secure: secure, host: host, port: port, authority: port == defaultPort ? hostText : "\(hostText):\(port)")
        return (origin, path)
    }

    private static func invalid(_ url: String, _ reason: String) -> HTTP2ClientError {
        HTTP2ClientError(kind: .invalidRequest, code: 0, library: "Herald", message: "URL rejected: \(reason): \(url)")
    }
}
