import FoundationEssentials
import HeraldModel

/// A small HTML tokenizer after the WHATWG tokenizer states that matter for sanitizing:
/// tags and attributes (quoted, unquoted, missing values, `/` separators), comments
/// (including `<!-->` and `--!>`), bogus comments (`<!...>`, `<?...>`, `</ x>`), raw-text
/// elements whose content is not markup (`script`, `style`, `iframe`, ...), and a tag left
/// open at the end of input, which is dropped as browsers drop it.
struct HTMLTokenizer {
    struct Tag {
        /// ASCII-lowercased.
        var name: String
        /// ASCII-lowercased names, decoded values, first occurrence wins.
        var attributes: [(name: String, value: String)]
        var selfClosing: Bool

        func attribute(_ name: String) -> String? {
            attributes.first { $0.name == name }?.value
        }
    }

    enum Token {
        /// Text as written (references not yet decoded).
        case text(ArraySlice<Unicode.Scalar>)
        /// The content of a raw-text element, never markup.
        case rawText(ArraySlice<Unicode.Scalar>)
        case startTag(Tag)
        case endTag(String)
    }

    /// Elements whose content is text up to their own end tag. `plaintext` has no end.
    static let rawTextElements: Set<String> = [
        "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "plaintext",
    ]

    private let input: [Unicode.Scalar]
    private var index = 0
    /// Set after the start tag of a raw-text element.
    private var rawTextOf: String?

    init(_ html: String) {
        input = Array(html.unicodeScalars)
    }

    mutating func next() -> Token? {
        while index < input.count {
            if let element = rawTextOf {
                rawTextOf = nil
                let start = index
                index = element == "plaintext" ? input.count : endOfRawText(element)
                if index > start { return .rawText(input[start..<index]) }
                continue
            }
            if input[index] != "<" {
                let start = index
                while index < input.count, input[index] != "<" { index += 1 }
                return .text(input[start..<index])
            }
            if let token = markup() { return token }
        }
        return nil
    }

    // MARK: - Markup after `<`

    /// Reads what starts at the `<` at `index`. Returns a token, or `nil` after skipping a
    /// comment or a dropped tag (the caller loops).
    private mutating func markup() -> Token? {
        let next = peek(1)
        switch next {
        case "!":
            if peek(2) == "-", peek(3) == "-" {
                skipComment()
            } else {
                skipBogusComment(from: index + 2)
            }
            return nil
        case "?":
            skipBogusComment(from: index + 1)
            return nil
        case "/":
            if let letter = peek(2), isASCIILetter(letter) {
                index += 2
                guard let tag = readTag() else { return nil }
                return .endTag(tag.name)
            }
            if peek(2) == ">" {
                index += 3
                return nil
            }
            if peek(2) == nil {
                index += 2
                return .text(input[(index - 2)..<index])
            }
            skipBogusComment(from: index + 2)
            return nil
        case let letter? where isASCIILetter(letter):
            index += 1
            guard let tag = readTag() else { return nil }
            if HTMLTokenizer.rawTextElements.contains(tag.name) { rawTextOf = tag.name }
            return .startTag(tag)
        default:
            index += 1
            return .text(input[(index - 1)..<index])
        }
    }

    /// `<!--` ... `-->` (or `--!>`, or `<!-->`, `<!--->`), to the end of input if unclosed.
    private mutating func skipComment() {
        var cursor = index + 4
        if peekAt(cursor) == ">" {
            index = cursor + 1
            return
        }
        if peekAt(cursor) == "-", peekAt(cursor + 1) == ">" {
            index = cursor + 2
            return
        }
        while cursor < input.count {
            if input[cursor] == "-", peekAt(cursor + 1) == "-" {
                if peekAt(cursor + 2) == ">" {
                    index = cursor + 3
                    return
                }
                if peekAt(cursor + 2) == "!", peekAt(cursor + 3) == ">" {
                    index = cursor + 4
                    return
                }
            }
            cursor += 1
        }
        index = input.count
    }

    /// Up to and including the next `>`, or to the end of input.
    private mutating func skipBogusComment(from start: Int) {
        var cursor = start
        while cursor < input.count, input[cursor] != ">" { cursor += 1 }
        index = min(cursor + 1, input.count)
    }

    /// Reads a tag name and its attributes up to `>`, with `index` at the name's first letter.
    /// Returns `nil` (having consumed everything) when the input ends inside the tag.
    private mutating func readTag() -> Tag? {
        var name = UTF8Builder(capacity: 16)
        while index < input.count, !isSpace(input[index]), input[index] != "/", input[index] != ">" {
            name.append(lowered(input[index]))
            index += 1
        }
        var tag = Tag(name: name.string, attributes: [], selfClosing: false)
        var seen: Set<String> = []
        while true {
            while index < input.count, isSpace(input[index]) { index += 1 }
            guard index < input.count else { return nil }
            switch input[index] {
            case ">":
                index += 1
                return tag
            case "/":
                index += 1
                if peekAt(index) == ">" {
                    index += 1
                    tag.selfClosing = true
                    return tag
                }
                continue
            default:
                break
            }
            // Attribute name: its first character may be `=`.
            var attributeName = UTF8Builder(capacity: 16)
            attributeName.append(lowered(input[index]))
            index += 1
            while index < input.count, !isSpace(input[index]), input[index] != "/", input[index] != ">",
                input[index] != "="
            {
                attributeName.append(lowered(input[index]))
                index += 1
            }
            while index < input.count, isSpace(input[index]) { index += 1 }
            var value = ""
            if peekAt(index) == "=" {
                index += 1
                while index < input.count, isSpace(input[index]) { index += 1 }
                guard index < input.count else { return nil }
                let quote = input[index]
                if quote == "\"" || quote == "'" {
                    let start = index + 1
                    var end = start
                    while end < input.count, input[end] != quote { end += 1 }
                    guard end < input.count else {
                        index = input.count
                        return nil
                    }
                    value = HTMLEntities.decode(input[start..<end], inAttribute: true)
                    index = end + 1
                } else if quote != ">" {
                    let start = index
                    while index < input.count, !isSpace(input[index]), input[index] != ">" { index += 1 }
                    guard index < input.count else { return nil }
                    value = HTMLEntities.decode(input[start..<index], inAttribute: true)
                }
            }
            let finalName = attributeName.string
            if seen.insert(finalName).inserted {
                tag.attributes.append((finalName, value))
            }
        }
    }

    /// The index of `</element` followed by whitespace, `/` or `>`, or the end of input.
    private func endOfRawText(_ element: String) -> Int {
        let name = Array(element.unicodeScalars)
        var cursor = index
        while cursor < input.count {
            if input[cursor] == "<", peekAt(cursor + 1) == "/" {
                var matched = true
                for (offset, letter) in name.enumerated() {
                    guard let scalar = peekAt(cursor + 2 + offset), lowered(scalar) == letter else {
                        matched = false
                        break
                    }
                }
                if matched, let after = peekAt(cursor + 2 + name.count), isSpace(after) || after == "/" || after == ">"
                {
                    return cursor
                }
            }
            cursor += 1
        }
        return input.count
    }

    // MARK: - Characters

    private func peek(_ offset: Int) -> Unicode.Scalar? { peekAt(index + offset) }

    private func peekAt(_ position: Int) -> Unicode.Scalar? {
        position < input.count ? input[position] : nil
    }

    private func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    private func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value >= 0x41 && scalar.value <= 0x5A) || (scalar.value >= 0x61 && scalar.value <= 0x7A)
    }

    /// ASCII-only lowercasing, as HTML does it (`K`, the Kelvin sign, stays itself); NUL becomes U+FFFD.
    private func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.value >= 0x41 && scalar.value <= 0x5A { return Unicode.Scalar(scalar.value + 0x20)! }
        if scalar.value == 0 { return "\u{FFFD}" }
        return scalar
    }
}
