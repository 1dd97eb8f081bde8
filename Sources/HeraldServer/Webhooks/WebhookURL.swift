import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A webhook's URL, parsed strictly: `http` or `https`, a host (a name, or an IP literal, IPv6 in
/// brackets), an optional port, a path and query; no user info, no fragment, printable ASCII only.
struct WebhookURL: Sendable, Equatable {
    /// `https`.
    let secure: Bool
    /// Lowercased; an IPv6 literal without its brackets.
    let host: String
    let port: UInt16
    /// The path and query (`/` when the URL has none): the request target.
    let target: String

    /// The longest URL a subscription takes.
    static let maxLength = 2_048

    /// Why a URL was refused.
    struct Invalid: Error, Equatable {
        let message: String
    }

    init(_ text: String) throws(Invalid) {
        guard text.utf8.count <= Self.maxLength else {
            throw Invalid(message: "`url` must be at most \(Self.maxLength) characters.")
        }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw Invalid(
                message:
                    "`url` must be printable ASCII without spaces: percent-encode the path and give the host in punycode."
            )
        }
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw Invalid(message: "`url` must be an absolute http:// or https:// URL.")
        }
        switch text[..<schemeEnd.lowerBound].lowercased() {
        case "http": secure = false
        case "https": secure = true
        default: throw Invalid(message: "`url` must use http or https, not \(text[..<schemeEnd.lowerBound]).")
        }
        let rest = text[schemeEnd.upperBound...]
        guard !rest.contains("#") else { throw Invalid(message: "`url` must not have a fragment (#…).") }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else {
            throw Invalid(message: "`url` must not carry user info (user:password@): put credentials in the path.")
        }
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw Invalid(message: "`url` has an IPv6 address without its closing bracket.")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Invalid(message: "`url` has text after its IPv6 address.") }
                portPart = after.dropFirst()
            }
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(hostPart), &address) == 1 else {
                throw Invalid(message: "`url` has an invalid IPv6 address (zone ids are not taken).")
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
            guard !hostPart.isEmpty, hostPart.utf8.count <= 253, hostPart.allSatisfy(allowed.contains) else {
                throw Invalid(message: "`url` must name a host: letters, digits, dots and hyphens (punycode).")
            }
        }
        host = hostPart.lowercased()
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCIIDigit),
                let port = UInt16(portPart),
                port > 0
            else { throw Invalid(message: "`url` has an invalid port: 1 to 65535.") }
            self.port = port
        } else {
            port = secure ? 443 : 80
        }
        let path = rest[authorityEnd...]
        target = path.hasPrefix("/") ? String(path) : "/" + path
    }

    /// The `Host` header: the host (IPv6 in brackets), and the port when it is not the scheme's.
    var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
