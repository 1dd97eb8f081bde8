import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Publish request validation")
struct PublishingValidationTests {
    let valid = PublishRequest(
        recipients: ["user-1", "user:2@example.com"], type: "order.shipped", title: "Your order shipped",
        body: "It arrives Friday.", data: ["orderId": "123", "eventKind": "order.shipped"], deepLink: "/orders/123",
        detail: NotificationDetail(
            heroImageURL: "https://cdn.example.com/hero.png", html: "<p>Hi</p>", actionLabel: "Track",
            actionPath: "/orders/123"),
        push: PushOptions(send: true, priority: .high, ttlSeconds: 3_600, collapseId: "order-123", sound: "default")
    )

    func with(_ change: (inout PublishRequest) -> Void) -> PublishRequest {
        var copy = valid
        change(&copy)
        return copy
    }

    @Test("a complete, correct request passes")
    func validPasses() throws {
        try valid.validate()
        try PublishRequest(recipients: ["u"], type: "general", title: "T", body: "").validate()
    }

    @Test("title: required, at most 200 characters counted as characters")
    func title() throws {
        expectInvalid("required", field: "title") { try with { $0.title = "  " }.validate() }
        expectInvalid("too_long", field: "title") {
            try with { $0.title = String(repeating: "a", count: 201) }.validate()
        }
        try with { $0.title = String(repeating: "a", count: 200) }.validate()
        // 200 emoji are 200 characters even though they are 800 bytes.
        try with { $0.title = String(repeating: "👍", count: 200) }.validate()
        let error = validationError { try with { $0.title = String(repeating: "a", count: 201) }.validate() }
        #expect(error?.message.contains("200") == true)
    }

    @Test("body: at most 2,000 characters")
    func body() throws {
        expectInvalid("too_long", field: "body") {
            try with { $0.body = String(repeating: "b", count: 2_001) }.validate()
        }
        try with { $0.body = String(repeating: "b", count: 2_000) }.validate()
    }

    @Test("type: dotted lowercase pattern, at most 100")
    func type() throws {
        for good in ["order", "order.shipped", "order.ship-ped", "a_b.c_d.e-f", "x1.2"] {
            try with { $0.type = good }.validate()
        }
        for bad in ["Order.shipped", "order..x", ".order", "order.", "or-der.x", "order shipped", "order/x", "ördér"] {
            expectInvalid("invalid", field: "type") { try with { $0.type = bad }.validate() }
        }
        expectInvalid("required", field: "type") { try with { $0.type = "" }.validate() }
        expectInvalid("too_long", field: "type") {
            try with { $0.type = String(repeating: "a", count: 101) }.validate()
        }
    }

    @Test("recipients: 1 to 1,000 valid user ids without duplicates")
    func recipients() throws {
        expectInvalid("required", field: "recipients") { try with { $0.recipients = [] }.validate() }
        expectInvalid("too_many", field: "recipients") {
            try with { $0.recipients = (0...1_000).map { "u\($0)" } }.validate()
        }
        try with { $0.recipients = (0..<1_000).map { "u\($0)" } }.validate()
        expectInvalid("duplicate", field: "recipients[2]") { try with { $0.recipients = ["a", "b", "a"] }.validate() }
        expectInvalid("invalid", field: "recipients[1]") { try with { $0.recipients = ["a", "b c"] }.validate() }
        expectInvalid("invalid", field: "recipients[0]") { try with { $0.recipients = ["ü"] }.validate() }
        expectInvalid("required", field: "recipients[0]") { try with { $0.recipients = [""] }.validate() }
        expectInvalid("too_long", field: "recipients[0]") {
            try with { $0.recipients = [String(repeating: "u", count: 129)] }.validate()
        }
        try with { $0.recipients = [String(repeating: "u", count: 128)] }.validate()
    }

    @Test("data: at most 50 keys, keys up to 64, values up to 1,024, routing keys reserved")
    func data() throws {
        expectInvalid("too_many", field: "data") {
            try with { $0.data = Dictionary(uniqueKeysWithValues: (0...50).map { ("k\($0)", "v") }) }.validate()
        }
        try with { $0.data = Dictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", "v") }) }.validate()
        let longKey = String(repeating: "k", count: 65)
        let error = validationError { try with { $0.data = [longKey: "v"] }.validate() }
        #expect(error?.code == "too_long")
        expectInvalid("too_long", field: "data.k") {
            try with { $0.data = ["k": String(repeating: "v", count: 1_025)] }.validate()
        }
        try with { $0.data = ["k": String(repeating: "v", count: 1_024)] }.validate()
        expectInvalid("reserved", field: "data.notificationId") {
            try with { $0.data = ["notificationId": "x"] }.validate()
        }
        expectInvalid("reserved", field: "data.type") { try with { $0.data = ["type": "x"] }.validate() }
    }

    @Test("deepLink: a URL with a scheme or an absolute path, never script")
    func deepLink() throws {
        for good in ["/orders/1", "myapp://orders/1", "https://example.com/x", "/"] {
            try with { $0.deepLink = good }.validate()
        }
        for bad in [
            "orders/1", "//evil.example", "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x",
            "/orders/ 1", "myapp:", "1abc://x", "",
        ] {
            let error = validationError { try with { $0.deepLink = bad }.validate() }
            #expect(error?.field == "deepLink", "\(bad)")
        }
        expectInvalid("too_long", field: "deepLink") {
            try with { $0.deepLink = "/" + String(repeating: "a", count: 2_048) }.validate()
        }
    }

    @Test("detail: html size, label length, https images and actions, in-app action path")
    func detail() throws {
        expectInvalid("too_long", field: "detail.html") {
            try with { $0.detail?.html = String(repeating: "x", count: 100_001) }.validate()
        }
        try with { $0.detail?.html = String(repeating: "x", count: 100_000) }.validate()
        expectInvalid("too_long", field: "detail.actionLabel") {
            try with { $0.detail?.actionLabel = String(repeating: "x", count: 61) }.validate()
        }
        expectInvalid("invalid", field: "detail.heroImageURL") {
            try with { $0.detail?.heroImageURL = "http://x.com/a.png" }.validate()
        }
        expectInvalid("invalid", field: "detail.heroImageURL") {
            try with { $0.detail?.heroImageURL = "https://" }.validate()
        }
        expectInvalid("invalid", field: "detail.heroImageURL") {
            try with { $0.detail?.heroImageURL = "javascript:x" }.validate()
        }
        expectInvalid("too_long", field: "detail.heroImageURL") {
            try with { $0.detail?.heroImageURL = "https://x.com/" + String(repeating: "a", count: 2_048) }.validate()
        }
        expectInvalid("invalid", field: "detail.actionPath") {
            try with { $0.detail?.actionPath = "orders/1" }.validate()
        }
        expectInvalid("invalid", field: "detail.actionURL") {
            try with {
                $0.detail?.actionPath = nil
                $0.detail?.actionURL = "http://example.com"
            }.validate()
        }
        try with {
            $0.detail?.actionPath = nil
            $0.detail?.actionURL = "https://example.com/sale"
        }.validate()
        expectInvalid("invalid", field: "detail.actionPath") {
            try with { $0.detail?.actionURL = "https://example.com/sale" }.validate()
        }
    }

    @Test("push: ttl 0 to 28 days, collapse id at most 64 bytes, sound at most 64")
    func push() throws {
        expectInvalid("out_of_range", field: "push.ttlSeconds") { try with { $0.push?.ttlSeconds = -1 }.validate() }
        expectInvalid("out_of_range", field: "push.ttlSeconds") {
            try with { $0.push?.ttlSeconds = 2_419_201 }.validate()
        }
        try with { $0.push?.ttlSeconds = 0 }.validate()
        try with { $0.push?.ttlSeconds = 2_419_200 }.validate()
        // 33 characters but 66 bytes.
        expectInvalid("too_long", field: "push.collapseId") {
            try with { $0.push?.collapseId = String(repeating: "é", count: 33) }.validate()
        }
        try with { $0.push?.collapseId = String(repeating: "c", count: 64) }.validate()
        expectInvalid("too_long", field: "push.sound") {
            try with { $0.push?.sound = PushSound(name: String(repeating: "s", count: 65)) }.validate()
        }
        expectInvalid("invalid", field: "push.sound") { try with { $0.push?.sound = "../etc/passwd" }.validate() }
        try with { $0.push?.sound = "none" }.validate()
        try with { $0.push?.sound = nil }.validate()
    }

    @Test("payload features: levels, scores, identifiers, https images, subtitles and labels are checked by name")
    func payloadFeatures() throws {
        try with {
            $0.push = PushOptions(
                send: true, sound: PushSound(name: "alarm.caf", critical: true, volume: 1),
                interruptionLevel: .critical,
                relevanceScore: 1, threadId: "orders", category: "ORDER_ACTIONS",
                imageURL: "https://cdn.example.com/a.png",
                subtitle: "Order 123", channelId: "orders", analyticsLabel: "spring-2026_v1.%7E")
        }.validate()
        try with { $0.push?.relevanceScore = 0 }.validate()
        for score in [-0.01, 1.01, .infinity, .nan] {
            expectInvalid("out_of_range", field: "push.relevanceScore") {
                try with { $0.push?.relevanceScore = score }.validate()
            }
        }
        expectInvalid("invalid", field: "push.imageURL") {
            try with { $0.push?.imageURL = "http://cdn.example.com/a.png" }.validate()
        }
        expectInvalid("invalid", field: "push.imageURL") {
            try with { $0.push?.imageURL = "javascript:alert(1)" }.validate()
        }
        expectInvalid("required", field: "push.threadId") { try with { $0.push?.threadId = " " }.validate() }
        expectInvalid("too_long", field: "push.category") {
            try with { $0.push?.category = String(repeating: "c", count: 65) }.validate()
        }
        expectInvalid("invalid", field: "push.channelId") { try with { $0.push?.channelId = "a\u{7}b" }.validate() }
        expectInvalid("too_long", field: "push.subtitle") {
            try with { $0.push?.subtitle = String(repeating: "s", count: 201) }.validate()
        }
        for label in ["", "has space", String(repeating: "l", count: 51), "émoji"] {
            expectInvalid("invalid", field: "push.analyticsLabel") {
                try with { $0.push?.analyticsLabel = label }.validate()
            }
        }
        expectInvalid("reserved", field: "data.imageURL") {
            try with {
                $0.push?.imageURL = "https://cdn.example.com/a.png"
                $0.data?["imageURL"] = "https://elsewhere.example.com"
            }.validate()
        }
        try with { $0.data?["imageURL"] = "a publisher's own key, without push.imageURL" }.validate()
    }

    @Test("a critical sound: a name, a volume from 0 to 1, and a volume only for a critical sound")
    func criticalSound() throws {
        try with { $0.push?.sound = PushSound(name: "alarm.caf", critical: true) }.validate()
        expectInvalid("out_of_range", field: "push.sound.volume") {
            try with { $0.push?.sound = PushSound(name: "alarm.caf", critical: true, volume: 1.5) }.validate()
        }
        expectInvalid("invalid", field: "push.sound.volume") {
            try with { $0.push?.sound = PushSound(name: "alarm.caf", volume: 0.5) }.validate()
        }
        expectInvalid("invalid", field: "push.sound.name") {
            try with { $0.push?.sound = PushSound(name: "none", critical: true) }.validate()
        }
        expectInvalid("invalid", field: "push.sound.name") {
            try with { $0.push?.sound = PushSound(name: "", critical: true) }.validate()
        }
    }

    @Test("a background update refuses high priority and every option only a banner would show")
    func backgroundUpdate() throws {
        let background = PushOptions(
            send: true, ttlSeconds: 60, collapseId: "sync", sound: "none", contentAvailable: true)
        try with { $0.push = background }.validate()
        try with {
            $0.push = PushOptions(send: true, priority: .normal, contentAvailable: true, analyticsLabel: "sync")
        }
        .validate()
        expectInvalid("invalid", field: "push.priority") {
            try with { $0.push = PushOptions(send: true, priority: .high, contentAvailable: true) }.validate()
        }
        let shown: [(String, (inout PushOptions) -> Void)] = [
            ("sound", { $0.sound = "chime.caf" }), ("interruptionLevel", { $0.interruptionLevel = .active }),
            ("relevanceScore", { $0.relevanceScore = 0.5 }), ("threadId", { $0.threadId = "t" }),
            ("category", { $0.category = "C" }), ("imageURL", { $0.imageURL = "https://cdn.example.com/a.png" }),
            ("subtitle", { $0.subtitle = "S" }), ("channelId", { $0.channelId = "c" }),
        ]
        for (name, change) in shown {
            var options = background
            change(&options)
            expectInvalid("invalid", field: "push.\(name)") { try with { $0.push = options }.validate() }
        }
        // contentAvailable: false is an ordinary banner.
        try with { $0.push?.contentAvailable = false }.validate()
    }

    @Test("push decoding: an unknown key, an unknown level and an unknown priority are refused by name")
    func strictPushDecoding() throws {
        func decode(_ json: String) throws -> PushOptions {
            try JSONDecoder().decode(PushOptions.self, from: Data(json.utf8))
        }
        let options = try decode(
            #"{"send":true,"interruptionLevel":"time-sensitive","sound":{"name":"a.caf","critical":true,"volume":0.5}}"#
        )
        #expect(options.interruptionLevel == .timeSensitive)
        #expect(options.sound == PushSound(name: "a.caf", critical: true, volume: 0.5))
        #expect(try decode(#"{"send":true,"sound":"chime.caf"}"#).sound == "chime.caf")
        for (json, key, says) in [
            (#"{"send":true,"interruptionLevel":"loud"}"#, "interruptionLevel", "time-sensitive"),
            (#"{"send":true,"priority":"urgent"}"#, "priority", "\"high\""),
            (#"{"send":true,"intteruptionLevel":"active"}"#, "intteruptionLevel", "Unknown key"),
            (#"{"send":true,"sound":{"name":"a","loud":true}}"#, "loud", "Unknown key"),
        ] {
            do {
                _ = try decode(json)
                Issue.record("decoded \(json)")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.last?.stringValue == key, "\(json)")
                #expect(context.debugDescription.contains(says), "\(context.debugDescription)")
            }
        }
    }

    @Test("an empty sound names both ways to say what it may have meant: omit it, or none for silence")
    func emptySound() {
        expectInvalid("invalid", field: "push.sound") { try with { $0.push?.sound = "" }.validate() }
        #expect(
            validationError { try with { $0.push?.sound = "" }.validate() }?.message
                == #"push.sound must not be empty; omit it for the default sound, or use "none" for a silent push."#)
    }

    @Test("a validation error becomes the JSON error envelope")
    func envelope() throws {
        let error = validationError { try with { $0.title = "" }.validate() }
        let envelope = try #require(error?.envelope)
        #expect(envelope.error.code == "required")
        #expect(envelope.error.message == "title is required.")
    }
}

@Suite("Device registration validation")
struct DeviceValidationTests {
    let apnsToken = String(repeating: "0123456789abcdef", count: 4)

    func registration(_ token: String, _ provider: PushProvider, _ platform: DevicePlatform = .ios)
        -> DeviceRegistration
    {
        DeviceRegistration(token: token, provider: provider, platform: platform)
    }

    @Test("APNs tokens are 64 to 200 hex digits, normalised to lowercase")
    func apns() throws {
        try registration(apnsToken, .apns).validate()
        try registration(String(repeating: "a", count: 200), .apns).validate()
        let upper = registration(apnsToken.uppercased(), .apns)
        try upper.validate()
        #expect(upper.normalizedToken == apnsToken)
        #expect(upper.normalized().token == apnsToken)
        for bad in [
            String(apnsToken.dropLast()), String(repeating: "a", count: 201), String(apnsToken.dropLast()) + "g",
            "<" + String(apnsToken.dropFirst(2)) + ">", String(apnsToken.dropLast()) + " ",
        ] {
            expectInvalid("invalid", field: "token") { try registration(bad, .apns).validate() }
        }
        expectInvalid("required", field: "token") { try registration("", .apns).validate() }
        expectInvalid("invalid", field: "provider") { try registration(apnsToken, .apns, .android).validate() }
    }

    @Test("FCM tokens are 1 to 4,096 of letters, digits and _ : - . with no whitespace")
    func fcm() throws {
        let token = "dQw4w9WgXcQ:APA91bH-abc_DEF.ghi"
        let fcm = registration(token, .fcm, .android)
        try fcm.validate()
        #expect(fcm.normalizedToken == token)
        try registration(String(repeating: "A", count: 4_096), .fcm, .android).validate()
        expectInvalid("too_long", field: "token") {
            try registration(String(repeating: "A", count: 4_097), .fcm, .android).validate()
        }
        for bad in ["abc def", "abc\n", "abc/def", "abc+def", "tökén"] {
            expectInvalid("invalid", field: "token") { try registration(bad, .fcm, .android).validate() }
        }
        expectInvalid("required", field: "token") { try registration("", .fcm, .android).validate() }
    }

    @Test("Expo tokens are ExponentPushToken[...] or ExpoPushToken[...] with 1 to 256 inside")
    func expo() throws {
        try registration("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", .expo).validate()
        try registration("ExpoPushToken[abc-123_DEF]", .expo, .android).validate()
        try registration("ExpoPushToken[\(String(repeating: "a", count: 256))]", .expo).validate()
        for bad in [
            "ExponentPushToken[]", "ExponentPushToken[abc", "exponentpushtoken[abc]", "abc",
            "ExpoPushToken[\(String(repeating: "a", count: 257))]", "ExpoPushToken[a b]", "ExpoPushToken[a]]",
            "xExpoPushToken[a]", "ExpoPushToken[a]x",
        ] {
            expectInvalid("invalid", field: "token") { try registration(bad, .expo).validate() }
        }
    }

    @Test("app version, locale and time zone are checked when present")
    func optionalFields() throws {
        var device = registration(apnsToken, .apns)
        device.appVersion = "1.7.0"
        device.locale = "en-US"
        device.timeZone = "Europe/Amsterdam"
        try device.validate()
        device.timeZone = "UTC"
        try device.validate()
        device.timeZone = "Mars/Olympus_Mons"
        expectInvalid("invalid", field: "timeZone") { try device.validate() }
        device.timeZone = "PST"
        expectInvalid("invalid", field: "timeZone") { try device.validate() }
        device.timeZone = nil
        device.locale = String(repeating: "a", count: 36)
        expectInvalid("too_long", field: "locale") { try device.validate() }
        device.locale = "en US"
        expectInvalid("invalid", field: "locale") { try device.validate() }
        device.locale = nil
        device.appVersion = String(repeating: "1", count: 33)
        expectInvalid("too_long", field: "appVersion") { try device.validate() }
    }
}

@Suite("Analytics event validation")
struct EventValidationTests {
    let at = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("1 to 100 events, names of a-z 0-9 _ . up to 100, properties up to 4,096 bytes")
    func batch() throws {
        try AnalyticsEventBatch(events: [AnalyticsEvent(name: "notification_banner_shown", at: at)]).validate()
        let hundred = (0..<100).map { _ in AnalyticsEvent(name: "e", at: at) }
        try AnalyticsEventBatch(events: hundred).validate()
        expectInvalid("required", field: "events") { try AnalyticsEventBatch(events: []).validate() }
        expectInvalid("too_many", field: "events") {
            try AnalyticsEventBatch(events: hundred + [AnalyticsEvent(name: "e", at: at)]).validate()
        }
        expectInvalid("invalid", field: "events[0].name") {
            try AnalyticsEventBatch(events: [AnalyticsEvent(name: "Banner Shown", at: at)]).validate()
        }
        expectInvalid("too_long", field: "events[0].name") {
            try AnalyticsEventBatch(events: [AnalyticsEvent(name: String(repeating: "e", count: 101), at: at)])
                .validate()
        }
        let big: [String: JSONValue] = ["blob": .string(String(repeating: "x", count: 4_096))]
        expectInvalid("too_long", field: "events[1].properties") {
            try AnalyticsEventBatch(events: [
                AnalyticsEvent(name: "ok", at: at), AnalyticsEvent(name: "e", at: at, properties: big),
            ])
            .validate()
        }
        let fits: [String: JSONValue] = ["blob": .string(String(repeating: "x", count: 4_000)), "n": .number(1)]
        try AnalyticsEventBatch(events: [AnalyticsEvent(name: "e", at: at, properties: fits)]).validate()
    }
}

@Suite("Single-value validation")
struct SingleValueValidationTests {
    @Test("user ids, types, time zones and tokens outside a request")
    func singleValues() throws {
        try Validate.userID("user-1", field: "id")
        expectInvalid("invalid", field: "--user") { try Validate.userID("no spaces", field: "--user") }
        expectInvalid("required", field: "id") { try Validate.userID("", field: "id") }
        try Validate.type("order.shipped", field: "--type")
        expectInvalid("invalid", field: "--type") { try Validate.type("Order", field: "--type") }
        try Validate.timeZone("Asia/Tokyo", field: "tz")
        expectInvalid("invalid", field: "tz") { try Validate.timeZone("Tokyo", field: "tz") }
        try Validate.token("ExpoPushToken[abc]", provider: .expo)
        expectInvalid("invalid", field: "token") { try Validate.token("abc", provider: .apns) }
    }
}
