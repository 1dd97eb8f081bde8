import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldStore

/// What the route handlers share: the store, the live hub, auth, app config, the delivery
/// worker's wake signal and the clock.
struct Services: Sendable {
    let store: any HeraldStore
    let hub: LiveHub
    let auth: Authenticator
    let appConfig: AppConfigState
    let metrics: Metrics
    /// Wakes the delivery worker after a publish wrote delivery rows.
    let deliveryWake: WakeSignal
    /// Wakes the broadcast runner after a broadcast was stored.
    let broadcastWake: WakeSignal
    /// Wakes the attention runner after a scheduled publish or a digest change.
    let attentionWake: WakeSignal
    /// Broadcasts at once and publish size per API key (the call rate is the ``Authenticator``'s).
    let publisherLimits: PublisherLimits
    /// The apps a device may name (`appId`): the default and the apps file's.
    let appIDs: Set<String>
    let now: @Sendable () -> Date

    /// Refuses an `appId` this server has no credentials for (400 `unknown_app`); nil is the default app.
    func checkKnownApp(_ app: String?) throws {
        guard let app, !appIDs.contains(app) else { return }
        throw ValidationError(
            field: "appId", code: "unknown_app",
            message: "This server has no app \"\(app)\": \(appIDs.sorted().joined(separator: ", ")).")
    }

    /// Default preferences filled for the current catalog.
    func preferences(of userID: String) async throws -> Preferences {
        let catalog = appConfig.catalog
        let stored = try await store.preferences(userID: userID)
        return stored?.filled(catalog: catalog) ?? .defaults(catalog: catalog)
    }

    /// Read-modify-write of one user's preferences; answers them filled for the catalog.
    func updatePreferences(
        of userID: String, _ update: @escaping @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        let catalog = appConfig.catalog
        let saved = try await store.updatePreferences(userID: userID, initial: .defaults(catalog: catalog), update)
        return saved.filled(catalog: catalog)
    }
}

extension RequestContext {
    /// A path parameter the router matched; its absence is a routing bug.
    func parameter(_ name: String) -> String {
        guard let value = parameters[name] else {
            preconditionFailure("route has no parameter \(name)")
        }
        return value
    }
}
