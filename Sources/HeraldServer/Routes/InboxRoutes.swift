import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldStore

/// The app's inbox: list, detail, read, seen, delete and counts.
struct InboxRoutes {
    let services: Services

    /// Page size bounds of `GET /v1/me/notifications`.
    static let defaultLimit = 20
    static let maxLimit = 100

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/me/notifications", list)
            group.add(.POST, "/v1/me/notifications/seen", markAllSeen)
            group.add(.GET, "/v1/me/notifications/{id}", detail)
            group.add(.POST, "/v1/me/notifications/{id}/read", markRead)
            group.add(.POST, "/v1/me/notifications/{id}/opened", markOpened)
            group.add(.DELETE, "/v1/me/notifications/{id}", delete)
            group.add(.GET, "/v1/me/counts", counts)
        }
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let limit = try Self.limit(request.query["limit"])
        let beforeSeq = try Self.beforeSeq(request.query["cursor"])
        let category = try category(request.query["category"])
        let page = try await services.store.renderedInboxPage(
            userID: userID, category: category, beforeSeq: beforeSeq, limit: limit)
        return InboxJSON.response(page, nextCursor: page.hasMore ? page.lastSeq.map(InboxCursor.encode(seq:)) : nil)
    }

    @Sendable func detail(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        guard let item = try await services.store.notification(userID: userID, id: context.parameter("id")) else {
            throw HTTPError.notificationNotFound
        }
        return try Response.json(item)
    }

    @Sendable func markRead(_ request: Request, _ context: RequestContext) async throws -> Response {
        let outcome = try await change(request, context, services.store.markRead(userID:id:at:))
        return try Response.json(outcome.notification)
    }

    /// The user opened the notification from its push (every tap path of the app calls it):
    /// `{id, openedAt}`, the first open kept; 404 as for read.
    @Sendable func markOpened(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let id = context.parameter("id")
        guard let openedAt = try await services.store.markOpened(userID: userID, id: id, at: services.now()) else {
            throw HTTPError.notificationNotFound
        }
        return try Response.json(NotificationOpened(id: id, openedAt: openedAt))
    }

    @Sendable func markAllSeen(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let counts = try await services.store.markAllSeen(userID: userID, at: services.now())
        return try Response.json(counts)
    }

    @Sendable func delete(_ request: Request, _ context: RequestContext) async throws -> Response {
        _ = try await change(request, context, services.store.delete(userID:id:at:))
        return .noContent()
    }

    @Sendable func counts(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        return try Response.json(try await services.store.counts(userID: userID))
    }

    /// Applies a change to the caller's notification `{id}` (404 when it is not theirs, deleted
    /// or hidden); the store's change feed tells their open streams.
    private func change(
        _ request: Request, _ context: RequestContext,
        _ apply: (_ userID: String, _ id: String, _ at: Date) async throws -> ChangeOutcome?
    ) async throws -> ChangeOutcome {
        let userID = try context.user.id
        guard let outcome = try await apply(userID, context.parameter("id"), services.now()) else {
            throw HTTPError.notificationNotFound
        }
        return outcome
    }

    /// The `limit` query parameter of a list (the broadcast list takes the same).
    /// The sequence number a page's `cursor` continues before; `nil` without one, 400
    /// `invalid_cursor` for one this server did not issue. Every paged list reads it here.
    static func beforeSeq(_ raw: String?) throws -> Int64? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let seq = InboxCursor.decode(raw) else {
            throw HTTPError(400, code: "invalid_cursor", message: "`cursor` is not a cursor this server issued.")
        }
        return seq
    }

    static func limit(_ raw: String?) throws -> Int {
        guard let raw else { return defaultLimit }
        guard let limit = Int(raw), (1...maxLimit).contains(limit) else {
            throw HTTPError(
                400, code: "invalid_limit", message: "`limit` must be a whole number from 1 to \(maxLimit).")
        }
        return limit
    }

    /// `nil` or `all` for every type; otherwise a category of the catalog in force.
    private func category(_ raw: String?) throws -> String? {
        guard let raw, !raw.isEmpty, raw != "all" else { return nil }
        guard services.appConfig.catalog.category(id: raw) != nil else {
            throw HTTPError(
                400, code: "unknown_category", message: "`category` \"\(raw.prefix(64))\" is not a catalog category.")
        }
        return raw
    }
}

extension HTTPError {
    /// The one answer for a bad id, another user's notification, a deleted one or an admin one.
    static let notificationNotFound = HTTPError(404, code: "not_found", message: "No such notification.")
}
