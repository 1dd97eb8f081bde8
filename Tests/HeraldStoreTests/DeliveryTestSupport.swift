import Foundation
import HeraldModel
import HeraldServerModel

@testable import HeraldStore

/// Push options that ask for a push.
let pushed = PushOptions(send: true)

extension HeraldStore {
    /// Registers an active APNs device `token` (or FCM when `android`) for `user`.
    func addDevice(_ token: String, user: String = "u1", android: Bool = false, at time: Date = at(-60)) async throws {
        let registration = DeviceRegistration(
            token: token, provider: android ? .fcm : .apns, platform: android ? .android : .ios)
        _ = try await upsertDevice(userID: user, registration, at: time)
    }

    /// Stores preferences for `user`, changed by `change` from the defaults.
    func setPreferences(_ user: String = "u1", _ change: @Sendable (inout Preferences) -> Void) async throws {
        _ = try await updatePreferences(userID: user, initial: Preferences(), change)
    }

    /// Publishes one notification per id, each with `push`, all created at `createdAt`.
    func publishPushed(
        _ ids: [String], user: String = "u1", type: String = "order.shipped", category: String? = "orders",
        push: PushOptions = pushed, createdAt: Date = t0
    ) async throws {
        _ = try await publish(
            ids.map { note($0, user: user, type: type, category: category, createdAt: createdAt, push: push) },
            catalog: .standard, idempotency: nil)
    }

    /// `(device token, status, reason)` of every delivery of `notificationID`, sorted by token.
    func deliverySummary(_ notificationID: String) async throws -> [Summary] {
        try await deliveries(notificationID: notificationID)
            .map { Summary(token: $0.deviceToken, status: $0.status, reason: $0.reason) }
            .sorted { ($0.token ?? "") < ($1.token ?? "") }
    }
}

/// What a test compares of a delivery.
struct Summary: Equatable {
    var token: String?
    var status: DeliveryStatus
    var reason: String?
}
