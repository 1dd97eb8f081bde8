import HeraldModel

extension HeraldAPI {
    /// The API over a live ``HeraldClient``. The closures hop off the main actor for the work
    /// and come back with the result. `platform` fills in the app-config query (platform,
    /// installed version, install source); without it `appConfig` carries no update decision.
    public static func live(_ client: HeraldClient, platform: PlatformFacts? = nil) -> HeraldAPI {
        HeraldAPI(
            notifications: { cursor, category, limit in
                try await client.notifications(cursor: cursor, category: category, limit: limit)
            },
            notification: { id in try await client.notification(id: id) },
            markRead: { id in try await client.markRead(id: id) },
            markAllSeen: { try await client.markAllSeen() },
            delete: { id in try await client.delete(id: id) },
            counts: { try await client.counts() },
            preferences: { try await client.preferences() },
            updatePreferences: { patch in try await client.updatePreferences(patch) },
            recordPermission: { granted in try await client.recordPermission(granted: granted) },
            syncPermission: { status in try await client.syncPermission(status) },
            registerDevice: { registration in try await client.registerDevice(registration) },
            unregisterDevice: { token in try await client.unregisterDevice(token: token) },
            sendEvents: { events in try await client.sendEvents(events) },
            appConfig: {
                try await client.appConfig(
                    platform: platform?.platform, version: platform?.appVersion,
                    installSource: platform?.installSource?.queryValue)
            },
            liveEvents: { client.liveEvents() },
            registerLiveActivityToken: { registration in try await client.registerLiveActivityToken(registration) },
            unregisterLiveActivityToken: { token in try await client.unregisterLiveActivityToken(token: token) },
            markOpened: { id in try await client.markOpened(id: id) },
            sources: { try await client.sources() }
        )
    }
}

extension PlatformFacts.InstallSource {
    /// The `installSource` the server's update policy reads; `nil` when unknown (no decision).
    public var queryValue: String? {
        switch self {
        case .appStore: "app_store"
        case .testFlight: "testflight"
        case .playStore: "play_store"
        case .sideloaded: "sideload"
        case .unknown: nil
        }
    }
}
