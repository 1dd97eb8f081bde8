import Foundation
import HeraldModel
import HeraldServerModel

@testable import HeraldStore

/// Push options that ask for a push.
let pushed = PushOptions(send: true)

/// One claimer per store in `claimers` (the same store several times, or one store per
/// process), all claiming 7 due rows at a time until none is left: the ids each claimed, together.
func claimAll(by claimers: [some HeraldStore]) async throws -> [String] {
    try await withThrowingTaskGroup(of: [String].self) { group in
        for store in claimers {
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
}

extension HeraldStore {
    /// Registers an active APNs device `token` (or FCM when `android`) for `user`.
    func addDevice(
        _ token: String, user: String = "u1", android: Bool = false, app: String? = nil, at time: Date = at(-60)
    ) async throws {
        let registration = DeviceRegistration(
            token: token, provider: android ? .fcm : .apns, platform: android ? .android : .ios, appId: app)
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
