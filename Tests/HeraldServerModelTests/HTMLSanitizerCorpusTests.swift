import Foundation
import HeraldModel
import HeraldServerModel
import Testing

/// The outside XSS corpora (`../shared/corpora/xss/*.json` next to the package, each a JSON
/// array of payloads) through the sanitizer, checked as `SOURCES.md` there asks.
@Suite("HTML sanitizer against the outside XSS corpora")
struct HTMLSanitizerCorpusTests {
    /// `<package root>/../shared/corpora/xss`, found from this file's path.
    static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // HeraldModelTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpora/xss", isDirectory: true)

    /// Every payload of every corpus file, with the file it came from. Throws when the
    /// directory or a file is missing or unreadable, so the test fails instead of passing empty.
    static func payloads() throws -> [(file: String, payload: String)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        try #require(!files.isEmpty, "no corpus files in \(corpusDirectory.path)")
        return try files.flatMap { file in
            let data = try Data(contentsOf: corpusDirectory.appendingPathComponent(file))
            return try JSONDecoder().decode([String].self, from: data).map { (file, $0) }
        }
    }

    @Test("no payload of the corpora survives: no dangerous element, handler or URL, and a second pass changes nothing")
    func corpora() throws {
        let payloads = try Self.payloads()
        try #require(payloads.count > 2_000, "only \(payloads.count) payloads in \(Self.corpusDirectory.path)")
        var survivors: [String] = []
        for (file, payload) in payloads {
            let output = HTMLSanitizer.sanitize(payload)
            var problems = OutputCheck.problems(in: output)
            if HTMLSanitizer.sanitize(output) != output { problems.append("not idempotent") }
            if !problems.isEmpty {
                survivors.append("\(file): \(payload.prefix(120)) -> \(output.prefix(120)): \(problems)")
            }
        }
        #expect(
            survivors.isEmpty,
            "\(survivors.count) of \(payloads.count) payloads survived:\n\(survivors.prefix(20).joined(separator: "\n"))"
        )
    }

    @Test("the output check finds what it looks for")
    func checkerFindsProblems() {
        #expect(OutputCheck.problems(in: "<p>fine <a href=\"https://x.example\">x</a></p>").isEmpty)
        #expect(OutputCheck.problems(in: "<b title=\"<script>\">x</b>").isEmpty)
        #expect(!OutputCheck.problems(in: "<p>x<SCRIPT>alert(1)</SCRIPT>").isEmpty)
        #expect(!OutputCheck.problems(in: "<svg/onload=alert(1)>").isEmpty)
        #expect(!OutputCheck.problems(in: "<img src=x oNeRrOr=alert(1)>").isEmpty)
        #expect(!OutputCheck.problems(in: "<a href=\" J&#x61;va&Tab;script&colon;alert(1)\">x</a>").isEmpty)
        #expect(!OutputCheck.problems(in: "<a href='\u{1}vbscript:x'>x</a>").isEmpty)
        #expect(!OutputCheck.problems(in: "<img src=DATA:text/html,x>").isEmpty)
        #expect(!OutputCheck.problems(in: "<math><mi>x").isEmpty)
        #expect(!OutputCheck.problems(in: "<p><iframe src=\"https://x.example\"").isEmpty)
    }
}

/// Checks sanitized HTML with its own tolerant tag scanner (not the sanitizer's tokenizer, so
/// the check does not share its bugs): any `<` followed by a letter opens a tag, whatever
/// surrounds it, and a tag cut off by the end of input still counts.
enum OutputCheck {
    static let forbiddenElements: Set<String> = ["script", "style", "iframe", "object", "embed", "svg", "math"]

    /// Attributes a browser reads as a URL.
    static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "background", "poster", "data", "codebase", "cite", "longdesc",
        "lowsrc", "dynsrc", "srcset", "xlink:href", "ping", "manifest", "icon", "profile", "usemap", "classid",
        "archive", "srcdoc",
    ]

    static let forbiddenSchemes = ["javascript:", "vbscript:", "data:"]

    struct Tag {
        var name: String
        var isEnd: Bool
        var attributes: [(name: String, value: String)]
    }

    /// What is wrong with `html`; empty when nothing is.
    static func problems(in html: String) -> [String] {
        var problems: [String] = []
        for tag in tags(in: html) where !tag.isEnd {
            if forbiddenElements.contains(tag.name) { problems.append("<\(tag.name)> element") }
            for (name, value) in tag.attributes {
                if name.hasPrefix("on") { problems.append("\(name) attribute on <\(tag.name)>") }
                if urlAttributes.contains(name) {
                    let folded = squeezed(decodeReferences(value))
                    if let scheme = forbiddenSchemes.first(where: { folded.hasPrefix($0) }) {
                        problems.append("\(name) with \(scheme) on <\(tag.name)>")
                    }
                }
            }
        }
        return problems
    }

    /// Every tag, names and attribute names lowercased, values as written (quotes removed).
    static func tags(in html: String) -> [Tag] {
        let input = Array(html.unicodeScalars)
        var tags: [Tag] = []
        var index = 0
        func at(_ position: Int) -> Unicode.Scalar? { position < input.count ? input[position] : nil }
        func isLetter(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar else { return false }
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        func isSpace(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar else { return false }
            return scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
        func read(while condition: (Unicode.Scalar) -> Bool) -> String {
            var text = String.UnicodeScalarView()
            while let scalar = at(index), condition(scalar) {
                text.append(scalar)
                index += 1
            }
            return String(text)
        }
        while index < input.count {
            guard input[index] == "<" else {
                index += 1
                continue
            }
            let isEnd = at(index + 1) == "/"
            let nameStart = index + (isEnd ? 2 : 1)
            guard isLetter(at(nameStart)) else {
                index += 1
                continue
            }
            index = nameStart
            let name = read { !isSpace($0) && $0 != "/" && $0 != ">" }.lowercased()
            var attributes: [(name: String, value: String)] = []
            while let scalar = at(index), scalar != ">" {
                if isSpace(scalar) || scalar == "/" {
                    index += 1
                    continue
                }
                var attributeName = String(scalar)
                index += 1
                attributeName += read { !isSpace($0) && $0 != "/" && $0 != ">" && $0 != "=" }
                while isSpace(at(index)) { index += 1 }
                var value = ""
                if at(index) == "=" {
                    index += 1
                    while isSpace(at(index)) { index += 1 }
                    if let quote = at(index), quote == "\"" || quote == "'" {
                        index += 1
                        value = read { $0 != quote }
                        index += 1
                    } else {
                        value = read { !isSpace($0) && $0 != ">" }
                    }
                }
                attributes.append((attributeName.lowercased(), value))
            }
            index += 1
            tags.append(Tag(name: name, isEnd: isEnd, attributes: attributes))
        }
        return tags
    }

    /// Numeric references, and the named ones that spell URLs, with or without `;`.
    static func decodeReferences(_ value: String) -> String {
        let named: [String: String] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "colon": ":", "tab": "\t",
            "newline": "\n", "nbsp": "\u{A0}", "lpar": "(", "rpar": ")", "sol": "/", "semi": ";", "comma": ",",
            "period": ".", "excl": "!", "num": "#", "bsol": "\\",
        ]
        let input = Array(value.unicodeScalars)
        var out = ""
        var index = 0
        while index < input.count {
            guard input[index] == "&" else {
                out.unicodeScalars.append(input[index])
                index += 1
                continue
            }
            var end = index + 1
            if end < input.count, input[end] == "#" {
                end += 1
                let hex = end < input.count && (input[end] == "x" || input[end] == "X")
                if hex { end += 1 }
                var digits = String.UnicodeScalarView()
                while end < input.count, input[end].properties.isASCIIHexDigit,
                    hex || ("0"..."9").contains(input[end])
                {
                    digits.append(input[end])
                    end += 1
                }
                if let number = UInt32(String(digits), radix: hex ? 16 : 10) {
                    out.unicodeScalars.append(Unicode.Scalar(number) ?? "\u{FFFD}")
                    index = end < input.count && input[end] == ";" ? end + 1 : end
                    continue
                }
            } else {
                while end < input.count, input[end].properties.isAlphabetic { end += 1 }
                let name = String(String.UnicodeScalarView(input[(index + 1)..<end])).lowercased()
                if let replacement = named[name] {
                    out += replacement
                    index = end < input.count && input[end] == ";" ? end + 1 : end
                    continue
                }
            }
            out += "&"
            index += 1
        }
        return out
    }

    /// Without whitespace or control characters, case folded.
    static func squeezed(_ value: String) -> String {
        let kept = value.unicodeScalars.filter { scalar in
            !(scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format || scalar.value <= 0x20)
        }
        return String(String.UnicodeScalarView(kept)).lowercased()
    }
}
