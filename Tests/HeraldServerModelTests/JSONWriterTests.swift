import Foundation
import HeraldModel
import Testing

@testable import HeraldServerModel

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

    @Test("an item, written whole or as stored fields plus its read and seen times, is JSONEncoder's document")
    func sameAsJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for item in Self.page().items {
            let expected = try JSONSerialization.jsonObject(with: encoder.encode(item)) as? NSDictionary
            let whole = JSONWriter.text { $0.notification(item) }
            let fields = JSONWriter.text { $0.notificationFields(item) }
            let joined = fields + JSONWriter.text { $0.notificationClose(readAt: item.readAt, seenAt: item.seenAt) }
            #expect(whole == joined)
            #expect(try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? NSDictionary == expected)
            var truncated = item
            truncated.createdAt = Date(timeIntervalSince1970: item.createdAt.timeIntervalSince1970.rounded(.down))
            #expect(try decoder.decode(InboxNotification.self, from: Data(whole.utf8)) == truncated)
        }
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
