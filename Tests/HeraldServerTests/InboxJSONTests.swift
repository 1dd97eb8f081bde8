import Foundation
import HeraldModel
import Testing

@testable import HeraldServer

@Suite("Inbox JSON writer")
struct InboxJSONTests {
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
                    createdAt: Date(timeIntervalSince1970: 951_782_400), readAt: nil, seenAt: Date(timeIntervalSince1970: 4_107_542_399)),
            ],
            nextCursor: nil, unreadCount: 7, unseenCount: 3)
    }

    @Test("writes the same document as JSONEncoder with .iso8601 dates")
    func sameAsJSONEncoder() throws {
        let page = Self.page()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let expected = try JSONSerialization.jsonObject(with: encoder.encode(page)) as? NSDictionary
        let written = try JSONSerialization.jsonObject(with: Data(InboxJSON.page(page))) as? NSDictionary
        #expect(written == expected)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var truncated = page
        for index in truncated.items.indices {
            truncated.items[index].createdAt = Date(timeIntervalSince1970: truncated.items[index].createdAt.timeIntervalSince1970.rounded(.down))
        }
        #expect(try decoder.decode(NotificationPage.self, from: Data(InboxJSON.page(page))) == truncated)
    }

    @Test("civil dates are right across leap years and centuries")
    func civilDates() {
        #expect(InboxJSON.civil(fromDays: 0) == (1970, 1, 1))
        #expect(InboxJSON.civil(fromDays: 11_016) == (2000, 2, 29))
        #expect(InboxJSON.civil(fromDays: -1) == (1969, 12, 31))
        #expect(InboxJSON.civil(fromDays: 47_540) == (2100, 2, 28))
        #expect(InboxJSON.civil(fromDays: 47_541) == (2100, 3, 1))
    }
}
