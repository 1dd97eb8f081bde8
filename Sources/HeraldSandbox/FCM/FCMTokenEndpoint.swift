import FoundationEssentials
import HeraldCrypto
import HeraldModel
import Synchronization

/// The OAuth2 token endpoint of the FCM look-alike (`POST /token`), as strict as Google's for a
/// service-account JWT-bearer grant: a form body with `grant_type` and `assertion`, an RS256
/// assertion the account's public key verifies (its `kid`, when the header has one, the
/// account's key id), `iss` the account's email, `aud` Google's token endpoint
/// (`https://oauth2.googleapis.com/token`, what google-auth always sends) or this endpoint's
/// URL (the account's `token_uri`), a scope that includes FCM's or `cloud-platform`, and
/// `iat`/`exp` at most an hour apart around now. It remembers the access tokens it issued so
/// that sends can check them.
final class FCMTokenEndpoint: Sendable {
    static let path = "/token"
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The scopes that allow sending: FCM's own, or every Google Cloud API.
    static let sendingScopes: Set<Substring> = [Substring(scope), "https://www.googleapis.com/auth/cloud-platform"]
    /// The audience Google documents for an assertion, whatever URL it is posted to.
    static let googleAudience = "https://oauth2.googleapis.com/token"
    /// The lifetime of an issued token, as Google's.
    static let tokenLifetime = 3_599
    /// Clock skew allowed for an `iat` in the future.
    static let futureLeeway: Int64 = 60

    private struct State {
        /// Issued access tokens and when each expires.
        var issued: [String: Date] = [:]
        var exchanges = 0
    }

    private let publicKey: SigningKey
    private let keyID: String
    private let clientEmail: String
    private let state = Mutex(State())

    init(publicKey: SigningKey, keyID: String, clientEmail: String) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.clientEmail = clientEmail
    }

    /// How many access tokens were issued since start.
    var exchanges: Int { state.withLock { $0.exchanges } }

    /// Whether `authorization` is `Bearer <token>` for a token issued here and unexpired at `now`.
    func authorizes(_ authorization: String?, now: Date) -> Bool {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return false
        }
        let token = String(authorization.dropFirst(7))
        return state.withLock { $0.issued[token].map { now < $0 } ?? false }
    }

    /// Forgets every issued token: the next send with one gets 401 (a revoked credential).
    func revokeAll() {
        state.withLock { $0.issued = [:] }
    }

    /// The answer to a token request received at `now`.
    func respond(to request: HTTP2Request, now: Date) -> HTTP2Response {
        do {
            let expires = now.addingTimeInterval(TimeInterval(Self.tokenLifetime))
            try check(request, now: now)
            let token = "ya29.sandbox-" + Hex.encode(SecureRandom.bytes(count: 24))
            state.withLock { state in
                state.issued = state.issued.filter { now < $0.value }
                state.issued[token] = expires
                state.exchanges += 1
            }
            let body: [String: Any] = [
                "access_token": token, "expires_in": Self.tokenLifetime, "token_type": "Bearer",
            ]
            return FCMReply(status: 200, object: body).response
        } catch {
            return error.response
        }
    }

    private func check(_ request: HTTP2Request, now: Date) throws(FCMReply) {
        guard request.method == "POST" else { throw .oauth(405, "invalid_request", "Method not allowed") }
        guard request.header("content-type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        else { throw .oauth(400, "invalid_request", "Bad Request") }
        guard let fields = Self.form(request.body) else { throw .oauth(400, "invalid_request", "Bad Request") }
        guard let grantType = fields["grant_type"] else {
            throw .oauth(400, "invalid_request", "Missing required parameter: grant_type")
        }
        guard grantType == Self.grantType else {
            throw .oauth(400, "unsupported_grant_type", "Invalid grant_type: \(grantType.prefix(80))")
        }
        guard let assertion = fields["assertion"] else {
            throw .oauth(400, "invalid_request", "Missing required parameter: assertion")
        }
        guard let verified = try? JWT.verify(assertion, key: publicKey, claims: ServiceAccountAssertionClaims.self),
            verified.header.kid.map({ $0 == keyID }) ?? true
        else { throw .oauth(400, "invalid_grant", "Invalid JWT Signature.") }
        let claims = verified.claims
        guard claims.iss == clientEmail else { throw .oauth(400, "invalid_grant", "Invalid grant: account not found") }
        let audience = "\(request.scheme)://\(request.authority)\(Self.path)"
        guard claims.aud == Self.googleAudience || claims.aud == audience else {
            throw .oauth(
                400, "invalid_grant",
                "Invalid JWT: Failed audience check. The expected audience is \(Self.googleAudience).")
        }
        guard claims.scope.split(separator: " ").contains(where: Self.sendingScopes.contains) else {
            throw .oauth(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard claims.exp > claims.iat, claims.exp - claims.iat <= 3_600, claims.iat <= seconds + Self.futureLeeway,
            claims.exp > seconds
        else {
            throw .oauth(
                400, "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                    + "Check your iat and exp values in the JWT claim.")
        }
    }

    /// The fields of a form body (later duplicates ignored), or nil when it is not one.
    private static func form(_ body: [UInt8]) -> [String: String]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.percentDecoded(plusIsSpace: true) }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
