import HeraldCrypto
import Synchronization

/// Version 4 UUIDs in lowercase canonical text for the ids the look-alikes hand out
/// (`apns-unique-id`, an absent `apns-id`, Expo tickets): unique and unguessable across runs,
/// which is all those ids promise, at a few nanoseconds each.
///
/// A counter that starts at a secure random value steps once per id, and SplitMix64's mixing
/// function (a bijection) turns each step into random-looking bits: two ids repeat no more
/// often than two random version 4 UUIDs do. Neither Foundation's `UUID().uuidString` (microseconds on Linux) nor OpenSSL's
/// generator per id (a third of what remained of the sandbox's time per push) is needed.
enum RandomUUID {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let counter = Atomic<UInt64>(
        SecureRandom.bytes(count: 8).reduce(0) { $0 << 8 | UInt64($1) })

    static func make() -> String {
        let step = counter.add(1, ordering: .relaxed).oldValue
        let high = (mix(step) & ~0xF000) | 0x4000  // version 4
        let low = (mix(~step) & ~(0xC000 << 48)) | (0x8000 << 48)  // RFC 9562 variant
        var text = [UInt8]()
        text.reserveCapacity(36)
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { text.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            text.append(hexDigits[Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SplitMix64's finalizer.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
