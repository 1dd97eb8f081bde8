#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The few string edits Herald makes, as Foundation's `NSString` methods of the same purpose make
/// them (checked against those methods in TextEditingTests), without linking the NSString-based
/// Foundation: the server links only FoundationEssentials.
extension StringProtocol {
    /// Every occurrence of `target` replaced by `replacement`, as `replacingOccurrences(of:with:)`
    /// does: whole characters are compared, so a `-` followed by a combining mark is not a `-`. An
    /// empty `target` changes nothing.
    package func replacingLiteral(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return String(self) }
        return String(self).replacing(target, with: replacement)
    }

    /// The text without the white space and line breaks at either end, as Foundation's
    /// `whitespacesAndNewlines` (``Unicode/Scalar/isWhitespaceOrNewline``) trims them.
    package func trimmingWhitespace() -> String { trimming(where: \.isWhitespaceOrNewline) }

    /// The text without the code points at either end for which `isTrimmed` holds.
    package func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        // Nothing to trim (a credential, most header values): one copy of the bytes.
        if let head = scalars.first, let tail = scalars.last, !isTrimmed(head), !isTrimmed(tail) {
            return String(self)
        }
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return String(out)
    }

    /// The text followed by spaces up to `width` characters (a column of a table printed in a
    /// terminal); longer text is left whole.
    package func padded(to width: Int) -> String {
        String(self) + String(repeating: " ", count: Swift.max(0, width - count))
    }

    /// The text with each `%XX` decoded, or nil when a `%` is not followed by two hex digits or
    /// the bytes are not UTF-8, as `removingPercentEncoding`; `plusIsSpace` reads `+` as a space
    /// first, as a form body means it.
    package func percentDecoded(plusIsSpace: Bool = false) -> String? {
        let (bytes, clean) = percentDecodedBytes(plusIsSpace: plusIsSpace)
        return clean ? String(validating: bytes, as: UTF8.self) : nil
    }

    /// The text with each well-formed `%XX` decoded and any other `%` kept, bytes that are not
    /// UTF-8 read as U+FFFD: what a lenient reader (a router, a browser) makes of it. The
    /// request targets of the HTTP server are decoded so, and so are links checked for a `..`.
    package func percentDecodedLeniently(plusIsSpace: Bool = false) -> String {
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(self)
        }
        return String(decoding: percentDecodedBytes(plusIsSpace: plusIsSpace).bytes, as: UTF8.self)
    }

    /// The bytes with every well-formed `%XX` decoded, and whether every `%` was one.
    private func percentDecodedBytes(plusIsSpace: Bool) -> (bytes: [UInt8], clean: Bool) {
        let utf8 = Array(utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var clean = true
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                if let decoded = Self.hexPair(utf8, at: index + 1) {
                    out.append(decoded)
                    index += 3
                    continue
                }
                clean = false
                out.append(byte)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index += 1
        }
        return (out, clean)
    }

    /// The byte two hex digits at `index` spell, nil when there are not two.
    private static func hexPair(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 1 < bytes.count, let high = bytes[index].hexDigitValue, let low = bytes[index + 1].hexDigitValue
        else { return nil }
        return high << 4 | low
    }
}

extension UInt8 {
    /// The value of this ASCII hexadecimal digit (either case), or nil when it is not one.
    package var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Unicode.Scalar {
    /// In Foundation's `whitespacesAndNewlines`: general category Z*, U+0009–U+000D, U+0085, and
    /// the zero-width space U+200B (a space separator in Unicode 4.0, kept by Foundation).
    package var isWhitespaceOrNewline: Bool {
        switch value {
        case 0x09...0x0D, 0x85, 0x200B: return true
        case 0x00...0x7F: return value == 0x20
        default:
            switch properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }

    /// A space or a horizontal tab, HTTP's optional white space (RFC 9110 §5.6.3).
    package var isSpaceOrTab: Bool { self == " " || self == "\t" }

    /// In Foundation's `controlCharacters`: general category Cc or Cf.
    package var isControlOrFormat: Bool {
        switch properties.generalCategory {
        case .control, .format: true
        default: false
        }
    }
}

extension Double {
    /// The number in decimal with `fractionDigits` digits after the point, rounded half away
    /// from zero, without grouping and the same in every locale (`1234.5` with 2 is `1234.50`);
    /// `trimmingZeros` drops the fraction's trailing zeros, and the point with them (`10`, `0.3`).
    /// A number too large for whole units, or not finite, is written as Swift writes it.
    package func decimal(fractionDigits: Int, trimmingZeros: Bool = false) -> String {
        precondition((0...9).contains(fractionDigits), "0 to 9 fraction digits")
        var scale = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = (magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero)
        guard isFinite, scaled < 9e18 else { return description }
        let units = Int(scaled)
        var text = (self < 0 && units != 0 ? "-" : "") + String(units / scale)
        var fraction = fractionDigits == 0 ? "" : String(units % scale)
        fraction = String(repeating: "0", count: fractionDigits - fraction.count) + fraction
        if trimmingZeros { fraction = String(fraction.reversed().drop { $0 == "0" }.reversed()) }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
