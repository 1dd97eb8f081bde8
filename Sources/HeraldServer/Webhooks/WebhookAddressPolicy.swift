/// Which addresses a webhook may reach (server-side request forgery): only public unicast ones,
/// unless `--webhook-allow-private-addresses`. Checked on every address a host resolves to, at
/// creation and again before each attempt, which then connects to exactly the address checked.
enum WebhookAddressPolicy {
    /// Why `address` (4 bytes for IPv4, 16 for IPv6, network order) is refused, naming its kind;
    /// nil for a public unicast address.
    static func refusal(_ address: [UInt8]) -> String? {
        switch address.count {
        case 4: return refusalV4(address)
        case 16: return refusalV6(address)
        default: return "not an IP address"
        }
    }

    /// IPv4 ranges that are not the public internet (RFC 6890's special-purpose registry).
    private static let v4Ranges: [(prefix: [UInt8], bits: Int, kind: String)] = [
        ([0, 0, 0, 0], 8, "unspecified (0.0.0.0/8)"),
        ([10, 0, 0, 0], 8, "private (10.0.0.0/8)"),
        ([100, 64, 0, 0], 10, "carrier-grade NAT (100.64.0.0/10)"),
        ([127, 0, 0, 0], 8, "loopback (127.0.0.0/8)"),
        ([169, 254, 0, 0], 16, "link-local (169.254.0.0/16, cloud metadata)"),
        ([172, 16, 0, 0], 12, "private (172.16.0.0/12)"),
        ([192, 0, 0, 0], 24, "IETF protocol assignments (192.0.0.0/24)"),
        ([192, 0, 2, 0], 24, "documentation (192.0.2.0/24)"),
        ([192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99.0/24)"),
        ([192, 168, 0, 0], 16, "private (192.168.0.0/16)"),
        ([198, 18, 0, 0], 15, "benchmarking (198.18.0.0/15)"),
        ([198, 51, 100, 0], 24, "documentation (198.51.100.0/24)"),
        ([203, 0, 113, 0], 24, "documentation (203.0.113.0/24)"),
        ([224, 0, 0, 0], 4, "multicast (224.0.0.0/4)"),
        ([240, 0, 0, 0], 4, "reserved or broadcast (240.0.0.0/4)"),
    ]

    /// IPv6 ranges that are not the public internet; those that embed an IPv4 address are
    /// judged by it instead (see ``refusalV6(_:)``).
    private static let v6Ranges: [(prefix: [UInt8], bits: Int, kind: String)] = [
        ([0x01, 0x00], 64, "discard-only (100::/64)"),
        ([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01], 48, "local-use NAT64 (64:ff9b:1::/48)"),
        ([0x20, 0x01, 0x00, 0x00], 32, "Teredo (2001::/32)"),
        ([0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48, "benchmarking (2001:2::/48)"),
        ([0x20, 0x01, 0x0D, 0xB8], 32, "documentation (2001:db8::/32)"),
        ([0xFC], 7, "unique local, private (fc00::/7)"),
        ([0xFE, 0x80], 10, "link-local (fe80::/10)"),
        ([0xFE, 0xC0], 10, "site-local (fec0::/10)"),
        ([0xFF], 8, "multicast (ff00::/8)"),
    ]

    private static func refusalV4(_ address: [UInt8]) -> String? {
        v4Ranges.first { matches(address, $0.prefix, bits: $0.bits) }?.kind
    }

    private static func refusalV6(_ address: [UInt8]) -> String? {
        let zeros = [UInt8](repeating: 0, count: 10)
        if address == [UInt8](repeating: 0, count: 16) { return "unspecified (::)" }
        if address == zeros + [0, 0, 0, 0, 0, 1] { return "loopback (::1)" }
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
        // addresses reach the IPv4 address they hold: judged by it.
        let v4 = Array(address[12...])
        if Array(address[..<12]) == zeros + [0xFF, 0xFF] || Array(address[..<12]) == zeros + [0, 0]
            || matches(address, [0x00, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8), bits: 96)
        {
            return refusalV4(v4).map { "\($0) inside IPv6" }
        }
        // 6to4 (2002:a.b.c.d::/48) tunnels to the IPv4 address it holds.
        if address[0] == 0x20 && address[1] == 0x02 {
            return refusalV4(Array(address[2..<6])).map { "\($0) inside 6to4" }
        }
        return v6Ranges.first { matches(address, $0.prefix, bits: $0.bits) }?.kind
    }

    /// Whether the first `bits` bits of `address` are those of `prefix`.
    private static func matches(_ address: [UInt8], _ prefix: [UInt8], bits: Int) -> Bool {
        for bit in 0..<bits {
            let byte = bit / 8
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            let want = byte < prefix.count ? prefix[byte] & mask : 0
            if address[byte] & mask != want { return false }
        }
        return true
    }
}
