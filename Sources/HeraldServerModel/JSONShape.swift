import HeraldModel

/// One linear pass over a JSON text that checks what a decoder does not: nesting depth and keys
/// repeated within one object (compared after escapes are decoded, as Swift strings). It does not
/// validate syntax: on text that is not JSON it stops and leaves the verdict to the decoder.
/// Iterative, so no input can overflow the stack.
public enum JSONShape {
    public enum Problem: Equatable, Sendable {
        /// Nested deeper than the limit (objects and arrays count one level each).
        case tooDeep(limit: Int)
        /// A key given twice in one object.
        case duplicateKey(String)
    }

    /// The first problem found in `bytes`, or nil.
    public static func problem(in bytes: [UInt8], maxDepth: Int) -> Problem? {
        // Per open container: the keys seen so far (nil for an array) and whether a key comes next.
        var stack: [(keys: Set<String>?, expectKey: Bool)] = []
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < maxDepth else { return .tooDeep(limit: maxDepth) }
                stack.append(byte == UInt8(ascii: "{") ? (Set(), true) : (nil, false))
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                index += 1
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].keys != nil { stack[last].expectKey = true }
                index += 1
            case UInt8(ascii: "\""):
                guard let (text, end) = string(in: bytes, from: index + 1) else { return nil }
                if let last = stack.indices.last, stack[last].expectKey {
                    stack[last].expectKey = false
                    if stack[last].keys?.insert(text).inserted == false { return .duplicateKey(text) }
                }
                index = end
            default:
                index += 1
            }
        }
        return nil
    }

    /// Decodes the string whose content starts at `start` (after its opening quote); answers it and
    /// the index after its closing quote, or nil if it does not end.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var index = start
        var plain = true
        // The common case, no escapes: no copy until the end.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                plain = false
                break
            }
            index += 1
        }
        guard index < bytes.count else { return nil }
        if plain { return (String(decoding: bytes[start..<index], as: UTF8.self), index + 1) }
        var out = Array(bytes[start..<index])
        var pendingHigh: UInt32?
        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if pendingHigh != nil { appendScalar(0xFFFD) }
                return (String(decoding: out, as: UTF8.self), index + 1)
            }
            guard byte == UInt8(ascii: "\\") else {
                if let high = pendingHigh {
                    appendScalar(high)
                    pendingHigh = nil
                }
                out.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escaped = bytes[index + 1]
            index += 2
            if escaped == UInt8(ascii: "u") {
                guard index + 4 <= bytes.count, let unit = hex(bytes[index..<index + 4]) else { return nil }
                index += 4
                if (0xD800..<0xDC00).contains(unit) {
                    if pendingHigh != nil { appendScalar(0xFFFD) }
                    pendingHigh = unit
                } else if (0xDC00..<0xE000).contains(unit), let high = pendingHigh {
                    appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
                    pendingHigh = nil
                } else {
                    if pendingHigh != nil { appendScalar(0xFFFD) }
                    pendingHigh = nil
                    appendScalar(unit)
                }
                continue
            }
            if pendingHigh != nil {
                appendScalar(0xFFFD)
                pendingHigh = nil
            }
            switch escaped {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            default: out.append(escaped)  // \" \\ \/
            }
        }
        return nil
    }

    private static func hex(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for digit in digits {
            guard let nibble = digit.hexDigitValue else { return nil }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }
}
