import FoundationEssentials
import HeraldModel

/// Push title and body as they go to the providers (PUSH-11).
public enum PushText {
    /// The ellipsis that marks cut text.
    public static let ellipsis: Character = "…"

    /// `text` cut to at most `limit` characters on a character (grapheme cluster) boundary,
    /// so emoji, flags and accented letters are never split. When cut, trailing whitespace
    /// is dropped and an ellipsis, which counts toward the limit, is added.
    public static func truncate(_ text: String, limit: Int = Limits.pushTextMaxLength) -> String {
        precondition(limit > 0, "limit must be positive")
        if text.utf8.count <= limit || text.count <= limit { return text }
        var kept = text.prefix(limit - 1)
        while let last = kept.last, last.isWhitespace { kept = kept.dropLast() }
        return String(kept) + String(ellipsis)
    }
}
