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
    /// the bytes are not UTF-8, as `removingPercentEncoding`.
    package var percentDecoded: String? {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                Character(Unicode.Scalar(high)).isHexDigit, Character(Unicode.Scalar(low)).isHexDigit,
                let decoded = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            out.append(decoded)
        }
        return String(validating: out, as: UTF8.self)
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
