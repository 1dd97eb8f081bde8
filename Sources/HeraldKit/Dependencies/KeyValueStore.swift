import Foundation

/// Small persistent values on the device: dismissal markers, the update-prompt dismissal,
/// the last registered push token and its user.
public struct KeyValueStore: Sendable {
    public var string: @MainActor @Sendable (_ key: String) -> String?
    /// Stores `value` under `key`; `nil` removes it.
    public var setString: @MainActor @Sendable (_ value: String?, _ key: String) -> Void

    public init(
        string: @escaping @MainActor @Sendable (_ key: String) -> String?,
        setString: @escaping @MainActor @Sendable (_ value: String?, _ key: String) -> Void
    ) {
        self.string = string
        self.setString = setString
    }

    /// Whether a marker is set under `key`.
    @MainActor public func flag(_ key: String) -> Bool { string(key) != nil }
    /// Sets a marker under `key`.
    @MainActor public func setFlag(_ key: String) { setString("1", key) }

    /// Values kept in `UserDefaults`.
    public static func userDefaults(suiteName: String? = nil) -> KeyValueStore {
        KeyValueStore(
            string: { key in (suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard).string(forKey: key) },
            setString: { value, key in
                (suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard).set(value, forKey: key)
            }
        )
    }
}

/// The keys HeraldKit stores under, in one place.
public enum StorageKey {
    /// The permission soft-ask was dismissed (PERM-06).
    public static let permissionPromptDismissed = "herald.permissionPrompt.dismissed"
    /// The last push token registered with the backend (PUSH-05), for the user under
    /// ``registeredPushTokenUser`` (PUSH-04).
    public static let registeredPushToken = "herald.push.registeredToken"
    /// The user the token under ``registeredPushToken`` is registered for.
    public static let registeredPushTokenUser = "herald.push.registeredTokenUser"
    /// A token the backend may still hold for a user who signed out, because unregistering it
    /// failed (PUSH-13); for the user under ``stalePushTokenUser``.
    public static let stalePushToken = "herald.push.staleToken"
    /// The user the token under ``stalePushToken`` was registered for.
    public static let stalePushTokenUser = "herald.push.staleTokenUser"
}
