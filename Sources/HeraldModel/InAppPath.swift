#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules a link must pass before the app's router opens it (and before the console's
/// preview shows it as allowed).
package enum InAppPath {
    /// Whether `path` is an in-app path the router may open: it starts with a single `/` (so it
    /// has no scheme and is not protocol-relative), has no backslash, space or control character,
    /// and no `..` segment, even percent-encoded.
    package static func isValid(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.hasPrefix("//") && isSafe(path)
    }

    /// Whether `link` has no backslash, space or control character and no `..` segment.
    package static func isSafe(_ link: String) -> Bool {
        guard !link.isEmpty else { return false }
        let clean = link.unicodeScalars.allSatisfy {
            $0 != "\\" && !$0.isWhitespaceOrNewline
                && !$0.isControlOrFormat
        }
        return clean && !climbs(link)
    }

    /// Whether a segment of `link` (decoded) is `..`.
    private static func climbs(_ link: String) -> Bool {
        let decoded = link.percentDecodedLeniently()
        return decoded.split(whereSeparator: { $0 == "/" || $0 == "\\" || $0 == "?" || $0 == "#" })
            .contains("..")
    }
}
