import HeraldCrypto

/// Random (version 4) UUIDs in lowercase canonical text, made from random bytes directly:
/// Foundation's `UUID().uuidString` costs microseconds on Linux.
enum RandomUUID {
    static func make() -> String {
        var bytes = SecureRandom.bytes(count: 16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(Hex.encode(bytes).utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
