import Foundation

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

    public static func sanitize(_ html: String) -> String {
        var tokenizer = HTMLTokenizer(html)
        var output = ""
        output.reserveCapacity(html.utf8.count)
        var open: [String] = []
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
                    if let serialized = serialize(tag) {
                        output += serialized
                        if !voidElements.contains(tag.name) { open.append(tag.name) }
                    }
                }
            case .endTag(let name):
                if name == "br" {
                    output += "<br>"
                } else if let position = open.lastIndex(of: name) {
                    while open.count > position {
                        output += "</\(open.removeLast())>"
                    }
                }
            }
        }
        while let name = open.popLast() { output += "</\(name)>" }
        return output
    }

    /// The start tag as emitted, or `nil` when the element must go (an image without a safe source).
    private static func serialize(_ tag: HTMLTokenizer.Tag) -> String? {
        switch tag.name {
        case "a":
            if let href = tag.attribute("href"), let safe = safeLink(href) {
                return "<a href=\"\(escapeAttribute(safe))\">"
            }
            return "<a>"
        case "img":
            guard let source = tag.attribute("src"), let safe = safeImageSource(source) else { return nil }
            var text = "<img src=\"\(escapeAttribute(safe))\""
            if let alt = tag.attribute("alt") { text += " alt=\"\(escapeAttribute(alt))\"" }
            return text + ">"
        default:
            return "<\(tag.name)>"
        }
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
        let rest = url.unicodeScalars.dropFirst("https:".count)
        guard rest.starts(with: "//".unicodeScalars), rest.count > 2 else { return nil }
        return url
    }

    /// The URL as a browser resolves it: tabs and newlines removed anywhere, leading and
    /// trailing spaces and control characters trimmed. `nil` when empty or when other
    /// control or invisible formatting characters remain.
    static func cleanedURL(_ value: String) -> String? {
        var scalars = Array(value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        guard !scalars.isEmpty else { return nil }
        let hidden = scalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
                || scalar == "\u{FFFD}"
        }
        if hidden { return nil }
        return String(String.UnicodeScalarView(scalars))
    }

    /// The lowercased scheme when a `:` comes before any `/`, `?` or `#`; otherwise the URL is
    /// relative and `nil` is returned. Any such prefix counts as a scheme, so `java script:`
    /// or `jav\u{0}ascript:` are schemes that are not allowed, never relative paths.
    static func scheme(of url: String) -> String? {
        var scheme = String.UnicodeScalarView()
        for scalar in url.unicodeScalars {
            switch scalar {
            case ":":
                return String(scheme)
            case "/", "?", "#", "\\":
                return nil
            default:
                let lowered = (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
                scheme.append(lowered)
            }
        }
        return nil
    }

    // MARK: - Escaping

    /// Text with its references decoded and escaped again. An unknown named reference
    /// (`&hearts;` style, letters and digits only) is left for the browser, which is harmless in text.
    private static func appendEscapedText(_ text: ArraySlice<Unicode.Scalar>, to output: inout String) {
        let scalars = Array(text)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "&":
                switch HTMLEntities.read(scalars, at: index, inAttribute: false) {
                case .decoded(let decoded, let length):
                    appendEscaped(decoded, to: &out)
                    index += length
                case .unknownNamed(let length):
                    out.append(contentsOf: scalars[index..<(index + length)])
                    index += length
                case .none:
                    out.append(contentsOf: "&amp;".unicodeScalars)
                    index += 1
                }
                continue
            case "\u{0}":
                break
            default:
                appendEscaped(scalar, to: &out)
            }
            index += 1
        }
        output.unicodeScalars.append(contentsOf: out)
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        switch scalar {
        case "&": out.append(contentsOf: "&amp;".unicodeScalars)
        case "<": out.append(contentsOf: "&lt;".unicodeScalars)
        case ">": out.append(contentsOf: "&gt;".unicodeScalars)
        case "\u{0}": break
        default: out.append(scalar)
        }
    }

    /// A value for a double-quoted attribute.
    static func escapeAttribute(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\u{0}": out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
