import HeraldModel

/// Checks that a push body is what APNs takes: one JSON object (RFC 8259, UTF-8) whose `aps`
/// member is an object. It reads the bytes once and builds nothing, where `JSONSerialization`
/// built the whole document for every push and cost the sandbox about a third of its time.
///
/// The few bodies whose answer depends on the full parser's own rules (a byte-order mark or a
/// NUL byte, which make it guess another encoding; an escaped top-level key; a `\u` escape of
/// a surrogate; a number with an exponent or many digits) answer nil, and the caller asks it.
enum APNsPayloadScanner {
    /// Containers nested deeper than this are refused, as the full parser refuses them.
    static let maximumDepth = 512

    /// Whether `body` is a JSON object whose (last) `aps` member is an object; nil when only the
    /// full parser can tell.
    static func isPushPayload(_ body: [UInt8]) -> Bool? {
        if body.starts(with: [0xEF, 0xBB, 0xBF]) || body.contains(0) { return nil }
        guard String(validating: body, as: UTF8.self) != nil else { return false }
        return body.withUnsafeBufferPointer { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.topLevelObject()
        }
    }
}

/// One pass over the bytes of a document; every method leaves `index` after what it read.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Set when a rule only the full parser knows decides: the answer is nil.
    var deferred = false

    private static let aps = Array("aps".utf8)

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func topLevelObject() -> Bool? {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return false }
        depth = 1
        var apsIsObject = false
        skipWhitespace()
        if !take(UInt8(ascii: "}")) {
            while true {
                let keyStart = index + 1
                guard string() else { return false }
                let key = UnsafeBufferPointer(rebasing: bytes[keyStart..<(index - 1)])
                if key.contains(UInt8(ascii: "\\")) { deferred = true }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                let isObject = peek == UInt8(ascii: "{")
                guard value() else { return false }
                if key.elementsEqual(Self.aps) { apsIsObject = isObject }
                skipWhitespace()
                if take(UInt8(ascii: ",")) {
                    skipWhitespace()
                    continue
                }
                guard take(UInt8(ascii: "}")) else { return false }
                break
            }
        }
        skipWhitespace()
        guard index == bytes.count else { return false }
        return deferred ? nil : apsIsObject
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func value() -> Bool {
        guard let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "{"): return container(closing: UInt8(ascii: "}"), members: true)
        case UInt8(ascii: "["): return container(closing: UInt8(ascii: "]"), members: false)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    /// An object (`members`: `"key": value` pairs) or an array, from its opening byte.
    private mutating func container(closing: UInt8, members: Bool) -> Bool {
        depth += 1
        guard depth <= APNsPayloadScanner.maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if !take(closing) {
            while true {
                if members {
                    guard string() else { return false }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return false }
                    skipWhitespace()
                }
                guard value() else { return false }
                skipWhitespace()
                if take(UInt8(ascii: ",")) {
                    skipWhitespace()
                    continue
                }
                guard take(closing) else { return false }
                break
            }
        }
        depth -= 1
        return true
    }

    private mutating func string() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case 0..<0x20: return false
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard let scalar = hexQuad() else { return false }
                    if (0xD800...0xDFFF).contains(scalar) { deferred = true }
                default: return false
                }
            default: continue
            }
        }
        return false
    }

    /// Four hex digits after `\u`, as a number.
    private mutating func hexQuad() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            guard let digit = byte.hexDigitValue else { return nil }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        let start = index
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            if let byte = peek, isDigit(byte) { return false }
        } else {
            guard digits() else { return false }
        }
        if take(UInt8(ascii: ".")) {
            guard digits() else { return false }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            deferred = true
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() else { return false }
        }
        // Where a long number overflows is the full parser's rule.
        if index - start > 15 { deferred = true }
        return true
    }

    /// One or more decimal digits.
    private mutating func digits() -> Bool {
        let start = index
        while let byte = peek, isDigit(byte) { index += 1 }
        return index > start
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard bytes[index..<(index + count)].elementsEqual(expected) else { return false }
        index += count
        return true
    }
}
