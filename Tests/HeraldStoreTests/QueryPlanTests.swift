import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Query plans")
struct QueryPlanTests {
    /// Fills a store with several users, categories, deleted and hidden rows, so the planner
    /// has real choices to make.
    func populatedStore(_ body: (SQLiteStore) async throws -> Void) async throws {
        try await withStore { (store) async throws in
            let categories: [(String, String?)] = [
                ("order.shipped", "orders"), ("promo.flash", "promotions"), ("system.notice", nil),
                ("admin.audit", nil),
            ]
            var batch: [NewNotification] = []
            for index in 0..<2_000 {
                let (type, category) = categories[index % categories.count]
                batch.append(
                    note(
                        "n\(index)", user: "u\(index % 50)", type: type, category: category,
                        createdAt: at(Double(index))))
            }
            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
            for index in stride(from: 0, to: 2_000, by: 7) {
                _ = try await store.delete(userID: "u\(index % 50)", id: "n\(index)", at: at(5_000))
            }
            try await body(store)
            // Plans must hold with statistics too, as after `ANALYZE` on a large database.
            try await store.write { db in try db.execute("ANALYZE") }
            try await body(store)
        }
    }

    func expectSearch(
        _ plan: [String], using index: String, covering: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let text = plan.joined(separator: " | ")
        let usage = covering ? "USING COVERING INDEX \(index) " : "USING INDEX \(index) "
        #expect(
            plan.contains { $0.hasPrefix("SEARCH") && $0.contains(usage) }, "\(text)",
            sourceLocation: sourceLocation)
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "full scan: \(text)", sourceLocation: sourceLocation)
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sort: \(text)", sourceLocation: sourceLocation)
    }

    @Test("an inbox page is one range scan of the covering inbox index: no table lookups, no full scan, no sort")
    func inboxPagePlan() async throws {
        try await populatedStore { (store) async throws in
            for beforeSeq in [nil, Int64(1_000)] {
                let plan = try store.queryPlan(
                    InboxStatements.pageQuery(
                        userID: "u7", category: nil, beforeSeq: beforeSeq, limit: 21, SQLiteConnection.self))
                expectSearch(plan, using: "notifications_inbox", covering: true)
            }
        }
    }

    @Test("the page and its counts are one statement: the page's range scan of the covering index, the counts by key")
    func pageWithCountsPlan() async throws {
        try await populatedStore { (store) async throws in
            let plan = try store.queryPlan(
                InboxStatements.pageWithCountsQuery(
                    userID: "u7", category: nil, beforeSeq: nil, limit: 21, SQLiteConnection.self))
            let text = plan.joined(separator: "\n")
            #expect(
                plan.contains { $0.contains("SEARCH") && $0.contains("USING COVERING INDEX notifications_inbox") },
                "\(text)")
            #expect(plan.contains { $0.contains("SEARCH user_counters USING INDEX") }, "\(text)")
            #expect(
                !plan.contains { $0.contains("SCAN notifications") || $0.contains("SCAN user_counters") }, "\(text)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sort: \(text)")
        }
    }

    @Test("a category page reads through the partial category index: no full scan, no sort")
    func categoryPagePlan() async throws {
        try await populatedStore { (store) async throws in
            for beforeSeq in [nil, Int64(1_000)] {
                let plan = try store.queryPlan(
                    InboxStatements.pageQuery(
                        userID: "u7", category: "orders", beforeSeq: beforeSeq, limit: 21, SQLiteConnection.self))
                expectSearch(plan, using: "notifications_inbox_category")
            }
        }
    }

    @Test(
        "a delivery claim is one range scan of the covering due index; publish reads devices and preferences by index")
    func claimPlan() async throws {
        try await withStore { (store) async throws in
            for index in 0..<50 {
                try await store.addDevice("tok-\(index)", user: "u\(index)")
            }
            for round in 0..<20 {
                _ = try await store.publish(
                    (0..<50).map {
                        note("n\(round)-\($0)", user: "u\($0)", createdAt: at(Double(round)), push: pushed)
                    },
                    catalog: .standard, idempotency: nil)
            }
            for claim in try await store.claimDueDeliveries(limit: 600, now: at(100), lease: 30) {
                #expect(
                    try await store.completeDelivery(
                        id: claim.id, claimToken: claim.claimToken, outcome: .sent(providerMessageID: nil), now: at(101)
                    ))
            }
            let users = DeliveryStatements.jsonArray(["u1", "u2", "u3"])
            for _ in 0..<2 {
                expectSearch(
                    try store.queryPlan(
                        DeliveryStatements.dueDeliveriesQuery(now: at(200), limit: 100, SQLiteConnection.self)),
                    using: "deliveries_due", covering: true)
                for kind in DeliveryStatements.FinalOutcome.allCases {
                    let outcomes = #"[["d1","c1","v1",1700000000000,200]]"#
                    let plan = try store.queryPlan(
                        DeliveryStatements.recordQuery(kind, outcomes, now: at(200), SQLiteConnection.self))
                    #expect(
                        plan.contains {
                            $0.contains("SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 (id=?)")
                        } && !plan.contains { $0.hasPrefix("SCAN deliveries") },
                        "\(kind): \(plan)")
                }
                let devices = try store.queryPlan(OutboxStatements.activeDevicesQuery(users, SQLiteConnection.self))
                #expect(
                    devices.contains { $0.contains("SEARCH devices USING INDEX devices_user (user_id=?)") },
                    "\(devices)")
                let preferences = try store.queryPlan(OutboxStatements.preferencesQuery(users, SQLiteConnection.self))
                #expect(
                    preferences.contains {
                        $0.hasPrefix("SEARCH preferences USING INDEX sqlite_autoindex_preferences_1")
                    },
                    "\(preferences)")
                try await store.write { db in try db.execute("ANALYZE") }
            }
        }
    }

    @Test("stream resume and mark-all-seen read through their indexes")
    func otherPlans() async throws {
        try await populatedStore { (store) async throws in
            expectSearch(
                try store.queryPlan(InboxStatements.streamEventsQuery(userID: "u7", afterSeq: 10, limit: 100)),
                using: "stream_events_user")
            expectSearch(
                try store.queryPlan(InboxStatements.markAllSeenUpdate(userID: "u7", at: t0, SQLiteConnection.self)),
                using: "notifications_unseen")
        }
    }
}
