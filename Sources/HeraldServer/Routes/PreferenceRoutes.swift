import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldServerModel

/// Preferences, the OS permission decision and the start-up permission sync.
struct PreferenceRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/me/preferences", read)
            group.add(.PATCH, "/v1/me/preferences", patch)
            group.add(.POST, "/v1/me/permission", recordDecision)
            group.add(.POST, "/v1/me/permission/sync", sync)
            group.add(.GET, "/v1/me/sources", sources)
        }
    }

    /// The sources the user has received notifications from, for one switch each.
    @Sendable func sources(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        return try Response.json(ReceivedSources(items: try await services.store.sources(userID: userID)))
    }

    @Sendable func read(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        return try Response.json(try await services.preferences(of: userID))
    }

    @Sendable func patch(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let patch = try JSONBody.decode(PreferencesPatch.self, from: request)
        try patch.validate(catalog: services.appConfig.catalog)
        let now = services.now()
        try patch.validateSnooze(now: now)
        let saved = try await services.updatePreferences(of: userID) { $0 = $0.applying(patch) }
        if patch.digest != nil || patch.timeZone != nil {
            // What the digest holds goes out at its new time; at once when it was turned off.
            let zone = LocalTime.zone(preferred: saved.timeZone, fallback: nil)
            let due = PushPolicy.digestTime(saved, now: now, zone: zone) ?? now
            if try await services.store.rescheduleDigest(userID: userID, at: due) { services.attentionWake.wake() }
        }
        if let snooze = patch.snoozedUntil {
            // A snooze ended or moved sooner: what it held is due at its new end (now, if gone),
            // unless quiet hours hold it then, as they would a push published at that moment.
            let end = max(now, snooze ?? now)
            let due = saved.quietHours?.end(ifContaining: end) ?? end
            if try await services.store.releaseSnoozedDeliveries(userID: userID, due: due, now: now) > 0 {
                services.deliveryWake.wake()
            }
        }
        return try Response.json(saved)
    }

    @Sendable func recordDecision(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let decision = try JSONBody.decode(PermissionDecision.self, from: request)
        let saved = try await services.updatePreferences(of: userID) { $0 = $0.recording(decision: decision.granted) }
        return try Response.json(saved)
    }

    /// SYNC-01..03: the OS status read at app start brings the stored switch in line.
    @Sendable func sync(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let sync = try JSONBody.decode(PermissionSync.self, from: request)
        let current = try await services.preferences(of: userID)
        guard current.syncing(status: sync.status) != nil else {
            return try Response.json(current)
        }
        let saved = try await services.updatePreferences(of: userID) { stored in
            if let synced = stored.syncing(status: sync.status) { stored = synced }
        }
        return try Response.json(saved)
    }
}
