import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Delivery claims on SQLite")
struct DeliveryClaimTests {

    @Test("two concurrent claimers never get the same row, and together get every row")
    func concurrentClaimers() async throws {
        try await withStore(readers: 4) { (store) async throws in
            try await store.addDevice("phone")
            try await store.addDevice("tablet")
            try await store.publishPushed((0..<100).map { "n\($0)" })
            let ids = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let batch = try await store.claimDueDeliveries(limit: 7, now: at(1), lease: 30)
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(ids.count == 200)
            #expect(Set(ids).count == 200)
        }
    }

}
