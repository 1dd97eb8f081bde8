import Foundation
import Testing

@testable import HeraldModel

@Suite("JSON writer")
struct JSONWriterTests {
    static func page() -> NotificationPage {
        let awkward = "quote \" backslash \\ newline \n tab \t bell \u{07} emoji 👩‍👩‍👧 slash / é"
        return NotificationPage(
            items: [
                InboxNotification(
                    id: "a", type: "order.shipped", category: "orders", title: awkward, body: "b",
                    data: ["orderId": "42", "z": awkward, "a": ""], deepLink: "myapp://orders/42", hasDetail: true,
                    createdAt: Date(timeIntervalSince1970: 1_764_441_000.75), readAt: Date(timeIntervalSince1970: 0),
                    seenAt: nil),
                InboxNotification(
                    id: "b", type: "system.news", category: nil, title: "", body: "", data: [:],
                    createdAt: Date(timeIntervalSince1970: 951_782_400), readAt: nil,
                    seenAt: Date(timeIntervalSince1970: 4_107_542_399)),
            ],
            nextCursor: nil, unreadCount: 7, unseenCount: 3)
    }

    @Test("writes the same document as JSONEncoder with .iso8601 dates")
    func sameAsJSONEncoder() throws {
        let page = Self.page()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let expected = try JSONSerialization.jsonObject(with: encoder.encode(page)) as? NSDictionary
        let written = try JSONSerialization.jsonObject(with: Data(JSONWriter.page(page))) as? NSDictionary
        #expect(written == expected)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var truncated = page
        for index in truncated.items.indices {
            truncated.items[index].createdAt = Date(
                timeIntervalSince1970: truncated.items[index].createdAt.timeIntervalSince1970.rounded(.down))
        }
        #expect(try decoder.decode(NotificationPage.self, from: Data(JSONWriter.page(page))) == truncated)
    }

    @Test("strings escape exactly what RFC 8259 requires, like JSONEncoder")
    func strings() throws {
        let samples = ["", "plain", "quote \" and \\", "\u{0}\u{08}\u{0C}\u{1F}\n\r\t", "é 中 👩‍👩‍👧 / <>"]
        for sample in samples {
            let written = JSONWriter.text { $0.string(sample) }
            #expect(try JSONDecoder().decode(String.self, from: Data(written.utf8)) == sample)
            #expect(!written.contains("\\/"), "slashes are not escaped")
        }
        let map = ["b": "2", "a": "1", "é": "x"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(JSONWriter.text { $0.stringMap(map) } == String(decoding: try encoder.encode(map), as: UTF8.self))
    }

    @Test("civil dates are right across leap years and centuries")
    func civilDates() {
        #expect(JSONWriter.civil(fromDays: 0) == (1970, 1, 1))
        #expect(JSONWriter.civil(fromDays: 11_016) == (2000, 2, 29))
        #expect(JSONWriter.civil(fromDays: -1) == (1969, 12, 31))
        #expect(JSONWriter.civil(fromDays: 47_540) == (2100, 2, 28))
        #expect(JSONWriter.civil(fromDays: 47_541) == (2100, 3, 1))
    }
}
