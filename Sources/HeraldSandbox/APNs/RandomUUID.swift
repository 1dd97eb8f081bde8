import HeraldCrypto

/// Random (version 4) UUIDs in lowercase canonical text, made from random bytes directly:
/// Foundation's `UUID().uuidString` costs microseconds on Linux.
enum RandomUUID {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func make() -> String {
        var bytes = SecureRandom.bytes(count: 16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
