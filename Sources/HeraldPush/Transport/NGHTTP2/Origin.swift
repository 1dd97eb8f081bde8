/// Where a request goes: scheme, host and port. Requests to one origin share its connections.
struct Origin: Hashable, Sendable {
    /// TLS with ALPN `h2` (`https://`), else h2c with prior knowledge (`http://`).
    var secure: Bool
    /// The host name or IP literal, without the brackets of an IPv6 literal.
    var host: String
    var port: UInt16
    /// The `:authority` pseudo-header: the host, and the port when it is not the scheme's default.
    var authority: String

    /// The origin of `request` and its `:path` (with the query; "/" when empty; a fragment
    /// dropped), checked: an `http` or `https` scheme, a host, a port from 1 to 65535. Parsed by
    /// hand: it runs per request.
    static func parse(_ request: HTTP2Request) throws(HTTP2ClientError) -> (origin: Origin, path: String) {
        guard !request.scheme.isEmpty || !request.authority.isEmpty else { throw invalid(request.url, "no scheme") }
        let secure: Bool
        switch request.scheme.lowercased() {
        case "https": secure = true
        case "http": secure = false
        default: throw invalid(request.url, "unsupported scheme")
        }
        let authority = Array(request.authority.utf8)[...]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { throw invalid(request.url, "bad host") }
        var hostPart = authority
        var portPart: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw invalid(request.url, "bad IPv6 host")
            }
            hostPart = authority[...close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw invalid(request.url, "bad port") }
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
                throw invalid(request.url, "bad port")
            }
            port = parsed
        }
        let hostText = String(decoding: hostPart, as: UTF8.self)
        let host = hostText.hasPrefix("[") ? String(hostText.dropFirst().dropLast()) : hostText
        guard !host.isEmpty else { throw invalid(request.url, "bad host") }
        let pathBytes = request.path.utf8.prefix { $0 != UInt8(ascii: "#") }
        let path =
            pathBytes.isEmpty
            ? "/"
            : pathBytes.first == UInt8(ascii: "?")
                ? "/" + String(Substring(pathBytes))
                : String(Substring(pathBytes))
        let origin = Origin(
            secure: secure, host: host, port: port, authority: port == defaultPort ? hostText : "\(hostText):\(port)")
        return (origin, path)
    }

    private static func invalid(_ url: String, _ reason: String) -> HTTP2ClientError {
        HTTP2ClientError(kind: .invalidRequest, code: 0, library: "Herald", message: "URL rejected: \(reason): \(url)")
    }
}
