import FoundationEssentials
import HeraldCrypto
import Synchronization

/// The OAuth2 access token for FCM HTTP v1, got by exchanging an RS256 service-account
/// assertion at the account's `token_uri` and cached until ``refreshMargin`` before it
/// expires (or half its lifetime, for a token that lives less than twice the margin).
/// Concurrent callers that find no usable token share one exchange.
public final class FCMAccessTokenCache: Sendable {
    /// The scope FCM HTTP v1 requires.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The grant type of a JWT-bearer assertion (RFC 7523).
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The assertion's lifetime; Google allows at most an hour.
    public static let assertionLifetime: Int64 = 3_600

    private struct Token {
        var value: String
        /// When the token is replaced: before it expires, by the margin.
        var refreshAt: Date
    }

    private struct State {
        var token: Token?
        var exchange: (id: UInt64, task: Task<Token, any Error>)?
        var nextID: UInt64 = 0
    }

    private let account: FCMServiceAccount
    private let send: HTTP2Exchange
    private let clock: @Sendable () -> Date
    /// How long before its expiry a token is replaced.
    public let refreshMargin: TimeInterval
    private let state = Mutex(State())

    /// A cache for `account` that exchanges through `send`; `clock` tells the time.
    public init(
        account: FCMServiceAccount, refreshMargin: TimeInterval = 300,
        clock: @escaping @Sendable () -> Date = Date.init, send: @escaping HTTP2Exchange
    ) {
        precondition(refreshMargin >= 0, "refreshMargin must not be negative")
        self.account = account
        self.refreshMargin = refreshMargin
        self.clock = clock
        self.send = send
    }

    /// The access token for `authorization: Bearer`. Throws ``PushAuthError`` when the
    /// endpoint refuses the assertion or answers nonsense, or the exchange's transport error.
    public func accessToken() async throws -> String {
        let now = clock()
        let step: Step = state.withLock { state in
            if let token = state.token, now < token.refreshAt {
                return .cached(token.value)
            }
            if let running = state.exchange { return .join(id: running.id, task: running.task) }
            state.nextID += 1
            let task = Task { try await self.exchange() }
            state.exchange = (state.nextID, task)
            return .join(id: state.nextID, task: task)
        }
        switch step {
        case .cached(let token): return token
        case .join(let id, let task): return try await finish(id: id, task: task).value
        }
    }

    private enum Step {
        case cached(String)
        case join(id: UInt64, task: Task<Token, any Error>)
    }

    /// Drops `token` after FCM refused it (401), so the next call exchanges anew. A token
    /// other than the cached one changes nothing.
    public func rejected(_ token: String) {
        state.withLock { state in
            if state.token?.value == token { state.token = nil }
        }
    }

    private func finish(id: UInt64, task: Task<Token, any Error>) async throws -> Token {
        let result = await task.result
        state.withLock { state in
            guard state.exchange?.id == id else { return }
            state.exchange = nil
            if case .success(let token) = result { state.token = token }
        }
        return try result.get()
    }

    /// One assertion-for-token exchange.
    private func exchange() async throws -> Token {
        let started = clock()
        let iat = Int64(started.timeIntervalSince1970.rounded(.down))
        let assertion = try JWT.sign(
            header: ["kid": account.privateKeyID, "typ": "JWT"],
            claims: ServiceAccountAssertionClaims(
                iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI.absoluteString, iat: iat,
                exp: iat + Self.assertionLifetime),
            key: account.privateKey)
        let body = FormEncoding.encode([("grant_type", Self.grantType), ("assertion", assertion)])
        let response = try await send(
            HTTP2Request(
                method: "POST", url: account.tokenURI.absoluteString,
                headers: [
                    HTTP2Header("content-type", "application/x-www-form-urlencoded"),
                    HTTP2Header("accept", "application/json"),
                ],
                body: Array(body.utf8)))
        return try Self.token(from: response, requestedAt: started, margin: refreshMargin)
    }

    private struct TokenResponse: Decodable {
        var access_token: String?
        var expires_in: Double?
        var token_type: String?
        var error: String?
        var error_description: String?
    }

    /// The token in an OAuth2 token response; its lifetime counts from `requestedAt`.
    private static func token(from response: HTTP2Response, requestedAt: Date, margin: TimeInterval) throws
        -> Token
    {
        let decoded = try? JSONDecoder().decode(TokenResponse.self, from: Data(response.body))
        guard (200..<300).contains(response.status) else {
            let error = decoded?.error ?? "HTTP \(response.status)"
            let description = decoded?.error_description.map { ": \($0.prefix(200))" } ?? ""
            throw PushAuthError(.tokenRequestRejected, "\(error.prefix(60))\(description)")
        }
        guard let decoded else { throw PushAuthError(.malformedTokenResponse, "body is not a JSON object") }
        guard let value = decoded.access_token, !value.isEmpty else {
            throw PushAuthError(.malformedTokenResponse, "no access_token")
        }
        guard let expiresIn = decoded.expires_in, expiresIn.isFinite, expiresIn > 0 else {
            throw PushAuthError(.malformedTokenResponse, "expires_in is not a positive number")
        }
        guard decoded.token_type?.lowercased() == "bearer" else {
            throw PushAuthError(.malformedTokenResponse, "token_type is not Bearer")
        }
        return Token(value: value, refreshAt: requestedAt.addingTimeInterval(max(expiresIn - margin, expiresIn / 2)))
    }
}
