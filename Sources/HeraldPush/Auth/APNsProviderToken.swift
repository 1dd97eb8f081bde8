import FoundationEssentials
import HeraldCrypto
import Synchronization

/// The APNs provider authentication token (an ES256 JWT from a `.p8` key), minted once and
/// reused for every request until it is ``refreshAge`` old.
///
/// Apple refuses tokens older than an hour (`ExpiredProviderToken`) and a new token sooner
/// than 20 minutes after the last (`TooManyProviderTokenUpdates`), so a token is never
/// minted per request.
public final class APNsProviderToken: Sendable {
    /// Why APNs refused a token, as its `reason` says.
    public enum Rejection: Sendable, Equatable {
        /// `ExpiredProviderToken`: honoured only once the token is ``minimumAge`` old.
        case expired
        /// `InvalidProviderToken`: the token is dropped at once.
        case invalid
    }

    /// Apple's floor between two tokens.
    public static let minimumAge: TimeInterval = 20 * 60
    /// The age at which a new token is minted.
    public static let refreshAge: TimeInterval = 50 * 60
    /// Apple's ceiling on a token's age: older tokens get `ExpiredProviderToken`.
    public static let maximumAge: TimeInterval = 60 * 60

    private struct Minted {
        var token: String
        var issuedAt: Date
    }

    private struct State {
        var minted: Minted?
        /// Tokens APNs refused, newest last (a few): a shared one is not adopted again.
        var rejected: [String] = []
    }

    /// Refused tokens remembered at most.
    private static let rejectedMemory = 8

    private let key: SigningKey
    /// The key's id (`kid`), which names the token servers share.
    public let keyID: String
    private let teamID: String
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())

    /// A token source for the `.p8` `key` with id `keyID` of team `teamID`; `clock` tells the
    /// time (tests inject their own). Throws ``CryptoError/invalidKey`` unless `key` is a
    /// private P-256 key.
    public init(key: SigningKey, keyID: String, teamID: String, clock: @escaping @Sendable () -> Date = Date.init)
        throws
    {
        guard key.kind == .p256, key.isPrivate else {
            throw CryptoError.invalidKey
        }
        precondition(!keyID.isEmpty && !teamID.isEmpty, "APNs key id and team id must not be empty")
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    /// The token for the `authorization: bearer` header: the current one while it is younger
    /// than ``refreshAge``, otherwise a new one.
    public func current() throws -> String {
        try state.withLock { state in
            if let existing = state.minted, clock().timeIntervalSince(existing.issuedAt) < Self.refreshAge {
                return existing.token
            }
            let fresh = try sign()
            state.minted = Minted(token: fresh.token, issuedAt: fresh.issuedAt)
            return fresh.token
        }
    }

    /// A token signed now (its `iat` in whole seconds), not yet in use: what this server offers
    /// the others to share before ``adopt(_:issuedAt:)``.
    public func sign() throws -> (token: String, issuedAt: Date) {
        let issuedAt = Date(timeIntervalSince1970: clock().timeIntervalSince1970.rounded(.down))
        let token = try JWT.sign(
            header: ["kid": keyID],
            claims: APNsProviderClaims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), key: key)
        return (token, issuedAt)
    }

    /// Sends with `token`, issued at `issuedAt`, from now on: the token every server on one
    /// database shares. A token APNs refused, or one issued before the current, is ignored.
    /// Answers whether it is now the current token.
    @discardableResult
    public func adopt(_ token: String, issuedAt: Date) -> Bool {
        state.withLock { state in
            if state.rejected.contains(token) { return false }
            if let existing = state.minted, existing.token != token, existing.issuedAt > issuedAt { return false }
            state.minted = Minted(token: token, issuedAt: issuedAt)
            return true
        }
    }

    /// The tokens APNs refused lately, newest last.
    public var rejectedTokens: [String] { state.withLock { $0.rejected } }

    /// Reports that APNs refused `token`, so that the next ``current()`` mints a new one when
    /// allowed: at once for ``Rejection/invalid``, and for ``Rejection/expired`` only once the
    /// token is ``minimumAge`` old. A token other than the current one (a late answer to an
    /// older request) changes nothing. Answers whether the token was dropped.
    @discardableResult
    public func rejected(_ token: String, _ reason: Rejection) -> Bool {
        state.withLock { state in
            guard let existing = state.minted, existing.token == token else { return false }
            if reason == .expired, clock().timeIntervalSince(existing.issuedAt) < Self.minimumAge { return false }
            state.minted = nil
            state.rejected = Array((state.rejected + [token]).suffix(Self.rejectedMemory))
            return true
        }
    }
}
