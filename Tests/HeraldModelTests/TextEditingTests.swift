import Foundation
import Testing

@testable import HeraldModel

/// The string edits the server makes without Foundation's NSString methods, checked against
/// those methods (which the tests link) on the cases where a character and a code point differ.
@Suite("Text edits without NSString")
struct TextEditingTests {
    private static let samples = [
        "", "a", "{count} new", "{count}{count}", "-_-", "e\u{301}-\u{301}x", "%%41", "..", "a.b.c", "🙂.🙂",
        "\u{301}.", "x{count}\u{301}y",
    ]

    @Test("a replacement compares whole characters, as replacingOccurrences does")
    func replacingLiteral() {
        for text in Self.samples {
            for (target, replacement) in [("{count}", "3"), ("-", "+"), (".", "%2E"), ("%", "%25"), ("", "x")] {
                #expect(
                    text.replacingLiteral(target, with: replacement)
                        == text.replacingOccurrences(of: target, with: replacement), "\(text) \(target)")
            }
        }
        #expect("-\u{301}".replacingLiteral("-", with: "+") == "-\u{301}", "a dash with a combining mark is not a dash")
    }

    @Test("trimming takes Foundation's white space and line breaks from either end, nothing else")
    func trimming() {
        let ends = [
            " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2028}", "\u{2029}", "\u{3000}",
        ]
        let kept = ["\u{200B}", "\u{FEFF}", "\u{1}", "x", "\u{301}"]
        for end in ends + kept {
            for text in ["\(end)a b\(end)", "\(end)\(end)", "a\(end)b", end] {
                #expect(
                    text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
        #expect(" \tx \t".trimming(where: \.isSpaceOrTab) == "x")
        #expect("\u{A0}x\n".trimming(where: \.isSpaceOrTab) == "\u{A0}x\n", "HTTP's white space is a space or a tab")
    }

    @Test("code point classes are Foundation's")
    func scalarClasses() {
        for value in Array(0...0x3100) + Array(0xFE00...0xFFFF) + [0xE0001, 0x10FFFF] {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(scalar.isWhitespaceOrNewline == CharacterSet.whitespacesAndNewlines.contains(scalar), "\(value)")
            #expect(scalar.isControlOrFormat == CharacterSet.controlCharacters.contains(scalar), "\(value)")
        }
    }

    @Test("percent decoding: two hex digits after every %, UTF-8 after decoding, or nil")
    func percentDecoding() {
        for text in ["", "a", "%2E%2e", "%2", "%G1", "%", "100%", "%C3%A9", "%C3", "%FF", "a+b", "%00", "é%20"] {
            #expect(text.percentDecoded() == text.removingPercentEncoding, "\(text)")
            #expect(
                text.percentDecoded(plusIsSpace: true)
                    == text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding)
        }
    }

    @Test("lenient percent decoding keeps a % that starts no escape and reads bytes that are not UTF-8 as U+FFFD")
    func lenientPercentDecoding() {
        #expect("/a/%2e%2e/%zz".percentDecodedLeniently() == "/a/../%zz")
        #expect("/%2E%2e/%FF".percentDecodedLeniently() == "/../\u{FFFD}")
        #expect("a+b%2B%".percentDecodedLeniently(plusIsSpace: true) == "a b+%")
        #expect("plain".percentDecodedLeniently() == "plain")
        #expect(InAppPath.isSafe("/orders/%2e%2e/admin/%zz") == false, "a bad escape elsewhere hides no ..")
        #expect(InAppPath.isSafe("/orders/%41/x") == true)
    }

    @Test("padding to a column's width leaves longer text whole")
    func padding() {
        #expect("ab".padded(to: 4) == "ab  ")
        #expect("abcdef".padded(to: 4) == "abcdef")
        #expect("é".padded(to: 2) == "é ")
    }

    @Test("a decimal has its fraction digits, rounds half away from zero, and never groups or localizes")
    func decimal() {
        let cases: [(Double, Int, Bool, String)] = [
            (0, 3, false, "0.000"), (1.5, 2, false, "1.50"), (1234.5, 2, false, "1234.50"), (2.0005, 3, false, "2.001"),
            (-2.0005, 3, false, "-2.001"), (-0.0001, 3, false, "0.000"), (0.125, 2, false, "0.13"), (7, 0, false, "7"),
            (10, 3, true, "10"), (0.3, 3, true, "0.3"), (2.25, 3, true, "2.25"), (0.0001, 3, true, "0"),
            (12.5, 0, false, "13"), (1e20, 2, false, "1e+20"), (.infinity, 2, false, "inf"), (.nan, 1, false, "nan"),
        ]
        for (value, digits, trimming, expected) in cases {
            #expect(value.decimal(fractionDigits: digits, trimmingZeros: trimming) == expected, "\(value) \(digits)")
        }
        // As Foundation writes it in the POSIX locale without grouping (away from ties, where
        // Foundation rounds half to even).
        let posix = FloatingPointFormatStyle<Double>.number.precision(.fractionLength(2)).grouping(.never)
            .locale(Locale(identifier: "en_US_POSIX"))
        for value in [0.0, 0.5, 1.004, 99.999, 123_456.789, -3.14159] {
            #expect(value.decimal(fractionDigits: 2) == value.formatted(posix), "\(value)")
        }
    }
}
