import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Broadcasts on SQLite")
struct BroadcastTests {
    @Test("a chunk of every user is a merge of ordered index searches: no full scan, no sort")
    func knownUsersPlan() async throws {
        try await withStore { (store) async throws in
            for index in 0..<30 {
                try await store.addDevice("tok-\(index)", user: "u\(index)")
                try await store.setPreferences("p\(index)") { $0.globalEnabled = true }
            }
            try await publish(store, ids: ["n1"], user: "c1")
            for _ in 0..<2 {
                let plan = try store.queryPlan(BroadcastStatements.knownUsersQuery(after: "m", limit: 500))
                let text = plan.joined(separator: " | ")
                #expect(!plan.contains { $0.hasPrefix("SCAN") }, "full scan: \(text)")
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sort: \(text)")
                #expect(plan.contains("MERGE (UNION)"), "\(text)")
                for table in ["devices", "preferences", "user_counters"] {
                    #expect(plan.contains { $0.hasPrefix("SEARCH \(table) USING COVERING INDEX") }, "\(text)")
                }
                let listed = try store.queryPlan(
                    BroadcastStatements.listedUsersQuery(broadcastID: "b", after: "m", limit: 500))
                #expect(listed.contains { $0.hasPrefix("SEARCH broadcast_users") }, "\(listed)")
                let claim = try store.queryPlan(
                    BroadcastStatements.claimableBroadcastQuery(now: t0, SQLiteConnection.self))
                #expect(claim.contains { $0.contains("broadcasts_unfinished") }, "\(claim)")
                try await store.write { db in try db.execute("ANALYZE") }
            }
        }
    }
}
