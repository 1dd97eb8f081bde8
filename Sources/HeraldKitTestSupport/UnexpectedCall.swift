import Foundation
import HeraldKit
import Testing

/// Fails the running test: a dependency was called that the test did not set up.
public func unexpectedCall(
    _ name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    Issue.record("Unexpected call to \(name)", sourceLocation: sourceLocation)
}

/// The error a failing dependency throws after recording the issue, so the model sees a failure.
public struct UnexpectedCallError: Error, Equatable, CustomStringConvertible {
    public let name: String
    public var description: String { "Unexpected call to \(name)" }
}

extension HeraldAPI {
    /// Every call fails the test. Replace the calls a test expects.
    public static var failing: HeraldAPI {
        HeraldAPI(
            notifications: { _, _, _ in throw fail("HeraldAPI.notifications") },
            notification: { _ in throw fail("HeraldAPI.notification") },
            markRead: { _ in throw fail("HeraldAPI.markRead") },
            markAllSeen: { throw fail("HeraldAPI.markAllSeen") },
            delete: { _ in throw fail("HeraldAPI.delete") },
            counts: { throw fail("HeraldAPI.counts") },
            preferences: { throw fail("HeraldAPI.preferences") },
            updatePreferences: { _ in throw fail("HeraldAPI.updatePreferences") },
            recordPermission: { _ in throw fail("HeraldAPI.recordPermission") },
            syncPermission: { _ in throw fail("HeraldAPI.syncPermission") },
            registerDevice: { _ in throw fail("HeraldAPI.registerDevice") },
            unregisterDevice: { _ in throw fail("HeraldAPI.unregisterDevice") },
            sendEvents: { _ in throw fail("HeraldAPI.sendEvents") },
            appConfig: { throw fail("HeraldAPI.appConfig") },
            liveEvents: {
                unexpectedCall("HeraldAPI.liveEvents")
                return AsyncThrowingStream { $0.finish(throwing: UnexpectedCallError(name: "HeraldAPI.liveEvents")) }
            },
            registerLiveActivityToken: { _ in throw fail("HeraldAPI.registerLiveActivityToken") },
            unregisterLiveActivityToken: { _ in throw fail("HeraldAPI.unregisterLiveActivityToken") },
            markOpened: { _ in throw fail("HeraldAPI.markOpened") },
            sources: { throw fail("HeraldAPI.sources") }
        )
    }
}

extension NotificationPermissionClient {
    /// Every call fails the test.
    public static var failing: NotificationPermissionClient {
        NotificationPermissionClient(
            state: { throw fail("NotificationPermissionClient.state") },
            request: { throw fail("NotificationPermissionClient.request") }
        )
    }
}

extension PushTokenClient {
    /// Every call fails the test.
    public static var failing: PushTokenClient {
        PushTokenClient(token: { throw fail("PushTokenClient.token") })
    }
}

extension SettingsOpener {
    /// Every call fails the test.
    public static var failing: SettingsOpener {
        SettingsOpener(openNotificationSettings: { unexpectedCall("SettingsOpener.openNotificationSettings") })
    }
}

extension Navigator {
    /// Every call fails the test.
    public static var failing: Navigator {
        Navigator(
            open: { path in throw fail("Navigator.open(\(path))") },
            openURL: { url in unexpectedCall("Navigator.openURL(\(url))") },
            presentSignIn: { unexpectedCall("Navigator.presentSignIn") }
        )
    }
}

extension AnalyticsClient {
    /// Every call fails the test.
    public static var failing: AnalyticsClient {
        AnalyticsClient(log: { name, _ in unexpectedCall("AnalyticsClient.log(\(name))") })
    }
}

extension KeyValueStore {
    /// Every call fails the test.
    public static var failing: KeyValueStore {
        KeyValueStore(
            string: { key in
                unexpectedCall("KeyValueStore.string(\(key))")
                return nil
            },
            setString: { _, key in unexpectedCall("KeyValueStore.setString(_, \(key))") }
        )
    }
}

extension HeraldClock {
    /// Every call fails the test.
    public static var failing: HeraldClock {
        HeraldClock(
            now: {
                unexpectedCall("HeraldClock.now")
                return Date(timeIntervalSince1970: 0)
            },
            sleep: { _ in throw fail("HeraldClock.sleep") }
        )
    }
}

extension HeraldDependencies {
    /// Every dependency fails the test when called; `platform` is an iOS device running 1.0.0.
    public static var failing: HeraldDependencies {
        HeraldDependencies(
            api: .failing, permission: .failing, pushToken: .failing, settings: .failing, navigator: .failing,
            analytics: .failing, storage: .failing, clock: .failing,
            platform: PlatformFacts(platform: .ios, appVersion: "1.0.0", installSource: .appStore)
        )
    }
}

/// Records the issue and answers the error to throw.
private func fail(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> UnexpectedCallError {
    unexpectedCall(name, sourceLocation: sourceLocation)
    return UnexpectedCallError(name: name)
}

extension AppShellClient {
    /// Every call fails the test.
    public static var failing: AppShellClient {
        AppShellClient(
            reloadAccount: { unexpectedCall("AppShellClient.reloadAccount") },
            signOut: { unexpectedCall("AppShellClient.signOut") },
            reloadApp: { unexpectedCall("AppShellClient.reloadApp") },
            setIconBadge: { count in unexpectedCall("AppShellClient.setIconBadge(\(count))") }
        )
    }
}
