import FoundationEssentials
import HeraldCrypto
import Synchronization

/// Checks the `authorization: bearer <JWT>` of a push request as APNs does: an ES256 signature by
/// the sandbox's key, its key id and team id, an `iat` under an hour old, and no new token sooner
/// than 20 minutes after the last one was adopted.
///
/// Adopted tokens are remembered, so a request carrying one skips the signature check. A token
/// invalidated on demand (``invalidate(_:)``) is refused from then on.
final class APNsProviderAuth: Sendable {
    /// Apple's floor between two new tokens of one key.
    static let minimumTokenInterval: TimeInterval = 20 * 60
    /// Apple's ceiling on a token's age.
    static let maximumTokenAge: TimeInterval = 60 * 60
    /// Clock skew allowed for an `iat` in the future.
    static let futureLeeway: TimeInterval = 60

    private struct State {
        /// Adopted tokens and their `iat` (seconds since 1970).
        var adopted: [String: Int64] = [:]
        var lastAdoption: Date?
        var lastAdopted: String?
        /// Tokens refused as invalid whatever their signature.
        var invalidated: Set<String> = []
    }

    private let publicKey: SigningKey
    private let keyID: String
    private let teamID: String
    private let state = Mutex(State())

    init(publicKey: SigningKey, keyID: String, teamID: String) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Nil when `authorization` carries a token APNs would take at `now`, else why not.
    func check(_ authorization: String?, now: Date) -> APNsReason? {
        // Bytes, not characters: this runs once per push, and a JWT is a few hundred ASCII bytes.
        guard let authorization, authorization.utf8.count > 7,
            String(decoding: authorization.utf8.prefix(7), as: UTF8.self).lowercased() == "bearer "
        else { return .missingProviderToken }
        let token = String(decoding: authorization.utf8.dropFirst(7), as: UTF8.self)
        let (adopted, invalidated) = state.withLock { ($0.adopted[token], $0.invalidated.contains(token)) }
        if invalidated { return .invalidProviderToken }
        if let adopted { return Self.isExpired(iat: adopted, now: now) ? .expiredProviderToken : nil }
        guard let verified = try? JWT.verify(token, key: publicKey, claims: APNsProviderClaims.self),
            verified.header.kid == keyID, verified.claims.iss == teamID,
            TimeInterval(verified.claims.iat) <= now.timeIntervalSince1970 + Self.futureLeeway
        else { return .invalidProviderToken }
        let iat = verified.claims.iat
        if Self.isExpired(iat: iat, now: now) { return .expiredProviderToken }
        return state.withLock { state in
            if let last = state.lastAdoption, now.timeIntervalSince(last) < Self.minimumTokenInterval {
                return .tooManyProviderTokenUpdates
            }
            state.adopted = state.adopted.filter { !Self.isExpired(iat: $0.value, now: now) }
            state.adopted[token] = iat
            state.lastAdoption = now
            state.lastAdopted = token
            return nil
        }
    }

    /// Refuses `token` from now on with `InvalidProviderToken`, as APNs does a token it stopped
    /// trusting. When it is the token adopted last, a new one may replace it at once: the floor
    /// between new tokens guards against churn, not against replacing a refused token.
    func invalidate(_ token: String) {
        state.withLock { state in
            state.invalidated.insert(token)
            state.adopted[token] = nil
            if state.lastAdopted == token { state.lastAdoption = nil }
        }
    }

    private static func isExpired(iat: Int64, now: Date) -> Bool {
        now.timeIntervalSince1970 - TimeInterval(iat) > maximumTokenAge
    }
}
