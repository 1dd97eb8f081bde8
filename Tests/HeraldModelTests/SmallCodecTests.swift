import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Push text")
struct PushTextTests {
    @Test("PUSH-11 title and body truncated to 150 characters on a character boundary")
    func truncation() {
        let long = String(repeating: "a", count: 200)
        let cut = PushText.truncate(long)
        #expect(cut.count == 150)
        #expect(cut == String(repeating: "a", count: 149) + "…")

        let exact = String(repeating: "b", count: 150)
        #expect(PushText.truncate(exact) == exact)
        #expect(PushText.truncate("short") == "short")

        // Grapheme clusters many scalars long are never split.
        let family = "👨‍👩‍👧‍👦"
        let families = PushText.truncate(String(repeating: family, count: 160))
        #expect(families.count == 150)
        #expect(families.dropLast().allSatisfy { String($0) == family })
        #expect(families.last == "…")

        let flags = PushText.truncate(String(repeating: "🇳🇱", count: 151))
        #expect(flags.count == 150)
        #expect(flags.hasPrefix("🇳🇱🇳🇱"))
        #expect(flags.dropLast().allSatisfy { $0 == "🇳🇱" })

        let accents = PushText.truncate(String(repeating: "e\u{301}", count: 151))
        #expect(accents.count == 150)
        #expect(accents.dropLast().allSatisfy { $0 == "é" })
        // 150 combined characters are 300 scalars and still fit.
        #expect(PushText.truncate(String(repeating: "e\u{301}", count: 150)).count == 150)
    }

    @Test("PUSH-11 a cut never leaves a space before the ellipsis, and the limit is configurable")
    func trailingSpace() {
        let text = String(repeating: "a", count: 148) + " bcdef"
        #expect(PushText.truncate(text) == String(repeating: "a", count: 148) + "…")
        #expect(PushText.truncate("Hello wonderful world", limit: 10) == "Hello won…")
        #expect(PushText.truncate("Hello wonderful world", limit: 7) == "Hello…")
        #expect(PushText.truncate("abc", limit: 1) == "…")
        #expect(PushText.truncate("Hello wonderful world", limit: 10).count <= 10)
    }
}

@Suite("Inbox cursor")
struct InboxCursorTests {
    @Test("round-trips any sequence number and looks opaque")
    func roundTrip() {
        for seq: Int64 in [0, 1, 42, 1_000_000, Int64.max] {
            let cursor = InboxCursor.encode(seq: seq)
            #expect(InboxCursor.decode(cursor) == seq)
            #expect(!cursor.contains("="))
            #expect(!cursor.contains("+"))
            #expect(!cursor.contains("/"))
            #expect(cursor != String(seq))
        }
    }

    @Test("garbage, other versions, and non-canonical spellings are rejected")
    func garbage() {
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let good = InboxCursor.encode(seq: 42)
        for bad in [
            "", "abc", "!!!", "42", good + "=", good + "A", " " + good, String(repeating: "A", count: 200),
            b64("v2:42"), b64("v1:"), b64("v1:-5"), b64("v1:05"), b64("v1:4x"), b64("v1:99999999999999999999"),
            b64("v1:42 "), b64("V1:42"), "djE6NDI=", "djE6NDI\n",
        ] {
            #expect(InboxCursor.decode(bad) == nil, "\(bad)")
        }
    }
}
