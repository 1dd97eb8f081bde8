import Foundation
import HeraldModel
import HeraldSandbox
import HeraldStore
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// Webhook events end to end over real HTTP: a server (SQLite, and PostgreSQL when the test
/// cluster is there) records them in the transactions of the changes they tell of, and its worker
/// POSTs them, signed, to a receiver on loopback, which checks the signatures as a receiver does.
@Suite("Webhooks: events reach a receiver, signed, in order, at least once")
struct WebhookDeliveryTests {
    @Test(
        "message.completed: once, signed, when the last push of a message ends (and for a cancelled scheduled one)",
        arguments: ServerDatabase.available)
    func messageCompleted(_ database: ServerDatabase) async throws {
        let receiver = try WebhookReceiver.start()
        try await PushFixture.run(on: database, configure: { WebhookTesting.configure(&$0) }) { fixture in
            let server = fixture.server
            let hook = try await WebhookTesting.subscribe(
                server, key: fixture.apiKey, url: receiver.url(), events: ["message.completed"])
            try await fixture.register(PushFixture.deviceToken(), for: "alice")
            let published = try await server.send(
                "POST", "/v1/notifications",
                json:
                    #"{"recipients":["alice","bob"],"type":"order.shipped","title":"Shipped","body":"","push":{"send":true}}"#,
                token: fixture.apiKey)
            let messageID = try #require(published.object["messageId"] as? String)
            let first = try #require(try await receiver.waitFor(1).first)
            #expect(first.type == "message.completed" && WebhookTesting.verifies(first, secret: hook.secret))
            #expect(first.data["messageId"] as? String == messageID)
            #expect(first.data["recipients"] as? Int == 2 && first.data["cancelled"] as? Bool == false)
            #expect((first.data["pushes"] as? [String: Int])?["sent"] == 1, "\(first.text)")
            #expect(first.data["skipped"] as? [String: Int] == ["no_device": 1])

            let later = Date().addingTimeInterval(3_600).formatted(.iso8601)
            let scheduled = try await server.send(
                "POST", "/v1/notifications",
                json:
                    #"{"recipients":["alice"],"type":"order.shipped","title":"Later","body":"","sendAt":"\#(later)"}"#,
                token: fixture.apiKey)
            let scheduledID = try #require(scheduled.object["messageId"] as? String)
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.received.count == 1, "a scheduled message is not complete")
            #expect(try await server.delete("/v1/messages/\(scheduledID)", token: fixture.apiKey).status == 200)
            let second = try #require(try await receiver.waitFor(2).last)
            #expect(second.data["messageId"] as? String == scheduledID && second.data["cancelled"] as? Bool == true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.received.count == 2, "each message completes once")
        }
        await receiver.stop()
    }

    @Test(
        "sent, failed (410), pruned, skipped, read and opened reach the receiver signed with the secret from creation",
        arguments: ServerDatabase.available)
    func eventsOfPushesAndTheInbox(_ database: ServerDatabase) async throws {
        let receiver = try WebhookReceiver.start()
        try await PushFixture.run(on: database, configure: { WebhookTesting.configure(&$0) }) { fixture in
            let server = fixture.server
            let hook = try await WebhookTesting.subscribe(
                server, key: fixture.apiKey, url: receiver.url(),
                events: [
                    "delivery.sent", "delivery.failed", "delivery.skipped", "device.pruned", "notification.read",
                    "notification.opened",
                ])
            let good = PushFixture.deviceToken()
            let dead = PushFixture.deviceToken()
            fixture.sandbox.setFault(.unregistered, for: dead)
            try await fixture.register(good, for: "alice")
            try await fixture.register(dead, for: "bob")
            let sent = try await fixture.publish(to: "alice")
            let failed = try await fixture.publish(to: "bob")
            let skipped = try await fixture.publish(to: "carol")
            let token = try server.token("alice")
            for _ in 0..<2 {
                #expect(
                    try await server.send("POST", "/v1/me/notifications/\(sent)/read", token: token).status == 200)
                #expect(
                    try await server.send("POST", "/v1/me/notifications/\(sent)/opened", token: token).status == 200
                )
            }

            let received = try await receiver.waitFor(6)
            // A moment for any duplicate a second read or open would have sent.
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.received.count == 6, "\(receiver.received.map(\.text))")
            func event(_ type: String) throws -> WebhookReceiver.Received {
                try #require(received.first { $0.type == type }, "no \(type): \(received.map(\.text))")
            }
            let sentEvent = try event("delivery.sent")
            #expect(sentEvent.data["notificationId"] as? String == sent)
            #expect(
                sentEvent.data["userId"] as? String == "alice" && sentEvent.data["provider"] as? String == "apns")
            #expect(sentEvent.data["providerStatus"] as? Int == 200)
            #expect(sentEvent.data["deviceToken"] as? String == "…" + good.suffix(8), "the token masked")
            let failedEvent = try event("delivery.failed")
            #expect(failedEvent.data["notificationId"] as? String == failed)
            #expect(failedEvent.data["reason"] as? String == "Unregistered")
            #expect(failedEvent.data["providerStatus"] as? Int == 410)
            let pruned = try event("device.pruned")
            #expect(pruned.data["userId"] as? String == "bob" && pruned.data["reason"] as? String == "Unregistered")
            #expect(pruned.data["deviceToken"] as? String == "…" + dead.suffix(8))
            let skippedEvent = try event("delivery.skipped")
            #expect(skippedEvent.data["notificationId"] as? String == skipped)
            #expect(skippedEvent.data["reason"] as? String == "no_device")
            #expect(try event("notification.read").data["id"] as? String == sent)
            #expect(try event("notification.opened").data["id"] as? String == sent)
            let failedIndex = try #require(received.firstIndex { $0.type == "delivery.failed" })
            let prunedIndex = try #require(received.firstIndex { $0.type == "device.pruned" })
            #expect(failedIndex < prunedIndex, "one transaction's events in the order they were written")

            for request in received {
                #expect(Set(request.json.keys) == ["id", "type", "createdAt", "data"], "\(request.text)")
                #expect(request.header("herald-event-id") == request.eventID)
                #expect(request.header("herald-event-type") == request.type)
                #expect(request.header("content-type") == "application/json")
                #expect(request.header("user-agent")?.hasPrefix("Herald-Webhooks/") == true)
                #expect(request.path == "/hooks")
                #expect(WebhookTesting.verifies(request, secret: hook.secret), "signed with the secret")
                #expect(
                    !WebhookTesting.verifies(request, secret: WebhookSignature.newSecret()),
                    "another secret does not verify it")
            }
            #expect(Set(received.compactMap(\.eventID)).count == 6, "one id per event")
        }
        await receiver.stop()
    }

    @Test(
        "a receiver that answers 500, then drops the connection, then recovers gets the same event again, and the later ones only after it, in order",
        arguments: ServerDatabase.available)
    func failingReceiverRecovers(_ database: ServerDatabase) async throws {
        let receiver = try WebhookReceiver.start()
        receiver.script([.status(500), .drop])
        try await database.withURL { url in
            try await withServer(configure: { configuration in
                configuration.databaseURL = url
                WebhookTesting.configure(&configuration)
            }) { server in
                let key = try await server.apiKey()
                let hook = try await WebhookTesting.subscribe(
                    server, key: key, url: receiver.url(), events: ["notification.read"])
                var ids: [String] = []
                for _ in 0..<3 { ids += try await server.publish(to: ["dave"], key: key) }
                let token = try server.token("dave")
                for id in ids {
                    #expect(
                        try await server.send("POST", "/v1/me/notifications/\(id)/read", token: token).status == 200)
                }
                let received = try await receiver.waitFor(5)
                #expect(received.count == 5, "\(received.map(\.text))")
                let events = received.compactMap(\.eventID)
                #expect(events.count == 5 && Set(events).count == 3)
                #expect(events[0] == events[1] && events[1] == events[2], "the same event id on every attempt")
                #expect(received[0].text == received[2].text, "the same body on every attempt")
                #expect(
                    received.map { $0.data["id"] as? String } == [ids[0], ids[0], ids[0], ids[1], ids[2]],
                    "the later events only after the first went through, in order")
                #expect(received.allSatisfy { WebhookTesting.verifies($0, secret: hook.secret) })

                // Each attempt is visible: 500, the dropped connection, 200.
                var first: [String: Any] = [:]
                try await eventually("the deliveries recorded") {
                    let items = try await WebhookTesting.deliveries(server, key: key, webhook: hook.id)
                    first = items.last ?? [:]
                    return items.count == 3 && items.allSatisfy { $0["status"] as? String == "delivered" }
                }
                #expect(first["eventId"] as? String == events[0] && first["type"] as? String == "notification.read")
                let attempts = first["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.map { $0["attempt"] as? Int } == [1, 2, 3])
                #expect(attempts.map { $0["httpStatus"] as? Int } == [500, nil, 200], "\(attempts)")
                #expect((attempts[0]["error"] as? String)?.contains("500") == true, "\(attempts)")
                #expect(attempts[1]["error"] as? String != nil, "the dropped connection says why: \(attempts)")
                #expect(attempts[2]["error"] is NSNull)
                #expect(attempts.allSatisfy { $0["at"] is String && $0["durationMs"] is Int })
                #expect((first["event"] as? [String: Any])?["id"] as? String == events[0])
            }
        }
        await receiver.stop()
    }

    @Test(
        "pending events survive a restart: a server stopped while its receiver fails, started again on the same database, delivers them",
        arguments: ServerDatabase.available)
    func pendingEventsSurviveARestart(_ database: ServerDatabase) async throws {
        let receiver = try WebhookReceiver.start()
        receiver.script(Array(repeating: .status(503), count: 1_000))
        try await database.withURL { url in
            let configure: (inout HeraldConfiguration) -> Void = { configuration in
                configuration.databaseURL = url
                WebhookTesting.configure(&configuration, retryBase: 0.2)
            }
            let first = try await TestServer.start(configure: configure)
            let key = try await first.apiKey()
            let hook = try await WebhookTesting.subscribe(
                first, key: key, url: receiver.url(), events: ["notification.read"])
            var ids: [String] = []
            for _ in 0..<2 { ids += try await first.publish(to: ["erin"], key: key) }
            for id in ids {
                _ = try await first.send("POST", "/v1/me/notifications/\(id)/read", token: try first.token("erin"))
            }
            _ = try await receiver.waitFor(2)
            await first.stop()
            let refused = receiver.received
            #expect(Set(refused.compactMap(\.eventID)).count == 1, "only the first event was tried: it failed")

            receiver.script([])
            try await withServer(configure: configure) { second in
                let received = try await receiver.waitFor(refused.count + 2)
                let after = received.dropFirst(refused.count)
                #expect(after.map { $0.data["id"] as? String } == [ids[0], ids[1]], "in order, after the restart")
                #expect(after.first?.eventID == refused.first?.eventID, "the same event id as before the restart")
                #expect(after.allSatisfy { WebhookTesting.verifies($0, secret: hook.secret) })
                try await eventually("both delivered") {
                    let items = try await WebhookTesting.deliveries(second, key: key, webhook: hook.id)
                    return items.count == 2 && items.allSatisfy { $0["status"] as? String == "delivered" }
                }
            }
        }
        await receiver.stop()
    }

    @Test(
        "without --webhook-allow-private-addresses, an attempt to a name that resolves to loopback is refused at send")
    func sendTimeRefusal() async throws {
        let receiver = try WebhookReceiver.start()
        try await withServer(configure: { configuration in
            WebhookTesting.configure(&configuration)
            configuration.webhooks.allowPrivateAddresses = false
            configuration.webhooks.maxAttempts = 1
        }) { server in
            // Stored as a subscription made while the name still resolved to a public address.
            let record = WebhookRecord(
                id: "wh_rebound", url: "http://localhost:\(receiver.port)/hooks", events: [.notificationRead],
                secret: WebhookSignature.newSecret(), createdAt: Date())
            _ = try await server.app.store.createWebhook(record, maxCount: nil)
            let key = try await server.apiKey()
            let id = try #require(try await server.publish(to: ["fay"], key: key).first)
            _ = try await server.send("POST", "/v1/me/notifications/\(id)/read", token: try server.token("fay"))
            var attempts: [[String: Any]] = []
            try await eventually("the attempt recorded") {
                let items = try await WebhookTesting.deliveries(server, key: key, webhook: record.id)
                attempts = items.first?["attempts"] as? [[String: Any]] ?? []
                return items.first?["status"] as? String == "failed"
            }
            let error = try #require(attempts.first?["error"] as? String)
            #expect(error.hasPrefix("refused: localhost resolves to"), "\(error)")
            #expect(error.contains("loopback"), "\(error)")
            #expect(receiver.received.isEmpty, "nothing reached the loopback receiver")
        }
        await receiver.stop()
    }

    @Test("events older than --webhook-max-age fail without being sent (the server's clock an hour on)")
    func staleEventsFailUnsent() async throws {
        let receiver = try WebhookReceiver.start()
        let directory = try TemporaryDirectory("herald-webhooks").url
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "sqlite:" + directory.appendingPathComponent("herald.db").path
        let recorded = try await TestServer.start(configure: { configuration in
            configuration.databaseURL = url
            configuration.webhooks.isEnabled = false
        })
        let key = try await recorded.apiKey()
        let created = try await recorded.send(
            "POST", "/v1/webhooks", json: #"{"url":"https://93.184.216.34/","events":["notification.read"]}"#,
            token: key)
        let webhook = try #require(created.object["id"] as? String)
        let id = try #require(try await recorded.publish(to: ["hal"], key: key).first)
        _ = try await recorded.send("POST", "/v1/me/notifications/\(id)/read", token: try recorded.token("hal"))
        await recorded.stop()

        try await withServer(
            configure: { configuration in
                configuration.databaseURL = url
                WebhookTesting.configure(&configuration)
                configuration.webhooks.maxAge = 60
            }, now: { Date().addingTimeInterval(3_600) }
        ) { server in
            var items: [[String: Any]] = []
            try await eventually("the stale event failed") {
                items = try await WebhookTesting.deliveries(server, key: key, webhook: webhook)
                return items.first?["status"] as? String == "failed"
            }
            let attempts = items.first?["attempts"] as? [[String: Any]] ?? []
            #expect(attempts.count == 1 && attempts.first?["httpStatus"] is NSNull, "\(attempts)")
            #expect((attempts.first?["error"] as? String)?.contains("--webhook-max-age") == true, "\(attempts)")
        }
        #expect(receiver.received.isEmpty)
        await receiver.stop()
    }

    @Test(
        "two servers on one PostgreSQL database: each event goes out once, one at a time, in order",
        .enabled(if: ServerDatabase.postgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set"))
    func twoServersShareTheOutbox() async throws {
        let receiver = try WebhookReceiver.start()
        receiver.script(Array(repeating: .slow(.milliseconds(20), 200), count: 1_000))
        try await ServerDatabase.postgres.withURL { url in
            let configure: (inout HeraldConfiguration) -> Void = { configuration in
                configuration.databaseURL = url
                WebhookTesting.configure(&configuration)
                configuration.webhooks.wakeInterval = .milliseconds(10)
            }
            let a = try await TestServer.start(configure: configure)
            let b = try await TestServer.start(configure: configure)
            do {
                let key = try await a.apiKey()
                let hook = try await WebhookTesting.subscribe(
                    a, key: key, url: receiver.url(), events: ["notification.read"])
                var ids: [String] = []
                for _ in 0..<20 { ids += try await a.publish(to: ["gil"], key: key) }
                let token = try a.token("gil")
                for (index, id) in ids.enumerated() {
                    let server = index % 2 == 0 ? a : b
                    #expect(
                        try await server.send("POST", "/v1/me/notifications/\(id)/read", token: token).status == 200)
                }
                let received = try await receiver.waitFor(20)
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received.count == 20, "no event twice")
                #expect(received.map { $0.data["id"] as? String } == ids, "in the order they happened")
                #expect(receiver.maxInFlight == 1, "one attempt of the subscription at a time")
                #expect(received.allSatisfy { WebhookTesting.verifies($0, secret: hook.secret) })
            } catch {
                await a.stop()
                await b.stop()
                throw error
            }
            await a.stop()
            await b.stop()
        }
        await receiver.stop()
    }
}
