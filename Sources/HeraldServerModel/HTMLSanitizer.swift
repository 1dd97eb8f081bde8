import FoundationEssentials
import HeraldModel

/// Reduces publisher HTML to a safe subset before it is stored and shown on the detail page.
///
/// Kept: `p br b strong i em u ul ol li a img h1 h2 h3 h4 blockquote span div`, with only
/// `a href` (`http`, `https`, `mailto` or relative) and `img src` (`https` only) plus `alt`.
/// Dropped with everything inside: `script`, `style`, `iframe`, `object`, `embed`, `form`,
/// `svg`, `math`, `template` and the other elements that run code, load content or collect
/// input. Other tags are dropped and their text kept. Comments, every other attribute
/// (`on*` handlers, `style`, ...) and links with any other scheme (`javascript:`, `data:`,
/// `vbscript:`, however spelled or encoded) are removed.
///
/// The output is re-serialized from scratch: text and attribute values are decoded and
/// escaped again, every kept element is closed, so what a browser parses is exactly what
/// was checked.
public enum HTMLSanitizer {
    /// Elements that are kept.
    public static let allowedElements: Set<String> = [
        "p", "br", "b", "strong", "i", "em", "u", "ul", "ol", "li", "a", "img",
        "h1", "h2", "h3", "h4", "blockquote", "span", "div",
    ]

    /// Elements removed together with their content.
    public static let droppedWithContent: Set<String> = HTMLTokenizer.rawTextElements.union([
        "object", "embed", "applet", "form", "input", "button", "select", "option", "optgroup", "datalist",
        "frame", "frameset", "svg", "math", "template", "meta", "link", "base", "param", "source",
        "track", "audio", "video", "canvas", "portal", "keygen", "dialog",
    ])

    /// Elements with no content and no end tag.
    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
        "source", "track", "wbr", "frame",
    ]

    /// Foreign elements, where `<x/>` really is empty.
    static let foreignElements: Set<String> = ["svg", "math"]

    static let linkSchemes: Set<String> = ["http", "https", "mailto"]

    /// The safe subset of `html`. Linear in the input: every token is read once, an end tag
    /// finds its element without searching the open ones unless it is open, and the output is
    /// written as bytes.
    public static func sanitize(_ html: String) -> String {
        var tokenizer = HTMLTokenizer(html)
        var output = UTF8Builder(capacity: html.utf8.count)
        var open: [String] = []
        /// How many of each element are in `open`, so a stray end tag costs nothing.
        var openCount: [String: Int] = [:]
        /// The element being dropped with its content, and how deeply it is nested in itself.
        var dropping: (name: String, depth: Int)?

        while let token = tokenizer.next() {
            if let current = dropping {
                switch token {
                case .startTag(let tag) where tag.name == current.name:
                    if !(tag.selfClosing && foreignElements.contains(tag.name)) {
                        dropping = (current.name, current.depth + 1)
                    }
                case .endTag(let name) where name == current.name:
                    dropping = current.depth > 1 ? (current.name, current.depth - 1) : nil
                default:
                    break
                }
                continue
            }
            switch token {
            case .text(let text):
                appendEscapedText(text, to: &output)
            case .rawText:
                break
            case .startTag(let tag):
                if droppedWithContent.contains(tag.name) {
                    let empty =
                        voidElements.contains(tag.name) || (tag.selfClosing && foreignElements.contains(tag.name))
                    if !empty { dropping = (tag.name, 1) }
                } else if allowedElements.contains(tag.name) {
                    if append(tag, to: &output), !voidElements.contains(tag.name) {
                        open.append(tag.name)
                        openCount[tag.name, default: 0] += 1
                    }
                }
            case .endTag(let name):
                if name == "br" {
                    output.append("<br>")
                } else if openCount[name, default: 0] > 0 {
                    // Closes the innermost open `name` and everything opened inside it; each
                    // element is closed once, so this costs what the start tags did.
                    while let last = open.popLast() {
                        openCount[last]! -= 1
                        appendEndTag(last, to: &output)
                        if last == name { break }
                    }
                }
            }
        }
        while let name = open.popLast() { appendEndTag(name, to: &output) }
        return output.string
    }

    private static func appendEndTag(_ name: String, to output: inout UTF8Builder) {
        output.append("</")
        output.append(name)
        output.append(">")
    }

    /// Writes the start tag; `false` (nothing written) when the element must go (an image
    /// without a safe source).
    private static func append(_ tag: HTMLTokenizer.Tag, to output: inout UTF8Builder) -> Bool {
        switch tag.name {
        case "a":
            if let href = tag.attribute("href"), let safe = safeLink(href) {
                output.append("<a href=\"")
                appendEscapedAttribute(safe, to: &output)
                output.append("\">")
            } else {
                output.append("<a>")
            }
        case "img":
            guard let source = tag.attribute("src"), let safe = safeImageSource(source) else { return false }
            output.append("<img src=\"")
            appendEscapedAttribute(safe, to: &output)
            output.append("\"")
            if let alt = tag.attribute("alt") {
                output.append(" alt=\"")
                appendEscapedAttribute(alt, to: &output)
                output.append("\"")
            }
            output.append(">")
        default:
            output.append("<")
            output.append(tag.name)
            output.append(">")
        }
        return true
    }

    // MARK: - URLs

    /// A link target that is `http`, `https`, `mailto` or relative, as the browser would read it.
    static func safeLink(_ value: String) -> String? {
        guard let url = cleanedURL(value) else { return nil }
        if let scheme = scheme(of: url) { return linkSchemes.contains(scheme) ? url : nil }
        return url
    }

    /// An absolute `https` image address.
    static func safeImageSource(_ value: String) -> String? {
        guard let url = cleanedURL(value), scheme(of: url) == "https" else { return nil }
        var rest = url.unicodeScalars.dropFirst("https:".count).makeIterator()
        guard rest.next() == "/", rest.next() == "/", rest.next() != nil else { return nil }
        return url
    }

    /// The URL as a browser resolves it: tabs and newlines removed anywhere, leading and
    /// trailing spaces and control characters trimmed. `nil` when empty or when other
    /// control or invisible formatting characters remain.
    static func cleanedURL(_ value: String) -> String? {
        let scalars: [Unicode.Scalar] = value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
            let last = scalars.lastIndex(where: { $0.value > 0x20 })
        else { return nil }
        let kept = scalars[first...last]
        let hidden = kept.contains { scalar in
            // ASCII first: below DEL only the C0 controls are hidden.
            if scalar.value < 0x7F { return scalar.value < 0x20 }
            return scalar.value <= 0x9F || scalar.properties.generalCategory == .format || scalar == "\u{FFFD}"
        }
        if hidden { return nil }
        var url = UTF8Builder(capacity: kept.count)
        url.append(contentsOf: kept)
        return url.string
    }

    /// The lowercased scheme when a `:` comes before any `/`, `?` or `#`; otherwise the URL is
    /// relative and `nil` is returned. Any such prefix counts as a scheme, so `java script:`
    /// or `jav\u{0}ascript:` are schemes that are not allowed, never relative paths.
    static func scheme(of url: String) -> String? {
        let scalars = url.unicodeScalars
        guard let end = scalars.firstIndex(where: { ":/?#\\".unicodeScalars.contains($0) }), scalars[end] == ":"
        else { return nil }
        var scheme = UTF8Builder(capacity: 8)
        for scalar in scalars[..<end] {
            scheme.append((0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
        }
        return scheme.string
    }

    // MARK: - Escaping

    /// Text with its references decoded and escaped again. An unknown named reference
    /// (`&hearts;` style, letters and digits only) is left for the browser, which is harmless in text.
    private static func appendEscapedText(_ text: ArraySlice<Unicode.Scalar>, to output: inout UTF8Builder) {
        var index = text.startIndex
        while index < text.endIndex {
            let scalar = text[index]
            switch scalar {
            case "&":
                switch HTMLEntities.read(text, at: index, inAttribute: false) {
                case .decoded(let decoded, let length):
                    appendEscaped(decoded, to: &output)
                    index += length
                case .unknownNamed(let length):
                    output.append(contentsOf: text[index..<(index + length)])
                    index += length
                case .none:
                    output.append("&amp;")
                    index += 1
                }
                continue
            case "\u{0}":
                break
            default:
                appendEscaped(scalar, to: &output)
            }
            index += 1
        }
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to output: inout UTF8Builder) {
        switch scalar {
        case "&": output.append("&amp;")
        case "<": output.append("&lt;")
        case ">": output.append("&gt;")
        case "\u{0}": break
        default: output.append(scalar)
        }
    }

    /// A value for a double-quoted attribute.
    private static func appendEscapedAttribute(_ value: String, to output: inout UTF8Builder) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": output.append("&amp;")
            case "\"": output.append("&quot;")
            case "'": output.append("&#39;")
            case "<": output.append("&lt;")
            case ">": output.append("&gt;")
            case "\u{0}": output.append("\u{FFFD}" as Unicode.Scalar)
            default: output.append(scalar)
            }
        }
    }
}
