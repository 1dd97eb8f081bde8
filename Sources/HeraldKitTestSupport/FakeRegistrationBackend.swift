import Foundation
import HeraldKit
import HeraldModel

/// The backend's permission and device calls, answering like the server: it keeps the user's
/// preferences (recording decisions and applying the start-up sync rules) and records every
/// call. Install only the calls a test expects on ``HeraldAPI/failing``.
@MainActor public final class FakeRegistrationBackend {
    /// The stored preferences that ``recordPermission`` and ``syncPermission`` change.
    public var preferences: Preferences
    /// When set, ``registerDevice`` throws it.
    public var registerError: (any Error)?
    /// When set, ``unregisterDevice`` throws it.
    public var unregisterError: (any Error)?
    /// When set, ``syncPermission`` throws it.
    public var syncError: (any Error)?
    public private(set) var decisions: [Bool] = []
    public private(set) var syncs: [PermissionStatus] = []
    public private(set) var registrations: [DeviceRegistration] = []
    public private(set) var unregistered: [String] = []
    /// When set, ``registerLiveActivityToken`` throws it (and takes it back after throwing it
    /// `liveActivityFailures` times, when that is set).
    public var liveActivityError: (any Error)?
    public var liveActivityFailures: Int?
    public private(set) var liveActivityRegistrations: [LiveActivityTokenRegistration] = []
    /// The Live Activity tokens unregistered, in order.
    public private(set) var liveActivityUnregistered: [String] = []

    public init(preferences: Preferences = Preferences()) {
        self.preferences = preferences
    }

    /// `POST /v1/me/permission`.
    public var recordPermission: @MainActor @Sendable (Bool) async throws -> Preferences {
        { [self] granted in
            decisions.append(granted)
            preferences = preferences.recording(decision: granted)
            return preferences
        }
    }

    /// `POST /v1/me/permission/sync`.
    public var syncPermission: @MainActor @Sendable (PermissionStatus) async throws -> Preferences {
        { [self] status in
            syncs.append(status)
            if let syncError { throw syncError }
            preferences = preferences.syncing(status: status) ?? preferences
            return preferences
        }
    }

    /// `POST /v1/me/devices`.
    public var registerDevice: @MainActor @Sendable (DeviceRegistration) async throws -> Device {
        { [self] registration in
            registrations.append(registration)
            if let registerError { throw registerError }
            return Device(
                token: registration.token, userId: "user-1", provider: registration.provider,
                platform: registration.platform, environment: registration.environment ?? .production,
                appVersion: registration.appVersion, locale: registration.locale, timeZone: registration.timeZone,
                active: true, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        }
    }

    /// `POST /v1/me/live-activities`.
    public var registerLiveActivityToken:
        @MainActor @Sendable (LiveActivityTokenRegistration) async throws -> LiveActivityToken
    {
        { [self] registration in
            liveActivityRegistrations.append(registration)
            if let liveActivityError {
                if let remaining = liveActivityFailures {
                    liveActivityFailures = remaining - 1
                    if remaining <= 1 { self.liveActivityError = nil }
                }
                throw liveActivityError
            }
            return LiveActivityToken(
                token: registration.token, kind: registration.resolvedKind, attributesType: registration.attributesType,
                activityId: registration.activityId, userId: "user-1",
                environment: registration.environment ?? .production,
                active: true, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        }
    }

    /// `DELETE /v1/me/live-activities/{token}`.
    public var unregisterLiveActivityToken: @MainActor @Sendable (String) async throws -> Void {
        { [self] token in liveActivityUnregistered.append(token) }
    }

    /// `DELETE /v1/me/devices/{token}`.
    public var unregisterDevice: @MainActor @Sendable (String) async throws -> Void {
        { [self] token in
            unregistered.append(token)
            if let unregisterError { throw unregisterError }
        }
    }
}
