import HeraldModel

/// Text built as UTF-8 bytes, for the HTML sanitizer, its tokenizer and reference decoder.
///
/// `String.UnicodeScalarView.append(contentsOf:)` copies the whole string on every call, which
/// made sanitizing quadratic; appending scalars one by one to a view costs about 25 times more
/// than writing their bytes here.
struct UTF8Builder {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ scalar: Unicode.Scalar) {
        if scalar.value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: scalar.value))
        } else {
            UTF8.encode(scalar) { bytes.append($0) }
        }
    }

    mutating func append(contentsOf scalars: ArraySlice<Unicode.Scalar>) {
        for scalar in scalars { append(scalar) }
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
