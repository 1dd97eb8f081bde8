#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The opaque `cursor` of inbox pages. Clients pass it back unchanged; the server reads the
/// sequence number of the last row it returned. Versioned (`v1:<seq>`) so the form can change.
public enum InboxCursor {
    private static let version = "v1:"
    /// Longer strings are refused before any decoding.
    private static let maxLength = 64

    /// The cursor for the page after the row with sequence number `seq` (at least 0).
    public static func encode(seq: Int64) -> String {
        precondition(seq >= 0, "sequence numbers are not negative")
        return base64URL(Array((version + String(seq)).utf8))
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding (RFC 4648 §5); written out because the list answers one per page.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count {
                out.append(alphabet[Int(value >> (18 - 6 * position) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The sequence number in `cursor`, or `nil` for anything this server did not make.
    public static func decode(_ cursor: String) -> Int64? {
        guard !cursor.isEmpty, cursor.utf8.count <= maxLength,
            cursor.utf8.allSatisfy({ Check.isASCIIAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        var base64 = cursor.replacingLiteral("-", with: "+").replacingLiteral("_", with: "/")
        let remainder = base64.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            text.hasPrefix(version)
        else { return nil }
        let digits = text.dropFirst(version.count)
        guard !digits.isEmpty, digits.count <= 19,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.count == 1 || digits.first != "0", let seq = Int64(digits)
        else { return nil }
        // Only the exact spelling this server produces is accepted.
        return encode(seq: seq) == cursor ? seq : nil
    }
}
