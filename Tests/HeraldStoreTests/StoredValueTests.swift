import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Stored values")
struct StoredValueTests {
    @Test("a stored value the model cannot read throws invalidStoredValue with the SQL")
    func corruptRows() async throws {
        try await withStore { (store) async throws in
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: "t", provider: .apns, platform: .ios), at: t0)
            try await store.write { db in try db.execute("UPDATE devices SET provider = \("pigeon")") }
            let error = try await #require(throws: StoreError.self) { try await store.devices(userID: "u1") }
            #expect(error.code == .invalidStoredValue)
            #expect(error.sql?.contains("FROM devices") == true)

            try await publish(store, ids: ["n1"])
            try await store.write { db in try db.execute("UPDATE notifications SET data = \("not json")") }
            let jsonError = try await #require(throws: StoreError.self) {
                try await store.notification(userID: "u1", id: "n1")
            }
            #expect(jsonError.code == .invalidStoredValue)
            #expect(!jsonError.description.contains("not json"))
        }
    }
}
