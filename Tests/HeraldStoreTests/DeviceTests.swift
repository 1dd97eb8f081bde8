import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Devices")
struct DeviceTests {
    let iphone = DeviceRegistration(
        token: "tok-1", provider: .apns, platform: .ios, appVersion: "1.2.0", locale: "nl-NL",
        timeZone: "Europe/Amsterdam")

    @Test("upsert registers a device; environment defaults to production")
    func register() async throws {
        try await withStore { (store) async throws in
            let device = try await store.upsertDevice(userID: "u1", iphone, at: at(1))
            #expect(
                device
                    == Device(
                        token: "tok-1", userId: "u1", provider: .apns, platform: .ios, environment: .production,
                        appVersion: "1.2.0", locale: "nl-NL", timeZone: "Europe/Amsterdam", active: true,
                        createdAt: at(1), updatedAt: at(1)))
            #expect(try await store.devices(userID: "u1") == [device])
        }
    }

    @Test("upsert of a known token updates it in place and keeps createdAt")
    func updateInPlace() async throws {
        try await withStore { (store) async throws in
            _ = try await store.upsertDevice(userID: "u1", iphone, at: at(1))
            var changed = iphone
            changed.appVersion = "1.3.0"
            changed.environment = .development
            let device = try await store.upsertDevice(userID: "u1", changed, at: at(50))
            #expect(device.appVersion == "1.3.0")
            #expect(device.environment == .development)
            #expect(device.createdAt == at(1))
            #expect(device.updatedAt == at(50))
            #expect(try await store.devices(userID: "u1").count == 1)
        }
    }

    @Test("a token registered under another user moves to the new user and becomes active")
    func tokenMoves() async throws {
        try await withStore { (store) async throws in
            _ = try await store.upsertDevice(userID: "alice", iphone, at: at(1))
            // As if push delivery had deactivated the token.
            try store.write { db in try db.execute("UPDATE devices SET active = 0 WHERE token = \("tok-1")") }
            #expect(try await store.devices(userID: "alice").first?.active == false)
            let moved = try await store.upsertDevice(userID: "bob", iphone, at: at(10))
            #expect(moved.userId == "bob")
            #expect(moved.active)
            #expect(moved.createdAt == at(10))
            #expect(try await store.devices(userID: "alice").isEmpty)
            #expect(try await store.devices(userID: "bob") == [moved])
        }
    }

    @Test("delete removes only this user's token")
    func deleteOwnOnly() async throws {
        try await withStore { (store) async throws in
            _ = try await store.upsertDevice(userID: "alice", iphone, at: at(1))
            #expect(try await store.deleteDevice(userID: "bob", token: "tok-1") == false)
            #expect(try await store.devices(userID: "alice").count == 1)
            #expect(try await store.deleteDevice(userID: "alice", token: "tok-1"))
            #expect(try await store.deleteDevice(userID: "alice", token: "tok-1") == false)
            #expect(try await store.devices(userID: "alice").isEmpty)
        }
    }

    @Test("devices are listed newest first")
    func newestFirst() async throws {
        try await withStore { (store) async throws in
            _ = try await store.upsertDevice(userID: "u1", iphone, at: at(1))
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: "tok-2", provider: .fcm, platform: .android), at: at(2))
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: "tok-3", provider: .expo, platform: .ios), at: at(3))
            _ = try await store.upsertDevice(
                userID: "u2", DeviceRegistration(token: "tok-4", provider: .fcm, platform: .android), at: at(4))
            #expect(try await store.devices(userID: "u1").map(\.token) == ["tok-3", "tok-2", "tok-1"])
            // Registering again makes it the newest.
            _ = try await store.upsertDevice(userID: "u1", iphone, at: at(5))
            #expect(try await store.devices(userID: "u1").map(\.token) == ["tok-1", "tok-3", "tok-2"])
        }
    }
}
