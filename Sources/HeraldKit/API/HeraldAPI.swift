import Foundation
import HeraldModel

/// The app calls of Herald's HTTP contract, as the models use them.
///
/// A struct of closures so tests replace any call. The closures are main-actor isolated like
/// the models that call them; the live client (``HeraldClient``) does its work off the main actor.
public struct HeraldAPI: Sendable {
    /// `GET /v1/me/notifications`: one page, newest first.
    public var notifications:
        @MainActor @Sendable (_ cursor: String?, _ category: String?, _ limit: Int) async throws -> NotificationPage
    /// `GET /v1/me/notifications/{id}`: the notification with its detail.
    public var notification: @MainActor @Sendable (_ id: String) async throws -> InboxNotification
    /// `POST /v1/me/notifications/{id}/read`.
    public var markRead: @MainActor @Sendable (_ id: String) async throws -> InboxNotification
    /// `POST /v1/me/notifications/{id}/opened`: the person opened the notification from its push
    /// (idempotent; the first open is kept).
    public var markOpened: @MainActor @Sendable (_ id: String) async throws -> NotificationOpened
    /// `POST /v1/me/notifications/seen`: the badge drops to 0.
    public var markAllSeen: @MainActor @Sendable () async throws -> Counts
    /// `DELETE /v1/me/notifications/{id}`.
    public var delete: @MainActor @Sendable (_ id: String) async throws -> Void
    /// `GET /v1/me/counts`.
    public var counts: @MainActor @Sendable () async throws -> Counts
    /// `GET /v1/me/preferences`.
    public var preferences: @MainActor @Sendable () async throws -> Preferences
    /// `PATCH /v1/me/preferences`: answers the saved preferences.
    public var updatePreferences: @MainActor @Sendable (_ patch: PreferencesPatch) async throws -> Preferences
    /// `GET /v1/me/sources`: the sources the user received notifications from, most recent first.
    public var sources: @MainActor @Sendable () async throws -> ReceivedSources
    /// `POST /v1/me/permission`: the OS answered the dialog.
    public var recordPermission: @MainActor @Sendable (_ granted: Bool) async throws -> Preferences
    /// `POST /v1/me/permission/sync`: the start-up sync.
    public var syncPermission: @MainActor @Sendable (_ status: PermissionStatus) async throws -> Preferences
    /// `POST /v1/me/devices`.
    public var registerDevice: @MainActor @Sendable (_ registration: DeviceRegistration) async throws -> Device
    /// `DELETE /v1/me/devices/{token}`.
    public var unregisterDevice: @MainActor @Sendable (_ token: String) async throws -> Void
    /// `POST /v1/me/live-activities`: an ActivityKit token (an activity's, or push-to-start).
    public var registerLiveActivityToken:
        @MainActor @Sendable (_ registration: LiveActivityTokenRegistration) async throws -> LiveActivityToken
    /// `DELETE /v1/me/live-activities/{token}`: sign-out drops the user's ActivityKit token.
    public var unregisterLiveActivityToken: @MainActor @Sendable (_ token: String) async throws -> Void
    /// `POST /v1/me/events`.
    public var sendEvents: @MainActor @Sendable (_ events: [AnalyticsEvent]) async throws -> Void
    /// `GET /v1/app-config`.
    public var appConfig: @MainActor @Sendable () async throws -> AppConfigResponse
    /// `GET /v1/me/stream`: live events, reconnecting by itself with `Last-Event-ID`. The
    /// sequence ends with ``HeraldAPIError/Kind/unauthenticated`` when the session ends, and
    /// when the consuming task is cancelled.
    public var liveEvents: @MainActor @Sendable () -> AsyncThrowingStream<LiveEvent, any Error>

    public init(
        notifications: @escaping @MainActor @Sendable (String?, String?, Int) async throws -> NotificationPage,
        notification: @escaping @MainActor @Sendable (String) async throws -> InboxNotification,
        markRead: @escaping @MainActor @Sendable (String) async throws -> InboxNotification,
        markAllSeen: @escaping @MainActor @Sendable () async throws -> Counts,
        delete: @escaping @MainActor @Sendable (String) async throws -> Void,
        counts: @escaping @MainActor @Sendable () async throws -> Counts,
        preferences: @escaping @MainActor @Sendable () async throws -> Preferences,
        updatePreferences: @escaping @MainActor @Sendable (PreferencesPatch) async throws -> Preferences,
        recordPermission: @escaping @MainActor @Sendable (Bool) async throws -> Preferences,
        syncPermission: @escaping @MainActor @Sendable (PermissionStatus) async throws -> Preferences,
        registerDevice: @escaping @MainActor @Sendable (DeviceRegistration) async throws -> Device,
        unregisterDevice: @escaping @MainActor @Sendable (String) async throws -> Void,
        sendEvents: @escaping @MainActor @Sendable ([AnalyticsEvent]) async throws -> Void,
        appConfig: @escaping @MainActor @Sendable () async throws -> AppConfigResponse,
        liveEvents: @escaping @MainActor @Sendable () -> AsyncThrowingStream<LiveEvent, any Error>,
        registerLiveActivityToken:
            @escaping @MainActor @Sendable (LiveActivityTokenRegistration) async throws
            -> LiveActivityToken,
        unregisterLiveActivityToken: @escaping @MainActor @Sendable (String) async throws -> Void,
        markOpened: @escaping @MainActor @Sendable (String) async throws -> NotificationOpened,
        sources: @escaping @MainActor @Sendable () async throws -> ReceivedSources
    ) {
        self.unregisterLiveActivityToken = unregisterLiveActivityToken
        self.markOpened = markOpened
        self.sources = sources
        self.notifications = notifications
        self.notification = notification
        self.markRead = markRead
        self.markAllSeen = markAllSeen
        self.delete = delete
        self.counts = counts
        self.preferences = preferences
        self.updatePreferences = updatePreferences
        self.recordPermission = recordPermission
        self.syncPermission = syncPermission
        self.registerDevice = registerDevice
        self.unregisterDevice = unregisterDevice
        self.sendEvents = sendEvents
        self.appConfig = appConfig
        self.liveEvents = liveEvents
        self.registerLiveActivityToken = registerLiveActivityToken
    }
}
