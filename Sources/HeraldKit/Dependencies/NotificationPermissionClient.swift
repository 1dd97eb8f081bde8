/// The OS notification authorization, with the iOS statuses.
public enum NotificationAuthorization: String, Sendable, Equatable, CaseIterable {
    case notDetermined, denied, authorized, provisional, ephemeral

    /// Whether the app may post notifications (authorized, provisional or ephemeral).
    public var isGranted: Bool {
        switch self {
        case .authorized, .provisional, .ephemeral: true
        case .notDetermined, .denied: false
        }
    }
}

/// What the OS says about notification permission right now.
public struct NotificationPermissionState: Sendable, Equatable {
    public var authorization: NotificationAuthorization
    /// Whether asking would show the OS dialog. iOS: only while `notDetermined`. Android: the
    /// `canAskAgain` flag (an Android 13 app that never asked reports `denied` with `true`).
    public var canAskAgain: Bool

    public init(authorization: NotificationAuthorization, canAskAgain: Bool) {
        self.authorization = authorization
        self.canAskAgain = canAskAgain
    }

    public var isGranted: Bool { authorization.isGranted }
    /// Denied and the OS will not show its dialog again: only Settings can change it.
    public var isBlockedBySystem: Bool { !isGranted && !canAskAgain }

    /// iOS never asked.
    public static let notDetermined = NotificationPermissionState(authorization: .notDetermined, canAskAgain: true)
    /// iOS granted.
    public static let authorized = NotificationPermissionState(authorization: .authorized, canAskAgain: false)
    /// Denied for good (iOS after a refusal; Android when it will not ask again).
    public static let blocked = NotificationPermissionState(authorization: .denied, canAskAgain: false)
    /// Android: denied, but the OS dialog can still be shown.
    public static let deniedCanAskAgain = NotificationPermissionState(authorization: .denied, canAskAgain: true)
}

/// The OS notification permission (UNUserNotificationCenter, Android's POST_NOTIFICATIONS).
public struct NotificationPermissionClient: Sendable {
    /// The current state, without asking.
    public var state: @MainActor @Sendable () async throws -> NotificationPermissionState
    /// Shows the OS dialog (when the OS still shows it) and answers the state after it.
    public var request: @MainActor @Sendable () async throws -> NotificationPermissionState

    public init(
        state: @escaping @MainActor @Sendable () async throws -> NotificationPermissionState,
        request: @escaping @MainActor @Sendable () async throws -> NotificationPermissionState
    ) {
        self.state = state
        self.request = request
    }
}
