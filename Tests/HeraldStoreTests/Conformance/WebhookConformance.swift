import Foundation
import HeraldModel
import HeraldServerModel
import Synchronization
import Testing

@testable import HeraldStore

/// Webhook subscriptions and their transactional outbox: behaviour every store must have, checked
/// the same way against each store. Each check gets a fresh store.
enum WebhookConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case subscriptions = "subscriptions are stored, listed oldest first, read, capped and deleted"
    case noSubscriptionWritesNothing =
        "with no subscription, publishing, sending, reading and opening record no webhook event"
    case rolledBackEventsVanish = "an event is recorded in its change's transaction: a rollback takes it away"
    case eventShape =
        "an event goes to each subscription listening to its type, with one id and the body {id, type, createdAt, data}"
    case deliveryEvents =
        "delivery.sent, delivery.failed (failed and expired), delivery.skipped (at publish and at claim) and device.pruned tell of the rows as they ended"
    case receiptEvents = "an Expo receipt's failure and prune record delivery.failed and device.pruned"
    case readAndOpenedOnce = "notification.read and notification.opened are recorded the first time only"
    case orderPerSubscription =
        "only a subscription's oldest open event is claimed; the next waits behind its retries, then goes"
    case leaseExpiry = "an attempt whose lease runs out is due again under a new claim; the stale claim records nothing"
    case attemptsAndPages =
        "each attempt is recorded with its time, status, error and duration; deliveries page newest first"
    case concurrentClaimers =
        "concurrent claimers never hold one event at once, and together deliver every event in order"
    case deleteDropsPending = "deleting a subscription drops its deliveries, pending ones included"
    case pruning = "final deliveries past the retention and deliveries of a deleted subscription are pruned"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .subscriptions:
            let first = try await store.subscribe("wh_1", [.deliverySent, .devicePruned], at: at(1))
            _ = try await store.subscribe("wh_2", [.notificationRead], at: at(2))
            #expect(first.secret == "secret-wh_1")
            #expect(try await store.webhooks().map(\.id) == ["wh_1", "wh_2"])
            #expect(try await store.webhook(id: "wh_1") == first)
            #expect(try await store.webhook(id: "nope") == nil)
            let refused = try await store.createWebhook(hook("wh_3", [.deliverySent]), maxCount: 2)
            #expect(refused == .limitReached(count: 2))
            #expect(try await store.webhooks().count == 2)
            #expect(try await store.deleteWebhook(id: "wh_1"))
            #expect(try await !store.deleteWebhook(id: "wh_1"))
            #expect(try await store.webhooks().map(\.id) == ["wh_2"])
            #expect(
                try await store.createWebhook(hook("wh_3", [.deliverySent]), maxCount: 2)
                    == .created(hook("wh_3", [.deliverySent])))
        case .noSubscriptionWritesNothing:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"])
            try await store.publishPushed(["n2"], user: "nobody")
            let claim = try #require(try await store.claimDueDeliveries(limit: 1, now: at(1), lease: 30).first)
            _ = try await store.completeDelivery(
                id: claim.id, claimToken: claim.claimToken, outcome: .pruned(reason: "Unregistered"), now: at(2))
            _ = try await store.markRead(userID: "u1", id: "n1", at: at(3))
            _ = try await store.markOpened(userID: "u1", id: "n1", at: at(3))
            #expect(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(4)) == nil)
            #expect(try await store.webhookRows() == 0)
        case .rolledBackEventsVanish:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            await #expect(throws: Abort.self) {
                try await store.write { db in
                    #expect(
                        try WebhookStatements.emit(.messageCompleted, data: "{\"id\":\"m1\"}", at: at(1), db) != nil)
                    throw Abort()
                }
            }
            #expect(try await store.webhookRows() == 0)
            // The same connection's next transaction reads the subscriptions anew.
            #expect(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(2)) != nil)
            #expect(try await store.webhookRows() == 1)
        case .eventShape:
            _ = try await store.subscribe("wh_a", [.messageCompleted, .notificationRead])
            _ = try await store.subscribe("wh_b", [.messageCompleted])
            _ = try await store.subscribe("wh_c", [.deliverySent])
            let eventID = try #require(
                try await store.emitWebhookEvent(.messageCompleted, data: #"{"messageId":"m1"}"#, at: at(5)))
            #expect(eventID.hasPrefix("evt_"))
            let a = try await store.events(of: "wh_a")
            let b = try await store.events(of: "wh_b")
            #expect(try await store.events(of: "wh_c").isEmpty)
            #expect(a.map(\.eventID) == [eventID] && b.map(\.eventID) == [eventID])
            #expect(a[0].id != b[0].id, "one delivery per subscription")
            #expect(a[0].status == .pending && a[0].attempts.isEmpty && a[0].nextAttemptAt == at(5))
            let body = try #require(try JSONSerialization.jsonObject(with: Data(a[0].body.utf8)) as? [String: Any])
            #expect(Set(body.keys) == ["id", "type", "createdAt", "data"])
            #expect(body["id"] as? String == eventID && body["type"] as? String == "message.completed")
            #expect(body["createdAt"] as? String == "2023-11-14T22:13:25Z")
            #expect((body["data"] as? [String: String]) == ["messageId": "m1"])
            #expect(a[0].body == b[0].body)
        case .deliveryEvents:
            _ = try await store.subscribe("wh_1", [.deliverySent, .deliveryFailed, .deliverySkipped, .devicePruned])
            try await store.addDevice("sent-token")
            try await store.addDevice("dead-token-12345678", user: "u2")
            try await store.addDevice("slow", user: "u3")
            try await store.addDevice("gone", user: "u4")
            try await store.addDevice("wrong-topic", user: "u5")
            try await store.publishPushed(["n-sent"])
            try await store.publishPushed(["n-dead"], user: "u2")
            try await store.publishPushed(["n-none"], user: "nobody")
            try await store.publishPushed(["n-expire"], user: "u3", push: PushOptions(send: true, ttlSeconds: 5))
            try await store.publishPushed(["n-gone"], user: "u4")
            _ = try await store.deleteDevice(userID: "u4", token: "gone")
            try await store.publishPushed(["n-refused"], user: "u5")
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            let sent = try #require(claimed.first { $0.deviceToken == "sent-token" })
            let dead = try #require(claimed.first { $0.deviceToken == "dead-token-12345678" })
            let slow = try #require(claimed.first { $0.deviceToken == "slow" })
            let refused = try #require(claimed.first { $0.deviceToken == "wrong-topic" })
            #expect(claimed.count == 4, "the row of the removed device was skipped at claim")
            _ = try await store.completeDeliveries(
                [
                    DeliveryCompletion(
                        id: sent.id, claimToken: sent.claimToken, outcome: .sent(providerMessageID: "m"),
                        providerStatus: 200),
                    DeliveryCompletion(
                        id: dead.id, claimToken: dead.claimToken, outcome: .pruned(reason: "Unregistered"),
                        providerStatus: 410),
                    DeliveryCompletion(
                        id: slow.id, claimToken: slow.claimToken, outcome: .retry(at: at(3), reason: "503"),
                        providerStatus: 503),
                    DeliveryCompletion(
                        id: refused.id, claimToken: refused.claimToken,
                        outcome: .failed(reason: "DeviceTokenNotForTopic"), providerStatus: 400),
                ], now: at(2))
            let events = try await store.events(of: "wh_1").reversed().map { try EventBody($0.body) }
            // The outcomes of one write: prunes and retries one by one in their order, then each
            // kind written together (sends, then failures).
            #expect(
                events.map(\.type) == [
                    "delivery.skipped", "delivery.skipped", "delivery.failed", "device.pruned", "delivery.sent",
                    "delivery.failed",
                ], "\(events.map(\.type))")
            let skippedAtPublish = events[0].data
            #expect(skippedAtPublish["notificationId"] as? String == "n-none")
            #expect(
                skippedAtPublish["status"] as? String == "skipped"
                    && skippedAtPublish["reason"] as? String == "no_device")
            #expect(skippedAtPublish["deviceToken"] is NSNull && skippedAtPublish["userId"] as? String == "nobody")
            let skippedAtClaim = events[1].data
            #expect(skippedAtClaim["notificationId"] as? String == "n-gone")
            #expect(skippedAtClaim["reason"] as? String == "device_inactive")
            let sentData = events[4].data
            #expect(sentData["id"] as? String == sent.id && sentData["notificationId"] as? String == "n-sent")
            #expect(sentData["userId"] as? String == "u1" && sentData["provider"] as? String == "apns")
            #expect(sentData["platform"] as? String == "ios" && sentData["providerStatus"] as? Int == 200)
            #expect(sentData["status"] as? String == "sent" && sentData["attempts"] as? Int == 1)
            #expect(sentData["deviceToken"] as? String == "…token", "masked: at most half of the token")
            let failedData = events[2].data
            #expect(failedData["status"] as? String == "failed" && failedData["reason"] as? String == "Unregistered")
            #expect(failedData["providerStatus"] as? Int == 410)
            let pruned = events[3].data
            #expect(pruned["deviceToken"] as? String == "…12345678" && pruned["userId"] as? String == "u2")
            #expect(pruned["reason"] as? String == "Unregistered" && pruned["deliveryId"] as? String == dead.id)
            #expect(pruned["provider"] as? String == "apns" && pruned["appId"] as? String == "default")
            #expect(!events.contains { ($0.data["id"] as? String) == slow.id }, "a retry tells nothing yet")
            let refusedData = events[5].data
            #expect(refusedData["id"] as? String == refused.id && refusedData["status"] as? String == "failed")
            #expect(
                refusedData["reason"] as? String == "DeviceTokenNotForTopic"
                    && refusedData["providerStatus"] as? Int == 400)
            // The retry claimed again after the TTL: expired, which is a delivery.failed.
            #expect(try await store.claimDueDeliveries(limit: 10, now: at(10), lease: 30).isEmpty)
            let last = try #require(try await store.events(of: "wh_1").first)
            let expired = try EventBody(last.body)
            #expect(expired.type == "delivery.failed" && expired.data["status"] as? String == "expired")
            #expect(expired.data["reason"] as? String == "ttl_expired" && expired.data["id"] as? String == slow.id)
        case .receiptEvents:
            _ = try await store.subscribe("wh_1", [.deliveryFailed, .devicePruned, .deliverySent])
            try await store.addDevice("expo-a")
            try await store.addDevice("expo-b")
            try await store.publishPushed(["n1"])
            let claims = try await store.claimDueDeliveries(limit: 2, now: at(1), lease: 30)
            _ = try await store.completeDeliveries(
                claims.map {
                    DeliveryCompletion(
                        id: $0.id, claimToken: $0.claimToken,
                        outcome: .ticketed(ticketID: "t-" + $0.deviceToken, receiptDueAt: at(5)))
                }, now: at(2))
            let receipts = try await store.claimDueReceipts(limit: 10, now: at(5), lease: 30)
            let a = try #require(receipts.first { $0.ticketID == "t-expo-a" })
            let b = try #require(receipts.first { $0.ticketID == "t-expo-b" })
            _ = try await store.recordReceipts(
                [ReceiptOutcome(a, .pruned(reason: "DeviceNotRegistered")), ReceiptOutcome(b, .delivered)], now: at(6))
            let types = try await store.events(of: "wh_1").reversed().map { try EventBody($0.body).type }
            #expect(types == ["delivery.sent", "delivery.sent", "delivery.failed", "device.pruned"], "\(types)")
        case .readAndOpenedOnce:
            _ = try await store.subscribe("wh_1", [.notificationRead, .notificationOpened])
            _ = try await publish(store, ids: ["n1"])
            _ = try await store.markRead(userID: "u1", id: "n1", at: at(10))
            _ = try await store.markRead(userID: "u1", id: "n1", at: at(11))
            #expect(try await store.markOpened(userID: "u1", id: "n1", at: at(12)) == at(12))
            #expect(try await store.markOpened(userID: "u1", id: "n1", at: at(13)) == at(12), "the first open is kept")
            _ = try await store.markRead(userID: "someone-else", id: "n1", at: at(14))
            let events = try await store.events(of: "wh_1").reversed().map { try EventBody($0.body) }
            #expect(events.map(\.type) == ["notification.read", "notification.opened"])
            #expect(events[0].data["id"] as? String == "n1" && events[0].data["userId"] as? String == "u1")
            #expect(events[0].data["type"] as? String == "order.shipped")
            #expect(events[0].data["readAt"] as? String == "2023-11-14T22:13:30Z")
            #expect(events[1].data["openedAt"] as? String == "2023-11-14T22:13:32Z")
        case .orderPerSubscription:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            _ = try await store.subscribe("wh_2", [.messageCompleted])
            let first = try #require(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(1)))
            let second = try #require(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(2)))
            let claimed = try await store.claimDueWebhookDeliveries(limit: 10, now: at(3), lease: 30)
            #expect(claimed.map(\.eventID) == [first, first], "one head per subscription")
            #expect(Set(claimed.map(\.webhookID)) == ["wh_1", "wh_2"])
            #expect(claimed.allSatisfy { $0.attempt == 1 && $0.leaseExpiresAt == at(33) })
            #expect(claimed.allSatisfy { $0.url == "https://example.com/hooks" && $0.secret.hasPrefix("secret-") })
            #expect(try await store.claimDueWebhookDeliveries(limit: 10, now: at(3), lease: 30).isEmpty)
            let one = try #require(claimed.first { $0.webhookID == "wh_1" })
            let two = try #require(claimed.first { $0.webhookID == "wh_2" })
            #expect(try await store.completeWebhookDelivery(one.completion(.retry(at: at(20)), at: at(4)), now: at(4)))
            #expect(try await store.completeWebhookDelivery(two.completion(.delivered, at: at(4)), now: at(4)))
            // wh_2 moves on; wh_1's second event waits behind its first.
            let next = try await store.claimDueWebhookDeliveries(limit: 10, now: at(5), lease: 30)
            #expect(next.map(\.webhookID) == ["wh_2"] && next.map(\.eventID) == [second])
            #expect(try await store.claimDueWebhookDeliveries(limit: 10, now: at(19), lease: 30).isEmpty)
            let retry = try #require(try await store.claimDueWebhookDeliveries(limit: 10, now: at(20), lease: 30).first)
            #expect(retry.eventID == first && retry.webhookID == "wh_1" && retry.attempt == 2 && retry.id == one.id)
            #expect(try await store.completeWebhookDelivery(retry.completion(.failed, at: at(21)), now: at(21)))
            let after = try #require(try await store.claimDueWebhookDeliveries(limit: 10, now: at(22), lease: 30).first)
            #expect(after.eventID == second && after.webhookID == "wh_1", "a failed head lets the next go")
        case .leaseExpiry:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            let event = try #require(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(1)))
            let first = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(1), lease: 30).first)
            #expect(try await store.claimDueWebhookDeliveries(limit: 1, now: at(30), lease: 30).isEmpty)
            let again = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(31), lease: 30).first)
            #expect(again.id == first.id && again.eventID == event && again.attempt == 2)
            #expect(again.claimToken != first.claimToken)
            #expect(try await !store.completeWebhookDelivery(first.completion(.delivered, at: at(32)), now: at(32)))
            #expect(
                try await store.events(of: "wh_1").first?.attempts.isEmpty == true, "the stale claim recorded nothing")
            #expect(try await store.completeWebhookDelivery(again.completion(.delivered, at: at(33)), now: at(33)))
            #expect(try await !store.completeWebhookDelivery(again.completion(.failed, at: at(34)), now: at(34)))
            #expect(try await store.events(of: "wh_1").first?.status == .delivered)
        case .attemptsAndPages:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            for second in 1...3 {
                _ = try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(Double(second)))
            }
            var claim = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(4), lease: 30).first)
            let refused = WebhookAttempt(
                attempt: 1, at: at(4), durationMilliseconds: 12, httpStatus: 500, error: "the receiver answered 500")
            #expect(
                try await store.completeWebhookDelivery(
                    WebhookCompletion(
                        id: claim.id, claimToken: claim.claimToken, attempt: refused, outcome: .retry(at: at(6))),
                    now: at(5)))
            var pending = try #require(try await store.events(of: "wh_1").last)
            #expect(pending.status == .pending && pending.nextAttemptAt == at(6) && pending.attempts == [refused])
            claim = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(6), lease: 30).first)
            pending = try #require(try await store.events(of: "wh_1").last)
            #expect(pending.status == .sending && pending.nextAttemptAt == at(36))
            let timedOut = WebhookAttempt(
                attempt: 2, at: at(6), durationMilliseconds: 10_000, httpStatus: nil, error: "timed out after 10 s")
            let delivered = WebhookAttempt(attempt: 3, at: at(7), durationMilliseconds: 3, httpStatus: 204, error: nil)
            _ = try await store.completeWebhookDelivery(
                WebhookCompletion(
                    id: claim.id, claimToken: claim.claimToken, attempt: timedOut, outcome: .retry(at: at(7))),
                now: at(6))
            claim = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(7), lease: 30).first)
            _ = try await store.completeWebhookDelivery(
                WebhookCompletion(id: claim.id, claimToken: claim.claimToken, attempt: delivered, outcome: .delivered),
                now: at(8))
            let done = try #require(try await store.events(of: "wh_1").last)
            #expect(done.status == .delivered && done.nextAttemptAt == nil && done.updatedAt == at(8))
            #expect(done.attempts == [refused, timedOut, delivered])
            let page = try #require(try await store.webhookDeliveries(webhookID: "wh_1", beforeSeq: nil, limit: 2))
            #expect(page.items.count == 2 && page.nextBeforeSeq != nil)
            let rest = try #require(
                try await store.webhookDeliveries(webhookID: "wh_1", beforeSeq: page.nextBeforeSeq, limit: 2))
            #expect(rest.items.map(\.id) == [done.id] && rest.nextBeforeSeq == nil, "newest first, then the oldest")
            #expect(try await store.webhookDeliveries(webhookID: "unknown", beforeSeq: nil, limit: 2) == nil)
        case .concurrentClaimers:
            for index in 0..<4 { _ = try await store.subscribe("wh_\(index)", [.messageCompleted]) }
            var emitted: [String] = []
            for second in 0..<10 {
                emitted.append(
                    try #require(
                        try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(Double(second)))))
            }
            // Who got what, in the order they were handed out (each written before its completion,
            // so before any claimer can take the subscription's next event).
            let handedOut = HandOuts()
            // Four claimers deliver everything at once; none may hold an event another holds.
            let delivered = try await withThrowingTaskGroup(of: [ClaimedWebhookDelivery].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var mine: [ClaimedWebhookDelivery] = []
                        var idle = 0
                        while idle < 50 {
                            let batch = try await store.claimDueWebhookDeliveries(limit: 3, now: at(100), lease: 600)
                            if batch.isEmpty {
                                idle += 1
                                try await Task.sleep(for: .milliseconds(2))
                                continue
                            }
                            idle = 0
                            for claim in batch {
                                handedOut.entries.withLock { $0.append((claim.webhookID, claim.eventID)) }
                                #expect(
                                    try await store.completeWebhookDelivery(
                                        claim.completion(.delivered, at: at(100)), now: at(100)))
                            }
                            mine += batch
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(delivered.count == 40, "each event once to each subscription")
            #expect(Set(delivered.map(\.id)).count == 40, "never one event to two claimers")
            let order = handedOut.entries.withLock { $0 }
            for index in 0..<4 {
                let log = try await store.events(of: "wh_\(index)")
                #expect(log.allSatisfy { $0.status == .delivered && $0.attempts.count == 1 })
                #expect(order.filter { $0.webhook == "wh_\(index)" }.map(\.event) == emitted, "in order")
            }
        case .deleteDropsPending:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            _ = try await store.subscribe("wh_2", [.messageCompleted])
            _ = try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(1))
            #expect(try await store.deleteWebhook(id: "wh_1"))
            #expect(try await store.webhookRows() == 1)
            let claimed = try await store.claimDueWebhookDeliveries(limit: 10, now: at(2), lease: 30)
            #expect(claimed.map(\.webhookID) == ["wh_2"])
            #expect(try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(3)) != nil)
            #expect(try await store.webhookRows() == 2, "a deleted subscription gets no new events")
        case .pruning:
            _ = try await store.subscribe("wh_1", [.messageCompleted])
            _ = try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(1))
            _ = try await store.emitWebhookEvent(.messageCompleted, data: "{}", at: at(2))
            let claim = try #require(try await store.claimDueWebhookDeliveries(limit: 1, now: at(3), lease: 30).first)
            _ = try await store.completeWebhookDelivery(claim.completion(.delivered, at: at(4)), now: at(4))
            #expect(try await store.pruneWebhookDeliveries(finishedBefore: at(4)) == 0, "delivered at 4, kept")
            #expect(try await store.pruneWebhookDeliveries(finishedBefore: at(5)) == 1, "the pending one stays")
            #expect(try await store.events(of: "wh_1").count == 1)
            // An event written for a subscription another server deleted meanwhile.
            try await store.write { db in try db.execute("DELETE FROM webhooks WHERE id = 'wh_1'") }
            #expect(try await store.pruneWebhookDeliveries(finishedBefore: at(5)) == 1)
            #expect(try await store.webhookRows() == 0)
        }
    }
}

/// Which claimer took which event, in the order they were handed out.
private final class HandOuts: Sendable {
    let entries = Mutex<[(webhook: String, event: String)]>([])
}

/// Thrown to roll a transaction back.
private struct Abort: Error {}

/// A subscription to `events` named `id`, with `secret-<id>` as its secret.
private func hook(_ id: String, _ events: [WebhookEventType], at time: Date = t0) -> WebhookRecord {
    WebhookRecord(id: id, url: "https://example.com/hooks", events: events, secret: "secret-" + id, createdAt: time)
}

/// An event body, decoded.
private struct EventBody {
    var type: String
    var data: [String: Any]

    init(_ body: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        type = try #require(object["type"] as? String)
        data = try #require(object["data"] as? [String: Any])
    }
}

extension ClaimedWebhookDelivery {
    /// The completion of this claim with `outcome`, for an attempt at `time`.
    fileprivate func completion(_ outcome: WebhookCompletion.Outcome, at time: Date) -> WebhookCompletion {
        WebhookCompletion(
            id: id, claimToken: claimToken,
            attempt: WebhookAttempt(
                attempt: attempt, at: time, durationMilliseconds: 1, httpStatus: outcome == .delivered ? 200 : 500,
                error: outcome == .delivered ? nil : "the receiver answered 500"),
            outcome: outcome)
    }
}

extension MigratedStore {
    /// Stores subscription `id` to `events`, without a cap.
    @discardableResult
    fileprivate func subscribe(_ id: String, _ events: [WebhookEventType], at time: Date = t0) async throws
        -> WebhookRecord
    {
        guard case .created(let record) = try await createWebhook(hook(id, events, at: time), maxCount: nil) else {
            throw StoreError(code: .invalidStoredValue, message: "not created")
        }
        return record
    }

    /// The deliveries of subscription `id`, newest first.
    fileprivate func events(of id: String) async throws -> [WebhookDeliveryRecord] {
        try await webhookDeliveries(webhookID: id, beforeSeq: nil, limit: 1_000)?.items ?? []
    }

    /// Webhook delivery rows of every subscription.
    fileprivate func webhookRows() async throws -> Int {
        try await read { db in
            try db.queryOne("SELECT COUNT(*) AS total FROM webhook_deliveries") { row throws(StoreError) in
                try row.int("total")
            } ?? 0
        }
    }
}

@Suite("Webhook outbox conformance: SQLite")
struct SQLiteWebhookConformanceTests {
    @Test("SQLite store", arguments: WebhookConformanceCheck.allCases)
    func conforms(_ check: WebhookConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Webhook outbox conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresWebhookConformanceTests {
    @Test("PostgreSQL store", arguments: WebhookConformanceCheck.allCases)
    func conforms(_ check: WebhookConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
