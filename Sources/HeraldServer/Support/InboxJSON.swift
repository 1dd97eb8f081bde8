import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

/// The inbox list answer, written from the rows' stored list JSON (no row is decoded) by
/// ``JSONWriter``: the list is the most frequent call.
enum InboxJSON {
    static func response(_ page: RenderedInboxPage, nextCursor: String?) -> Response {
        var writer = JSONWriter(capacity: 256 + page.items.reduce(0) { $0 + $1.json.utf8.count + 80 })
        writer.raw(#"{"items":["#)
        for (index, item) in page.items.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw(item.json)
            writer.notificationClose(readAt: item.readAt, seenAt: item.seenAt)
        }
        writer.raw(#"],"nextCursor":"#)
        writer.optionalString(nextCursor)
        writer.raw(#","unreadCount":"#)
        writer.int(page.counts.unread)
        writer.raw(#","unseenCount":"#)
        writer.int(page.counts.unseen)
        writer.raw("}")
        return Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: .bytes(writer.bytes))
    }
}
