import HeraldHTTP
import HeraldModel

/// The inbox list answer, written by ``JSONWriter`` rather than `JSONEncoder`: it is the most
/// frequent call.
enum InboxJSON {
    static func response(_ page: NotificationPage) -> Response {
        Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: .bytes(JSONWriter.page(page)))
    }
}
