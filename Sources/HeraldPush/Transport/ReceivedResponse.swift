/// A response as the loop thread hands it over: the header lines still raw, so that parsing
/// them costs the caller's thread, not the one thread every transfer shares.
struct ReceivedResponse: Sendable {
    var status: Int
    /// The header lines as received ("name: value", each ending in CRLF).
    var head: [UInt8]
    var body: [UInt8]

    /// The response with its header lines parsed.
    var parsed: HTTP2Response {
        var headers: [HTTP2Header] = []
        // The status line and the blank line have no colon.
        for line in head.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            let end = value.lastIndex { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }.map { $0 + 1 } ?? value.startIndex
            headers.append(
                HTTP2Header(
                    String(decoding: line[..<colon], as: UTF8.self).lowercased(),
                    String(decoding: value[..<end], as: UTF8.self)))
        }
        return HTTP2Response(status: status, headers: headers, body: body)
    }
}
