import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// The publish fast path writes JSON by hand; these pin it to what JSONEncoder writes.
@Suite("Publish fast-path JSON")
struct StoreJSONTests {
    let encoder: JSONEncoder = StoreJSON.makeEncoder()
    let decoder: JSONDecoder = StoreJSON.makeDecoder()

    let awkward = [
        "", "plain", "quote \" and backslash \\", "slash /orders/1", "tab\tnew\nline\r", "\u{0}\u{1}\u{1F}\u{7F}",
        "Zoë 🚚 ✓ 東京", "\u{8}\u{C}", "emoji 👩‍👩‍👧",
    ]

    func keys(_ json: String) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return Set(object.keys)
    }

    @Test("data: byte-identical to JSONEncoder for ordinary values, and every string round-trips")
    func data() throws {
        let ordinary = ["orderId": "o-1", "productId": "p-9", "campaign": "spring"]
        #expect(StoreJSON.encodeData(ordinary) == String(decoding: try encoder.encode(ordinary), as: UTF8.self))
        #expect(StoreJSON.encodeData([:]) == "{}")
        var tricky: [String: String] = [:]
        for (index, value) in awkward.enumerated() { tricky["k\(index)\(value)"] = value }
        let written = StoreJSON.encodeData(tricky)
        #expect(try decoder.decode([String: String].self, from: Data(written.utf8)) == tricky)
    }

    @Test("push options: byte-identical to JSONEncoder with every field, and nil fields are left out")
    func push() throws {
        let full = PushOptions(send: true, priority: .high, ttlSeconds: 3_600, collapseId: "c-\"1\"", sound: "ping.caf")
        #expect(try StoreJSON.encodePush(full) == String(decoding: try encoder.encode(full), as: UTF8.self))
        for options in [
            PushOptions(send: false), PushOptions(send: true, ttlSeconds: 0), PushOptions(send: true, sound: ""),
        ] {
            #expect(!options.usesRichOptions)
            let written = try StoreJSON.encodePush(options)
            #expect(written == String(decoding: try encoder.encode(options), as: UTF8.self))
            #expect(try decoder.decode(PushOptions.self, from: Data(written.utf8)) == options)
        }
    }

    @Test("rich push options go through JSONEncoder and every one of them round-trips")
    func richPush() throws {
        let rich = PushOptions(
            send: true, priority: .normal, ttlSeconds: 60, collapseId: "c",
            sound: PushSound(name: "alarm.caf", critical: true, volume: 0.8),
            interruptionLevel: .timeSensitive, relevanceScore: 0.25, threadId: "t", category: "ORDER",
            imageURL: "https://cdn.example.com/i.png",
            subtitle: "Sub", channelId: "orders", analyticsLabel: "spring_2026")
        #expect(rich.usesRichOptions)
        let written = try StoreJSON.encodePush(rich)
        #expect(written == String(decoding: try encoder.encode(rich), as: UTF8.self))
        #expect(try decoder.decode(PushOptions.self, from: Data(written.utf8)) == rich)
        let background = PushOptions(send: true, contentAvailable: true)
        #expect(
            try decoder.decode(PushOptions.self, from: Data(try StoreJSON.encodePush(background).utf8)) == background)
    }

    @Test("created payload: the same document as the model's own encoding (explicit nulls), same keys")
    func createdPayload() throws {
        let full = InboxNotification(
            id: "n1", type: "order.shipped", category: "orders", title: "Shipped", body: "On its way",
            data: ["orderId": "o-1"], deepLink: "/orders/o-1", hasDetail: true, createdAt: t0,
            readAt: at(10), seenAt: at(5))
        let written = JSONWriter.text { $0.notification(full) }
        let reference = String(decoding: try encoder.encode(full), as: UTF8.self)
        #expect(try object(written) == object(reference))
        // A field added to InboxNotification (other than the detail-only `detail`) must be added here too.
        var withDetail = full
        withDetail.detail = NotificationDetail(html: "<p>x</p>")
        let modelKeys = try keys(String(decoding: try encoder.encode(withDetail), as: UTF8.self))
        #expect(try keys(written) == modelKeys.subtracting(["detail"]))

        let sparse = InboxNotification(id: "n2", type: "general", category: nil, title: "", body: "", createdAt: t0)
        let sparseWritten = JSONWriter.text { $0.notification(sparse) }
        #expect(try object(sparseWritten) == object(String(decoding: try encoder.encode(sparse), as: UTF8.self)))

        for value in awkward {
            let item = InboxNotification(
                id: value, type: value, category: value, title: value, body: value, data: [value: value],
                deepLink: value, createdAt: t0)
            let text = JSONWriter.text { $0.notification(item) }
            #expect(try decoder.decode(InboxNotification.self, from: Data(text.utf8)) == item)
        }
    }

    @Test("dates: the same ISO 8601 text as JSONEncoder, before and after 1970 and across leap days")
    func dates() throws {
        let instants: [TimeInterval] = [
            // 951_782_400 is 2000-02-29, -2_208_988_800 is 1900-01-01, 253_402_300_799 is 9999-12-31T23:59:59.
            0, 1, 59, 86_399, 86_400, 951_782_400, 1_700_000_000, 1_700_000_000.999, 4_102_444_799,
            -1, -86_400, -86_401, -2_208_988_800, 253_402_300_799,
        ]
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            let written = JSONWriter.text { $0.date(date) }
            let reference = String(decoding: try encoder.encode([date]), as: UTF8.self).dropFirst().dropLast()
            #expect(written == String(reference), "\(instant)")
        }
    }

    private func object(_ text: String) throws -> NSDictionary? {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
    }
}
