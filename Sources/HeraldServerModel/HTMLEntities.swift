import FoundationEssentials
import HeraldModel

/// Character references of HTML: numeric ones in full, and the named ones rich text and
/// filter-evasion tricks actually use. An unknown name is left as literal text.
enum HTMLEntities {
    /// Named references, without `&` and `;`.
    static let named: [String: Unicode.Scalar] = [
        "amp": "&", "AMP": "&", "lt": "<", "LT": "<", "gt": ">", "GT": ">", "quot": "\"", "QUOT": "\"",
        "apos": "'", "nbsp": "\u{A0}", "copy": "©", "COPY": "©", "reg": "®", "REG": "®", "trade": "™",
        "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "sbquo": "‚", "ldquo": "“",
        "rdquo": "”", "bdquo": "„", "bull": "•", "middot": "·", "euro": "€", "pound": "£", "yen": "¥",
        "cent": "¢", "sect": "§", "deg": "°", "plusmn": "±", "times": "×", "divide": "÷", "laquo": "«",
        "raquo": "»", "lsaquo": "‹", "rsaquo": "›", "iexcl": "¡", "iquest": "¿", "para": "¶", "frac12": "½",
        "frac14": "¼", "frac34": "¾", "sup1": "¹", "sup2": "²", "sup3": "³", "micro": "µ", "shy": "\u{AD}",
        "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}", "zwnj": "\u{200C}", "zwj": "\u{200D}",
        "lrm": "\u{200E}", "rlm": "\u{200F}", "dagger": "†", "Dagger": "‡", "permil": "‰", "prime": "′",
        "Prime": "″", "larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓", "harr": "↔", "hearts": "♥",
        "check": "✓", "star": "☆", "starf": "★", "ordf": "ª", "ordm": "º", "not": "¬", "macr": "¯", "acute": "´",
        "cedil": "¸", "uml": "¨", "curren": "¤", "brvbar": "¦",
        // Punctuation and whitespace, the ones used to hide `javascript:`.
        "Tab": "\t", "NewLine": "\n", "colon": ":", "semi": ";", "comma": ",", "period": ".", "excl": "!",
        "quest": "?", "num": "#", "dollar": "$", "percnt": "%", "lpar": "(", "rpar": ")", "ast": "*",
        "midast": "*", "plus": "+", "sol": "/", "bsol": "\\", "equals": "=", "lsqb": "[", "rsqb": "]",
        "lbrack": "[", "rbrack": "]", "lcub": "{", "rcub": "}", "lbrace": "{", "rbrace": "}", "verbar": "|",
        "vert": "|", "VerticalLine": "|", "grave": "`", "DiacriticalGrave": "`", "Hat": "^", "lowbar": "_",
        "UnderBar": "_", "commat": "@",
        // Latin letters with marks.
        "aacute": "á", "Aacute": "Á", "eacute": "é", "Eacute": "É", "iacute": "í", "Iacute": "Í",
        "oacute": "ó", "Oacute": "Ó", "uacute": "ú", "Uacute": "Ú", "yacute": "ý", "Yacute": "Ý",
        "agrave": "à", "Agrave": "À", "egrave": "è", "Egrave": "È", "igrave": "ì", "Igrave": "Ì",
        "ograve": "ò", "Ograve": "Ò", "ugrave": "ù", "Ugrave": "Ù", "acirc": "â", "Acirc": "Â",
        "ecirc": "ê", "Ecirc": "Ê", "icirc": "î", "Icirc": "Î", "ocirc": "ô", "Ocirc": "Ô", "ucirc": "û",
        "Ucirc": "Û", "auml": "ä", "Auml": "Ä", "euml": "ë", "Euml": "Ë", "iuml": "ï", "Iuml": "Ï",
        "ouml": "ö", "Ouml": "Ö", "uuml": "ü", "Uuml": "Ü", "yuml": "ÿ", "ccedil": "ç", "Ccedil": "Ç",
        "ntilde": "ñ", "Ntilde": "Ñ", "atilde": "ã", "Atilde": "Ã", "otilde": "õ", "Otilde": "Õ",
        "aring": "å", "Aring": "Å", "aelig": "æ", "AElig": "Æ", "oslash": "ø", "Oslash": "Ø", "szlig": "ß",
        "eth": "ð", "ETH": "Ð", "thorn": "þ", "THORN": "Þ", "oelig": "œ", "OElig": "Œ", "scaron": "š",
        "Scaron": "Š", "zcaron": "ž", "Zcaron": "Ž",
    ]

    /// Names browsers also honour without a closing `;`, longest first.
    static let legacy: [String] = [
        "QUOT", "COPY", "quot", "nbsp", "copy", "AMP", "amp", "REG", "reg", "LT", "lt", "GT", "gt",
    ]

    /// What browsers put in place of numeric references to C1 controls (Windows-1252).
    static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
        0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
        0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
        0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]

    /// The result of reading one reference that starts at an `&`.
    enum Reference {
        /// Decoded to `scalar`; `length` input scalars (from the `&`) were used.
        case decoded(Unicode.Scalar, length: Int)
        /// `&name;` with a name this table does not know; `length` covers it.
        case unknownNamed(length: Int)
        /// Not a reference: the `&` is literal.
        case none
    }

    /// The longest name in ``named``: a longer run of letters and digits is no known name.
    static let longestName = named.keys.map(\.unicodeScalars.count).max() ?? 0

    /// Reads the reference at `input[start]` (an `&`), looking no further than `input` ends.
    /// In attribute values a legacy name followed by a letter, digit or `=` is not a
    /// reference, as in browsers. Costs the length of the reference's run of letters and digits.
    static func read(_ input: ArraySlice<Unicode.Scalar>, at start: Int, inAttribute: Bool) -> Reference {
        let endIndex = input.endIndex
        var index = start + 1
        guard index < endIndex else { return .none }
        if input[index] == "#" {
            index += 1
            var hex = false
            if index < endIndex, input[index] == "x" || input[index] == "X" {
                hex = true
                index += 1
            }
            var value: UInt32 = 0
            var digits = 0
            var overflow = false
            while index < endIndex, let digit = digitValue(input[index], hex: hex) {
                if !overflow {
                    value = value * (hex ? 16 : 10) + digit
                    if value > 0x10FFFF { overflow = true }
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return .none }
            if index < endIndex, input[index] == ";" { index += 1 }
            return .decoded(numericScalar(overflow ? 0x110000 : value), length: index - start)
        }
        var end = index
        while end < endIndex, isASCIIAlnum(input[end]) { end += 1 }
        guard end > index else { return .none }
        // Only a run no longer than the longest name can be one; a longer run is still
        // checked for a legacy name at its start, which its first letters decide.
        var name = UTF8Builder(capacity: longestName + 1)
        name.append(contentsOf: input[index..<min(end, index + longestName + 1)])
        let prefix = name.string
        if end < endIndex, input[end] == ";" {
            if let scalar = named[prefix] { return .decoded(scalar, length: end + 1 - start) }
            if let legacyMatch = legacyPrefix(of: prefix), !inAttribute {
                return .decoded(named[legacyMatch]!, length: 1 + legacyMatch.unicodeScalars.count)
            }
            return .unknownNamed(length: end + 1 - start)
        }
        guard let legacyMatch = legacyPrefix(of: prefix) else { return .none }
        let after = index + legacyMatch.unicodeScalars.count
        if inAttribute, after < endIndex, isASCIIAlnum(input[after]) || input[after] == "=" { return .none }
        return .decoded(named[legacyMatch]!, length: after - start)
    }

    /// Decodes every reference in `input` (attribute values); NUL becomes U+FFFD.
    static func decode(_ input: ArraySlice<Unicode.Scalar>, inAttribute: Bool) -> String {
        var out = UTF8Builder(capacity: input.count)
        var index = input.startIndex
        while index < input.endIndex {
            let scalar = input[index]
            if scalar == "&",
                case .decoded(let decoded, let length) = read(input, at: index, inAttribute: inAttribute)
            {
                out.append(decoded)
                index += length
            } else {
                out.append(scalar == "\u{0}" ? "\u{FFFD}" : scalar)
                index += 1
            }
        }
        return out.string
    }

    private static func legacyPrefix(of name: String) -> String? {
        legacy.first { name.hasPrefix($0) }
    }

    private static func numericScalar(_ value: UInt32) -> Unicode.Scalar {
        if let mapped = windows1252[value] { return Unicode.Scalar(mapped)! }
        if value == 0 || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { return "\u{FFFD}" }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    private static func digitValue(_ scalar: Unicode.Scalar, hex: Bool) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x61...0x66 where hex: return scalar.value - 0x61 + 10
        case 0x41...0x46 where hex: return scalar.value - 0x41 + 10
        default: return nil
        }
    }

    static func isASCIIAlnum(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }
}
