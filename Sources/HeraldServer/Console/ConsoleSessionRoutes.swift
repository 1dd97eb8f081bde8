import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldStore

/// A console sign-in found from its cookie: the session, the key it stands for, and the CSRF
/// token every state-changing call must carry.
struct ConsoleSignIn: Sendable {
    let session: ConsoleSessionRecord
    let key: APIKeyRecord
    let csrfToken: String
    let expiresAt: Date
}

/// The console's session cookie and CSRF token. The cookie holds a random secret; the store
/// keeps only its SHA-256, and the CSRF token is an HMAC of the secret, so it is never stored
/// and a page of another origin, which cannot read the cookie, cannot compute it.
enum ConsoleSessions {
    static let cookieName = "herald_console"
    static let csrfHeader = "X-CSRF-Token"

    static func makeSecret() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    static func hash(_ secret: String) -> String { Hex.encode(SHA256.hash(secret)) }

    static func csrfToken(_ secret: String) -> String {
        Hex.encode(HMAC.sha256(key: Array(secret.utf8), message: "herald-console-csrf"))
    }

    /// The session secret of the request's `Cookie` header, `nil` when it has none.
    static func secret(in request: Request) -> String? {
        guard let header = request.headers["Cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimming(where: \.isSpaceOrTab) == cookieName else { continue }
            let value = parts[1].trimming(where: \.isSpaceOrTab)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// What a call that changes something must show besides the cookie: it comes from this
    /// origin (``checkOrigin(_:)``) and carries the session's CSRF token.
    static func checkChange(_ request: Request, by signedIn: ConsoleSignIn) throws {
        try checkOrigin(request)
        try checkCSRF(request, expected: signedIn.csrfToken)
    }

    /// 403 `csrf_token_invalid` unless `X-CSRF-Token` is the session's token.
    private static func checkCSRF(_ request: Request, expected: String) throws {
        guard let sent = request.headers[csrfHeader], ConstantTime.equals(Array(sent.utf8), Array(expected.utf8))
        else {
            throw HTTPError(
                403, code: "csrf_token_invalid",
                message: "A console call that changes something must send the session's CSRF token in X-CSRF-Token.")
        }
    }

    /// 403 `origin_refused` when the browser says the call comes from a page of another origin
    /// (`Origin` names another host than `Host`, or is `null`): a page elsewhere can neither sign
    /// a visitor in with a key of its choosing nor act with their session. Clients that send
    /// no `Origin` (curl, servers) are not browsers acting for a visitor and pass.
    static func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers["Origin"] else { return }
        let authority = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
        guard let host = request.headers["Host"], let authority, origin.contains("://"),
            authority.lowercased() == host.lowercased()
        else {
            throw HTTPError(
                403, code: "origin_refused", message: "A console call must come from a page of this server's origin.")
        }
    }

    /// The `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, for the whole origin, and `Secure`
    /// when the request came over TLS (a proxy in front says so with `X-Forwarded-Proto: https`).
    static func cookie(_ value: String, maxAge: Int, request: Request) -> String {
        let secure = request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "; Secure" : ""
        return "\(cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict\(secure)"
    }
}

/// The body of `POST /console/session`.
struct ConsoleSignInRequest: Decodable {
    let apiKey: String
}

/// `POST /console/session` signs in with a publisher API key, `GET` answers the current
/// session (and its CSRF token, for a reloaded page), `DELETE` signs out.
struct ConsoleSessionRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.add(.POST, "/console/session", signIn)
        router.add(.GET, "/console/session", current)
        router.add(.DELETE, "/console/session", signOut)
    }

    private struct SessionBody: Encodable {
        struct Key: Encodable {
            let id: String
            let name: String
        }
        let csrfToken: String
        let key: Key
        let expiresAt: Date
    }

    @Sendable func signIn(_ request: Request, _ context: RequestContext) async throws -> Response {
        try ConsoleSessions.checkOrigin(request)
        let body = try JSONBody.decode(ConsoleSignInRequest.self, from: request)
        guard let key = try await services.store.apiKey(hash: APIKeys.hash(body.apiKey)) else {
            throw HTTPError(
                401, code: "invalid_credential", message: "The API key is not valid: it is unknown or was revoked.")
        }
        let now = services.now()
        let secret = ConsoleSessions.makeSecret()
        let session = ConsoleSessionRecord(
            hash: ConsoleSessions.hash(secret), apiKeyID: key.id, createdAt: now, lastSeenAt: now)
        try await services.store.createConsoleSession(session)
        let lifetime = services.auth.consoleSessions.lifetime
        let signedIn = ConsoleSignIn(
            session: session, key: key, csrfToken: ConsoleSessions.csrfToken(secret),
            expiresAt: now.addingTimeInterval(lifetime))
        var response = try Self.answer(signedIn, status: 201)
        response.headers["Set-Cookie"] = ConsoleSessions.cookie(secret, maxAge: Int(lifetime), request: request)
        return response
    }

    @Sendable func current(_ request: Request, _ context: RequestContext) async throws -> Response {
        try Self.answer(try await signedIn(request), status: 200)
    }

    @Sendable func signOut(_ request: Request, _ context: RequestContext) async throws -> Response {
        let signedIn = try await signedIn(request)
        try ConsoleSessions.checkChange(request, by: signedIn)
        _ = try await services.store.deleteConsoleSession(hash: signedIn.session.hash)
        var response = Response.noContent()
        response.headers["Set-Cookie"] = ConsoleSessions.cookie("", maxAge: 0, request: request)
        return response
    }

    private func signedIn(_ request: Request) async throws -> ConsoleSignIn {
        try await services.auth.consoleSession(request, missing: "Not signed in to the console.")
    }

    /// The session as JSON, never stored by a cache (it carries the CSRF token).
    private static func answer(_ signedIn: ConsoleSignIn, status: Int) throws -> Response {
        var response = try Response.json(
            SessionBody(
                csrfToken: signedIn.csrfToken, key: SessionBody.Key(id: signedIn.key.id, name: signedIn.key.name),
                expiresAt: signedIn.expiresAt),
            status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
