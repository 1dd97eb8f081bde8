import Foundation
import HeraldModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The live client of Herald's app API over URLSession.
///
/// Every call runs off the main actor (the methods are `nonisolated async`, and the JSON is
/// encoded and decoded there) and fails with a ``HeraldAPIError`` the screens act on:
/// `unauthenticated` (401, or no token), `notFound` (404), `offline`, `timeout`, `server` (5xx
/// or an unreadable answer) and `rejected` (another 4xx, with the server's `code`). A cancelled
/// task throws `CancellationError`. ``HeraldAPI/live(_:platform:)`` wraps it for the models.
public final class HeraldClient: Sendable {
    public let configuration: Configuration
    private let session: URLSession

    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout.timeoutInterval
        self.session = URLSession(configuration: sessionConfiguration)
    }

    /// A client of the server at `baseURL`; `token` answers the current user token (`nil`: guest).
    public convenience init(
        baseURL: URL, requestTimeout: Duration = .seconds(15), token: @escaping @Sendable () async -> String?
    ) {
        self.init(configuration: Configuration(baseURL: baseURL, requestTimeout: requestTimeout, token: token))
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    // MARK: Inbox

    /// `GET /v1/me/notifications`: one page, newest first. `cursor` is the previous page's
    /// `nextCursor`; `category` a catalog category (`nil` for all).
    public func notifications(cursor: String? = nil, category: String? = nil, limit: Int = 20) async throws
        -> NotificationPage
    {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        if let category { query.append(URLQueryItem(name: "category", value: category)) }
        return try await send("GET", ["v1", "me", "notifications"], query: query)
    }

    /// `GET /v1/me/notifications/{id}`: the notification with its detail.
    public func notification(id: String) async throws -> InboxNotification {
        try await send("GET", ["v1", "me", "notifications", id])
    }

    /// `POST /v1/me/notifications/{id}/read`: answers the notification with its `readAt`.
    public func markRead(id: String) async throws -> InboxNotification {
        try await send("POST", ["v1", "me", "notifications", id, "read"])
    }

    /// `POST /v1/me/notifications/{id}/opened`: the person opened the notification from its push;
    /// answers when it was first opened (idempotent).
    public func markOpened(id: String) async throws -> NotificationOpened {
        try await send("POST", ["v1", "me", "notifications", id, "opened"])
    }

    /// `POST /v1/me/notifications/seen`: the badge drops to 0; answers the counts.
    public func markAllSeen() async throws -> Counts {
        try await send("POST", ["v1", "me", "notifications", "seen"])
    }

    /// `DELETE /v1/me/notifications/{id}` (idempotent).
    public func delete(id: String) async throws {
        _ = try await exchange("DELETE", ["v1", "me", "notifications", id])
    }

    /// `GET /v1/me/counts`.
    public func counts() async throws -> Counts {
        try await send("GET", ["v1", "me", "counts"])
    }

    // MARK: Preferences

    /// `GET /v1/me/preferences`.
    public func preferences() async throws -> Preferences {
        try await send("GET", ["v1", "me", "preferences"])
    }

    /// `PATCH /v1/me/preferences`: answers the saved preferences.
    public func updatePreferences(_ patch: PreferencesPatch) async throws -> Preferences {
        try await send("PATCH", ["v1", "me", "preferences"], body: patch)
    }

    /// `GET /v1/me/sources`: the sources the user received notifications from, most recent first,
    /// each with whether the user muted its pushes.
    public func sources() async throws -> ReceivedSources {
        try await send("GET", ["v1", "me", "sources"])
    }

    /// `POST /v1/me/permission`: the OS answered the permission dialog.
    public func recordPermission(granted: Bool) async throws -> Preferences {
        try await send("POST", ["v1", "me", "permission"], body: PermissionDecision(granted: granted))
    }

    /// `POST /v1/me/permission/sync`: the start-up sync of the OS status.
    public func syncPermission(_ status: PermissionStatus) async throws -> Preferences {
        try await send("POST", ["v1", "me", "permission", "sync"], body: PermissionSync(status: status))
    }

    // MARK: Devices and events

    /// `POST /v1/me/devices`: registers (or moves) this device's push token.
    public func registerDevice(_ registration: DeviceRegistration) async throws -> Device {
        try await send("POST", ["v1", "me", "devices"], body: registration)
    }

    /// `DELETE /v1/me/devices/{token}`: unregisters the token (sign-out; idempotent).
    public func unregisterDevice(token: String) async throws {
        _ = try await exchange("DELETE", ["v1", "me", "devices", token])
    }

    /// `DELETE /v1/me/live-activities/{token}`: unregisters an ActivityKit token (sign-out; idempotent).
    public func unregisterLiveActivityToken(token: String) async throws {
        _ = try await exchange("DELETE", ["v1", "me", "live-activities", token])
    }

    /// `POST /v1/me/live-activities`: registers an ActivityKit token, an activity's update token or
    /// a push-to-start token (a token of another user moves to this one).
    public func registerLiveActivityToken(_ registration: LiveActivityTokenRegistration) async throws
        -> LiveActivityToken
    {
        try await send("POST", ["v1", "me", "live-activities"], body: registration)
    }

    /// `POST /v1/me/events`: one analytics batch (1 to 100 events).
    @discardableResult
    public func sendEvents(_ events: [AnalyticsEvent]) async throws -> AnalyticsEventReceipt {
        try await send("POST", ["v1", "me", "events"], body: AnalyticsEventBatch(events: events))
    }

    // MARK: App config

    /// `GET /v1/app-config` (no token): the update decision for this install, the deep-link
    /// allowlist and the catalog. Without `platform` and `installSource`, `update` is `nil`.
    public func appConfig(platform: DevicePlatform?, version: String?, installSource: String?) async throws
        -> AppConfigResponse
    {
        var query: [URLQueryItem] = []
        if let platform { query.append(URLQueryItem(name: "platform", value: platform.rawValue)) }
        if let version { query.append(URLQueryItem(name: "version", value: version)) }
        if let installSource { query.append(URLQueryItem(name: "installSource", value: installSource)) }
        return try await send("GET", ["v1", "app-config"], query: query, authenticated: false)
    }

    // MARK: Live stream

    /// `GET /v1/me/stream` as live events, reconnecting by itself (see ``ReconnectPolicy``)
    /// and resuming with `Last-Event-ID`. Ends with ``HeraldAPIError/Kind/unauthenticated`` when
    /// there is no token or the server refuses it; ending the iteration closes the connection.
    public func liveEvents() -> AsyncThrowingStream<LiveEvent, any Error> {
        LiveEventSource(
            url: url(["v1", "me", "stream"]), token: configuration.token, transport: .urlSession,
            policy: configuration.reconnect, idleTimeout: configuration.streamIdleTimeout
        ).events()
    }

    // MARK: Requests

    /// Sends a request and decodes the answer as `T`.
    private func send<T: Decodable>(
        _ method: String, _ path: [String], query: [URLQueryItem] = [], body: (any Encodable & Sendable)? = nil,
        authenticated: Bool = true
    ) async throws -> T {
        let (data, status) = try await exchange(method, path, query: query, body: body, authenticated: authenticated)
        do {
            return try WireJSON.decoder.decode(T.self, from: data)
        } catch {
            throw HeraldAPIError.unreadable(T.self, status: status, error)
        }
    }

    /// Sends a request; answers the body and status of a 2xx, throws ``HeraldAPIError`` otherwise.
    private func exchange(
        _ method: String, _ path: [String], query: [URLQueryItem] = [], body: (any Encodable & Sendable)? = nil,
        authenticated: Bool = true
    ) async throws -> (Data, Int) {
        var request = URLRequest(url: url(path, query: query))
        request.httpMethod = method
        request.timeoutInterval = configuration.requestTimeout.timeoutInterval
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if authenticated {
            guard let token = await configuration.token() else {
                throw HeraldAPIError.unauthenticated("Not signed in.")
            }
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = try WireJSON.encoder.encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw HeraldAPIError.transport(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HeraldAPIError(kind: .server, message: "The answer is not HTTP.")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw HeraldAPIError(status: http.statusCode, body: data)
        }
        return (data, http.statusCode)
    }

    /// `baseURL` + the percent-encoded path segments + the query.
    func url(_ segments: [String], query: [URLQueryItem] = []) -> URL {
        Self.url(base: configuration.baseURL, segments, query: query)
    }

    static func url(base: URL, _ segments: [String], query: [URLQueryItem] = []) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            preconditionFailure("baseURL \(base) is not a URL with components")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        for segment in segments {
            path += "/" + (segment.addingPercentEncoding(withAllowedCharacters: pathSegmentAllowed) ?? segment)
        }
        components.percentEncodedPath = path
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { item in
                let value = item.value?.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? ""
                return "\(item.name)=\(value)"
            }.joined(separator: "&")
        }
        guard let url = components.url else { preconditionFailure("cannot build a URL from \(components)") }
        return url
    }

    /// Unreserved characters (RFC 3986): everything else in a segment or value is escaped.
    private static let pathSegmentAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    private static let queryValueAllowed = pathSegmentAllowed
}
